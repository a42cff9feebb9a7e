"""The debate engine: create a debate, run or resume it, rebuild its record from disk."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from argue.domain import DebateConfig, Mode, Persona
from argue.engine.context import DebateHistory, RoundRecord
from argue.engine.modes import ModeError, validate_lineup
from argue.engine.orchestrator import DebateFailed, DebateRunner, Reporter, load_history
from argue.engine.scoring import WEIGHTS
from argue.engine.synthesis import write_synthesis
from argue.engine.toolkit import ResearchRequest, ResearchToolkit, SkillToolkit
from argue.store import DebateStore, new_debate_id, persona_letter

__all__ = [
    "WEIGHTS",
    "DebateFailed",
    "DebateHistory",
    "DebateRunner",
    "ModeError",
    "Reporter",
    "ResearchRequest",
    "ResearchToolkit",
    "RoundRecord",
    "SkillToolkit",
    "create_debate",
    "load_history",
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
    budget_usd: float | None = None,
    selection_reason: str | None = None,
    debate_id: str | None = None,
) -> DebateStore:
    """Write config.json, state.json and a snapshot of each persona; nothing else runs yet."""
    if not question.strip():
        raise ModeError("the question is empty")
    if max_rounds < 1:
        raise ModeError("--rounds must be at least 1")
    validate_lineup(mode, [p.name for p in personas])
    debates_dir.mkdir(parents=True, exist_ok=True)
    config = DebateConfig(
        id=debate_id or new_debate_id(debates_dir),
        question=question.strip(),
        mode=mode,
        personas={persona_letter(i): p.name for i, p in enumerate(personas)},
        max_rounds=max_rounds,
        provider=provider,
        model=model,
        research_sources=list(research_sources),
        budget_usd=budget_usd,
        selection_reason=selection_reason,
    )
    store = DebateStore.create(debates_dir, config)
    for index, persona in enumerate(personas):
        persona_dir = store.paths.persona_dir(persona_letter(index))
        for sub in ("research", "colleague_consults", "arguments"):
            (persona_dir / sub).mkdir(parents=True, exist_ok=True)
        store.save(persona_dir / "persona.json", persona)
        store.save(store.paths.concessions(persona_letter(index)), [])
        store.save(store.paths.confidence(persona_letter(index)), [])
    store.paths.scoring_dir.mkdir(exist_ok=True)
    return store


async def memory_writer(persona: str | None, text: str, **fields: object) -> str:
    """Store a memory through the memory skill (real SQLite under ARGUE_HOME)."""
    from skills.memory import learn_memory

    return await learn_memory(persona, text, **fields)  # type: ignore[arg-type]
