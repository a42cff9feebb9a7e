"""Issue 9 item 6 in the engine: the --dry-run estimate follows the real call schedule, and each
persona speaks with its own model (framing, judge and synthesis with the debate's).

Teeth: in argue/engine/waves.py pass ``self.model`` instead of ``self.model_for(letter)`` to
``phases.make_rebuttal`` and ``test_each_persona_speaks_with_its_own_model`` fails.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest

from argue.engine import DebateRunner, SkillToolkit, create_debate
from argue.engine.estimate import ModelRef, estimate_debate
from argue.llm import ScriptedModel
from argue.llm.pricing import ModelPrice, PriceTable
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges: every requested round runs


def _step(purpose: str | None) -> str:
    """The estimate's step name for a call's purpose ("A/R2/rebuttal-reask" -> re-ask)."""
    purpose = purpose or ""
    if purpose in ("framing", "synthesis"):
        return purpose
    if purpose == "ask":
        return "ask consultation"
    if purpose.startswith("judge/"):
        return "judge"
    if purpose.endswith("/private-view"):
        return "pre-debate step"
    kind = purpose.rsplit("/", 1)[-1]
    return {
        "research-plan": "research plan",
        "rebuttal-reask": "concession re-ask",
    }.get(kind, kind)


def _calls_by_step(model: ScriptedModel) -> Counter[str]:
    return Counter(_step(r.purpose) for r in model.requests)


@pytest.mark.parametrize(("mode", "concede"), [("adversarial", True), ("devils-advocate", False)])
def test_the_estimate_brackets_the_calls_a_debate_makes(new_store, mode, concede):
    rounds = 3
    store = new_store(f"estimate-{mode}", rounds=rounds)
    config = store.config()
    config.mode = mode
    store.save_config(config)
    model = ScriptedModel(DebateScript(names=NAMES, confidence=_swinging, concede=concede))
    state = asyncio.run(DebateRunner(store, model, ScriptedToolkit()).run())
    assert state.termination == "max_rounds"

    estimate = estimate_debate(
        mode=mode,
        letters=["A", "B"],
        rounds=rounds,
        debate_model=ModelRef("scripted", "scripted-1"),
    )
    actual = _calls_by_step(model)
    planned = {s.step: s for s in estimate.steps}
    assert set(actual) <= set(planned), (actual, planned)
    for step, entry in planned.items():
        assert entry.calls_min <= actual[step] <= entry.calls_max, (step, actual[step], entry)
    # The fixed part of the schedule is exact, not just bracketed.
    for step in ("framing", "argument", "rebuttal", "reflection", "judge", "synthesis"):
        assert planned[step].calls_min == planned[step].calls_max == actual[step], step
    assert ("pre-debate step" in planned) == (mode == "devils-advocate")
    if not concede:  # nobody concedes: every rebuttal is re-asked once, the range's maximum
        assert actual["concession re-ask"] == planned["concession re-ask"].calls_max == 2 * rounds
    assert estimate.calls_min <= len(model.requests) <= estimate.calls_max


def test_the_estimate_prices_each_model_and_says_unknown_without_a_price():
    prices = PriceTable({"openai": {"cheap": ModelPrice(input=1.0, output=2.0)}})
    priced = estimate_debate(
        mode="adversarial",
        letters=["A", "B"],
        rounds=2,
        debate_model=ModelRef("openai", "cheap"),
        prices=prices,
    )
    low, high = priced.priced_cost
    assert priced.cost_known and 0 < low < high
    assert priced.as_json()["cost_usd"] == {"min": round(low, 6), "max": round(high, 6)}
    assert priced.describe_cost().startswith("$")

    mixed = estimate_debate(
        mode="adversarial",
        letters=["A", "B"],
        rounds=2,
        debate_model=ModelRef("openai", "cheap"),
        persona_models={"B": ModelRef("ollama", "llama3.2")},
        prices=prices,
    )
    assert not mixed.cost_known and mixed.unpriced_models == ["ollama/llama3.2"]
    assert mixed.as_json()["cost_usd"] is None
    assert mixed.describe_cost().startswith("at least $")
    assert mixed.calls_max == priced.calls_max  # the same schedule, split over two models
    assert {s.model.label() for s in mixed.steps if s.step == "argument"} == {
        "openai/cheap",
        "ollama/llama3.2",
    }

    unknown = estimate_debate(
        mode="adversarial",
        letters=["A", "B"],
        rounds=1,
        debate_model=ModelRef("ollama", "llama3.2"),
        prices=prices,
    )
    assert unknown.describe_cost() == "unknown (no price for ollama/llama3.2)"
    assert "$0.0000" not in unknown.describe_cost()


def test_each_persona_speaks_with_its_own_model(tmp_path, personas):
    store = create_debate(
        tmp_path / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], personas["horus"]],
        max_rounds=2,
        provider="scripted",
        model="main-1",
        research_sources=["library"],
    )
    script = DebateScript(names=NAMES, confidence=_swinging)
    main = ScriptedModel(script, model="main-1")
    own = ScriptedModel(script, model="horus-own-1")
    toolkit = SkillToolkit(main, sources=["library"])
    runner = DebateRunner(store, main, toolkit, persona_models={"B": own})
    state = asyncio.run(runner.run())
    assert state.status == "completed", state

    own_steps = _calls_by_step(own)
    main_steps = _calls_by_step(main)
    # Horus's own turns (and the colleagues it consults) went to its model, and only those.
    assert {r.purpose.split("/")[0] for r in own.requests if r.purpose != "ask"} == {"B"}
    for step in ("research plan", "argument", "rebuttal", "reflection", "ask consultation"):
        assert own_steps[step] >= 1, (step, own_steps)
    assert not [r.purpose for r in main.requests if (r.purpose or "").startswith("B/")]
    # Embry, framing, the judge and the synthesis stayed on the debate's model.
    for step in ("framing", "judge", "synthesis", "argument", "ask consultation"):
        assert main_steps[step] >= 1, (step, main_steps)
    assert own_steps["framing"] == own_steps["judge"] == own_steps["synthesis"] == 0

    usage = [
        json.loads(line)
        for line in store.paths.usage_log.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    models = Counter(u["model"] for u in usage)
    assert models == {"main-1": len(main.requests), "horus-own-1": len(own.requests)}
    assert all(u["model"] == "horus-own-1" for u in usage if u["purpose"].startswith("B/"))


def test_a_persona_without_its_own_model_uses_the_debates(new_store):
    """No persona models: the toolkit's consultations stay on the debate's model."""
    store = new_store("plain", rounds=1)
    model = ScriptedModel(DebateScript(names=NAMES))
    toolkit = SkillToolkit(model, sources=["library"])
    runner = DebateRunner(store, model, toolkit)
    assert runner.model_for("A") is runner.model_for("B") is runner.model
    assert toolkit.context("B").model is runner.model
