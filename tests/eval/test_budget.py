"""The whole eval's budget and stop switch: once ``--budget-usd`` / ``--max-tokens`` is reached
over all items and arms, or a stop is requested (Ctrl-C), no new (item, arm) starts; the ones in
flight finish and are written; a resumed eval counts what its finished items already spent;
calls answered for an item still in flight count at once.

Teeth check (done once each):
- in argue/eval/runner.py drop the ``control.may_start()`` check in ``one``: every test of a
  stop fails (all items run);
- drop ``control.budget.add_records(done.values())``: ``test_a_resumed_eval_starts_from_what_
  its_finished_items_spent`` fails (the re-run spends again);
- in argue/eval/budget.py make ``spent`` ignore ``_live``: ``test_calls_of_an_item_in_flight_
  count_at_once`` fails (the third item starts);
- drop the check before the vote wave: ``test_the_token_budget_counts_every_token_of_every_arm``
  fails (K is fixed from a partial debate wave).
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from argue.eval.arms import ArmSettings
from argue.eval.budget import EvalBudget, EvalControl
from argue.eval.datasets import EvalItem
from argue.eval.folder import EvalFolder
from argue.eval.runner import run_eval
from argue.llm import ScriptedModel
from argue.llm.pricing import ModelPrice, PriceTable
from tests.eval.script import EvalScript, right_answer

PRICES = PriceTable({"scripted": {"scripted-1": ModelPrice(input=1.0, output=1.0)}})


def items(n: int) -> list[EvalItem]:
    """Questions of one length: every single or vote call costs exactly the same."""
    return [
        EvalItem(id=f"q{i}", question=f"What is {i}+{i}?", answer=str(2 * i), kind="number")
        for i in range(1, n + 1)
    ]


def run(folder, model, todo, arms, *, control, concurrency=1, samples=None):
    settings = ArmSettings(
        model=model,
        debates_dir=folder.debates,
        personas=[],
        mode="adversarial",
        rounds=1,
        record_usage=folder.append_usage,
    )
    folder.save_manifest({**folder.manifest(), "key": "k", "dataset": "t", "provider": "p"})
    return asyncio.run(
        run_eval(
            todo,
            arms,
            settings,
            folder,
            concurrency=concurrency,
            samples=samples,
            control=control,
        )
    )


def asked(model: ScriptedModel) -> Counter[str]:
    """Calls per question (the item's expression)."""
    return Counter(right_answer(r.messages[-1].content) for r in model.requests)


@pytest.fixture
def call_cost(tmp_path) -> float:
    """What one single call on these questions costs (all alike)."""
    model = ScriptedModel(EvalScript(names={}), prices=PRICES)
    folder = EvalFolder(tmp_path / "evals" / "reference")
    results = run(folder, model, items(3), ["single"], control=EvalControl())
    costs = {r.cost_usd for r in results.values()}
    assert len(costs) == 1 and costs != {0.0}
    return costs.pop()


def test_the_budget_stops_new_items_and_a_larger_one_resumes(tmp_path, call_cost):
    folder = EvalFolder(tmp_path / "evals" / "e")
    model = ScriptedModel(EvalScript(names={}), prices=PRICES)
    control = EvalControl(EvalBudget(usd=1.5 * call_cost))
    results = run(folder, model, items(5), ["single"], control=control)
    # The first item leaves room (1 of 1.5 calls' worth); the second reaches it; then nothing.
    assert control.stopped == "budget_exhausted"
    assert sorted(item for item, _ in results) == ["q1", "q2"]
    assert len(model.requests) == 2
    assert len((folder.root / "items.jsonl").read_text().splitlines()) == 2
    assert control.budget.summary()["spent"]["cost_usd"] == pytest.approx(2 * call_cost)

    more = ScriptedModel(EvalScript(names={}), prices=PRICES)
    bigger = EvalControl(EvalBudget(usd=10 * call_cost))
    results = run(folder, more, items(5), ["single"], control=bigger)
    assert bigger.stopped is None and len(results) == 5
    assert sorted(asked(more)) == ["10", "6", "8"]  # only the three not run
    assert bigger.budget.summary()["spent"]["cost_usd"] == pytest.approx(5 * call_cost)


def test_a_resumed_eval_starts_from_what_its_finished_items_spent(tmp_path, call_cost):
    folder = EvalFolder(tmp_path / "evals" / "e")
    budget = 1.5 * call_cost
    first = ScriptedModel(EvalScript(names={}), prices=PRICES)
    run(folder, first, items(4), ["single"], control=EvalControl(EvalBudget(usd=budget)))
    assert len(first.requests) == 2
    again = ScriptedModel(EvalScript(names={}), prices=PRICES)
    control = EvalControl(EvalBudget(usd=budget))
    results = run(folder, again, items(4), ["single"], control=control)
    assert again.requests == []  # the two finished items already spent the budget
    assert control.stopped == "budget_exhausted" and len(results) == 2


def test_the_token_budget_counts_every_token_of_every_arm(tmp_path):
    folder = EvalFolder(tmp_path / "evals" / "e")
    model = ScriptedModel(EvalScript(names={}))  # unpriced: the token budget still applies
    probe = EvalFolder(tmp_path / "evals" / "probe")
    (one,) = run(probe, model, items(1), ["single"], control=EvalControl()).values()
    model.requests.clear()
    control = EvalControl(EvalBudget(tokens=one.tokens * 2 + 1))
    results = run(folder, model, items(4), ["single", "vote"], control=control, samples=2)
    # single: the third call passes the budget, the fourth item and the vote arm never start.
    assert control.stopped == "budget_exhausted"
    assert sorted(results) == [("q1", "single"), ("q2", "single"), ("q3", "single")]
    assert len(model.requests) == 3
    assert "vote_samples" not in folder.manifest()  # K is not fixed from a partial eval


def test_calls_of_an_item_in_flight_count_at_once(tmp_path, call_cost):
    """q1's vote has two answered samples and one slow one when q2 finishes: with them the
    budget (4.5 calls) is reached, so q3 does not start; q1 still finishes."""
    seen: Counter[str] = Counter()
    script = EvalScript(names={})
    delays = {"2": [0.0, 0.0, 0.6], "4": [0.05, 0.05, 0.05]}

    async def responder(messages, output):
        right = right_answer(messages[-1].content)
        seen[right] += 1
        await asyncio.sleep(delays.get(right, [0.0] * 3)[seen[right] - 1])
        return script(messages, output)

    folder = EvalFolder(tmp_path / "evals" / "e")
    model = ScriptedModel(responder, prices=PRICES)
    control = EvalControl(EvalBudget(usd=4.5 * call_cost))
    results = run(folder, model, items(3), ["vote"], control=control, concurrency=2, samples=3)
    assert control.stopped == "budget_exhausted"
    assert sorted(item for item, _ in results) == ["q1", "q2"]  # q1 was in flight: it finished
    assert results[("q1", "vote")].calls == 3
    assert "6" not in asked(model)  # q3 never asked


def test_a_stop_request_lets_in_flight_items_finish_and_starts_none(tmp_path):
    control = EvalControl()
    script = EvalScript(names={})

    async def responder(messages, output):
        control.request_stop()  # Ctrl-C while the first two items are in flight
        await asyncio.sleep(0.01)
        return script(messages, output)

    folder = EvalFolder(tmp_path / "evals" / "e")
    model = ScriptedModel(responder)
    results = run(folder, model, items(6), ["single"], control=control, concurrency=2)
    assert control.stopped == "interrupted"
    assert sorted(item for item, _ in results) == ["q1", "q2"]
    lines = (folder.root / "items.jsonl").read_text().splitlines()
    assert len(lines) == 2 == len(model.requests)

    rerun = ScriptedModel(EvalScript(names={}))
    results = run(folder, rerun, items(6), ["single"], control=EvalControl(), concurrency=2)
    assert len(results) == 6 and len(rerun.requests) == 4  # none of the finished two again
