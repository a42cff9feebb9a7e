"""End-to-end, issue 9 item 6: ``--dry-run`` calls no model and writes nothing; ``--detach`` runs
the debate in the background (status, interject, stop and resume work on it); personas on their
own model (``--persona-model``) are recorded and used again by ``resume``.

Teeth: in argue/commands/plan.py drop ``start_new_session=True`` and make the child's stdout
``None`` (inherit the caller's pipe): ``./run.sh … --detach`` then cannot return before the
debate ends, and ``test_a_detached_debate_is_stopped_interjected_and_resumed`` fails (status is
no longer "running" when it is asked).
"""

from __future__ import annotations

import json
import os
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION, Cli, openai_env, wait_for

pytestmark = pytest.mark.e2e

SEATS = ("--persona-a", "embry", "--persona-b", "horus")
HORUS_MODEL = "fake-horus-1"


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cli(tmp_path: Path, fake: FakeLLM) -> Cli:
    workdir = tmp_path / "work"
    workdir.mkdir()
    return Cli(workdir, env_overrides={**openai_env(fake.url), "ARGUE_MODEL": "fake-main-1"})


@pytest.fixture
def background() -> Iterator[list[int]]:
    """Pids of the background runs a test started; any still alive at the end is killed."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _status(cli: Cli, debate_id: str) -> dict[str, Any]:
    result = cli.run("status", debate_id, "--json")
    assert result.returncode == 0, result.describe()
    return result.last_json()


def _wait_for_status(cli: Cli, debate_id: str, wanted: str) -> dict[str, Any]:
    return wait_for(
        lambda: row if (row := _status(cli, debate_id))["status"] == wanted else None,
        deadline_s=120,
        every_s=0.5,
        what=f"`status {debate_id} --json` to say {wanted}",
    )


def _usage(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "usage.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_dry_run_calls_no_model_and_writes_no_folder(cli: Cli, fake: FakeLLM):
    result = cli.run(
        "argue", QUESTION, *SEATS, "--rounds", "2", "--persona-model", f"horus={HORUS_MODEL}",
        "--dry-run", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.describe()
    plan = result.last_json()
    assert plan["dry_run"] is True
    assert [p["model"] for p in plan["personas"]] == ["fake-main-1", HORUS_MODEL]
    assert plan["estimate"]["cost"].startswith("unknown")  # fake models have no price
    assert len(fake.server.requests) == 0 and fake.count() == 0
    assert not cli.debates.exists() or not any(cli.debates.iterdir())


def test_a_detached_debate_runs_to_its_synthesis(cli: Cli, fake: FakeLLM, background: list[int]):
    started = cli.run(
        "argue", QUESTION, *SEATS, "--rounds", "2", "--persona-model", f"B={HORUS_MODEL}",
        "--detach", process=True,
    )  # fmt: skip
    assert started.returncode == 0, started.describe()
    debate_id = started.stdout.split("Debate ID:", 1)[1].split()[0]
    folder = cli.debate_dir(debate_id)
    assert "Running in the background (pid" in started.stderr
    background.append(int(started.stderr.split("(pid ", 1)[1].split(")")[0]))
    assert "run.log" in started.stderr
    assert f"watch {debate_id} · " in started.stderr.split("Follow it with:", 1)[1]

    done = _wait_for_status(cli, debate_id, "completed")
    assert done["round"] == 2 and done["termination"]
    assert (folder / "synthesis.md").is_file()
    assert "## " in (folder / "synthesis.md").read_text(encoding="utf-8")
    # "completed" is on disk before the run's last line (it names the report written after it)
    log = wait_for(
        lambda: (text := (folder / "run.log").read_text(encoding="utf-8")) * ("Synthesis:" in text),
        deadline_s=60,
        what="the run's last line in run.log",
    )
    assert "Round 1/2" in log and " · report: " in log
    assert (folder / "report.html").is_file()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["persona_models"] == {"B": {"provider": "openai", "model": HORUS_MODEL}}
    # usage.jsonl names both models: Horus's turns on its own, the rest on the debate's
    usage = _usage(folder)
    assert {u["model"] for u in usage} == {"fake-main-1", HORUS_MODEL}
    for record in usage:
        purpose = record["purpose"] or ""
        if purpose.startswith("B/"):
            assert record["model"] == HORUS_MODEL, record
        elif purpose.startswith(("A/", "judge", "framing", "synthesis")):
            assert record["model"] == "fake-main-1", record


def test_a_detached_debate_is_stopped_interjected_and_resumed(
    cli: Cli, fake: FakeLLM, background: list[int]
):
    fake.delay_s = 0.5  # slow enough that `stop` lands mid-debate
    started = cli.run(
        "argue", QUESTION, *SEATS, "--rounds", "3", "--persona-model", f"horus={HORUS_MODEL}",
        "--detach", "--json", process=True,
    )  # fmt: skip
    assert started.returncode == 0, started.describe()
    launched = started.last_json()
    debate_id, pid = launched["id"], launched["pid"]
    background.append(pid)
    assert launched["detached"] is True and launched["status"] == "running"
    folder = cli.debate_dir(debate_id)
    assert Path(launched["log"]) == folder / "run.log"
    assert _status(cli, debate_id)["status"] == "running"

    note = "Only count arguments that survive in ZFC."
    interject = cli.run("interject", debate_id, note)
    assert interject.returncode == 0, interject.describe()
    wait_for(
        lambda: (folder / "persona_a/arguments/round_001.json").is_file(),
        deadline_s=120,
        what="round 1 arguments",
    )
    stop = cli.run("stop", debate_id)
    assert stop.returncode == 0 and f"Stop requested for {debate_id}" in stop.stdout, (
        stop.describe()
    )
    stopped = _wait_for_status(cli, debate_id, "stopped")
    assert stopped["round"] < 3
    wait_for(lambda: not _alive(pid), deadline_s=60, what="the background run to exit")
    assert "Stop requested" in (folder / "run.log").read_text(encoding="utf-8")

    fake.delay_s = 0.0
    resumed = cli.run("resume", debate_id, "--json")
    assert resumed.returncode == 0, resumed.describe()
    assert resumed.last_json()["status"] == "completed"
    assert (folder / "synthesis.md").is_file()
    # resume spoke with the recorded models: Horus's round-3 turns went to its own model
    usage = _usage(folder)
    late = Counter(u["model"] for u in usage if (u["purpose"] or "").startswith("B/R3/"))
    assert late and set(late) == {HORUS_MODEL}, late
    assert {u["model"] for u in usage if (u["purpose"] or "").startswith("A/R3/")} == {
        "fake-main-1"
    }
    moderator = json.loads((folder / "moderator_notes.json").read_text(encoding="utf-8"))
    assert [n["text"] for n in moderator] == [note]
