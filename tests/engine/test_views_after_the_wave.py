"""A round's readable views (ledgers, usage.json, summary.json, transcript.md) are written in a
worker thread that holds the GIL; it starts only once the next wave's requests are out, one per
persona, so it never delays building the others (issue 43 item 4: with the first request out
it delayed a panel's other four; bench/overhead.py panel/pair wall 1.14-1.16 -> 1.08-1.10).

Teeth (each broken once by hand; the test failed): ``model.on_send = gate.go.set`` (the
views go with the first call); ``ViewsGate.on_send`` calling ``go.set()`` instead of
``after_this_turn(go.set)`` (they go before the last request is out); ``_conclude`` without
``_next_wave_is_one_call`` (the last round's views waited for the synthesis's answer).
"""

from __future__ import annotations

import asyncio

from argue.engine import DebateRunner, create_debate
from argue.llm import ScriptedModel
from tests.engine.script import DebateScript, ScriptedToolkit, names_of

PANEL = 5


class WatchingModel(ScriptedModel):
    """Notes, as each call reaches the model (before its request is out), whether the views
    of the last committed round were let go."""

    def __init__(self, script: DebateScript) -> None:
        super().__init__(script)
        self.runner: DebateRunner | None = None
        self.seen: list[tuple[str, bool | None]] = []

    async def complete(self, messages, *, output=None, **settings):  # type: ignore[no-untyped-def, override]
        gate = None if self.runner is None else self.runner._views_gate
        go = None if gate is None else gate.go
        self.seen.append((getattr(output, "__name__", "text"), None if go is None else go.is_set()))
        return await super().complete(messages, output=output, **settings)


def test_the_views_wait_for_every_persona_s_call_of_the_next_wave(tmp_path, personas):
    lineup = [personas[name] for name in list(personas)[:PANEL]]
    store = create_debate(
        tmp_path / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="panel",
        personas=lineup,
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
    )
    model = WatchingModel(DebateScript(names=names_of(lineup)))
    model.runner = DebateRunner(store, model, ScriptedToolkit())
    state = asyncio.run(model.runner.run())

    assert state.status == "completed"
    after_round_1 = [row for row in model.seen if row[1] is not None]
    arguments = [seen for name, seen in after_round_1 if name == "ArgumentDraft"]
    # Round 2's five argument calls all reach the model before the views may start…
    assert arguments == [False] * PANEL
    # …and the next wave finds them let go (the last argument request went out).
    assert after_round_1[PANEL] == ("RebuttalDraft", True)
    assert store.has(store.paths.transcript)
    # After the last round the next wave is the synthesis alone: its call lets the views go
    # (waiting for one call per persona, they were written only after its answer).
    assert model.seen[-1] == ("SynthesisDraft", True)
