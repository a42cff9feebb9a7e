"""The local library (ingested books and transcripts): offline, always available."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from argue.skills.base import SkillResult

SOURCE = "library"


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
