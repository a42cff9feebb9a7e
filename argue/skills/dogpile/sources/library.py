"""The local library (ingested books and transcripts): offline, always available."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import httpx

from argue.skills.base import SkillResult

SOURCE = "library"
EMPTY_REASON = "the library is empty (add files with `argue library add`)"


def unusable_reason(
    env: Mapping[str, str] | None = None, db_path: Path | None = None
) -> str | None:
    """Why a search of the library could find nothing now (None: it holds passages). Cheap: a
    missing database is empty without being created; an existing one is counted, not
    searched. ``env`` is accepted for the uniform hook; the library's place is ARGUE_HOME's."""
    try:
        from argue.skills.library import LibraryError, LibraryStore
    except ImportError as exc:
        return f"the library skill is unavailable ({exc})"
    try:
        store = LibraryStore(db_path)
        if not store.db_path.exists():
            return EMPTY_REASON
        with store:
            return None if store.chunk_total() > 0 else EMPTY_REASON
    except (LibraryError, OSError) as exc:
        return f"the library cannot be read ({exc})"


async def search(
    query: str,
    *,
    client: httpx.AsyncClient | None = None,
    limit: int,
    db_path: Path | None = None,
) -> SkillResult:
    """``client`` is accepted for a uniform adapter signature; the library never goes online."""
    started = time.monotonic()
    try:
        from argue.skills.library import search_library
    except ImportError as exc:
        return SkillResult.failed(SOURCE, query, f"library: library skill unavailable ({exc})")
    try:
        result = await search_library(query, limit, db_path=db_path)
    except Exception as exc:  # a crash in another skill is reported as this source's failure
        return SkillResult.failed(
            SOURCE,
            query,
            f"library: search failed ({type(exc).__name__}: {exc})",
            elapsed_s=time.monotonic() - started,
        )
    if not isinstance(result, SkillResult):
        return SkillResult.failed(
            SOURCE, query, f"library: search returned {type(result).__name__}, not a SkillResult"
        )
    return result.model_copy(
        update={
            "skill": SOURCE,
            "items": result.items[:limit],
            "elapsed_s": result.elapsed_s or time.monotonic() - started,
        }
    )
