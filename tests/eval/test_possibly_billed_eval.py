"""An eval's cost says "at least" when a request was sent and never answered (issue 37, item 4).

A possibly-billed row (a timeout or a dropped connection after sending) is kept on the item's
record (``ItemResult.possibly_billed_calls``), so the eval's spending and each arm's mean cost
are a lower bound, never stated as exact; a record without one serialises as before.

Teeth: with ``possibly_billed_calls=total.possibly_billed_calls`` removed from ``_finish``
(argue/eval/arms.py) the first test fails (the cost is stated exact: "$0.0010").
"""

from __future__ import annotations

import time

from argue.domain import Usage
from argue.eval.arms import _finish
from argue.eval.budget import EvalBudget
from argue.eval.datasets import EvalItem
from argue.eval.report import arm_summary

ITEM = EvalItem(id="q1", question="What is 1+1?", answer="2", kind="number")
ANSWERED = Usage(provider="openai", model="gpt-4o", input_tokens=100, cost_usd=0.001)
DROPPED = Usage(provider="openai", model="gpt-4o", possibly_billed_calls=1)


def test_an_unanswered_request_makes_the_eval_cost_a_lower_bound():
    record = _finish(ITEM, "single", time.time(), [DROPPED, ANSWERED], answer="2")
    assert (record.calls, record.possibly_billed_calls) == (2, 1)
    assert record.model_dump(mode="json")["possibly_billed_calls"] == 1  # items.jsonl keeps it

    budget = EvalBudget()
    budget.add_finished(record)
    spent = budget.summary()["spent"]
    assert spent["cost_usd"] is None and spent["cost_usd_at_least"] == 0.001
    assert spent["cost"] == "at least $0.0010 (1 request unanswered, possibly billed)"

    summary = arm_summary([record])
    assert summary["mean_cost_usd"] is None and summary["mean_cost_usd_at_least"] == 0.001
    assert summary["possibly_billed_calls"] == 1


def test_a_record_with_every_request_answered_is_exact_and_unchanged():
    record = _finish(ITEM, "single", time.time(), [ANSWERED], answer="2")
    assert "possibly_billed_calls" not in record.model_dump()
    assert arm_summary([record])["mean_cost_usd"] == 0.001
