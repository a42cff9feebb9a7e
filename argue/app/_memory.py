"""What personas remember across debates: recall, learn, list, forget. Errors are
``ArgueError`` (a wrong request: ``UsageError``; an unusable database: ``OperationError``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from argue.app._errors import OperationError, UsageError

if TYPE_CHECKING:
    from argue.skills.base import SkillResult
    from argue.skills.memory import MemoryRecord


def recall(
    query: str,
    persona: str | None = None,
    *,
    k: int = 5,
    min_score: float = 0.0,
    include_shared: bool = True,
) -> SkillResult:
    """The ``k`` memories that best match ``query`` (``persona``'s, and the shared archive's
    unless ``include_shared`` is false). A database that could not be read is a failed result."""
    import asyncio

    from argue.skills.library import query_terms
    from argue.skills.memory import recall_memory

    if not include_shared and not (persona and persona.strip()):
        raise UsageError("leaving the shared archive out needs a persona (nothing to search)")
    if not query_terms(query):
        raise UsageError(f"the query {query!r} has no searchable words")
    return asyncio.run(recall_memory(query, persona, k, min_score, include_shared=include_shared))


def learn(
    text: str,
    *,
    persona: str | None = None,
    shared: bool = False,
    tags: list[str] | None = None,
    kind: str = "note",
) -> str:
    """Store one memory (``persona``'s, or the shared archive's) and return its id."""
    from argue.skills.memory import MemoryStore, MemoryStoreError

    owner = persona.strip() if persona else ""
    if not owner and not shared:
        raise UsageError("say whose memory this is: a persona, or the shared archive")
    if not text.strip():
        raise UsageError("the memory text is empty")
    if owner and not shared:
        from argue.personas import PersonaFileError, UnknownPersonaError, load_catalog

        try:
            load_catalog().get(owner)
        except (UnknownPersonaError, PersonaFileError) as exc:
            raise UsageError(str(exc)) from None
    try:
        with MemoryStore() as store:
            return store.learn(
                persona,
                text,
                kind=kind,
                tags=list(tags or []),
                scope="shared" if shared else "persona",
                origin="operator",
            )
    except MemoryStoreError as exc:
        raise OperationError(str(exc)) from None


def memories(persona: str | None = None, limit: int = 50) -> list[MemoryRecord]:
    """Stored memories, newest first (everyone's unless ``persona``)."""
    from argue.skills.memory import MemoryStore, MemoryStoreError

    try:
        with MemoryStore() as store:
            return store.list(persona, limit)
    except MemoryStoreError as exc:
        raise OperationError(str(exc)) from None


def forget(memory_id: str) -> None:
    """Delete one memory; an id that names none is a ``UsageError``."""
    from argue.skills.memory import MemoryStore, MemoryStoreError

    try:
        with MemoryStore() as store:
            forgotten = store.forget(memory_id)
    except MemoryStoreError as exc:
        raise OperationError(str(exc)) from None
    if not forgotten:
        raise UsageError(f"no memory with id {memory_id}")
