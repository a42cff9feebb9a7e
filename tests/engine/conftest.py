from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest

from argue.domain import DebateState, Persona
from argue.engine import DebateRunner, create_debate, load_history
from argue.llm import ScriptedModel
from argue.personas import load_catalog
from argue.records.history import DebateHistory
from argue.store import DebateStore
from tests.engine.script import DebateScript, ScriptedToolkit, names_of


@dataclass
class DebateRun:
    store: DebateStore
    model: ScriptedModel
    toolkit: ScriptedToolkit
    script: DebateScript
    state: DebateState
    events: list[str]

    @property
    def history(self) -> DebateHistory:
        return load_history(self.store)


@pytest.fixture
def personas() -> dict[str, Persona]:
    catalog = load_catalog()
    return {name: catalog.get(name) for name in catalog.names()}


@pytest.fixture
def run_debate(tmp_path: Path, personas: dict[str, Persona]):
    """Create and run a scripted debate; returns a DebateRun."""

    def _run(
        names: list[str] = ("embry", "horus"),  # type: ignore[assignment]
        *,
        mode: str = "adversarial",
        rounds: int = 3,
        script: DebateScript | None = None,
        toolkit: ScriptedToolkit | None = None,
        store: DebateStore | None = None,
        memory_writer=None,
    ) -> DebateRun:
        lineup = [personas[n] for n in names]
        if store is None:
            store = create_debate(
                tmp_path / "debates",
                question="Is the Collatz conjecture decidable?",
                mode=mode,  # type: ignore[arg-type]
                personas=lineup,
                max_rounds=rounds,
                provider="scripted",
                model="scripted-1",
            )
        script = script or DebateScript(names=names_of(lineup))
        toolkit = toolkit or ScriptedToolkit()
        model = ScriptedModel(script)
        events: list[str] = []
        runner = DebateRunner(
            store, model, toolkit, reporter=events.append, memory_writer=memory_writer
        )
        state = asyncio.run(runner.run())
        return DebateRun(store, model, toolkit, script, state, events)

    return _run


@pytest.fixture
def new_store(tmp_path: Path, personas: dict[str, Persona]):
    """A fresh Embry-vs-Horus debate folder (nothing run yet) under ``tmp_path/<name>``."""

    def _create(name: str, *, rounds: int = 2, **config: object) -> DebateStore:
        return create_debate(
            tmp_path / name,
            question="Is the Collatz conjecture decidable?",
            mode="adversarial",
            personas=[personas["embry"], personas["horus"]],
            max_rounds=rounds,
            provider="scripted",
            model="scripted-1",
            **config,  # type: ignore[arg-type]
        )

    return _create
