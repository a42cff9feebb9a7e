"""The local library (consume-book, consume-youtube): ingest files, search them with FTS5."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from argue.skills._fts import query_terms, without_highlights
from argue.skills.base import SkillResult
from argue.skills.library.ingest import SUPPORTED_SUFFIXES
from argue.skills.library.models import AddResult, DocumentInfo, LibraryError, LibraryHit
from argue.skills.library.store import LibraryStore

__all__ = [
    "EMPTY_LIBRARY_NOTE",
    "SUPPORTED_SUFFIXES",
    "AddResult",
    "DocumentInfo",
    "LibraryError",
    "LibraryHit",
    "LibraryStore",
    "query_terms",
    "search_library",
    "without_highlights",
]

SKILL = "library"
EMPTY_LIBRARY_NOTE = "library is empty — add files with `argue library add`"


async def search_library(query: str, k: int = 5, *, db_path: Path | None = None) -> SkillResult:
    """Search the local library; never raises for an expected failure."""
    return await asyncio.to_thread(_search_library, query, k, db_path)


def _search_library(query: str, k: int, db_path: Path | None) -> SkillResult:
    started = time.perf_counter()

    def elapsed() -> float:
        return round(time.perf_counter() - started, 4)

    if k < 1:
        return SkillResult.refused(SKILL, query, f"k must be at least 1 (got {k})")
    if not query_terms(query):
        return SkillResult.refused(SKILL, query, f"query {query!r} has no searchable words")
    try:
        store = LibraryStore(db_path)
        if not store.db_path.exists():
            return SkillResult(
                skill=SKILL,
                query=query,
                status="empty",
                note=EMPTY_LIBRARY_NOTE,
                elapsed_s=elapsed(),
            )
        with store:
            if store.chunk_total() == 0:
                return SkillResult(
                    skill=SKILL,
                    query=query,
                    status="empty",
                    note=EMPTY_LIBRARY_NOTE,
                    elapsed_s=elapsed(),
                )
            hits = store.search(query, k)
    except LibraryError as exc:
        return SkillResult.failed(SKILL, query, str(exc), elapsed_s=elapsed())
    if not hits:
        return SkillResult(
            skill=SKILL,
            query=query,
            status="empty",
            note=f"library has no match for {query!r}",
            elapsed_s=elapsed(),
        )
    items = [hit.to_skill_item() for hit in hits]
    return SkillResult.from_items(
        SKILL, query, items, note=f"{len(items)} passage(s) from the library", elapsed_s=elapsed()
    )
