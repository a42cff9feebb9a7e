"""The Anthropic adapter: the real AsyncAnthropic client against a loopback Messages API."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from pydantic import BaseModel

from argue.llm import (
    AnthropicModel,
    AnthropicProvider,
    Message,
    ModelAuthError,
    ModelOutputError,
    ModelRequestError,
    ModelUnavailableError,
    RetryPolicy,
)
from tests.llm.wire import (
    FAST_RETRY,
    INVALID_VERDICT,
    VALID_VERDICT,
    SleepRecorder,
    Verdict,
    anthropic_error,
    anthropic_json_reply,
    anthropic_text_reply,
    anthropic_tool_reply,
)
from tests.loopback import LoopbackServer, Reply

API_KEY = "sk-ant-api03-loopback-test-key-0123456789"


class Framing(BaseModel):
    angles: dict[str, str]


MESSAGES = [
    Message(role="system", content="You are Ada, a precise economist."),
    Message(role="user", content="Should cities ban cars from their centres?"),
]


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


def make_model(
    loopback: LoopbackServer, sleeps: SleepRecorder, retry: RetryPolicy = FAST_RETRY, **kwargs
) -> AnthropicModel:
    return AnthropicModel(
        "claude-sonnet-4-6",
        provider=AnthropicProvider(api_key=API_KEY, base_url=loopback.url),
        retry=retry,
        sleep=sleeps,
        **kwargs,
    )


@pytest.fixture
async def claude(loopback: LoopbackServer, sleeps: SleepRecorder) -> AsyncIterator[AnthropicModel]:
    model = make_model(loopback, sleeps)
    yield model
    await model.aclose()


async def test_structured_output_round_trip(claude: AnthropicModel, loopback: LoopbackServer):
    loopback.enqueue(anthropic_json_reply(VALID_VERDICT, cache_read=1024, cache_write=2048))

    result = await claude.complete(MESSAGES, output=Verdict, purpose="A/R1/argument")

    assert isinstance(result.value, Verdict)
    assert result.value.stance == "against"
    assert result.value.reasons == ["congestion pricing worked in Stockholm"]
    usage = result.usage
    assert (usage.provider, usage.model, usage.purpose) == (
        "anthropic",
        "claude-sonnet-4-6",
        "A/R1/argument",
    )
    assert (usage.input_tokens, usage.output_tokens) == (412, 57)
    assert (usage.cache_read_tokens, usage.cache_write_tokens) == (1024, 2048)
    # Sonnet 4.6: 412*3 + 57*15 + 1024*0.30 + 2048*3.75 USD per million tokens
    assert usage.cost_usd == pytest.approx((1236 + 855 + 307.2 + 7680) / 1e6)
    assert usage.latency_s >= 0

    [request] = loopback.requests
    assert request.path == "/v1/messages"
    # This SDK generation sends the key as a bearer token; older ones used x-api-key.
    assert API_KEY in (request.headers.get("x-api-key") or request.headers["authorization"])
    assert request.headers["x-stainless-retry-count"] == "0"
    body = request.json()
    assert body["model"] == "claude-sonnet-4-6"
    assert body["system"] == [
        {
            "type": "text",
            "text": "You are Ada, a precise economist.",
            "cache_control": {"type": "ephemeral"},
        }
    ]
    assert body["messages"] == [
        {"role": "user", "content": "Should cities ban cars from their centres?"}
    ]
    from anthropic import transform_schema  # here: the SDK takes a second to import

    assert body["output_config"] == {
        "format": {"type": "json_schema", "schema": transform_schema(Verdict)}
    }
    assert "tools" not in body


async def test_forced_tool_mode_round_trip(loopback: LoopbackServer, sleeps: SleepRecorder):
    model = make_model(loopback, sleeps, structured_modes=("tool",))
    loopback.enqueue(anthropic_tool_reply(VALID_VERDICT))

    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    body = loopback.requests[0].json()
    assert body["tool_choice"] == {"type": "tool", "name": "Verdict"}
    [tool] = body["tools"]
    assert (tool["name"], tool["input_schema"]) == ("Verdict", Verdict.model_json_schema())
    assert "output_config" not in body


async def test_server_without_structured_outputs_falls_back_to_a_forced_tool(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_error(
            400,
            "invalid_request_error",
            "output_config.format: structured outputs are not supported for this model",
        ),
        anthropic_tool_reply(VALID_VERDICT),
        anthropic_tool_reply(VALID_VERDICT),
    )

    first = await claude.complete(MESSAGES, output=Verdict)
    second = await claude.complete(MESSAGES, output=Verdict)

    assert first.value.stance == second.value.stance == "against"
    bodies = [r.json() for r in loopback.requests]
    assert len(bodies) == 3
    assert "output_config" in bodies[0]
    # The fallback is remembered: no second rejected attempt for the next call.
    assert all("tools" in b and "output_config" not in b for b in bodies[1:])
    assert claude.rejected_modes == {"json_schema"}


async def test_open_maps_skip_output_config_which_would_close_them(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_tool_reply({"angles": {"A": "cost", "B": "safety"}}, name="Framing"))

    result = await claude.complete(MESSAGES, output=Framing)

    assert result.value.angles == {"A": "cost", "B": "safety"}
    body = loopback.requests[0].json()
    assert "output_config" not in body
    assert body["tool_choice"] == {"type": "tool", "name": "Framing"}
    assert claude.structured_mode_for(Verdict) == "json_schema"  # closed schemas keep it


async def test_a_model_refusing_forced_tools_gets_the_schema_in_the_prompt(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_error(
            400,
            "invalid_request_error",
            'tool_choice: type "tool" and "any" are not supported for this model.',
        ),
        anthropic_json_reply({"angles": {"A": "cost"}}),
        anthropic_json_reply({"angles": {"B": "safety"}}),
    )

    first = await claude.complete(MESSAGES, output=Framing)
    second = await claude.complete(MESSAGES, output=Framing)

    assert (first.value.angles, second.value.angles) == ({"A": "cost"}, {"B": "safety"})
    bodies = [r.json() for r in loopback.requests]
    assert "tool_choice" in bodies[0]
    for body in bodies[1:]:
        assert "tools" not in body and "output_config" not in body
        system_text = body["system"][0]["text"]
        assert system_text.startswith("You are Ada, a precise economist.")
        assert "validates against this JSON schema" in system_text and '"angles"' in system_text
    assert claude.rejected_modes == {"tool"}


async def test_temperature_goes_in_the_body_until_the_model_refuses_it(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_text_reply("first"),
        anthropic_error(
            400, "invalid_request_error", "`temperature` is deprecated for this model."
        ),
        anthropic_text_reply("second"),
    )

    first = await claude.complete(MESSAGES, temperature=0.3, max_tokens=300)
    claude.model = "claude-opus-5"
    second = await claude.complete(MESSAGES, temperature=0.3)

    assert (first.value, second.value) == ("first", "second")
    bodies = [r.json() for r in loopback.requests]
    assert (bodies[0]["temperature"], bodies[0]["max_tokens"]) == (0.3, 300)
    assert bodies[1]["temperature"] == 0.3
    assert "temperature" not in bodies[2]


async def test_429_honours_retry_after_then_succeeds(
    claude: AnthropicModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(
        anthropic_error(
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
            headers={"retry-after": "7"},
        ),
        anthropic_json_reply(VALID_VERDICT),
    )

    result = await claude.complete(MESSAGES, output=Verdict)

    assert result.value.stance == "against"
    assert len(loopback.requests) == 2
    assert sleeps.waits == [7.0]


async def test_a_retry_after_past_the_budget_stops_at_once(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    model = make_model(loopback, sleeps, RetryPolicy(max_attempts=2, max_backoff_s=30, jitter_s=0))
    loopback.enqueue(
        anthropic_error(529, "overloaded_error", "Overloaded", headers={"retry-after": "3600"}),
        anthropic_json_reply(VALID_VERDICT),
    )

    with pytest.raises(ModelUnavailableError) as caught:
        await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    # Not waited for (and not cut short to 30 s, which would only burn the second attempt).
    assert (len(loopback.requests), sleeps.waits) == (1, [])
    assert str(caught.value) == (
        f"anthropic: HTTP 529 from {loopback.url}: unavailable; retry after 3600 s "
        "(beyond this call's 300 s budget): Overloaded"
    )


async def test_a_long_retry_after_within_the_budget_is_waited_in_full(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    model = make_model(loopback, sleeps, RetryPolicy(max_attempts=2, max_backoff_s=30, jitter_s=0))
    loopback.enqueue(
        anthropic_error(429, "rate_limit_error", "Rate limited", headers={"retry-after": "90"}),
        anthropic_json_reply(VALID_VERDICT),
    )

    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert result.value.stance == "against"
    assert sleeps.waits == [90.0]


async def test_500_then_success(
    claude: AnthropicModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(
        anthropic_error(500, "api_error", "Internal server error"),
        anthropic_json_reply(VALID_VERDICT),
    )

    result = await claude.complete(MESSAGES, output=Verdict)

    assert result.value.confidence == 0.7
    assert len(loopback.requests) == 2
    assert sleeps.waits == [0.5]  # first exponential backoff step, no jitter in FAST_RETRY


async def test_persistent_500_gives_up_with_a_clear_message(
    claude: AnthropicModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(anthropic_error(500, "api_error", "Internal server error"))

    with pytest.raises(ModelUnavailableError) as caught:
        await claude.complete(MESSAGES, output=Verdict)

    assert len(loopback.requests) == FAST_RETRY.max_attempts == 3
    assert sleeps.waits == [0.5, 1.0]
    message = str(caught.value)
    assert message.startswith(f"anthropic: gave up after 3 attempts at {loopback.url}")
    assert "last error HTTP 500: Internal server error" in message
    assert "\n" not in message
    assert caught.value.status_code == 500


async def test_invalid_output_is_re_asked_with_the_validation_error(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_json_reply(INVALID_VERDICT), anthropic_json_reply(VALID_VERDICT))

    result = await claude.complete(MESSAGES, output=Verdict, purpose="B/R2/rebuttal")

    assert result.value.stance == "against"
    assert len(loopback.requests) == 2
    reask = loopback.requests[1].json()["messages"]
    assert reask[0] == {"role": "user", "content": "Should cities ban cars from their centres?"}
    assert reask[1]["role"] == "assistant"
    assert '"stance": "maybe"' in reask[1]["content"]
    assert reask[2]["role"] == "user"
    assert "did not validate against the Verdict schema" in reask[2]["content"]
    assert "- stance:" in reask[2]["content"] and "- reasons: Field required" in reask[2]["content"]
    # Both calls are billed on the one result.
    assert result.usage.calls == 2
    assert result.usage.input_tokens == 2 * 412
    assert result.usage.purpose == "B/R2/rebuttal"


async def test_broken_json_twice_is_an_output_error(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_text_reply('{"stance": "for", "confidence": 0.5,'),
        anthropic_text_reply("I think the answer is for."),
    )

    with pytest.raises(ModelOutputError) as caught:
        await claude.complete(MESSAGES, output=Verdict)

    assert len(loopback.requests) == 2
    assert "Invalid JSON" in loopback.requests[1].json()["messages"][-1]["content"]
    assert str(caught.value).startswith(
        "anthropic: output still did not match the Verdict schema after one re-ask"
    )
    assert caught.value.usage.calls == 2  # the spent tokens travel with the error


async def test_timeout_is_retried_then_reported(loopback: LoopbackServer, sleeps: SleepRecorder):
    policy = RetryPolicy(max_attempts=2, request_timeout_s=0.05, initial_backoff_s=0.1, jitter_s=0)
    model = make_model(loopback, sleeps, policy)
    slow = anthropic_json_reply(VALID_VERDICT)
    slow.delay_s = 0.5
    loopback.enqueue(slow)

    with pytest.raises(ModelUnavailableError) as caught:
        await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert len(loopback.requests) == 2
    assert sleeps.waits == [0.1]
    assert "gave up after 2 attempts" in str(caught.value)
    assert "no answer within 0.05 s" in str(caught.value)


async def test_unreachable_server_is_unavailable(sleeps: SleepRecorder):
    model = AnthropicModel(
        "claude-sonnet-4-6",
        provider=AnthropicProvider(api_key=API_KEY, base_url="http://127.0.0.1:9"),
        retry=RetryPolicy(max_attempts=2, request_timeout_s=2, jitter_s=0),
        sleep=sleeps,
    )
    with pytest.raises(ModelUnavailableError, match="connection failed"):
        await model.complete(MESSAGES)
    await model.aclose()
    assert len(sleeps.waits) == 1


async def test_401_is_not_retried_and_names_the_provider(
    claude: AnthropicModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(anthropic_error(401, "authentication_error", "invalid x-api-key"))

    with pytest.raises(ModelAuthError) as caught:
        await claude.complete(MESSAGES, output=Verdict)

    assert len(loopback.requests) == 1
    assert sleeps.waits == []
    message = str(caught.value)
    assert message.startswith("anthropic: HTTP 401")
    assert "check ANTHROPIC_API_KEY" in message and "invalid x-api-key" in message
    assert caught.value.status_code == 401


@pytest.mark.parametrize("status", [400, 403, 404, 422])
async def test_client_errors_are_not_retried(
    claude: AnthropicModel, loopback: LoopbackServer, status: int
):
    loopback.enqueue(anthropic_error(status, "invalid_request_error", "messages: field required"))

    expected = ModelAuthError if status == 403 else ModelRequestError
    with pytest.raises(expected, match=f"HTTP {status}"):
        await claude.complete(MESSAGES)

    assert len(loopback.requests) == 1


async def test_exhausted_credit_is_not_retried(claude: AnthropicModel, loopback: LoopbackServer):
    loopback.enqueue(
        anthropic_error(
            429,
            "rate_limit_error",
            "Your credit balance is too low to access the Anthropic API.",
            headers={"retry-after": "1"},
        )
    )

    with pytest.raises(ModelRequestError, match="quota or credit exhausted"):
        await claude.complete(MESSAGES)

    assert len(loopback.requests) == 1


async def test_the_key_never_appears_in_errors_or_repr(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    provider = AnthropicProvider.from_env(
        {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": loopback.url}
    )
    model = AnthropicModel("claude-sonnet-4-6", provider=provider, retry=FAST_RETRY)
    loopback.enqueue(anthropic_error(401, "authentication_error", f"invalid x-api-key: {API_KEY}"))

    with pytest.raises(ModelAuthError) as caught:
        await model.complete(MESSAGES)
    await model.aclose()

    assert API_KEY not in str(caught.value)
    assert "invalid x-api-key: ***" in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert API_KEY not in repr(model)
    assert API_KEY not in repr(provider)


async def test_concurrency_is_limited_per_provider(loopback: LoopbackServer, sleeps: SleepRecorder):
    from anthropic.types import Message as AnthropicMessage

    persona_model = make_model(loopback, sleeps, max_concurrency=2)
    judge_model = make_model(loopback, sleeps, max_concurrency=2)
    canned = AnthropicMessage.model_validate(anthropic_text_reply("ok").json)
    in_flight = peak = 0
    release = asyncio.Event()

    async def counting_attempt(client: object, request: dict[str, object]) -> AnthropicMessage:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await release.wait()
        in_flight -= 1
        return canned

    persona_model._attempt = counting_attempt  # type: ignore[method-assign]
    judge_model._attempt = counting_attempt  # type: ignore[method-assign]
    calls = [
        asyncio.create_task(model.complete(MESSAGES))
        for model in (persona_model, judge_model, persona_model, judge_model, persona_model)
    ]
    for _ in range(20):
        await asyncio.sleep(0)
    assert peak == 2  # two in flight across both instances, three waiting for a slot
    release.set()
    results = await asyncio.gather(*calls)

    assert [r.value for r in results] == ["ok"] * 5
    assert peak == 2


# ------------------------------------------------ a 200 that is not a Messages API reply


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            Reply(
                body="<!DOCTYPE html><html><title>Sign in</title></html>", content_type="text/html"
            ),
            "HTTP 200, not a Messages API reply: "
            "<!DOCTYPE html><html><title>Sign in</title></html>",
        ),
        (
            Reply(
                json={
                    "type": "error",
                    "error": {"type": "overloaded_error", "message": "Overloaded"},
                }
            ),
            "HTTP 200 carrying an error: Overloaded",
        ),
        (
            Reply(json={"id": "msg_1", "type": "message"}),
            "HTTP 200, not a Messages API reply (no content)",
        ),
    ],
    ids=["html", "error-object", "no-content"],
)
async def test_a_200_that_is_not_a_message_is_unavailable(
    claude: AnthropicModel,
    loopback: LoopbackServer,
    sleeps: SleepRecorder,
    reply: Reply,
    said: str,
):
    loopback.enqueue(reply)

    with pytest.raises(ModelUnavailableError) as caught:
        await claude.complete(MESSAGES, output=Verdict)

    assert str(caught.value) == f"anthropic: unreadable response from {loopback.url}: {said}"
    assert (len(loopback.requests), sleeps.waits) == (1, [])


async def test_a_message_without_usage_counts_zero_tokens(
    claude: AnthropicModel, loopback: LoopbackServer
):
    reply = anthropic_json_reply(VALID_VERDICT)
    reply.json["usage"] = None
    loopback.enqueue(reply)

    result = await claude.complete(MESSAGES, output=Verdict)

    assert result.value.stance == "against"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (0, 0)
    assert result.usage.cost_usd == 0.0


# ------------------------------------------------ cut off at max_tokens


async def test_a_tool_reply_cut_off_at_max_tokens_is_sent_again_with_twice_the_limit(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    model = make_model(loopback, sleeps, structured_modes=("tool",))
    loopback.enqueue(
        anthropic_tool_reply({}, stop_reason="max_tokens", output_tokens=1024),
        anthropic_tool_reply(VALID_VERDICT),
    )

    result = await model.complete(MESSAGES, output=Verdict, max_tokens=1024)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    bodies = [r.json() for r in loopback.requests]
    assert [b["max_tokens"] for b in bodies] == [1024, 2048]
    assert bodies[1]["messages"] == bodies[0]["messages"]  # the same question, not a re-ask
    assert (result.usage.calls, result.usage.output_tokens) == (2, 1024 + 57)


async def test_cut_off_twice_is_an_output_error_not_a_missing_field(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    model = make_model(loopback, sleeps, structured_modes=("tool",))
    loopback.enqueue(anthropic_tool_reply({}, stop_reason="max_tokens"))

    with pytest.raises(ModelOutputError) as caught:
        await model.complete(MESSAGES, output=Verdict, max_tokens=1024)
    await model.aclose()

    assert len(loopback.requests) == 2
    assert str(caught.value) == (
        "anthropic: the answer was cut off at 1024 tokens (the output limit) and again at "
        "2048 on one retry with a larger limit"
    )
    assert caught.value.usage.calls == 2


async def test_a_model_that_cannot_give_more_tokens_reports_the_first_cut_off(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_text_reply('{"stance": "for", "confid', stop_reason="max_tokens"),
        anthropic_error(
            400,
            "invalid_request_error",
            "max_tokens: 8192 > 4096, which is the maximum allowed number of output tokens "
            "for claude-3-haiku-20240307",
        ),
    )

    with pytest.raises(ModelOutputError) as caught:
        await claude.complete(MESSAGES, output=Verdict, max_tokens=4096)

    assert (
        str(caught.value) == "anthropic: the answer was cut off at 4096 tokens (the output limit)"
    )
    assert caught.value.raw_text == '{"stance": "for", "confid'
    assert [r.json()["max_tokens"] for r in loopback.requests] == [4096, 8192]


async def test_a_re_ask_cut_off_twice_bills_every_call(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_json_reply(INVALID_VERDICT),
        anthropic_text_reply("{", stop_reason="max_tokens"),
    )

    with pytest.raises(ModelOutputError, match="cut off at 2048 tokens") as caught:
        await claude.complete(MESSAGES, output=Verdict, purpose="B/R2/rebuttal")

    assert len(loopback.requests) == 3  # the call, the re-ask, the re-ask with a larger limit
    assert (caught.value.usage.calls, caught.value.usage.purpose) == (3, "B/R2/rebuttal")
