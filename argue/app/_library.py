"""The local library (books, papers, notes, transcripts the personas can cite): add, search,
list, remove. Each operation opens the library, does its work and closes it; errors are
``ArgueError`` (a wrong id or limit: ``UsageError``; an unreadable database: ``OperationError``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argue.app._errors import OperationError, UsageError

if TYPE_CHECKING:
    from argue.skills.base import SkillResult
    from argue.skills.library import DocumentInfo


@dataclass(frozen=True)
class AddedFile:
    """One file's outcome: ``status`` is added, duplicate or error (``error`` says why)."""

    path: str
    status: str
    error: str = ""
    document: dict[str, Any] = field(default_factory=dict)  # the library's record when added

    def as_json(self) -> dict[str, Any]:
        if self.status == "error":
            return {"path": self.path, "status": self.status, "error": self.error}
        return {"path": self.path, "status": self.status, **self.document}


def add_to_library(
    paths: list[Path], *, on_file: Callable[[AddedFile], None] | None = None
) -> list[AddedFile]:
    """Ingest ``paths``; a file that fails does not stop the others (its outcome says why).
    ``on_file`` hears each outcome as it happens (a long ingest shows progress). A bad limit
    variable is a ``UsageError`` before any file is read."""
    from argue.skills.library import LibraryError, LibraryStore
    from argue.skills.library.limits import IngestLimits

    try:
        limits = IngestLimits.from_env()
    except LibraryError as exc:
        raise UsageError(str(exc)) from None
    outcomes: list[AddedFile] = []
    try:
        with LibraryStore() as store:
            for path in paths:
                try:
                    added = store.add(path, limits)
                except LibraryError as exc:
                    outcome = AddedFile(str(path), "error", error=str(exc))
                else:
                    status = "duplicate" if added.duplicate else "added"
                    outcome = AddedFile(str(path), status, document=added.model_dump())
                outcomes.append(outcome)
                if on_file is not None:
                    on_file(outcome)
    except LibraryError as exc:
        raise OperationError(str(exc)) from None
    return outcomes


def search_library(query: str, k: int = 5) -> SkillResult:
    """The ``k`` best passages for ``query`` (BM25); a query with no searchable word is a
    ``UsageError``. A library that could not be read is a failed result, not an exception."""
    import asyncio

    from argue.skills.library import query_terms
    from argue.skills.library import search_library as search

    if not query_terms(query):
        raise UsageError(f"the query {query!r} has no searchable words")
    return asyncio.run(search(query, k))


def library_documents() -> list[DocumentInfo]:
    """Every document in the library, oldest first."""
    from argue.skills.library import LibraryError, LibraryStore

    try:
        with LibraryStore() as store:
            return store.list_documents()
    except LibraryError as exc:
        raise OperationError(str(exc)) from None


@dataclass(frozen=True)
class RemovedDocument:
    doc_id: str
    title: str


def remove_from_library(doc_id: str) -> RemovedDocument:
    """Remove one document (its id or a unique prefix) and its passages. An id that names no
    document, or several, is a ``UsageError``; a database failure an ``OperationError``."""
    from argue.skills.library import LibraryError, LibraryStore

    try:
        with LibraryStore() as store:
            try:
                full_id = store.resolve(doc_id)
            except LibraryError as exc:
                # Not found, ambiguous or empty: the id is wrong. A database failure (raised
                # from the sqlite3 error) is not the id's fault.
                if exc.__cause__ is not None:
                    raise OperationError(str(exc)) from None
                raise UsageError(str(exc)) from None
            document = store.get(full_id)
            store.remove(full_id)
    except LibraryError as exc:
        raise OperationError(str(exc)) from None
    return RemovedDocument(full_id, document.title if document else "")
