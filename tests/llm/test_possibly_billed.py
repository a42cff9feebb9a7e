"""A request that timed out after it was sent counts as possibly billed; the cost is "at least".

The provider may have computed (and billed) a request whose answer never arrived. Each such
attempt is a Usage row of its own (no tokens, ``possibly_billed_calls`` 1), on the result when a
retry succeeded and on the error when none did, and every stated cost then says "at least $X"
with the count of those requests. Through the real openai SDK against a loopback server that
sleeps past the client's timeout.

Teeth: with the ``unanswered.append(...)`` in ``SDKAdapter._call`` (argue/llm/_adapter.py)
removed, the wire tests fail (no possibly-billed row); with the ``possibly_billed`` branch of
``describe_cost`` (argue/llm/pricing.py) removed, the wording tests fail ("$0.0003", stated as
exact).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from argue.domain import Usage
from argue.llm import (
    Message,
    ModelUnavailableError,
    OpenAICompatModel,
    OpenAICompatProvider,
    RetryPolicy,
    UsageLedger,
)
from argue.llm._retry import sent_before_timeout
from argue.llm.base import billed_answers
from argue.llm.pricing import describe_cost
from tests.llm.wire import VALID_VERDICT, SleepRecorder, Verdict, openai_json_reply
from tests.loopback import LoopbackServer

API_KEY = "sk-proj-loopback-timeout-key-abcdefghijkl"
MESSAGES = [Message(role="user", content="Should cities ban cars from their centres?")]
SHORT = RetryPolicy(
    max_attempts=2, request_timeout_s=0.3, initial_backoff_s=0.0, max_backoff_s=0.0, jitter_s=0.0
)


@pytest.fixture
async def gpt(loopback: LoopbackServer) -> AsyncIterator[OpenAICompatModel]:
    provider = OpenAICompatProvider(
        name="openai", base_url=f"{loopback.url}/v1", api_key=API_KEY, key_env="OPENAI_API_KEY"
    )
    model = OpenAICompatModel("gpt-5.4-mini", provider=provider, retry=SHORT, sleep=SleepRecorder())
    yield model
    await model.aclose()


def slow_reply(seconds: float = 1.5):
    reply = openai_json_reply(VALID_VERDICT)
    reply.delay_s = seconds
    return reply


async def test_a_timed_out_attempt_before_an_answer_is_a_possibly_billed_row(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(slow_reply(), openai_json_reply(VALID_VERDICT))
    result = await gpt.complete(MESSAGES, output=Verdict, purpose="A/R1/argument")
    assert len(loopback.requests) == 2
    timed_out, answer = result.answers
    assert timed_out.possibly_billed_calls == 1
    assert (timed_out.input_tokens, timed_out.output_tokens, timed_out.cost_usd) == (0, 0, 0.0)
    assert timed_out.unpriced_calls == 0 and timed_out.purpose == "A/R1/argument"
    assert answer.possibly_billed_calls == 0 and answer.cost_usd > 0
    assert result.usage.possibly_billed_calls == 1
    stated = describe_cost(UsageLedger(result.answers).total())
    assert stated == f"at least ${answer.cost_usd:.4f} (1 request unanswered, possibly billed)"
    assert describe_cost(result.usage, "fr").startswith("au moins 0,")
    assert "1 requête sans réponse, peut-être facturée" in describe_cost(result.usage, "fr")


async def test_every_attempt_timed_out_bills_each_as_possibly_billed(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(slow_reply())
    with pytest.raises(ModelUnavailableError) as caught:
        await gpt.complete(MESSAGES, output=Verdict, purpose="judge/R1")
    rows = billed_answers(caught.value)
    assert len(rows) == 2 == len(loopback.requests)
    assert all(r.possibly_billed_calls == 1 and r.purpose == "judge/R1" for r in rows)
    assert describe_cost(caught.value.usage) == "unknown (2 requests unanswered, possibly billed)"


def test_the_cost_wording_with_possibly_billed_requests():
    priced = Usage(provider="openai", model="gpt-4o", cost_usd=0.25)
    timed_out = Usage(provider="openai", model="gpt-4o", possibly_billed_calls=1)
    unpriced = Usage(provider="ollama", model="llama3.2", unpriced_calls=1)
    assert describe_cost(priced) == "$0.2500"
    assert describe_cost(priced + timed_out) == (
        "at least $0.2500 (1 request unanswered, possibly billed)"
    )
    assert describe_cost(priced + timed_out + timed_out + unpriced) == (
        "at least $0.2500 (1 unpriced call, 2 requests unanswered, possibly billed)"
    )
    assert describe_cost(priced + timed_out, "fr") == (
        "au moins 0,2500\u00a0$ (1 requête sans réponse, peut-être facturée)"
    )
    # Rows written before the field existed load as never timed out; new rows without one
    # serialise exactly as before.
    assert Usage.model_validate({"cost_usd": 0.1}).possibly_billed_calls == 0
    assert "possibly_billed_calls" not in priced.model_dump()


def test_only_a_timeout_after_sending_counts():
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    for never_sent in (httpx.ConnectTimeout, httpx.PoolTimeout, httpx.WriteTimeout):
        wrapped = RuntimeError("timed out")
        wrapped.__cause__ = never_sent("x", request=request)
        assert not sent_before_timeout(wrapped)
    wrapped = RuntimeError("timed out")
    wrapped.__cause__ = httpx.ReadTimeout("x", request=request)
    assert sent_before_timeout(wrapped)
    assert sent_before_timeout(RuntimeError("a timeout nobody can tell apart"))
