"""Memory: what each persona learned (isolated per persona) and the shared episodic archive."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from argue.skills.base import SkillResult
from argue.skills.memory.store import (
    MemoryOrigin,
    MemoryRecord,
    MemoryScope,
    MemoryStore,
    MemoryStoreError,
)

__all__ = [
    "MemoryOrigin",
    "MemoryRecord",
    "MemoryScope",
    "MemoryStore",
    "MemoryStoreError",
    "learn_memory",
    "recall_memory",
]


async def recall_memory(
    query: str,
    persona: str | None = None,
    k: int = 5,
    min_score: float = 0.0,
    include_shared: bool = True,
    *,
    db_path: Path | None = None,
) -> SkillResult:
    """MemoryStore.recall off the event loop; an unusable database comes back as ``failed``."""
    return await asyncio.to_thread(_recall, query, persona, k, min_score, include_shared, db_path)


def _recall(
    query: str,
    persona: str | None,
    k: int,
    min_score: float,
    include_shared: bool,
    db_path: Path | None,
) -> SkillResult:
    try:
        with MemoryStore(db_path) as store:
            return store.recall(query, persona, k, min_score, include_shared)
    except MemoryStoreError as exc:
        return SkillResult.failed("memory", query, str(exc))


async def learn_memory(
    persona: str | None,
    text: str,
    *,
    kind: str = "note",
    debate_id: str | None = None,
    round_no: int | None = None,
    tags: Sequence[str] = (),
    scope: MemoryScope = "persona",
    origin: MemoryOrigin = "model",
    db_path: Path | None = None,
) -> str:
    """MemoryStore.learn off the event loop; returns ``mem:<n>``.

    Raises MemoryStoreError (bad input or unusable database): the caller decides how to report
    a memory that could not be stored.
    """

    def learn() -> str:
        with MemoryStore(db_path) as store:
            return store.learn(
                persona,
                text,
                kind=kind,
                debate_id=debate_id,
                round_no=round_no,
                tags=tuple(tags),
                scope=scope,
                origin=origin,
            )

    return await asyncio.to_thread(learn)
