"""A model server that dies while answering is called a crash (issue 19), through the real
openai SDK adapter against a loopback server that accepts a connection, reads the request,
stops listening and drops the connection without a word: what a llama.cpp server built with
miscompiled AMX code does on its first real completion.

Guarantees:
- the call fails with cause ``crashed`` and says "the server process died while answering
  (check its log or dmesg)": never "rejected", never a plain "unavailable"; sent once;
- the failure record (a ``Failure`` as failures.json holds it) says crashed, and a later call
  that finds nothing listening says nothing has listened since the crash;
- the structured-output step down after it lasts for this run only: dialects.json does not
  hold it, even after the restarted server answers the next dialect; a drop with the server
  still listening steps down for the run only too, while an HTTP 500 is still remembered;
- a whole debate on the command line says crashed on the terminal and in failures.json.

Teeth: with ``refuses_connections`` in argue/llm/_adapter.py made to return False (a crash never
recognised), the four crash tests here and the doctor's fail: the first call became the old
"closed the connection without answering … on a request carrying a JSON schema" rejection, a
step down, then "gave up after 3 attempts … connection failed" (plain unavailable), and the
debate's terminal said "unavailable — the server did not answer" for every call. With
``CRASH_WORDS`` in argue/llm/_retry.py changed to "the server is unavailable", the three tests
here that assert the direct wording and the doctor's failed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.engine.phases._common import model_failure
from argue.llm import DialectMemory, Message, ModelUnavailableError, OpenAICompatModel
from argue.llm._retry import CRASH_WORDS
from argue.llm.base import ModelServerDiedError
from argue.records.reasons import failure_sentence
from tests.llm.test_server_dialects import DroppingServer, kind_of, model_for, server_accepting
from tests.llm.wire import VALID_VERDICT, Verdict, openai_reply
from tests.loopback import DyingServer, LoopbackServer, RecordedRequest, Reply

MESSAGES = [Message(role="user", content="Should cities ban cars from their centres?")]
DIED = "the server process died while answering (check its log or dmesg)"
LLAMA_CPP_PYTHON_500 = Reply(
    status=500,
    json={"error": {"message": "response_format.type: Input should be 'text' or 'json_object'"}},
)


def verdicts(request: RecordedRequest) -> Reply:
    return openai_reply(json.dumps(VALID_VERDICT))


@pytest.fixture
def crashing() -> Iterator[DyingServer]:
    """Dies on the first request it takes; answers verdicts once restarted."""
    server = DyingServer(verdicts)
    yield server
    server.stop()


def remembered(path: Path) -> dict:
    if not path.exists():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["servers"]


async def test_a_server_that_dies_answering_is_called_a_crash(
    crashing: DyingServer, tmp_path: Path
) -> None:
    memory = DialectMemory(tmp_path / "dialects.json")
    model = model_for(crashing.url, memory)

    with pytest.raises(ModelServerDiedError) as caught:
        await model.complete(MESSAGES, output=Verdict)

    error = caught.value
    said = str(error)
    assert error.cause == "crashed"
    assert DIED in said and CRASH_WORDS == DIED
    assert "refused the next connection" in said
    assert "rejected" not in said and "gave up" not in said
    assert len(crashing.requests) == 1  # not sent again to a dead server
    # The failure record, as the engine writes it into failures.json and on the terminal.
    failure = model_failure(1, "A", "argument", error)
    assert failure.model_dump(mode="json")["cause"] == "crashed"
    assert "crashed — the server process died (check its log or dmesg)" in failure_sentence(failure)
    assert DIED in failure_sentence(failure)
    assert "rejected" not in failure_sentence(failure) and "unavailable" not in failure_sentence(
        failure
    )
    # The dialect steps down for this run only.
    assert model.dialect == "json_object_schema"
    assert "not remembered" in model.dialect_notes[-1]
    assert remembered(tmp_path / "dialects.json") == {}
    await model.aclose()


async def test_a_later_call_says_nothing_has_listened_since_the_crash(
    crashing: DyingServer, tmp_path: Path
) -> None:
    memory = DialectMemory(tmp_path / "dialects.json")
    model = model_for(crashing.url, memory)
    with pytest.raises(ModelServerDiedError):
        await model.complete(MESSAGES, output=Verdict)

    with pytest.raises(ModelUnavailableError) as later:
        await model.complete(MESSAGES, output=Verdict)

    assert later.value.cause == "crashed"
    assert "nothing has listened there since the server process died while answering an " in (
        str(later.value)
    )
    assert model.dialect == "json_object_schema"  # finding it dead is no second step down

    crashing.restart()
    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    assert crashing.requests[-1].json()["response_format"]["type"] == "json_object"
    assert "schema" in crashing.requests[-1].json()["response_format"]
    # Answered with the dialect it stepped down to, and still not remembered: a crash is no
    # rejection, so the next run starts at json_schema again.
    assert remembered(tmp_path / "dialects.json") == {}
    assert DialectMemory(tmp_path / "dialects.json").get(f"{crashing.url}/v1", model.model) is None


async def test_a_drop_on_a_live_server_steps_down_for_the_run_only(tmp_path: Path) -> None:
    dropping = DroppingServer()  # drops schema requests, keeps listening
    memory = DialectMemory(tmp_path / "dialects.json")
    model = model_for(dropping.url, memory)
    try:
        result = await model.complete(MESSAGES, output=Verdict)
    finally:
        await model.aclose()
        dropping.stop()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    assert model.dialect == "json_object"
    assert "dropped connection" in model.dialect_notes[0]
    assert all(DIED not in note for note in model.dialect_notes)  # alive: no crash claimed
    assert remembered(tmp_path / "dialects.json") == {}


async def test_an_http_500_step_down_is_still_remembered(
    loopback: LoopbackServer, tmp_path: Path
) -> None:
    loopback.handler = server_accepting("json_object_schema", rejection=LLAMA_CPP_PYTHON_500)
    memory = DialectMemory(tmp_path / "dialects.json")
    model = model_for(loopback.url, memory)

    await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert [kind_of(r) for r in loopback.requests] == ["json_schema", "json_object_schema"]
    entry = remembered(tmp_path / "dialects.json")[f"{loopback.url}/v1 {model.model}"]
    assert entry["dialect"] == "json_object_schema" and "HTTP 500" in entry["reason"]


def test_a_debate_against_a_server_that_dies_says_crashed(
    crashing: DyingServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGUE_PROVIDER", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{crashing.url}/v1")
    monkeypatch.setenv("ARGUE_MODEL", "gemma-3-270m")
    monkeypatch.setenv("ARGUE_RESEARCH_SOURCES", "library")  # nothing leaves the machine
    debates = tmp_path / "debates"
    args = ["argue", "Should cities ban cars?", "--persona-a", "embry", "--persona-b", "horus"]
    args += ["--rounds", "1", "--max-attempts", "1", "--debates-dir", str(debates)]

    result = CliRunner().invoke(app, args)

    assert len(crashing.requests) == 1, result.output  # the framing call, which killed it
    assert "crashed — the server process died" in result.stderr, result.output
    assert DIED in result.stderr
    folders = [p for p in debates.iterdir() if p.is_dir()]
    assert len(folders) == 1, result.output
    failures = json.loads((folders[0] / "failures.json").read_text(encoding="utf-8"))
    calls = [f for f in failures if f["phase"] != "debate"]
    assert calls, failures
    assert {f.get("cause") for f in calls} == {"crashed"}, failures
    assert DIED in calls[0]["reason"]  # the framing call, the one the server died answering
    assert all("nothing has listened there since" in f["reason"] for f in calls[1:])
    assert all("rejected" not in f["reason"] for f in failures)
    assert not (Path(str(tmp_path / "argue_home")) / "dialects.json").exists()


async def test_a_forced_dialect_is_not_stepped_down_by_a_crash(crashing: DyingServer) -> None:
    """A forced dialect is never stepped down, a crash included; the crash is still named."""
    model: OpenAICompatModel = model_for(crashing.url, dialect="json_schema")

    with pytest.raises(ModelServerDiedError, match="died while answering"):
        await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert model.dialect == "json_schema" and model.dialect_notes == []
