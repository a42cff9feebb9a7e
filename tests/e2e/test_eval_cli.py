"""End to end: ``argue eval qa.jsonl --arms debate,single,vote --json`` on the loopback fake
LLM reports the three arms; re-running makes no model call; the built-in arithmetic set runs.

Teeth check (done once): in argue/eval/folder.py make ``EvalFolder.results`` return ``{}``
(forget what is on disk): both tests fail — the re-run makes model calls.

Also: ``--budget-usd`` / ``--max-tokens`` cover the whole eval (stop: exit 3, resumable with a
larger budget), ``--budget-usd`` on an unpriced model is a usage error (exit 2), and Ctrl-C
(once: in-flight items finish and are saved; twice: at once) exits 130 and resumes cleanly.
Teeth checks for those are in each test's comment.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from argue.eval.arms import ShortAnswer
from argue.llm._structured import tool_name_for
from tests.e2e import fake_llm
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import Cli, Result, openai_env, wait_for
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
    args = ("eval", "--dataset", "mixed-arithmetic", "--n", "3", "--seed", "4", "--arms", "single")
    report = json.loads(cli.ok(*args, "--json").stdout)
    assert report["dataset"] == "arithmetic_s4"
    assert report["arms"]["single"]["n"] == 3 and fake.count("ShortAnswer") == 3
    table = cli.ok(*args).stdout  # the terminal table, resumed (no new call)
    assert "single" in table and "accuracy" in table and fake.count() == 3


# ---------------------------------------------------------------- budget


def finished_lines(cli: Cli) -> list[dict]:
    """Every line of the eval's per-item JSONL, parsed (a torn line fails the test)."""
    found = list(cli.debates.glob("evals/*/items.jsonl"))
    assert len(found) <= 1, found
    text = found[0].read_text(encoding="utf-8") if found else ""
    return [json.loads(line) for line in text.splitlines()]


SINGLE = ("eval", "qa.jsonl", "--arms", "single", "--concurrency", "1", "--json")


def test_the_budget_covers_the_whole_eval_and_a_larger_one_resumes(cli: Cli, fake: FakeLLM):
    # Guarantee: the budget stops new items over the whole eval (exit 3, said in the report),
    # counts what finished items spent on resume, and a larger budget resumes where it stopped.
    # Teeth check (done once): exit 0 instead of EXIT_BY_STATUS in eval_cmd: this test fails.
    tiny = cli.run(*SINGLE, "--budget-usd", "0.000000001")
    assert tiny.returncode == 3, tiny.describe()
    report = json.loads(tiny.stdout)
    assert report["status"] == "budget_exhausted"
    assert report["not_run"] == {"items": 2, "item_arms": 2, "by_arm": {"single": 2}}
    assert report["budget"] == {"usd": 1e-9, "tokens": None}
    (line,) = finished_lines(cli)
    assert report["spent"]["calls"] == 1 == fake.count()
    assert report["spent"]["cost_usd"] == pytest.approx(line["cost_usd"]) and line["cost_usd"] > 0
    assert report["arms"]["single"]["n"] == 1  # the report covers what ran
    assert "Budget of $1e-09 reached" in tiny.stderr

    again = cli.run(*SINGLE, "--budget-usd", "0.000000001")  # the spent part counts
    assert again.returncode == 3 and fake.count() == 1, again.describe()

    table = cli.run(*SINGLE[:-1], "--max-tokens", "1")
    assert table.returncode == 3 and fake.count() == 1, table.describe()
    assert "Stopped on budget: 2 item-arm run(s) not done, on 2 item(s)" in table.stdout
    assert "larger --budget-usd / --max-tokens" in table.stdout

    done = json.loads(cli.ok(*SINGLE, "--budget-usd", "100").stdout)
    assert done["status"] == "completed" and done["not_run"]["item_arms"] == 0
    assert fake.count() == 3  # the two not run, and only them
    assert done["spent"]["calls"] == 3 and done["arms"]["single"]["n"] == 3


def test_budget_usd_on_an_unpriced_model_is_a_usage_error(cli: Cli, fake: FakeLLM):
    # Guarantee: a cost budget that cannot be enforced is refused before any call, in one line.
    # Teeth check (done once): drop the _require_price call in eval_cmd: this test fails.
    result = cli.run(*SINGLE, "--budget-usd", "1", "--model", "no-price-model-x1")
    assert result.returncode == 2, result.describe()
    (line,) = result.stderr.strip().splitlines()
    assert "--budget-usd needs a price for openai/no-price-model-x1" in line
    assert fake.count() == 0
    assert cli.ok(*SINGLE, "--max-tokens", "100000", "--model", "no-price-model-x1")


# ---------------------------------------------------------------- Ctrl-C

MANY = ("eval", "--dataset", "mixed-arithmetic", "--n", "8", "--arms", "single")
MANY += ("--concurrency", "2", "--json")


def interrupt(cli: Cli, fake: FakeLLM, presses: int) -> Result:
    """Run MANY and press Ctrl-C ``presses`` times once two calls are in flight."""
    process = cli.popen(*MANY)
    try:
        wait_for(lambda: fake.server.in_flight >= 2, deadline_s=60, what="two calls in flight")
        process.send_signal(signal.SIGINT)  # run.sh execs python: this is the user's Ctrl-C
        for _ in range(presses - 1):
            time.sleep(0.5)  # two separate presses, not one signal delivered twice
            assert process.poll() is None, "the first Ctrl-C ended the run"
            process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        raise AssertionError("Ctrl-C did not stop the eval") from None
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()
    return Result(MANY, process.returncode, stdout, stderr)


def test_ctrl_c_finishes_in_flight_items_then_resumes_without_repeating(cli: Cli, fake: FakeLLM):
    # Guarantee: the first Ctrl-C starts no new item, lets the two in flight finish and be
    # written, exits 130 with a partial report; the re-run asks only the items not finished.
    # Teeth check (done once): in eval_cmd's on_sigint cancel the task at the first press: the
    # in-flight items are not written (lines != calls) and this test fails.
    fake.delay_s = 2.0  # long enough that the Ctrl-C lands while both calls wait
    first = interrupt(cli, fake, presses=1)
    assert first.returncode == 130, first.describe()
    lines = finished_lines(cli)
    assert len(lines) == fake.count() == 2  # in flight when pressed: finished and written
    assert "Traceback" not in first.stderr
    assert "Ctrl-C: no new item starts; the 2 in flight finish" in first.stderr
    report = json.loads(first.stdout)
    assert report["status"] == "interrupted"
    assert report["not_run"]["items"] == 6 and report["arms"]["single"]["n"] == 2

    fake.delay_s = 0.0
    resumed = json.loads(cli.ok(*MANY).stdout)
    assert resumed["status"] == "completed" and resumed["arms"]["single"]["n"] == 8
    assert fake.count() == 8  # 2 before, then only the 6 not finished
    assert len(finished_lines(cli)) == 8


def test_a_second_ctrl_c_stops_at_once_and_leaves_nothing_torn(cli: Cli, fake: FakeLLM):
    # Guarantee: the second Ctrl-C does not wait for calls in flight (their replies take 60 s
    # here), still exits 130 with a report, and the folder resumes: the per-item JSONL parses.
    # Teeth check (done once): make on_sigint ignore the second press: the run waits for the
    # slow replies and this test fails on its timeout.
    fake.delay_s = 60.0
    first = interrupt(cli, fake, presses=2)
    assert first.returncode == 130, first.describe()
    assert "Traceback" not in first.stderr
    assert "Stopped at once" in first.stderr
    report = json.loads(first.stdout)
    assert report["status"] == "interrupted" and report["not_run"]["items"] == 8
    assert finished_lines(cli) == []  # parses; nothing had finished

    fake.delay_s = 0.0
    before = fake.count()
    resumed = json.loads(cli.ok(*MANY).stdout)
    assert resumed["status"] == "completed" and resumed["arms"]["single"]["n"] == 8
    assert fake.count() - before == 8  # nothing had finished: every item asked once
