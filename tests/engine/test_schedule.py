"""Engine v2: three model waves per round, and a fan-out that cancels (issue 8).

Teeth: replace ``fan_out`` in ``argue/engine/fanout.py`` by ``asyncio.gather`` and the
cancellation test fails; drop the ``toolkit`` argument of ``make_reflection`` in the
orchestrator (so every round plans again) and the wave count test fails.
"""

from __future__ import annotations

import asyncio
import time

from argue.engine import DebateRunner
from argue.llm import ScriptedModel
from argue.llm.base import ModelAuthError
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}
DELAY_S = 0.1  # long beside the engine's own work, so the grouping below is stable


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges


def waves(spans: list[tuple[float, float, str]]) -> list[list[str]]:
    """Group calls into waves: a call that starts after every earlier call ended opens one."""
    groups: list[list[str]] = []
    horizon = float("-inf")
    for start, end, name in sorted(spans):
        if start >= horizon:
            groups.append([])
        groups[-1].append(name)
        horizon = max(horizon, end)
    return groups


def test_a_round_takes_three_model_waves(new_store):
    rounds = 4
    store = new_store("waves", rounds=rounds)
    script = DebateScript(names=NAMES, confidence=_swinging)
    spans: list[tuple[float, float, str]] = []

    async def responder(messages, output):
        started = time.monotonic()
        reply = script(messages, output)
        await asyncio.sleep(DELAY_S)
        spans.append((started, time.monotonic(), output.__name__ if output else "text"))
        return reply

    state = asyncio.run(DebateRunner(store, ScriptedModel(responder), ScriptedToolkit()).run())
    assert state.termination == "max_rounds"
    grouped = waves(spans)
    assert grouped[0] == ["FramingDraft"]
    assert grouped[-1] == ["SynthesisDraft"]
    per_round = grouped[1:-1]
    # round 1 plans first; every later round starts with the plan its reflection returned
    assert len(per_round) == 1 + 3 * rounds, per_round
    assert sorted(per_round[0]) == ["ResearchPlanDraft"] * 2
    for wave in per_round[1:]:
        assert len(set(wave)) == 1 or sorted(set(wave)) == ["JudgeDraft", "ReflectionDraft"]
    assert sum(1 for w in per_round if "JudgeDraft" in w and "ReflectionDraft" in w) == rounds
    assert [n for _, _, n in spans].count("ResearchPlanDraft") == 2  # round 1 only


def test_a_fatal_error_cancels_the_other_personas_and_nothing_is_written_after(new_store):
    store = new_store("cancel", rounds=1)
    script = DebateScript(names=NAMES)
    finished: list[str] = []

    async def responder(messages, output):
        reply = script(messages, output)
        name = output.__name__ if output else "text"
        letter = script.log[-1].split(":")[0]
        if name == "ArgumentDraft" and letter == "A":
            raise ModelAuthError("openai", "401 invalid api key")
        if name == "ArgumentDraft" and letter == "B":
            await asyncio.sleep(0.2)  # still in flight when A's credentials are rejected
            finished.append("B")
        return reply

    async def main():
        state = await DebateRunner(store, ScriptedModel(responder), ScriptedToolkit()).run()
        snapshot = {p: p.stat().st_mtime_ns for p in store.paths.root.rglob("*") if p.is_file()}
        await asyncio.sleep(0.4)  # the loop lives on: a stray task would write now
        after = {p: p.stat().st_mtime_ns for p in store.paths.root.rglob("*") if p.is_file()}
        return state, snapshot, after

    state, snapshot, after = asyncio.run(main())
    assert state.status == "failed"
    assert "invalid api key" in (state.error or "")
    assert finished == []  # B's call was cancelled, not left running
    assert not store.paths.argument("B", 1).exists()
    assert after == snapshot


import pytest  # noqa: E402


@pytest.mark.parametrize(
    ("phase", "rnd"),
    [
        ("ResearchPlanDraft", 1),
        ("ArgumentDraft", 1),
        ("RebuttalDraft", 1),
        ("ReflectionDraft", 1),
        ("JudgeDraft", 2),
        ("ArgumentDraft", 2),
    ],
)
def test_one_ctrl_c_is_an_interruption_in_every_phase(new_store, phase, rnd):
    """Ctrl-C means status interrupted (exit 130) wherever it lands, never stopped (exit 3)."""
    store = new_store(f"ctrl-c-{phase}-{rnd}", rounds=3)
    holder: dict = {}

    def press_ctrl_c(letter: str, r: int, name: str):
        if name == phase and r in (rnd, 0) and "runner" in holder:
            holder["runner"].request_stop("interrupt")
        return None

    runner = DebateRunner(
        store,
        ScriptedModel(DebateScript(names=NAMES, confidence=_swinging, fail=press_ctrl_c)),
        ScriptedToolkit(),
    )
    holder["runner"] = runner
    state = asyncio.run(runner.run())
    assert state.status == "interrupted", (phase, rnd, state)
    assert state.termination is None
    assert not store.paths.synthesis.exists()
