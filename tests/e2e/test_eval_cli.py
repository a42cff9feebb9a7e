"""End to end: ``argue eval qa.jsonl --arms debate,single,vote --json`` on the loopback fake
LLM reports the three arms; re-running makes no model call; the built-in arithmetic set runs.

Teeth check (done once): in argue/eval/folder.py make ``EvalFolder.results`` return ``{}``
(forget what is on disk): both tests fail — the re-run makes model calls.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from argue.eval.arms import ShortAnswer
from argue.llm._structured import tool_name_for
from tests.e2e import fake_llm
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import Cli, openai_env
from tests.eval.script import EvalScript, wrong

pytestmark = pytest.mark.e2e

QUESTIONS = [
    {"id": "a", "question": "What is 2+3*4?", "answer": 14},
    {"id": "b", "question": "What is 7*6-5?", "answer": "37"},
    {"id": "c", "question": "What is 10-2*3?", "answer": 4},
]


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    name = tool_name_for(ShortAnswer)
    fake_llm.SCHEMAS[name] = ShortAnswer  # the eval's own schema, for the single and vote arms
    # The single arm answers wrong; vote samples too (same script); the debate gets it right.
    server = FakeLLM(EvalScript(names={}, single=wrong)).start()
    try:
        yield server
    finally:
        server.stop()
        del fake_llm.SCHEMAS[name]


@pytest.fixture
def cli(tmp_path: Path, fake: FakeLLM) -> Cli:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "qa.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8"
    )
    return Cli(workdir, env_overrides=openai_env(fake.url))


EVAL = ("eval", "qa.jsonl", "--arms", "debate,single,vote", "--rounds", "1")
EVAL += ("--personas", "embry,horus", "--json")


def test_eval_reports_three_arms_and_resumes_for_free(cli: Cli, fake: FakeLLM):
    report = json.loads(cli.ok(*EVAL).stdout)
    assert fake.errors == []
    arms = report["arms"]
    assert set(arms) == {"debate", "single", "vote"}
    for arm in arms.values():
        assert arm["n"] == 3
        for key in ("accuracy", "ci95", "mean_calls", "mean_tokens", "mean_cost_usd"):
            assert arm[key] is not None, key
        assert 0.0 <= arm["ci95"][0] <= arm["accuracy"] <= arm["ci95"][1] <= 1.0
    assert arms["debate"]["accuracy"] == 1.0 and arms["single"]["accuracy"] == 0.0
    assert arms["single"]["mean_calls"] == 1.0
    assert arms["vote"]["mean_calls"] == round(arms["debate"]["mean_calls"])
    assert "matched to the debate arm's mean" in report["vote_matching"][0]
    verdicts = [c["verdict"] for c in report["comparisons"]]
    assert len(verdicts) == 2 and all("No significant difference" in v for v in verdicts)
    folder = Path(report["folder"])
    assert folder.parent == cli.debates / "evals"
    lines = (folder / "items.jsonl").read_text().splitlines()
    assert len(lines) == 9
    assert {json.loads(x)["arm"] for x in lines} == {"debate", "single", "vote"}
    # Every call the server answered is in the report.
    counted = sum(a["mean_calls"] * a["n"] for a in arms.values())
    assert counted == fake.count()

    before = fake.count()
    again = json.loads(cli.ok(*EVAL).stdout)
    assert fake.count() == before  # nothing left to do: no model call
    assert again["arms"] == report["arms"]


def test_the_builtin_arithmetic_dataset_runs(cli: Cli, fake: FakeLLM):
    args = ("eval", "--dataset", "arithmetic", "--n", "3", "--seed", "4", "--arms", "single")
    report = json.loads(cli.ok(*args, "--json").stdout)
    assert report["dataset"] == "arithmetic_s4"
    assert report["arms"]["single"]["n"] == 3 and fake.count("ShortAnswer") == 3
    table = cli.ok(*args).stdout  # the terminal table, resumed (no new call)
    assert "single" in table and "accuracy" in table and fake.count() == 3
