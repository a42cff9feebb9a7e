"""argue.app's eval from Python, with its defaults: the runner gets a callable ``on_done``.

Teeth check (done once): pass ``on_done=on_result`` again in argue/app/_eval.py; the test fails
with "'NoneType' object is not callable" (mypy flagged it: run_items calls on_done per item).
"""

from __future__ import annotations

from argue.app import EvalRequest, Workspace, prepare_eval, run_eval
from argue.llm import ScriptedModel


def test_run_eval_with_no_on_result_runs_every_item(tmp_path, scripted_provider) -> None:
    answer = {"reasoning": "I computed it.", "answer": "4"}  # the single arm's ShortAnswer
    scripted_provider(ScriptedModel(lambda messages, output: answer, provider="scripted"))
    request = EvalRequest(
        dataset="mixed-arithmetic", n=2, arms=["single"], provider="scripted", concurrency=1
    )
    plan = prepare_eval(request, Workspace(debates_dir=tmp_path / "debates"))
    outcome = run_eval(plan)  # no on_result: the library default
    assert outcome.exit_code == 0, outcome
    assert outcome.report["arms"]["single"]["n"] == 2
