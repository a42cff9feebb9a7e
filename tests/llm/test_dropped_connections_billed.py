"""Every request that reached a model server is in usage (issue 37, item 4).

A server that read the whole request and then closed the connection without a word (httpx's
RemoteProtocolError) or reset it (ReadError) may have computed, and billed, it: each such
attempt is a possibly-billed Usage row (no tokens, ``possibly_billed_calls`` 1), exactly like a
timeout after sending, on the result when a retry succeeded and on the error when none did; a
stated cost then says "at least" (or "unknown" when nothing has a known cost). A connection
refused sent nothing and adds no row. Through the real openai and anthropic SDKs against a
loopback server that hangs up, with the usage ledger a debate keeps (``MeteredModel``) compared
with the requests the server received.

Teeth: with ``possibly_billed=True`` removed from the "dropped" branch of
``SDKAdapter._sdk_failures`` (argue/llm/_adapter.py) the "close" tests fail (one row short per
dropped request: 13 counted for 14 received); with ``possibly_billed=sent_before_dropping(...)``
there set to False the "reset" tests fail; with ``sent_before_dropping`` answering True for
everything (``unknown=True`` and "ConnectError" left out of ``_BEFORE_SENDING``,
argue/llm/_retry.py) the connect-refused test fails (rows for requests nobody received); with
``earlier.recovered_from(error)`` removed from ``OpenAICompatModel._send`` (or from
``AnthropicModel._send``, ``OllamaNativeModel._send``) its adapter's "asks another way" test
fails (the dropped request is lost when argue sends again after a rejection).
"""

from __future__ import annotations

import json
import socket

import pytest

from argue.domain import Usage
from argue.engine.metering import MeteredModel
from argue.llm import (
    AnthropicModel,
    AnthropicProvider,
    DialectMemory,
    Message,
    ModelError,
    ModelUnavailableError,
    OpenAICompatModel,
    OpenAICompatProvider,
    RetryPolicy,
    UsageLedger,
)
from argue.llm._ollama import OllamaNativeModel, OllamaNativeProvider
from argue.llm.base import billed_answers
from argue.llm.pricing import describe_cost
from tests.llm.wire import (
    VALID_VERDICT,
    SleepRecorder,
    Verdict,
    anthropic_error,
    anthropic_text_reply,
    openai_json_reply,
    openai_reply,
)
from tests.loopback import LoopbackServer, RecordedRequest, Reply

OPENAI_KEY = "sk-proj-loopback-dropped-key-abcdefghijkl"
ANTHROPIC_KEY = "sk-ant-api03-loopback-dropped-key-abcdefghijkl"
MESSAGES = [Message(role="user", content="Should cities ban cars from their centres?")]
RETRY = RetryPolicy(
    max_attempts=4, request_timeout_s=5.0, initial_backoff_s=0.0, max_backoff_s=0.0, jitter_s=0.0
)


def gpt(base_url: str) -> OpenAICompatModel:
    provider = OpenAICompatProvider(
        name="openai", base_url=f"{base_url}/v1", api_key=OPENAI_KEY, key_env="OPENAI_API_KEY"
    )
    return OpenAICompatModel("gpt-5.4-mini", provider=provider, retry=RETRY, sleep=SleepRecorder())


def claude(base_url: str) -> AnthropicModel:
    provider = AnthropicProvider(api_key=ANTHROPIC_KEY, base_url=base_url)
    return AnthropicModel(
        "claude-sonnet-4-6", provider=provider, retry=RETRY, sleep=SleepRecorder()
    )


async def metered_call(model: OpenAICompatModel | AnthropicModel, **kwargs: object) -> list[Usage]:
    """The usage ledger a debate keeps for one call, returned or raised (the error re-raised
    after the ledger is read is the test's to catch)."""
    ledger: list[Usage] = []
    try:
        await MeteredModel(model, ledger).complete(MESSAGES, purpose="A/R1/argument", **kwargs)
    except ModelError:
        pass
    finally:
        await model.aclose()
    return ledger


@pytest.mark.parametrize("how", ["close", "reset"])
async def test_openai_dropped_attempts_before_an_answer_are_possibly_billed(
    loopback: LoopbackServer, how: str
):
    loopback.enqueue(Reply(hang_up=how), Reply(hang_up=how), openai_reply("Yes, mostly."))
    ledger = await metered_call(gpt(loopback.url))
    assert len(loopback.requests) == 3
    assert len(ledger) == 3 == UsageLedger(ledger).total().calls
    *dropped, answer = ledger
    for row in dropped:
        assert row.possibly_billed_calls == 1
        assert (row.input_tokens, row.output_tokens, row.cost_usd) == (0, 0, 0.0)
        assert row.purpose == "A/R1/argument"
    assert answer.possibly_billed_calls == 0 and answer.cost_usd > 0
    stated = describe_cost(UsageLedger(ledger).total())
    assert stated == f"at least ${answer.cost_usd:.4f} (2 requests unanswered, possibly billed)"


@pytest.mark.parametrize("how", ["close", "reset"])
async def test_openai_every_attempt_dropped_bills_each_to_the_error(
    loopback: LoopbackServer, how: str
):
    loopback.enqueue(Reply(hang_up=how))
    model = gpt(loopback.url)
    with pytest.raises(ModelUnavailableError) as caught:
        await model.complete(MESSAGES, purpose="judge/R1")
    await model.aclose()
    rows = billed_answers(caught.value)
    assert len(rows) == len(loopback.requests) == RETRY.max_attempts
    assert all(r.possibly_billed_calls == 1 and r.purpose == "judge/R1" for r in rows)
    assert describe_cost(caught.value.usage) == "unknown (4 requests unanswered, possibly billed)"


@pytest.mark.parametrize("how", ["close", "reset"])
async def test_anthropic_dropped_attempts_are_possibly_billed(loopback: LoopbackServer, how: str):
    loopback.enqueue(Reply(hang_up=how), anthropic_text_reply("Yes, mostly."))
    ledger = await metered_call(claude(loopback.url))
    assert len(loopback.requests) == 2 == len(ledger)
    dropped, answer = ledger
    assert dropped.possibly_billed_calls == 1 and dropped.output_tokens == 0
    assert answer.possibly_billed_calls == 0 and answer.output_tokens == 57

    loopback.reset()
    loopback.enqueue(Reply(hang_up=how))
    ledger = await metered_call(claude(loopback.url))
    assert len(ledger) == len(loopback.requests) == RETRY.max_attempts
    assert all(row.possibly_billed_calls == 1 for row in ledger)
    assert describe_cost(UsageLedger(ledger).total(), "fr") == (
        "inconnu (4 requêtes sans réponse, peut-être facturées)"
    )


async def test_a_dropped_schema_request_stays_counted_when_argue_asks_another_way(
    loopback: LoopbackServer,
):
    """A server that drops every request carrying a JSON schema (a llama.cpp server failing on
    its grammar): argue asks again without one, and each dropped request is still a row."""

    def drops_schemas(request: RecordedRequest) -> Reply:
        if "schema" in json.dumps(request.json().get("response_format") or {}):
            return Reply(hang_up="close")
        return openai_json_reply(VALID_VERDICT)

    loopback.handler = drops_schemas
    provider = OpenAICompatProvider(name="llama-server", base_url=f"{loopback.url}/v1")
    model = OpenAICompatModel(
        "qwen", provider=provider, retry=RETRY, sleep=SleepRecorder(), dialects=DialectMemory(None)
    )
    ledger: list[Usage] = []
    result = await MeteredModel(model, ledger).complete(MESSAGES, output=Verdict)
    await model.aclose()
    assert result.value == Verdict.model_validate(VALID_VERDICT)
    assert len(loopback.requests) == 3  # json_schema, json_object + schema, json_object
    assert len(ledger) == 3 == result.usage.calls
    assert [row.possibly_billed_calls for row in ledger] == [1, 1, 0]


async def test_anthropic_keeps_a_dropped_attempt_when_it_adapts_to_a_rejection(
    loopback: LoopbackServer,
):
    """Dropped, then a 400 naming the temperature (not billed), then sent without one: the
    dropped attempt billed to the rejection stays in usage."""
    loopback.enqueue(
        Reply(hang_up="close"),
        anthropic_error(400, "invalid_request_error", "temperature is not supported"),
        anthropic_text_reply("Yes, mostly."),
    )
    ledger = await metered_call(claude(loopback.url), temperature=0.3)
    assert len(loopback.requests) == 3
    assert [row.possibly_billed_calls for row in ledger] == [1, 0]  # the 400 is not billed
    assert "temperature" not in loopback.requests[2].json()


async def test_ollama_keeps_a_dropped_schema_request_when_it_asks_another_way(
    loopback: LoopbackServer,
):
    def drops_schemas(request: RecordedRequest) -> Reply:
        if isinstance(request.json().get("format"), dict):
            return Reply(hang_up="close")
        return Reply(
            json={
                "model": "qwen3:8b",
                "message": {"role": "assistant", "content": json.dumps(VALID_VERDICT)},
                "done": True,
                "done_reason": "stop",
                "prompt_eval_count": 52,
                "eval_count": 31,
            }
        )

    loopback.handler = drops_schemas
    model = OllamaNativeModel(
        "qwen3:8b", provider=OllamaNativeProvider(loopback.url), retry=RETRY, sleep=SleepRecorder()
    )
    ledger: list[Usage] = []
    await MeteredModel(model, ledger).complete(MESSAGES, output=Verdict)
    await model.aclose()
    assert [r.json().get("format") == "json" for r in loopback.requests] == [False, True]
    assert [row.possibly_billed_calls for row in ledger] == [1, 0]


def refused_url() -> str:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def test_a_refused_connection_sent_nothing_and_adds_no_row():
    url = refused_url()
    for model in (gpt(url), claude(url)):
        ledger: list[Usage] = []
        with pytest.raises(ModelUnavailableError, match="connection failed") as caught:
            await MeteredModel(model, ledger).complete(MESSAGES)
        await model.aclose()
        assert ledger == [] and billed_answers(caught.value) == []
