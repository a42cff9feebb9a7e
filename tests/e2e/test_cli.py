"""End-to-end: ``./run.sh …`` (in-process, ``harness.in_process``; Ctrl-C and kill tests in a
real subprocess) against a fake LLM on loopback (both wire protocols).

What a user sees is what is asserted: exit codes, the one JSON line of ``--json``, the
debates/<id>/ folder, ``status``/``transcript``/``synthesize``, stop + resume, usage errors.
"""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fake_llm import FakeLLM, ResearchingScript
from tests.e2e.harness import (
    API_KEY,
    QUESTION,
    Cli,
    Result,
    all_json_files,
    anthropic_env,
    openai_env,
    wait_for,
)

pytestmark = pytest.mark.e2e

STATUS_FIELDS = {
    "id",
    "question",
    "mode",
    "personas",
    "status",
    "round",
    "max_rounds",
    "termination",
    "updated_at",
}
SYNTHESIS_SECTIONS = ("Points of agreement", "Concession log", "Strongest arguments", "Sources")
PER_PERSONA_PHASES = ("ResearchPlanDraft", "ArgumentDraft", "RebuttalDraft", "ReflectionDraft")


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


def debate_summary(result: Result) -> dict[str, Any]:
    """The ``--json`` contract: the last stdout line is one object describing the debate."""
    summary = result.last_json()
    assert isinstance(summary, dict), result.describe()
    assert {"id", "status", "termination", "rounds", "synthesis_path"} <= summary.keys()
    return summary


def assert_completed(result: Result, rounds: int) -> dict[str, Any]:
    assert result.returncode == 0, result.describe()
    summary = debate_summary(result)
    assert summary["status"] == "completed", result.describe()
    assert summary["termination"] not in (None, "stopped")
    assert summary["rounds"] == rounds
    assert summary["synthesis_path"] and Path(summary["synthesis_path"]).is_file()
    assert "Traceback" not in result.stderr
    return summary


def assert_no_secret(folder: Path) -> None:
    for path in folder.rglob("*"):
        if path.is_file():
            assert API_KEY not in path.read_text(encoding="utf-8", errors="replace"), path


def expected_calls(personas: int, rounds: int) -> dict[str, int]:
    """Each persona plans once (round 1; later rounds' plans come with its reflections) and
    argues, rebuts and reflects every round."""
    return {
        phase: personas if phase == "ResearchPlanDraft" else personas * rounds
        for phase in PER_PERSONA_PHASES
    }


def per_phase_calls(fake: FakeLLM) -> dict[str, int]:
    counts = fake.counts()
    return {phase: counts[phase] for phase in PER_PERSONA_PHASES}


# ---------------------------------------------------------------- OpenAI: the full journey


@dataclass
class FinishedDebate:
    cli: Cli
    fake: FakeLLM
    result: Result
    summary: dict[str, Any]
    folder: Path
    synthesis_after_run: str
    transcript_after_run: str
    calls_after_run: int


@pytest.fixture(scope="module")
def openai_debate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FinishedDebate]:
    """One 2-round adversarial debate through the OpenAI protocol, shared by the tests below."""
    fake = FakeLLM(ResearchingScript(names={}, consult={"A": "brandon"})).start()
    try:
        workdir = tmp_path_factory.mktemp("openai_debate")
        cli = Cli(workdir, env_overrides=openai_env(fake.url))
        cli.add_library_note()
        result = cli.run(
            "argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus",
            "--rounds", "2", "--json",
        )  # fmt: skip
        summary = assert_completed(result, rounds=2)
        folder = cli.debate_dir(summary["id"])
        yield FinishedDebate(
            cli=cli,
            fake=fake,
            result=result,
            summary=summary,
            folder=folder,
            synthesis_after_run=(folder / "synthesis.md").read_text(encoding="utf-8"),
            transcript_after_run=(folder / "transcript.md").read_text(encoding="utf-8"),
            calls_after_run=fake.count(),
        )
    finally:
        fake.stop()


def test_openai_debate_ends_with_one_json_line(openai_debate: FinishedDebate):
    result, summary = openai_debate.result, openai_debate.summary
    assert re.fullmatch(r"argue_\d{8}_\d{6}(_\d+)?", summary["id"])
    assert summary["synthesis_path"] == str(openai_debate.folder / "synthesis.md")
    # --json: stdout is the JSON object only; progress went to stderr.
    assert result.stdout.strip().splitlines() == [json.dumps(summary)]
    assert f"Debate ID: {summary['id']}" in result.stderr
    assert "Round 2/2" in result.stderr
    fake = openai_debate.fake
    assert fake.errors == []
    assert fake.protocols() == {"openai"}
    request = fake.server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    # 2 personas x 2 rounds for each phase, one framing, a judge per round, one synthesis,
    # and a colleague consulted by each persona for round 2 (asked in its round-1 rebuttal,
    # answered beside the reflections; round 1 has no consult: nothing to ask about yet).
    assert per_phase_calls(fake) == expected_calls(2, 2)
    counts = fake.counts()
    assert counts["FramingDraft"] == 1
    assert counts["JudgeDraft"] == 2
    assert counts["SynthesisDraft"] == 1
    assert counts["ColleagueAnswer"] == 2


def test_openai_debate_folder_layout(openai_debate: FinishedDebate):
    folder = openai_debate.folder
    parsed = {p.relative_to(folder).as_posix(): v for p, v in all_json_files(folder).items()}

    config = parsed["config.json"]
    assert config["question"] == QUESTION
    assert config["mode"] == "adversarial"
    assert config["personas"] == {"A": "embry", "B": "horus"}
    assert config["max_rounds"] == 2
    assert config["provider"] == "openai"
    assert config["model"] == openai_debate.fake.server.requests[0].json()["model"]
    assert not any("key" in name.lower() for name in config)
    assert_no_secret(folder)

    state = parsed["state.json"]
    assert state["status"] == "completed"
    assert state["termination"] == openai_debate.summary["termination"]
    assert state["pid"] is None

    for letter in ("a", "b"):
        persona = folder / f"persona_{letter}"
        for sub in ("research", "arguments"):
            assert (persona / sub).is_dir(), f"missing {persona / sub}"
        for n in (1, 2):
            assert f"persona_{letter}/research/round_00{n}.json" in parsed
            argument = parsed[f"persona_{letter}/arguments/round_00{n}.json"]
            assert [c["id"] for c in argument["claims"]][:2] == [
                f"{letter.upper()}{n}.c1",
                f"{letter.upper()}{n}.c2",
            ]
        concessions = parsed[f"persona_{letter}/concessions.json"]
        assert isinstance(concessions, list) and concessions
        confidence = parsed[f"persona_{letter}/confidence.json"]
        assert [point["round"] for point in confidence] == [1, 2]
    # Embry consulted a colleague for round 2 (asked in its round-1 rebuttal): the answer is
    # kept apart from the dogpile research.
    assert "persona_a/colleague_consults/round_001.json" not in parsed
    consult = parsed["persona_a/colleague_consults/round_002.json"]
    assert consult["calls"][0]["skill"] == "ask"
    assert "FRACTRAN" in json.dumps(consult["answers"])

    for n in (1, 2):
        score = parsed[f"scoring/round_00{n}.json"]
        assert set(score["personas"]) == {"A", "B"}
    assert [r["round"] for r in parsed["scoring/summary.json"]["rounds"]] == [1, 2]

    assert QUESTION in openai_debate.transcript_after_run
    synthesis = openai_debate.synthesis_after_run
    for section in SYNTHESIS_SECTIONS:
        assert section in synthesis, f"synthesis.md lacks {section!r}"
    # The library note was found by dogpile, cited, verified and listed as a source.
    sources = synthesis.split("Sources", 1)[1]
    assert "Notes on the Collatz conjecture" in sources


def test_every_persona_folder_has_the_spec_layout(openai_debate: FinishedDebate):
    """Spec tree: persona_x/ holds research/, colleague_consults/ and arguments/ (even if empty)."""
    for letter in ("a", "b"):
        persona = openai_debate.folder / f"persona_{letter}"
        for sub in ("research", "colleague_consults", "arguments"):
            assert (persona / sub).is_dir(), f"missing {persona / sub}"


def test_completed_debate_is_not_labelled_partial_or_running(openai_debate: FinishedDebate):
    """The files a finished `argue` run leaves behind say it finished."""
    assert "Partial synthesis" not in openai_debate.synthesis_after_run
    assert "**Status:** completed" in openai_debate.transcript_after_run


def test_status_lists_and_shows_the_debate(openai_debate: FinishedDebate):
    cli, summary = openai_debate.cli, openai_debate.summary
    rows = cli.ok("status", "--json").last_json()
    assert isinstance(rows, list) and len(rows) == 1
    [row] = rows
    assert set(row) >= STATUS_FIELDS
    assert row["id"] == summary["id"]
    assert row["question"] == QUESTION
    assert row["mode"] == "adversarial"
    assert row["personas"] == {"A": "embry", "B": "horus"}
    assert (row["status"], row["round"], row["max_rounds"]) == ("completed", 2, 2)
    assert row["termination"] == summary["termination"]
    assert row["updated_at"]

    one = cli.ok("status", summary["id"], "--json").last_json()
    assert isinstance(one, dict)
    assert one == row

    table = cli.ok("status", COLUMNS="200")
    assert summary["id"] in table.stdout and "completed" in table.stdout


def test_status_table_keeps_ids_whole_when_piped(openai_debate: FinishedDebate):
    """Piped output is 80 columns wide: the id is what a user copies, it must not be cut."""
    table = openai_debate.cli.ok("status", COLUMNS="80").stdout
    assert openai_debate.summary["id"] in table


def test_every_model_call_is_metered(openai_debate: FinishedDebate):
    """usage.json accounts for every request the model server answered (the consult included)."""
    usage = json.loads((openai_debate.folder / "usage.json").read_text(encoding="utf-8"))
    assert sum(entry.get("calls", 1) for entry in usage) == openai_debate.calls_after_run
    assert "ask" in {entry.get("purpose") for entry in usage}


def test_transcript_raw(openai_debate: FinishedDebate):
    debate_id = openai_debate.summary["id"]
    text = openai_debate.cli.ok("transcript", debate_id, "--raw").stdout
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert any("Round 1" in h for h in headings) and any("Round 2" in h for h in headings)
    for claim_id in ("A1.c1", "B1.c1", "A2.c2", "B2.c2"):
        assert claim_id in text
    assert "Embry" in text and "Horus" in text
    assert openai_debate.fake.count() == openai_debate.calls_after_run


def test_synthesize_rerenders_without_a_model_call(openai_debate: FinishedDebate):
    cli, fake = openai_debate.cli, openai_debate.fake
    assert (openai_debate.folder / "synthesis.json").is_file()
    before = fake.count()
    result = cli.ok("synthesize", openai_debate.summary["id"], "--raw")
    assert fake.count() == before, "synthesize asked the model although synthesis.json exists"
    for section in SYNTHESIS_SECTIONS:
        assert section in result.stdout
    assert "A nuanced conclusion." in result.stdout
    on_disk = (openai_debate.folder / "synthesis.md").read_text(encoding="utf-8")
    assert on_disk == result.stdout


# ---------------------------------------------------------------- Anthropic


def structured_feature(body: dict[str, Any]) -> str:
    """How an Anthropic request asked for structured output."""
    if "output_config" in body:
        return "output_config"
    if "tool_choice" in body:
        return "tool_choice"
    return "prompt"


ANTHROPIC_SERVERS = {
    # what the server refuses -> the structured-output features the adapter may end up using
    # (besides "prompt": a persona's requests, whose system text is long enough to be cached,
    # get their schema in the prompt whatever the server offers)
    "current model": (frozenset(), {"output_config", "tool_choice"}),
    "no output_config": (frozenset({"output_config"}), {"tool_choice"}),
    "no output_config, no forced tool": (frozenset({"output_config", "tool_choice"}), set()),
}


@pytest.mark.parametrize("server", list(ANTHROPIC_SERVERS))
def test_anthropic_debate(tmp_path: Path, fake: FakeLLM, server: str):
    """A 400 naming a structured-output feature the model lacks retires it; the debate goes on."""
    refused, usable = ANTHROPIC_SERVERS[server]
    fake.anthropic_refuses = refused
    cli = Cli(tmp_path, env_overrides=anthropic_env(fake.url))
    result = cli.run(
        "argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus", "--rounds", "1", "--json"
    )
    summary = assert_completed(result, rounds=1)
    assert fake.errors == []
    assert fake.protocols() == {"anthropic"}
    request = fake.server.requests[0]
    assert request.path == "/v1/messages"
    # This SDK generation sends the key as a bearer token; older ones used x-api-key.
    assert API_KEY in (request.headers.get("x-api-key") or request.headers["authorization"])
    assert per_phase_calls(fake) == expected_calls(2, 1)
    # framing, judge, synthesis and each persona's colleague: nothing asked twice
    assert fake.count() == 2 * 4 + 3 + 2

    folder = cli.debate_dir(summary["id"])
    parsed = {p.relative_to(folder).as_posix(): v for p, v in all_json_files(folder).items()}
    assert parsed["config.json"]["provider"] == "anthropic"
    assert parsed["config.json"]["model"] == request.json()["model"]
    assert parsed["state.json"]["status"] == "completed"
    assert {u["provider"] for u in parsed["usage.json"]} == {"anthropic"}
    assert_no_secret(folder)
    synthesis = (folder / "synthesis.md").read_text(encoding="utf-8")
    for section in SYNTHESIS_SECTIONS:
        assert section in synthesis
    # The disagreement sides (an open map) survived the trip.
    assert "Embry: yes" in synthesis and "Horus: no" in synthesis

    features = [structured_feature(r.json()) for r in fake.server.requests]
    refusals = [f for f in features if f in refused]
    answered = [f for f in features if f not in refused]
    assert set(answered) <= usable | {"prompt"}, features
    # framing, judge, synthesis and colleagues (short prompts): the features the server has
    others = {
        structured_feature(r.json())
        for r in fake.server.requests
        if "taking part in a structured debate" not in json.dumps(r.json().get("system"))
    } - refused
    assert others and others <= (usable or {"prompt"}), features
    # A refused feature is retired at once: at most one refusal per concurrent caller.
    assert len(refusals) <= 2 * len(refused), features
    assert len(answered) == fake.count()
    # Every reply fits the schema the API was told to enforce (no open maps forced empty).
    assert fake.schema_violations == []


# ---------------------------------------------------------------- stop + resume


def test_stop_then_resume_repeats_no_model_call(cli: Cli, fake: FakeLLM):
    fake.delay_s = 0.6  # a slow model, so `stop` lands mid-debate even on a busy machine
    process = cli.popen(
        "argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus", "--rounds", "3", "--json"
    )
    try:

        def running_row() -> dict[str, Any] | None:
            result = cli.run("status", "--json")
            rows = json.loads(result.stdout) if result.returncode == 0 else []
            return next((r for r in rows if r["status"] == "running"), None)

        row = wait_for(running_row, deadline_s=60, what="`status --json` to show a running debate")
        debate_id = row["id"]
        folder = cli.debate_dir(debate_id)
        # Stop once round 1 has arguments on disk, so resume has something it must not redo.
        wait_for(
            lambda: (
                (folder / "persona_b/arguments/round_001.json").is_file()
                and (folder / "persona_a/arguments/round_001.json").is_file()
            ),
            deadline_s=60,
            what="round 1 arguments",
        )
        stop = cli.run("stop", debate_id)
        assert stop.returncode == 0, stop.describe()
        assert debate_id in stop.stdout
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()
    first = Result(("argue", "…"), process.returncode, stdout, stderr)
    assert first.returncode == 3, first.describe()
    summary = debate_summary(first)
    assert (summary["id"], summary["status"], summary["termination"]) == (
        debate_id,
        "stopped",
        "stopped",
    )
    assert summary["rounds"] < 3
    assert f"./run.sh resume {debate_id}" in first.stderr
    state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
    assert (state["status"], state["termination"], state["pid"]) == ("stopped", "stopped", None)
    assert not (folder / "STOP").exists()
    status = cli.ok("status", debate_id, "--json").last_json()
    assert (status["status"], status["termination"]) == ("stopped", "stopped")
    fake.delay_s = 0.0  # the resumed run need not be slow
    calls_before_resume = fake.count()
    requests_before_resume = len(fake.server.requests)
    # `stop` is an ending of the spec: it leaves a synthesis, labelled partial
    assert fake.count("SynthesisDraft") == 1
    stopped_synthesis = (folder / "synthesis.md").read_text(encoding="utf-8")
    assert "**Partial synthesis.**" in stopped_synthesis
    assert "ended by stop" in stopped_synthesis
    # A moderator note posted while the debate is stopped binds the rounds that follow.
    note = "Only count arguments that survive in ZFC."
    interject = cli.ok("interject", debate_id, note)
    assert debate_id in interject.stdout

    fake.delay_s = 0.0
    resumed = cli.run("resume", debate_id, "--json")
    resumed_summary = assert_completed(resumed, rounds=3)
    assert f"Resuming {debate_id} after round {summary['rounds']}" in resumed.stderr
    assert resumed_summary["id"] == debate_id
    assert fake.count() > calls_before_resume
    assert fake.errors == []
    # Nothing whose result was on disk was asked again: exactly one call per persona and phase
    # per round over both runs, one framing, one judge per round, one synthesis.
    assert per_phase_calls(fake) == expected_calls(2, 3)
    counts = fake.counts()
    # one synthesis at the stop, one at the real ending
    assert (counts["FramingDraft"], counts["JudgeDraft"], counts["SynthesisDraft"]) == (1, 3, 2)
    state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
    assert state["status"] == "completed"
    assert cli.ok("status", debate_id, "--json").last_json()["status"] == "completed"
    prompts = [r.body.decode("utf-8") for r in fake.server.requests]
    assert not any(note in p for p in prompts[:requests_before_resume])
    later_arguments = [
        p for p in prompts if "ARGUMENT" in p and re.search(r"Round [23] of 3", p) is not None
    ]
    assert len(later_arguments) == 4
    assert all(note in p for p in later_arguments), "the moderator note did not bind later rounds"


def test_ctrl_c_saves_then_resume_finishes(cli: Cli, fake: FakeLLM):
    fake.delay_s = 0.5
    process = cli.popen(
        "argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus", "--rounds", "2", "--json"
    )
    try:
        wait_for(
            lambda: list(cli.debates.glob("*/persona_a/arguments/round_001.json")),
            deadline_s=60,
            what="round 1 arguments",
        )
        process.send_signal(signal.SIGINT)  # run.sh execs python: this is the user's Ctrl-C
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait()
    first = Result(("argue", "…"), process.returncode, stdout, stderr)
    assert first.returncode == 130, first.describe()
    assert "Traceback" not in first.stderr
    summary = debate_summary(first)
    assert summary["status"] == "interrupted"
    debate_id = summary["id"]
    assert f"./run.sh resume {debate_id}" in first.stderr
    assert cli.ok("status", debate_id, "--json").last_json()["status"] == "interrupted"

    fake.delay_s = 0.0
    resumed = cli.run("resume", debate_id, "--json")
    assert_completed(resumed, rounds=2)
    assert per_phase_calls(fake) == expected_calls(2, 2)


# ---------------------------------------------------------------- other modes


MODES = {
    "panel": (
        ["--mode", "panel", "--personas", "embry,horus,brandon"],
        {"A": "embry", "B": "horus", "C": "brandon"},
    ),
    "socratic": (
        ["--mode", "socratic", "--questioner", "horus", "--defender", "embry"],
        {"A": "horus", "B": "embry"},
    ),
    "devils-advocate": (
        ["--mode", "devils-advocate", "--advocate", "embry"],
        None,  # the opponent is auto-selected
    ),
}


@pytest.mark.parametrize("mode", list(MODES))
def test_other_modes(cli: Cli, fake: FakeLLM, mode: str):
    flags, personas = MODES[mode]
    result = cli.run("argue", QUESTION, *flags, "--rounds", "1", "--json")
    summary = assert_completed(result, rounds=1)
    assert fake.errors == []
    folder = cli.debate_dir(summary["id"])
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["mode"] == mode
    if personas is not None:
        assert config["personas"] == personas
    else:
        assert config["personas"]["A"] == "embry" and len(config["personas"]) == 2
    letters = sorted(config["personas"])
    for letter in letters:
        assert (folder / f"persona_{letter.lower()}" / "arguments" / "round_001.json").is_file()
    assert per_phase_calls(fake) == expected_calls(len(letters), 1)
    synthesis = (folder / "synthesis.md").read_text(encoding="utf-8")
    for section in SYNTHESIS_SECTIONS:
        assert section in synthesis
    stances = config["framing"]["stances"]
    if mode == "socratic":
        assert stances["A"].startswith("QUESTIONER") and stances["B"].startswith("DEFENDER")
    elif mode == "devils-advocate":
        assert fake.count("PrivateViewDraft") == 1
        assert "devil's advocate" in stances["A"]
        assert config["framing"]["private_views"].keys() == {"A"}
    else:
        assert all(s.startswith("PANELIST") for s in stances.values())


# ---------------------------------------------------------------- usage errors


def test_status_of_an_empty_workspace(cli: Cli):
    assert cli.ok("status", "--json").last_json() == []
    assert "No debates" in cli.ok("status").stdout


USAGE_ERRORS = {
    "unknown persona": (
        ["argue", QUESTION, "--persona-a", "nobody", "--persona-b", "horus"],
        "nobody",
        {},
    ),
    "panel with two personas": (
        ["argue", QUESTION, "--mode", "panel", "--personas", "embry,horus"],
        "panel",
        {},
    ),
    "persona against itself": (
        ["argue", QUESTION, "--persona-a", "embry", "--persona-b", "embry"],
        "itself",
        {},
    ),
    "unknown mode": (["argue", QUESTION, "--mode", "shouting"], "shouting", {}),
    "unknown source": (["argue", QUESTION, "--sources", "carrier-pigeon"], "carrier-pigeon", {}),
    "unknown provider": (["argue", QUESTION], "bogus", {"ARGUE_PROVIDER": "bogus"}),
    "transcript unknown id": (["transcript", "argue_19990101_000000"], "argue_19990101_000000", {}),
    "resume unknown id": (["resume", "argue_19990101_000000"], "argue_19990101_000000", {}),
    "provider without its key": (
        ["argue", QUESTION, "--provider", "openai", "--rounds", "1"],
        "OPENAI_API_KEY",
        {"OPENAI_API_KEY": None, "OPENAI_BASE_URL": None},
    ),
}


@pytest.mark.parametrize("case", list(USAGE_ERRORS))
def test_usage_errors_exit_2_with_one_line(cli: Cli, fake: FakeLLM, case: str):
    args, mentioned, env = USAGE_ERRORS[case]
    result = cli.run(*args, **env)
    assert result.returncode == 2, result.describe()
    assert "Traceback" not in result.stderr, result.describe()
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected a one-line error:\n{result.describe()}"
    assert lines[0].startswith("error:")
    assert mentioned in lines[0]
    assert result.stdout.strip() == ""
    assert fake.count() == 0
    assert not cli.debates.exists() or not any(cli.debates.iterdir())
