"""``argue library add|search|list|remove``: the local books, papers and transcripts to cite."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from argue.commands._output import echo_json, note, show_skill_result
from argue.console import echo

if TYPE_CHECKING:
    from argue.app import AddedFile, SkillItem

library_app = typer.Typer(
    help="The local library: books, papers, notes and transcripts the personas can cite.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


# Written out (not built from IngestLimits) so that `--help` imports nothing; a test checks that
# every limit is listed.
_ADD_LIMITS_HELP = """\
A file over a limit is refused with one line naming it and the limit; the library is left as
it was. Limits (environment variables; sizes in MB of 2^20 bytes):

\b
ARGUE_LIBRARY_MAX_FILE_MB (100): any file, before it is read.
ARGUE_LIBRARY_MAX_UNZIPPED_MB (200): EPUB, all entries decompressed.
ARGUE_LIBRARY_MAX_ENTRY_MB (32): EPUB, one entry decompressed.
ARGUE_LIBRARY_MAX_ENTRIES (10000): EPUB, entries in the zip.
ARGUE_LIBRARY_MAX_ZIP_RATIO (100): EPUB, expansion of an entry over 1 MB.
ARGUE_LIBRARY_MAX_PAGES (2000): PDF pages.
ARGUE_LIBRARY_MAX_SECONDS (60): time to parse one file.
ARGUE_LIBRARY_MAX_CHUNKS (200000): chunks from one file.
ARGUE_LIBRARY_MAX_SUBTITLE_LINE_CHARS (100000): one line of a .srt/.vtt
  (text and Markdown lines of any length are chunked).
"""


@library_app.command("add", epilog=_ADD_LIMITS_HELP)
def add_command(
    files: list[Path] = typer.Argument(
        ..., help="Files to ingest: .txt .md .pdf .epub .vtt .srt", show_default=False
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON document"),
) -> None:
    """Ingest files into the library; a file that fails does not stop the others (exit 1).

    A bad limit variable is a usage error (exit 2), before any file is read.
    """
    from argue.app import add_to_library
    from argue.commands._debate import app_errors

    with app_errors():
        outcomes = add_to_library(list(files), on_file=None if json_output else _print_added)
    if json_output:
        echo_json({"results": [outcome.as_json() for outcome in outcomes]})
    failures = sum(1 for outcome in outcomes if outcome.status == "error")
    if failures:
        note(f"{failures} of {len(outcomes)} file(s) could not be added")
        raise typer.Exit(1)


def _print_added(outcome: AddedFile) -> None:
    if outcome.status == "error":
        note(f"error      {outcome.error}")
        return
    added = outcome.document
    encoding = f", {added['encoding']}" if added.get("encoding") else ""
    detail = f"{added['title']} ({added['kind']}{encoding}, {added['chunk_count']} chunks)"
    if outcome.status == "duplicate":
        detail += " — already in the library"
    echo(f"{outcome.status:<10} {added['doc_id']}  {detail}  {outcome.path}")


@library_app.command("search")
def search_command(
    query: str = typer.Argument(..., help="Words to look for", show_default=False),
    k: int = typer.Option(5, "--k", help="How many passages to return"),
    json_output: bool = typer.Option(False, "--json", help="Print the SkillResult as JSON"),
) -> None:
    """Search the library (BM25); exit 1 if the library could not be read."""
    from argue.app import check_bounds, search_library
    from argue.commands._debate import app_errors

    with app_errors():
        check_bounds(k=k)
        result = search_library(query, k)
    show_skill_result(result, json_output, _print_hit)


def _print_hit(rank: int, item: SkillItem, score: str) -> None:
    echo(f"{rank}. {item.title}  [score {score}]  {item.id}")
    echo(f"   {item.snippet}")


@library_app.command("list")
def list_command(
    json_output: bool = typer.Option(False, "--json", help="Print one JSON document"),
) -> None:
    """Every document in the library, oldest first."""
    from argue.app import EMPTY_LIBRARY_NOTE, library_documents
    from argue.commands._debate import app_errors

    with app_errors():
        documents = library_documents()
    if json_output:
        echo_json({"documents": [doc.model_dump() for doc in documents]})
        return
    if not documents:
        note(EMPTY_LIBRARY_NOTE)
        return
    for doc in documents:
        echo(
            f"{doc.doc_id}  {doc.kind:<5} {doc.encoding or '-':<10} {doc.chunk_count:>5} chunks  "
            f"{doc.added_at}  {doc.title}  ({doc.path})"
        )


@library_app.command("remove")
def remove_command(
    doc_id: str = typer.Argument(
        ..., metavar="ID", help="Document id (or a unique prefix)", show_default=False
    ),
) -> None:
    """Remove one document and its passages from the library.

    An id that names no document (or several) is exit 2, as everywhere; a library that
    cannot be read or written is exit 1."""
    from argue.app import remove_from_library
    from argue.commands._debate import app_errors

    with app_errors():
        removed = remove_from_library(doc_id)
    echo(f"removed    {removed.doc_id}  {removed.title}")
