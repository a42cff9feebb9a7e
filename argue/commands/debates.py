"""Commands on existing debates: resume, stop, interject, status, transcript, synthesize."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from argue.commands._debate import (
    DEBATES_DIR_HELP,
    _report,
    app_errors,
    command_name,
    finish,
    max_attempts_option,
    quiet_option,
    request_timeout_option,
    slots_option,
    structured_output_option,
    workspace,
)
from argue.console import die, stdout_console
from argue.text.controls import dumps as safe_dumps
from argue.text.controls import one_line

# ------------------------------------------------------------------ resume / stop / status


def resume_command(
    debate_id: str = typer.Argument(..., help="The debate to continue."),
    provider: str | None = typer.Option(None, "--provider", help="Override the provider."),
    model: str | None = typer.Option(None, "--model", help="Override the model."),
    budget_usd: float | None = typer.Option(
        None, "--budget-usd", help="A new spending limit (e.g. after budget_exhausted)."
    ),
    max_tokens: int | None = typer.Option(
        None, "--max-tokens", help="A new token limit (e.g. after budget_exhausted)."
    ),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    request_timeout: float | None = request_timeout_option(),
    max_attempts: int | None = max_attempts_option(),
    slots: int | None = slots_option(),
    structured_output: str | None = structured_output_option(),
    json_output: bool = typer.Option(False, "--json", help="End with one JSON object on stdout."),
    quiet: bool = quiet_option(),
) -> None:
    """Continue a stopped or interrupted debate from its last committed step."""
    from argue import app

    with app_errors():
        app.check_bounds(
            budget_usd=budget_usd,
            max_tokens=max_tokens,
            request_timeout_s=request_timeout,
            max_attempts=max_attempts,
            slots=slots,
        )
        where = workspace(debates_dir)
        result = app.resume(
            debate_id,
            provider=provider,
            model=model,
            budget_usd=budget_usd,
            max_tokens=max_tokens,
            limits=app.server_limits(request_timeout, max_attempts, slots, structured_output),
            workspace=where,
            reporter=_report,
            command=command_name(),
        )
        store = where.open(debate_id)
    finish(store, result, json_output, quiet=quiet)


def stop_command(
    debate_id: str | None = typer.Argument(None, help="The debate to stop (default: all running)."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Ask running debates to finish their current batch, checkpoint and exit (status stopped)."""
    from argue import app

    with app_errors():
        results = app.stop(debate_id, workspace=workspace(debates_dir))
    if not results:
        _report("No running debate to stop.")
    for result in results:
        if result.stop_requested:
            stdout_console.print(result.message, markup=False)
        else:
            _report(result.message)


def interject_command(
    debate_id: str = typer.Argument(..., help="The debate to address."),
    note: str = typer.Argument(..., help="A constraint that binds the next rounds."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Add a moderator note; it binds every round that starts after it."""
    from argue import app

    with app_errors():
        result = app.interject(debate_id, note, workspace=workspace(debates_dir))
    stdout_console.print(result.message, markup=False)


def status_command(
    debate_id: str | None = typer.Argument(None, help="One debate (default: all)."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
    follow: bool = typer.Option(
        False, "--follow", "-f", help="Follow one running debate (the same as: watch ID)."
    ),
) -> None:
    """Show where debates stand."""
    from argue import app

    where = workspace(debates_dir)
    with app_errors():
        if follow:
            from argue.commands.watch import follow_and_exit

            if not debate_id or json_output:
                die("--follow takes one debate ID and no --json", 2)
            follow_and_exit(where.open(debate_id), interval=1.0)
        if debate_id:
            rows = [app.status(debate_id, full=json_output, workspace=where)]
        else:
            listing = app.statuses(full=json_output, workspace=where)
            for line in listing.skipped:
                _report(f"warning: {line}")
            rows = listing.debates
    if json_output:
        documents = [row.as_json() for row in rows]
        print(safe_dumps(documents[0] if debate_id else documents, ensure_ascii=False))
        return
    if not rows:
        stdout_console.print(f"No debates in {where.root}", markup=False)
        return
    items = [row.model_dump() for row in rows]
    languages = {row.language for row in rows}
    lang = languages.pop() if len(languages) == 1 else "en"
    table = status_table(items, stdout_console.width, wrap=stdout_console.is_terminal, lang=lang)
    stdout_console.print(table, markup=False, emoji=False)


def status_table(
    rows: list[dict[str, Any]], width: int, *, wrap: bool = False, lang: str = "en"
) -> str:
    """Id, status, round and termination always whole; mode and personas only when there is
    room; the question takes what is left: in a terminal (``wrap``) it wraps onto lines of its
    own column, piped it is cut to one line (one debate a line, for grep and scripts).

    Plain lines, not a rich Table: a thousand debates render in milliseconds (a Table took
    0.4 s). Every cell comes from a debate's files, so control characters go before widths
    are measured. ``lang`` "fr": French headers, and words for status, termination and mode
    (English keeps the ids a script greps for)."""
    from rich.cells import cell_len, set_cell_size

    from argue.records.labels import label_of
    from argue.records.terminal import word

    def shown(kind: str, value: str | None) -> str:
        return (value or "—") if lang == "en" else word(kind, value, lang)

    names = ["id", "status", "round", "termination", "mode", "personas", "question"]
    headers = [label_of("status_h", name, lang) for name in names[:-1]]
    question_header = label_of("status_h", "question", lang)
    cells = [
        [
            _cell(value)
            for value in (
                row["id"],
                shown("status", row["status"]),
                f"{row['round']}/{row['max_rounds']}",
                shown("termination", row["termination"]),
                shown("mode", row["mode"]),
                ", ".join(row["personas"].values()),
            )
        ]
        for row in rows
    ]
    widths = [max([len(h), *(cell_len(c[i]) for c in cells)]) for i, h in enumerate(headers)]
    gap = 3
    keep = 4 if sum(widths) + gap * 6 + 20 > width else 6  # mode, personas only when roomy
    used = sum(w + gap for w in widths[:keep])
    question_width = max(8, width - used)

    def line(values: list[str], question: str) -> str:
        padded = "".join(
            v + " " * (w + gap - cell_len(v))
            for v, w in zip(values, widths[: len(values)], strict=True)
        )
        return (padded + question).rstrip()

    lines = [line(headers[:keep], question_header), "─" * (used + question_width)]
    for row, values in zip(rows, cells, strict=True):
        question = _cell(row["question"])
        if wrap:
            first, *rest = _wrap_cell(question, question_width)
            lines.append(line(values[:keep], first))
            lines.extend(" " * used + more for more in rest)
            continue
        if cell_len(question) > question_width:
            question = set_cell_size(question, question_width - 1).rstrip() + "…"
        lines.append(line(values[:keep], question))
    return "\n".join(lines)


def _wrap_cell(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken between words (a word wider than
    the column is folded); never an empty list."""
    from rich.cells import cell_len, chop_cells

    lines: list[str] = []
    current = ""
    for word in text.split():
        pieces = chop_cells(word, width) if cell_len(word) > width else [word]
        for piece in pieces:
            joined = f"{current} {piece}" if current else piece
            if cell_len(joined) <= width:
                current = joined
            else:
                lines.append(current)
                current = piece
    return [*lines, current] if current or not lines else lines


def _cell(value: object) -> str:
    return one_line(value)


# ------------------------------------------------------------------ transcript / synthesize


def transcript_command(
    debate_id: str = typer.Argument(..., help="The debate to show."),
    raw: bool = typer.Option(False, "--raw", help="Print the Markdown source as is."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Print a debate's transcript, re-rendered from its saved records."""
    from argue import app

    with app_errors():
        text = app.transcript(debate_id, workspace=workspace(debates_dir))
    _print_markdown(text, raw)


def synthesize_command(
    debate_id: str = typer.Argument(..., help="The debate to synthesize."),
    provider: str | None = typer.Option(None, "--provider", help="Override the provider."),
    model: str | None = typer.Option(None, "--model", help="Override the model."),
    raw: bool = typer.Option(False, "--raw", help="Print the Markdown source as is."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    json_output: bool = typer.Option(
        False,
        "--json",
        help="Print one JSON object (where it was written, the strongest arguments of each side) "
        "instead of the Markdown.",
    ),
) -> None:
    """(Re)write synthesis.md; a debate that did not finish gets a synthesis labelled partial."""
    from argue import app

    with app_errors():
        result = app.synthesize(
            debate_id,
            provider=provider,
            model=model,
            workspace=workspace(debates_dir),
            reporter=_report,
        )
    if json_output:
        print(safe_dumps(result.as_json(), ensure_ascii=False))
        return
    _print_markdown(result.text, raw)


def _print_markdown(text: str, raw: bool) -> None:
    if raw or not sys.stdout.isatty():
        sys.stdout.write(text)
        return
    from rich.markdown import Markdown

    stdout_console.print(Markdown(text))
