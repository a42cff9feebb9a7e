"""The eval runner: per-item JSONL, resume with zero model calls, items overlapping in time,
the vote arm matched to the debate's calls and the matching stated in the report.

Teeth check (done once): in argue/eval/runner.py make ``wave`` ignore ``done`` (run every
(item, arm) again); ``test_re_running_makes_no_model_call`` fails. Replace the semaphore with
``asyncio.Semaphore(1)``; ``test_items_overlap_in_time_under_the_limit`` fails.
"""

from __future__ import annotations

import asyncio
import json
from itertools import pairwise

import pytest

from argue.eval.arms import ArmSettings
from argue.eval.datasets import arithmetic
from argue.eval.folder import EvalFolder
from argue.eval.report import build_report
from argue.eval.runner import run_eval
from argue.llm import ScriptedModel
from argue.personas import load_catalog
from tests.engine.script import names_of
from tests.eval.script import EvalScript, wrong


@pytest.fixture
def lineup():
    catalog = load_catalog()
    return [catalog.get("embry"), catalog.get("horus")]


def run(folder, model, lineup, items, arms, concurrency=4, samples=None):
    settings = ArmSettings(
        model=model,
        debates_dir=folder.debates,
        personas=lineup,
        mode="adversarial",
        rounds=1,
        record_usage=folder.append_usage,
    )
    folder.save_manifest({**folder.manifest(), "key": "k", "dataset": "t", "provider": "p"})
    return asyncio.run(
        run_eval(items, arms, settings, folder, concurrency=concurrency, samples=samples)
    )


def test_re_running_makes_no_model_call(tmp_path, lineup):
    items = arithmetic(3, seed=2).items
    folder = EvalFolder(tmp_path / "evals" / "e")
    first = ScriptedModel(EvalScript(names=names_of(lineup), single=wrong))
    results = run(folder, first, lineup, items, ["debate", "single", "vote"])
    assert len(results) == 9 and len(first.requests) > 9
    lines = (folder.root / "items.jsonl").read_text().splitlines()
    assert sorted((json.loads(x)["item"], json.loads(x)["arm"]) for x in lines) == sorted(results)
    # single/vote calls are in the eval's usage log, one line per call
    usage = (folder.root / "usage.jsonl").read_text().splitlines()
    assert len(usage) == sum(r.calls for (_, arm), r in results.items() if arm != "debate")

    again = ScriptedModel(EvalScript(names=names_of(lineup)))  # would answer differently
    rerun = run(folder, again, lineup, items, ["debate", "single", "vote"])
    assert again.requests == []
    assert {k: r.correct for k, r in rerun.items()} == {k: r.correct for k, r in results.items()}
    assert not any(r.correct for (_, arm), r in rerun.items() if arm == "single")


def test_an_interrupted_arm_runs_again_and_only_it(tmp_path, lineup):
    items = arithmetic(2, seed=3).items
    folder = EvalFolder(tmp_path / "evals" / "e")
    run(folder, ScriptedModel(EvalScript(names={})), lineup, items, ["single"])
    model = ScriptedModel(EvalScript(names={}))
    results = run(folder, model, lineup, items, ["single", "vote"], samples=3)
    assert len(model.requests) == 2 * 3  # the vote arm only
    assert len(results) == 4


def test_items_overlap_in_time_under_the_limit(tmp_path, lineup):
    items = arithmetic(4, seed=4).items
    folder = EvalFolder(tmp_path / "evals" / "e")
    script = EvalScript(names={}, delay_s=0.05)
    results = run(folder, ScriptedModel(script.timed), lineup, items, ["single"], concurrency=4)
    spans = sorted((r.started_at, r.finished_at) for r in results.values())
    # Some item started before another had finished: they ran at the same time.
    assert any(later[0] < earlier[1] for earlier, later in pairwise(spans))
    # With a limit of 1 they do not.
    folder_one = EvalFolder(tmp_path / "evals" / "one")
    serial = run(folder_one, ScriptedModel(script.timed), lineup, items, ["single"], concurrency=1)
    spans = sorted((r.started_at, r.finished_at) for r in serial.values())
    assert all(later[0] >= earlier[1] for earlier, later in pairwise(spans))


def test_vote_is_matched_to_the_debate_calls_and_the_report_says_so(tmp_path, lineup):
    items = arithmetic(2, seed=5).items
    folder = EvalFolder(tmp_path / "evals" / "e")
    model = ScriptedModel(EvalScript(names=names_of(lineup)))
    results = run(folder, model, lineup, items, ["debate", "single", "vote"])
    debate_calls = [r.calls for (_, arm), r in results.items() if arm == "debate"]
    k = round(sum(debate_calls) / len(debate_calls))
    assert k > 1
    assert all(r.calls == k for (_, arm), r in results.items() if arm == "vote")
    report = build_report(results.values(), [folder.manifest()])
    (matching,) = report["vote_matching"]
    assert matching.startswith(f"vote: {k} samples per item, matched to the debate arm's mean")
    assert set(report["arms"]) == {"debate", "single", "vote"}
    debate = report["arms"]["debate"]
    assert debate["n"] == 2 and debate["accuracy"] == 1.0
    assert debate["ci95"][0] < 1.0 and debate["mean_calls"] == sum(debate_calls) / 2
    assert [c["arms"] for c in report["comparisons"]] == [["debate", "single"], ["debate", "vote"]]
    assert "No significant difference" in report["comparisons"][0]["verdict"]
