"""End-to-end: ``interject`` says which round really reads a note, and the record agrees.

A round reads the moderator inbox as it starts, so a note posted while a round runs binds the
next one; a note posted in the last round is read by no round, and both the CLI and the
transcript say so.

Teeth check: make ``DebateStore.first_round_for_a_new_note`` return ``state.round`` for a
running debate (or make ``drain_inbox`` record ``from_round=round_no`` and drop the
``debate_ends`` drain in ``_round``) and this test fails.
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION, Cli, Result, openai_env, wait_for

pytestmark = pytest.mark.e2e

FIRST_NOTE = "Only count arguments that survive in ZFC."
LATE_NOTE = "Also consider Conway's FRACTRAN."


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
    return Cli(workdir, env_overrides=openai_env(fake.url))


def _state(cli: Cli) -> dict | None:
    for path in cli.debates.glob("*/state.json"):
        try:
            return {"id": path.parent.name, **json.loads(path.read_text(encoding="utf-8"))}
        except ValueError:
            return None  # caught mid-write: ask again
    return None


def _in_phase(cli: Cli, round_no: int, phase: str) -> dict | None:
    state = _state(cli)
    if state and state["round"] == round_no and state["phase"] == phase:
        return state
    return None


def test_interject_names_the_round_that_really_reads_the_note(cli: Cli, fake: FakeLLM):
    fake.delay_s = 0.5
    process = cli.popen(
        "argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus", "--rounds", "2", "--json"
    )
    try:
        state = wait_for(
            lambda: _in_phase(cli, 1, "research"),
            deadline_s=90,
            what="round 1 research and arguments",
        )
        debate_id = state["id"]
        fake.delay_s = 2.0  # round 1 must still be running when `interject` reads the state
        during_one = cli.ok("interject", debate_id, FIRST_NOTE)
        fake.delay_s = 0.3
        wait_for(
            lambda: _in_phase(cli, 2, "research"),
            deadline_s=90,
            what="round 2 research and arguments",
        )
        fake.delay_s = 2.0  # the last round must still be running
        during_last = cli.ok("interject", debate_id, LATE_NOTE)
        fake.delay_s = 0.0
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()
    finished = Result(("argue", "…"), process.returncode, stdout, stderr)
    assert finished.returncode == 0, finished.describe()

    # What the CLI said when each note was posted
    assert (
        f"Note queued for {debate_id}: round 1 is already under way, so round 2 is the first "
        "round whose prompts will see it" in during_one.stdout
    ), during_one.describe()
    assert (
        f"Note recorded for {debate_id}, but no later round will read it: round 2 is the last "
        "and is already under way." in during_last.stdout
    ), during_last.describe()

    # What the record says, and what the prompts really saw
    folder = cli.debate_dir(debate_id)
    notes = json.loads((folder / "moderator_notes.json").read_text(encoding="utf-8"))
    assert [(n["from_round"], n["text"]) for n in notes] == [(2, FIRST_NOTE), (None, LATE_NOTE)]
    assert "no round read it" in notes[1]["read_by"]
    prompts = [r.body.decode("utf-8") for r in fake.server.requests]
    arguments = {
        n: [p for p in prompts if "ARGUMENT" in p and re.search(rf"Round {n} of 2", p)]
        for n in (1, 2)
    }
    assert len(arguments[1]) == len(arguments[2]) == 2
    assert not any(FIRST_NOTE in p for p in arguments[1])
    assert all(FIRST_NOTE in p for p in arguments[2])
    assert not any(LATE_NOTE in p for p in prompts)
    transcript = (folder / "transcript.md").read_text(encoding="utf-8")
    assert f"- from round 2: {FIRST_NOTE}" in transcript
    assert "**read by no round**" in transcript

    # Once the debate is over, a note is refused outright
    after = cli.run("interject", debate_id, "One more thing.")
    assert after.returncode == 2
    assert "is completed: no later round for the note to bind" in after.stderr
