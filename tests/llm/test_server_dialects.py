"""Structured output against the servers people run, each faked on loopback by its dialect.

Guarantees (each broken once on purpose to see its test fail):
- a deterministic rejection (4xx, a 5xx naming response_format, a connection dropped on a
  schema) is never retried as an outage, and steps down to the next dialect;
- the dialect that worked is remembered per (base URL, model) and later models start there;
  ``ARGUE_STRUCTURED_OUTPUT`` forces one;
- a timed-out request to a self-hosted server is not sent again; one slot means one request
  in flight;
- a reply cut off by the context window is not retried with a larger output limit and says so;
- an out-of-range number is clamped with a recorded repair instead of a re-ask;
- limits come from flags > environment > config.toml > defaults, per provider.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from argue.domain import Failure
from argue.llm import (
    DialectMemory,
    Message,
    ModelOutputError,
    ModelRequestError,
    ModelUnavailableError,
    OpenAICompatModel,
    OpenAICompatProvider,
    RetryPolicy,
    ServerLimits,
    resolve_model,
)
from argue.llm._dialects import compact_schema
from argue.llm.base import ProviderNotConfigured
from argue.records.reasons import failure_sentence
from tests.llm.wire import (
    FAST_RETRY,
    VALID_VERDICT,
    SleepRecorder,
    Verdict,
    openai_error,
    openai_json_reply,
    openai_reply,
)
from tests.loopback import LoopbackServer, RecordedRequest, Reply

MESSAGES = [Message(role="user", content="Should cities ban cars from their centres?")]
SELF_HOSTED = RetryPolicy(
    max_attempts=3,
    max_total_s=30.0,
    request_timeout_s=0.4,
    initial_backoff_s=0.01,
    jitter_s=0.0,
    retry_timeouts=False,
)


def model_for(
    url: str,
    memory: DialectMemory | None = None,
    retry: RetryPolicy = FAST_RETRY,
    slots: int = 4,
    dialect: str | None = None,
) -> OpenAICompatModel:
    provider = OpenAICompatProvider(name="openai", base_url=f"{url}/v1")
    return OpenAICompatModel(
        "gemma-3-270m",
        provider=provider,
        retry=retry,
        sleep=SleepRecorder(),
        max_concurrency=slots,
        dialects=memory or DialectMemory(None),
        dialect=dialect,  # type: ignore[arg-type]
    )


def response_format_of(request: RecordedRequest) -> dict | None:
    return request.json().get("response_format")


def kind_of(request: RecordedRequest) -> str:
    response_format = response_format_of(request)
    if response_format is None:
        return "text"
    if response_format["type"] == "json_object":
        return "json_object_schema" if "schema" in response_format else "json_object"
    return response_format["type"]


def server_accepting(*accepted: str, rejection: Reply) -> object:
    """A handler answering the dialects in ``accepted`` with a valid verdict, others with
    ``rejection``; a prompt-only dialect gets prose around the JSON."""

    def handle(request: RecordedRequest) -> Reply:
        kind = kind_of(request)
        if kind not in accepted:
            return rejection
        payload = json.dumps(VALID_VERDICT)
        text = payload if kind != "text" else f"Here is my answer:\n```json\n{payload}\n```"
        return openai_reply(text)

    return handle


async def test_a_json_schema_server_is_asked_once_and_remembered(
    loopback: LoopbackServer, tmp_path: Path
):
    memory = DialectMemory(tmp_path / "dialects.json")
    loopback.handler = server_accepting("json_schema", rejection=openai_error(400, "no"))
    model = model_for(loopback.url, memory)

    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    assert [kind_of(r) for r in loopback.requests] == ["json_schema"]
    stored = json.loads((tmp_path / "dialects.json").read_text())
    assert stored["servers"][f"{loopback.url}/v1 gemma-3-270m"]["dialect"] == "json_schema"


async def test_llama_cpp_python_500_on_json_schema_steps_down_without_retrying(
    loopback: LoopbackServer, tmp_path: Path
):
    # llama-cpp-python 0.3.x answers its own validation error on response_format with a 500.
    rejection = Reply(
        status=500,
        json={
            "error": {
                "message": "1 validation error for CreateChatCompletionRequest\n"
                "response_format.type\n  Input should be 'text' or 'json_object'",
                "type": "internal_server_error",
            }
        },
    )
    loopback.handler = server_accepting("json_object_schema", rejection=rejection)
    memory = DialectMemory(tmp_path / "dialects.json")
    model = model_for(loopback.url, memory)

    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    # One rejected try, then the schema in llama-cpp-python's field: no retry of the 500.
    assert [kind_of(r) for r in loopback.requests] == ["json_schema", "json_object_schema"]
    assert response_format_of(loopback.requests[1]) == {
        "type": "json_object",
        "schema": compact_schema(Verdict),
    }
    assert "HTTP 500" in model.dialect_notes[0]

    # A later debate (a new model object, the same server) starts with what worked.
    loopback.requests.clear()
    again = model_for(loopback.url, DialectMemory(tmp_path / "dialects.json"))
    await again.complete(MESSAGES, output=Verdict)
    await again.aclose()
    assert [kind_of(r) for r in loopback.requests] == ["json_object_schema"]
    assert "remembered" in again.dialect_notes[0]


async def test_a_json_object_only_server_gets_the_schema_in_the_prompt(loopback: LoopbackServer):
    rejection = openai_error(400, "response_format: only {'type': 'json_object'} is supported")
    loopback.handler = server_accepting("json_object", rejection=rejection)
    model = model_for(loopback.url)

    await model.complete(MESSAGES, output=Verdict)
    await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    kinds = [kind_of(r) for r in loopback.requests]
    assert kinds == ["json_schema", "json_object_schema", "json_object", "json_object"]
    system = loopback.requests[-1].json()["messages"][0]
    assert system["role"] == "system" and '"stance"' in system["content"]


async def test_a_text_only_server_gets_prompt_and_extraction(loopback: LoopbackServer):
    rejection = openai_error(422, "Unrecognized request argument supplied: response_format")
    loopback.handler = server_accepting("text", rejection=rejection)
    model = model_for(loopback.url)

    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    assert [kind_of(r) for r in loopback.requests][-1] == "text"
    assert len(loopback.requests) == 4  # one try per dialect, none repeated
    assert model.dialect == "text"


async def test_a_forced_dialect_is_used_from_the_first_call_and_never_changed(
    loopback: LoopbackServer,
):
    loopback.handler = server_accepting("json_object", rejection=openai_error(400, "schema"))
    model = model_for(loopback.url, dialect="json_object")

    await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert [kind_of(r) for r in loopback.requests] == ["json_object"]


async def test_a_forced_dialect_the_server_rejects_says_how_to_let_argue_negotiate(
    loopback: LoopbackServer,
):
    loopback.handler = server_accepting("text", rejection=openai_error(400, "bad response_format"))
    model = model_for(loopback.url, dialect="json_schema")
    model._dialect_setting = "ARGUE_STRUCTURED_OUTPUT"

    with pytest.raises(ModelRequestError, match="forces json_schema; set it to auto"):
        await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert len(loopback.requests) == 1


async def test_an_outage_5xx_is_still_retried(loopback: LoopbackServer):
    loopback.enqueue(
        Reply(status=503, json={"error": {"message": "Service Unavailable"}}),
        openai_json_reply(VALID_VERDICT),
    )
    model = model_for(loopback.url)

    await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert [kind_of(r) for r in loopback.requests] == ["json_schema", "json_schema"]


async def test_a_deterministic_rejection_is_not_retried_and_says_rejected(
    loopback: LoopbackServer,
):
    loopback.enqueue(openai_error(404, "model 'gemma-9' not found"))
    model = model_for(loopback.url)

    with pytest.raises(ModelRequestError) as caught:
        await model.complete(MESSAGES)
    await model.aclose()

    assert len(loopback.requests) == 1
    assert caught.value.cause == "rejected"
    assert "not retried" in str(caught.value)


# ------------------------------------------------------ a server that dies on a schema


class DroppingServer:
    """Accepts a connection, reads the request, closes without answering (a crashed worker)
    when the body carries a schema; answers a valid verdict otherwise."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            with connection:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = connection.recv(65536)
                    if not chunk:
                        break  # a connect-and-close (argue checking the server still listens)
                    data += chunk
                if b"\r\n\r\n" not in data:
                    continue
                head, _, body = data.partition(b"\r\n\r\n")
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                while len(body) < length:
                    body += connection.recv(65536)
                payload = json.loads(body)
                self.bodies.append(payload)
                if "schema" in json.dumps(payload.get("response_format") or {}):
                    continue  # closed without a word
                reply = openai_reply(json.dumps(VALID_VERDICT)).json
                encoded = json.dumps(reply).encode()
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(encoded)}\r\nConnection: close\r\n\r\n".encode()
                    + encoded
                )

    def stop(self) -> None:
        self._socket.close()


@pytest.fixture
def dropping() -> Iterator[DroppingServer]:
    server = DroppingServer()
    yield server
    server.stop()


async def test_a_server_that_drops_schema_requests_is_not_hammered(dropping: DroppingServer):
    model = model_for(dropping.url)

    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    kinds = [
        "text" if b.get("response_format") is None else b["response_format"]["type"]
        for b in dropping.bodies
    ]
    # json_schema dropped once, json_object+schema dropped once, then the schema in the prompt.
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert model.dialect == "json_object"
    assert "dropped connection" in model.dialect_notes[0]


# ------------------------------------------------------------- a one-slot slow server


class OneSlotServer:
    """One request computed at a time, ``seconds`` each, finished even when the client left."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.loopback = LoopbackServer()
        self.slot = threading.Lock()
        self.max_in_flight = 0
        self.loopback.handler = self._handle

    def _handle(self, request: RecordedRequest) -> Reply:
        self.max_in_flight = max(self.max_in_flight, self.loopback.in_flight)
        reply = openai_json_reply(VALID_VERDICT)
        reply.delay_s = self.seconds
        return reply


async def test_a_timed_out_request_to_a_self_hosted_server_is_not_sent_again():
    slow = OneSlotServer(seconds=1.5)
    slow.loopback.start()
    try:
        model = model_for(slow.loopback.url, retry=SELF_HOSTED, slots=1)
        with pytest.raises(ModelUnavailableError) as caught:
            await model.complete(MESSAGES, output=Verdict)
        await model.aclose()
    finally:
        slow.loopback.stop()

    assert len(slow.loopback.requests) == 1
    assert caught.value.cause == "unavailable"
    assert "not sent again" in str(caught.value)


async def test_one_slot_means_one_request_in_flight():
    server = OneSlotServer(seconds=0.15)
    server.loopback.start()
    try:
        model = model_for(server.loopback.url, slots=1)
        await asyncio.gather(*(model.complete(MESSAGES, output=Verdict) for _ in range(4)))
        await model.aclose()
    finally:
        server.loopback.stop()

    assert len(server.loopback.requests) == 4
    assert server.max_in_flight == 1


# --------------------------------------------------------- what grammars cannot enforce


async def test_an_out_of_range_confidence_is_clamped_with_a_recorded_repair(
    loopback: LoopbackServer,
):
    loopback.enqueue(openai_json_reply({**VALID_VERDICT, "confidence": 1.3}))
    model = model_for(loopback.url)

    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert len(loopback.requests) == 1  # repaired, not re-asked
    assert result.parsed().confidence == 1.0
    assert result.repairs == ["confidence: 1.3 is out of range, clamped to 1.0"]


async def test_what_cannot_be_repaired_is_still_re_asked(loopback: LoopbackServer):
    loopback.enqueue(
        openai_json_reply({**VALID_VERDICT, "confidence": 1.3, "stance": "maybe"}),
        openai_json_reply(VALID_VERDICT),
    )
    model = model_for(loopback.url)

    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert len(loopback.requests) == 2
    assert result.repairs == []


async def test_a_reply_cut_off_by_the_context_window_is_not_resent(loopback: LoopbackServer):
    loopback.enqueue(openai_reply('{"stance": "ag', finish_reason="length", completion_tokens=13))
    model = model_for(loopback.url)

    with pytest.raises(ModelOutputError) as caught:
        await model.complete(MESSAGES, output=Verdict, max_tokens=2048)
    await model.aclose()

    assert len(loopback.requests) == 1
    message = str(caught.value)
    assert "context window after 13 output tokens" in message
    assert "not by the 2048-token output limit" in message
    assert caught.value.cause == "cut_off"


# ------------------------------------------------------------------- settings


def test_limits_come_from_flags_then_env_then_config(tmp_path: Path):
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "ARGUE_MODEL": "m"}
    config = {"openai": ServerLimits(slots=1, request_timeout_s=7, max_attempts=2)}
    memory = DialectMemory(None)

    from_config = resolve_model(env=env, configured_limits=config, dialects=memory)
    assert from_config.max_concurrency == 1  # type: ignore[attr-defined]
    assert from_config._retry.request_timeout_s == 7  # type: ignore[attr-defined]
    assert from_config._retry.max_attempts == 2  # type: ignore[attr-defined]
    assert from_config._retry.retry_timeouts is False  # type: ignore[attr-defined]

    from_env = resolve_model(
        env={**env, "ARGUE_REQUEST_TIMEOUT_S": "30", "ARGUE_MAX_CONCURRENCY": "3"},
        configured_limits=config,
        dialects=memory,
    )
    assert from_env._retry.request_timeout_s == 30  # type: ignore[attr-defined]
    assert from_env.max_concurrency == 3  # type: ignore[attr-defined]

    from_flag = resolve_model(
        env={**env, "ARGUE_REQUEST_TIMEOUT_S": "30"},
        configured_limits=config,
        limits=ServerLimits(request_timeout_s=90),
        dialects=memory,
    )
    assert from_flag._retry.request_timeout_s == 90  # type: ignore[attr-defined]

    hosted = resolve_model(env={"OPENAI_API_KEY": "sk-" + "x" * 20}, dialects=memory)
    assert hosted._retry.retry_timeouts is True  # type: ignore[attr-defined]


def test_structured_output_setting_forces_and_a_bad_one_is_named():
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "ARGUE_MODEL": "m"}
    forced = resolve_model(env={**env, "ARGUE_STRUCTURED_OUTPUT": "text"})
    assert forced.dialect == "text" and forced.dialect_forced  # type: ignore[attr-defined]
    with pytest.raises(ProviderNotConfigured, match="ARGUE_STRUCTURED_OUTPUT"):
        resolve_model(env={**env, "ARGUE_STRUCTURED_OUTPUT": "yaml"})
    with pytest.raises(ProviderNotConfigured, match="ARGUE_REQUEST_TIMEOUT_S"):
        resolve_model(env={**env, "ARGUE_REQUEST_TIMEOUT_S": "-1"})


def test_the_dialect_file_never_stores_a_url_password(tmp_path: Path):
    memory = DialectMemory(tmp_path / "dialects.json")
    memory.remember("http://user:hunter2-secret@10.0.0.5:8080/v1", "m", "json_object", "x")
    text = (tmp_path / "dialects.json").read_text()
    assert "hunter2" not in text and "user" not in text
    assert DialectMemory(tmp_path / "dialects.json").get("http://10.0.0.5:8080/v1", "m")


def test_a_damaged_dialect_file_means_negotiating_again(tmp_path: Path):
    (tmp_path / "dialects.json").write_text("{not json")
    memory = DialectMemory(tmp_path / "dialects.json")
    assert memory.get("http://x/v1", "m") is None
    memory.remember("http://x/v1", "m", "text", "x")
    assert json.loads((tmp_path / "dialects.json").read_text())["version"] == 1


def test_failure_words_say_the_kind_and_keep_effect_unknown_for_the_unknown():
    def sentence(cause: str | None) -> str:
        return failure_sentence(
            Failure(
                round=1,
                phase="argument",
                kind="failed",
                what="argument model call",
                reason="r",
                cause=cause,  # type: ignore[arg-type]
            )
        )

    assert "rejected — the server refused this request" in sentence("rejected")
    assert "unavailable — the server did not answer" in sentence("unavailable")
    assert "cut off" in sentence("cut_off")
    assert "invalid output" in sentence("invalid_output")
    assert "effect unknown" in sentence(None)
    assert all("effect unknown" not in sentence(c) for c in ("rejected", "cut_off"))
