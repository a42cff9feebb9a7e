"""The debate engine: create a debate, run or resume it, rebuild its record from disk."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from argue.domain import AnswerFormat, DebateConfig, Mode, Persona, SeatModel
from argue.engine.modes import Lineup, ModeError, seat_lineup, validate_lineup
from argue.engine.orchestrator import DebateFailed, DebateRunner, Reporter, load_history
from argue.engine.scoring import WEIGHTS
from argue.engine.synthesis import write_synthesis
from argue.engine.toolkit import ResearchRequest, ResearchToolkit, SkillToolkit
from argue.llm.base import ChatModel
from argue.records.history import DebateHistory, RoundRecord
from argue.store import DebateStore, new_debate_id, persona_letter
from argue.text.language import Language, detect_language

__all__ = [
    "WEIGHTS",
    "DebateFailed",
    "DebateHistory",
    "DebateRunner",
    "Lineup",
    "ModeError",
    "Reporter",
    "ResearchRequest",
    "ResearchToolkit",
    "RoundRecord",
    "SkillToolkit",
    "create_debate",
    "load_history",
    "render_current_transcript",
    "resynthesize",
    "seat_lineup",
    "validate_lineup",
    "write_synthesis",
]


def create_debate(
    debates_dir: Path,
    *,
    question: str,
    mode: Mode,
    personas: Sequence[Persona],
    max_rounds: int,
    provider: str,
    model: str,
    research_sources: Sequence[str] = (),
    unused_sources: Mapping[str, str] | None = None,
    budget_usd: float | None = None,
    budget_tokens: int | None = None,
    selection_reason: str | None = None,
    debate_id: str | None = None,
    language: Language | None = None,
    persona_models: Mapping[str, SeatModel] | None = None,
    answer_format: AnswerFormat | None = None,
    verifier_model: SeatModel | None = None,
) -> DebateStore:
    """Write config.json, state.json and a snapshot of each persona; nothing else runs yet."""
    if not question.strip():
        raise ModeError("the question is empty")
    if max_rounds < 1:
        raise ModeError("--rounds must be at least 1")
    validate_lineup(mode, [p.name for p in personas])
    config = DebateConfig(
        id=debate_id or new_debate_id(debates_dir),
        question=question.strip(),
        mode=mode,
        personas={persona_letter(i): p.name for i, p in enumerate(personas)},
        max_rounds=max_rounds,
        provider=provider,
        model=model,
        research_sources=list(research_sources),
        unused_sources=None if unused_sources is None else dict(unused_sources),
        budget_usd=budget_usd,
        budget_tokens=budget_tokens,
        selection_reason=selection_reason,
        language=language or detect_language(question),
        persona_models=dict(persona_models or {}),
        answer_format=answer_format,
        verifier_model=verifier_model,
    )
    return DebateStore.create(
        debates_dir,
        config,
        {persona_letter(i): persona for i, persona in enumerate(personas)},
    )


async def memory_writer(persona: str | None, text: str, **fields: object) -> str:
    """Store a memory through the memory skill (real SQLite under ARGUE_HOME)."""
    from argue.skills.memory import learn_memory

    return await learn_memory(persona, text, **fields)  # type: ignore[arg-type]


async def resynthesize(
    store: DebateStore,
    model: ChatModel | None,
    report: Reporter = lambda _: None,
) -> str:
    """Rewrite synthesis.md under the runner lock (a partial one for an unfinished debate).

    ``model`` (a ChatModel, or None to write only the code-assembled parts) is metered into
    usage.jsonl/usage.json like any debate call. Raises DebateLocked while a runner owns the
    debate.
    """
    from argue.engine.metering import MeteredModel

    store.acquire_lock()
    try:
        usage = store.load_usage()
        metered = (
            MeteredModel(model, usage, record=store.append_usage) if model is not None else None
        )
        history = load_history(store)
        text = await write_synthesis(store, history, metered, usage, report)
        store.save(store.paths.usage, usage)
        return text
    finally:
        store.release_lock()


def render_current_transcript(store: DebateStore) -> str:
    """The transcript re-rendered from the records; written to disk unless a runner owns it."""
    from argue.render import render_transcript
    from argue.store import DebateLocked

    history = load_history(store)
    text = render_transcript(history, store.state(), store.load_usage())
    try:
        store.acquire_lock()
    except DebateLocked:
        return text  # the runner re-renders it itself after every phase
    try:
        store.save_text(store.paths.transcript, text)
    finally:
        store.release_lock()
    return text
