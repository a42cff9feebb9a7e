"""The OpenAI-compatible adapter: the real AsyncOpenAI client against a loopback server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from argue.llm import (
    Message,
    ModelAuthError,
    ModelOutputError,
    ModelRequestError,
    ModelUnavailableError,
    OpenAICompatModel,
    OpenAICompatProvider,
    RetryPolicy,
)
from argue.llm._dialects import compact_schema
from tests.llm.wire import (
    FAST_RETRY,
    INVALID_VERDICT,
    VALID_VERDICT,
    SleepRecorder,
    Verdict,
    openai_error,
    openai_json_reply,
    openai_reply,
)
from tests.loopback import LoopbackServer, Reply

API_KEY = "sk-proj-loopback-test-key-abcdefghijklmnop"
MESSAGES = [
    Message(role="system", content="You are Ada, a precise economist."),
    Message(role="user", content="Should cities ban cars from their centres?"),
]


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


def make_model(
    loopback: LoopbackServer,
    sleeps: SleepRecorder,
    retry: RetryPolicy = FAST_RETRY,
    *,
    name: str = "openai",
    model: str = "gpt-5.4-mini",
) -> OpenAICompatModel:
    provider = OpenAICompatProvider(
        name=name, base_url=f"{loopback.url}/v1", api_key=API_KEY, key_env="OPENAI_API_KEY"
    )
    return OpenAICompatModel(model, provider=provider, retry=retry, sleep=sleeps)


@pytest.fixture
async def gpt(loopback: LoopbackServer, sleeps: SleepRecorder) -> AsyncIterator[OpenAICompatModel]:
    model = make_model(loopback, sleeps)
    yield model
    await model.aclose()


async def test_structured_output_round_trip(gpt: OpenAICompatModel, loopback: LoopbackServer):
    loopback.enqueue(openai_json_reply(VALID_VERDICT, prompt_tokens=1500, cached_tokens=1000))

    result = await gpt.complete(MESSAGES, output=Verdict, max_tokens=400, purpose="A/R1/argument")

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    usage = result.usage
    assert (usage.provider, usage.model, usage.purpose) == (
        "openai",
        "gpt-5.4-mini",
        "A/R1/argument",
    )
    # prompt_tokens includes the cached ones: Usage keeps them apart.
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (500, 1000, 40)
    # gpt-5.4-mini: 500*0.75 + 1000*0.075 + 40*4.50 USD per million tokens
    assert usage.cost_usd == pytest.approx((375 + 75 + 180) / 1e6)

    [request] = loopback.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.headers["x-stainless-retry-count"] == "0"
    body = request.json()
    assert body["model"] == "gpt-5.4-mini"
    assert body["messages"] == [
        {"role": "system", "content": "You are Ada, a precise economist."},
        {"role": "user", "content": "Should cities ban cars from their centres?"},
    ]
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": compact_schema(Verdict), "strict": False},
    }
    # A loopback base URL is "a compatible server", which knows max_tokens.
    assert body["max_tokens"] == 400


async def test_usage_without_cache_details(gpt: OpenAICompatModel, loopback: LoopbackServer):
    loopback.enqueue(openai_reply("Price the road space.", prompt_tokens=80, completion_tokens=6))

    result = await gpt.complete(MESSAGES, temperature=0.2)

    assert result.value == "Price the road space."
    assert (result.usage.input_tokens, result.usage.cache_read_tokens) == (80, 0)
    body = loopback.requests[0].json()
    assert body["temperature"] == 0.2
    assert "response_format" not in body


async def test_429_honours_retry_after_then_succeeds(
    gpt: OpenAICompatModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(
        openai_error(
            429,
            "Rate limit reached for gpt-5.4-mini on tokens per min (TPM): Limit 200000.",
            error_type="tokens",
            code="rate_limit_exceeded",
            headers={"retry-after": "2"},
        ),
        openai_json_reply(VALID_VERDICT),
    )

    result = await gpt.complete(MESSAGES, output=Verdict)

    assert result.value.stance == "against"
    assert len(loopback.requests) == 2
    assert sleeps.waits == [2.0]


async def test_retry_after_as_an_http_date(
    gpt: OpenAICompatModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(
        openai_error(503, "overloaded", headers={"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}),
        openai_json_reply(VALID_VERDICT),
    )

    await gpt.complete(MESSAGES, output=Verdict)

    assert sleeps.waits == [0.0]  # a date in the past means "now"


async def test_500_then_success(
    gpt: OpenAICompatModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(
        openai_error(
            500, "The server had an error while processing your request.", error_type="server_error"
        ),
        openai_json_reply(VALID_VERDICT),
    )

    result = await gpt.complete(MESSAGES, output=Verdict)

    assert result.value.reasons == ["congestion pricing worked in Stockholm"]
    assert len(loopback.requests) == 2
    assert sleeps.waits == [0.5]


async def test_persistent_502_gives_up_with_a_clear_message(
    gpt: OpenAICompatModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(openai_error(502, "Bad gateway", error_type="server_error"))

    with pytest.raises(ModelUnavailableError) as caught:
        await gpt.complete(MESSAGES, output=Verdict)

    assert len(loopback.requests) == 3
    assert sleeps.waits == [0.5, 1.0]
    assert str(caught.value) == (
        f"openai: gave up after 3 attempts at {loopback.url}/v1: last error HTTP 502: Bad gateway"
    )


async def test_invalid_json_is_re_asked_with_the_error_then_succeeds(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(
        openai_reply('```json\n{"stance": "against", "confidence": 0.7\n```'),
        openai_json_reply(VALID_VERDICT),
    )

    result = await gpt.complete(MESSAGES, output=Verdict)

    assert result.value.confidence == 0.7
    reask = loopback.requests[1].json()["messages"]
    assert [m["role"] for m in reask] == ["system", "user", "assistant", "user"]
    assert "Invalid JSON" in reask[3]["content"]
    assert reask[2]["content"].startswith("```json")
    assert result.usage.calls == 2


async def test_invalid_twice_is_an_output_error(gpt: OpenAICompatModel, loopback: LoopbackServer):
    loopback.enqueue(openai_json_reply(INVALID_VERDICT), openai_json_reply(INVALID_VERDICT))

    with pytest.raises(ModelOutputError) as caught:
        await gpt.complete(MESSAGES, output=Verdict)

    assert len(loopback.requests) == 2
    message = str(caught.value)
    assert message.startswith("openai: output still did not match the Verdict schema")
    assert "reasons: Field required" in message and "\n" not in message


async def test_refusal_is_an_output_error(gpt: OpenAICompatModel, loopback: LoopbackServer):
    loopback.enqueue(openai_reply(None, refusal="I can't help with that."))

    with pytest.raises(ModelOutputError, match=r"the model refused .*: “I can.t help with that\.”"):
        await gpt.complete(MESSAGES, output=Verdict)


async def test_timeout_is_retried_then_reported(loopback: LoopbackServer, sleeps: SleepRecorder):
    policy = RetryPolicy(max_attempts=2, request_timeout_s=0.05, initial_backoff_s=0.1, jitter_s=0)
    model = make_model(loopback, sleeps, policy)
    slow = openai_json_reply(VALID_VERDICT)
    slow.delay_s = 0.5
    loopback.enqueue(slow)

    with pytest.raises(ModelUnavailableError) as caught:
        await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert len(loopback.requests) == 2
    assert sleeps.waits == [0.1]
    assert "gave up after 2 attempts" in str(caught.value)
    assert "no answer within 0.05 s" in str(caught.value)


async def test_401_is_not_retried(
    gpt: OpenAICompatModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(openai_error(401, "Incorrect API key provided.", code="invalid_api_key"))

    with pytest.raises(ModelAuthError) as caught:
        await gpt.complete(MESSAGES)

    assert len(loopback.requests) == 1
    assert sleeps.waits == []
    assert str(caught.value).startswith("openai: HTTP 401")
    assert "check OPENAI_API_KEY" in str(caught.value)


async def test_insufficient_quota_is_not_retried(gpt: OpenAICompatModel, loopback: LoopbackServer):
    loopback.enqueue(
        openai_error(
            429,
            "You exceeded your current quota, please check your plan and billing details.",
            error_type="insufficient_quota",
            code="insufficient_quota",
        )
    )

    with pytest.raises(ModelRequestError, match=r"HTTP 429 .* quota or credit exhausted"):
        await gpt.complete(MESSAGES)

    assert len(loopback.requests) == 1


async def test_json_schema_rejection_falls_back_to_json_object_with_schema_and_remembers(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    model = make_model(loopback, sleeps, name="ollama", model="llama3.2")
    loopback.enqueue(
        openai_error(
            400,
            "'response_format.type' must be 'json_object' or 'text'",
            param="response_format",
        ),
        openai_json_reply(VALID_VERDICT),
        openai_json_reply(VALID_VERDICT),
    )

    first = await model.complete(MESSAGES, output=Verdict)
    second = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    assert first.value == second.value == Verdict.model_validate(VALID_VERDICT)
    bodies = [r.json() for r in loopback.requests]
    assert len(bodies) == 3  # the rejected try happens once, not on every call
    assert bodies[0]["response_format"]["type"] == "json_schema"
    for body in bodies[1:]:
        # llama-cpp-python's dialect: the schema travels in response_format.schema.
        assert body["response_format"] == {"type": "json_object", "schema": compact_schema(Verdict)}
    assert model.uses_json_object_fallback and model.dialect == "json_object_schema"
    assert model.dialect_notes == [
        "the server rejected response_format json_schema (HTTP 400); argue now asks with "
        "response_format json_object with the schema in response_format.schema"
    ]


async def test_other_400s_do_not_trigger_the_fallback(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(openai_error(400, "The model `gpt-9` does not exist", param="model"))

    with pytest.raises(ModelRequestError, match="does not exist"):
        await gpt.complete(MESSAGES, output=Verdict)

    assert len(loopback.requests) == 1
    assert not gpt.uses_json_object_fallback


async def test_official_openai_gets_max_completion_tokens_and_no_temperature_for_gpt5():
    official = OpenAICompatProvider(
        name="openai", base_url="https://api.openai.com/v1", api_key=API_KEY
    )
    reasoning = OpenAICompatModel("gpt-5.4-mini", provider=official)
    classic = OpenAICompatModel("gpt-4.1-mini", provider=official)

    body = reasoning._build_request(MESSAGES, None, 300, 0.2)
    assert body["max_completion_tokens"] == 300 and "max_tokens" not in body
    assert "temperature" not in body
    assert body["reasoning_effort"] == "low"  # leaves room for the answer
    classic_body = classic._build_request(MESSAGES, None, 300, 0.2)
    assert classic_body["temperature"] == 0.2 and "reasoning_effort" not in classic_body
    told = OpenAICompatModel("o3", provider=official, reasoning_effort="medium")
    assert told._build_request(MESSAGES, None, 300, None)["reasoning_effort"] == "medium"
    untold = OpenAICompatModel("o3", provider=official, reasoning_effort=None)
    assert "reasoning_effort" not in untold._build_request(MESSAGES, None, 300, None)


async def test_the_key_never_appears_in_errors_or_repr(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch, sleeps: SleepRecorder
):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    model = make_model(loopback, sleeps)
    loopback.enqueue(openai_error(401, f"Incorrect API key provided: {API_KEY}."))

    with pytest.raises(ModelAuthError) as caught:
        await model.complete(MESSAGES)
    await model.aclose()

    assert API_KEY not in str(caught.value)
    assert "Incorrect API key provided: ***." in str(caught.value)
    assert API_KEY not in repr(model)


def test_one_model_serves_successive_event_loops(loopback: LoopbackServer, sleeps: SleepRecorder):
    import asyncio

    model = make_model(loopback, sleeps)
    loopback.enqueue(openai_reply("first"), openai_reply("second"))

    first = asyncio.run(model.complete(MESSAGES))
    second = asyncio.run(model.complete(MESSAGES))

    assert (first.value, second.value) == ("first", "second")


# ------------------------------------------------ a 200 that is not a chat completion


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            Reply(
                body="<html><body><h1>Welcome to nginx!</h1></body></html>",
                content_type="text/html",
            ),
            "HTTP 200, not a chat completion: <html><body><h1>Welcome to nginx!</h1></body></html>",
        ),
        (
            Reply(json={"error": {"message": "upstream model overloaded", "code": 502}}),
            "HTTP 200 carrying an error: upstream model overloaded",
        ),
        (
            Reply(json={"id": "x", "choices": [], "usage": None}),
            "not a chat completion (no choices)",
        ),
        (Reply(json={"id": "x", "choices": [{"index": 0}]}), "not a chat completion (no message)"),
        (
            Reply(body="{not json", content_type="application/json"),
            "HTTP 200, body is not valid JSON",
        ),
    ],
    ids=["html", "error-object", "no-choices", "no-message", "broken-json"],
)
async def test_a_200_that_is_not_a_chat_completion_is_unavailable(
    gpt: OpenAICompatModel,
    loopback: LoopbackServer,
    sleeps: SleepRecorder,
    reply: Reply,
    said: str,
):
    loopback.enqueue(reply)

    with pytest.raises(ModelUnavailableError) as caught:
        await gpt.complete(MESSAGES, output=Verdict)

    assert str(caught.value).startswith(f"openai: unreadable response from {loopback.url}/v1: ")
    assert said in str(caught.value)
    assert (len(loopback.requests), sleeps.waits) == (1, [])


async def test_a_completion_without_usage_counts_zero_tokens(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    reply = openai_json_reply(VALID_VERDICT)
    reply.json["usage"] = None
    loopback.enqueue(reply)

    result = await gpt.complete(MESSAGES, output=Verdict)

    assert result.value.stance == "against"
    usage = result.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (0, 0, 0)
    assert usage.cost_usd == 0.0


# ------------------------------------------------ cut off by the output limit


async def test_a_reply_cut_off_by_the_limit_is_sent_again_with_twice_the_limit(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(
        openai_reply("", finish_reason="length", completion_tokens=400, reasoning_tokens=400),
        openai_json_reply(VALID_VERDICT, completion_tokens=520),
    )

    result = await gpt.complete(MESSAGES, output=Verdict, max_tokens=400)

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    bodies = [r.json() for r in loopback.requests]
    assert [b["max_tokens"] for b in bodies] == [400, 800]
    assert bodies[1]["messages"] == bodies[0]["messages"]  # the same question, not a re-ask
    assert (result.usage.calls, result.usage.output_tokens) == (2, 920)


async def test_cut_off_twice_is_an_output_error_that_says_so(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(
        openai_reply("", finish_reason="length", completion_tokens=400),
        openai_reply("", finish_reason="length", completion_tokens=800),
    )

    with pytest.raises(ModelOutputError) as caught:
        await gpt.complete(MESSAGES, output=Verdict, max_tokens=400, purpose="A/R1/argument")

    assert len(loopback.requests) == 2
    message = str(caught.value)
    assert message == (
        "openai: the answer was cut off at 400 tokens (the output limit) and again at 800 on "
        "one retry with a larger limit; no answer text came back (reasoning may have used the "
        "whole budget)"
    )
    assert "Field required" not in message
    assert (caught.value.usage.calls, caught.value.usage.purpose) == (2, "A/R1/argument")


async def test_a_cut_off_text_answer_is_retried_too(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(
        openai_reply(
            "Congestion pricing works because", finish_reason="length", completion_tokens=1000
        ),
        openai_reply("Congestion pricing works because road space is scarce."),
    )

    result = await gpt.complete(MESSAGES, max_tokens=1000)

    assert result.value == "Congestion pricing works because road space is scarce."
    assert [r.json()["max_tokens"] for r in loopback.requests] == [1000, 2000]


async def test_the_larger_limit_is_capped_and_a_model_refusing_it_reports_the_cut_off(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(
        openai_reply("", finish_reason="length", completion_tokens=9000),
        openai_error(
            400,
            "max_tokens is too large: 16384. This model supports at most 10000 completion "
            "tokens, whereas you provided 16384.",
            param="max_tokens",
        ),
    )

    with pytest.raises(ModelOutputError, match=r"cut off at 9000 tokens \(the output limit\);"):
        await gpt.complete(MESSAGES, max_tokens=9000)

    assert [r.json()["max_tokens"] for r in loopback.requests] == [9000, 16384]


# ------------------------------------------------ OpenAI's reasoning models behind a proxy


async def test_a_proxied_reasoning_model_switches_to_its_parameters_once(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    model = make_model(loopback, sleeps, model="gpt-5.4-mini")  # base URL is not api.openai.com
    loopback.enqueue(
        openai_error(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            param="max_tokens",
            code="unsupported_parameter",
        ),
        openai_json_reply(VALID_VERDICT),
        openai_json_reply(VALID_VERDICT),
    )

    first = await model.complete(MESSAGES, output=Verdict, max_tokens=500, temperature=0.4)
    second = await model.complete(MESSAGES, output=Verdict, max_tokens=500, temperature=0.4)
    await model.aclose()

    assert first.value == second.value
    bodies = [r.json() for r in loopback.requests]
    assert len(bodies) == 3  # the rejected try happens once, not on every call
    assert (bodies[0]["max_tokens"], bodies[0]["temperature"]) == (500, 0.4)
    for body in bodies[1:]:
        assert body["max_completion_tokens"] == 500 and "max_tokens" not in body
        assert "temperature" not in body
        assert body["reasoning_effort"] == "low"
        assert body["response_format"]["type"] == "json_schema"


async def test_a_refused_temperature_or_reasoning_effort_is_dropped_and_remembered(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    model = make_model(loopback, sleeps, model="o4-mini")
    loopback.enqueue(
        openai_error(
            400,
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            param="max_tokens",
        ),
        openai_error(400, "Unrecognized request argument supplied: reasoning_effort"),
        openai_reply("first"),
        openai_reply("second"),
    )

    await model.complete(MESSAGES, temperature=0.4)
    await model.complete(MESSAGES, temperature=0.4)
    await model.aclose()

    bodies = [r.json() for r in loopback.requests]
    assert len(bodies) == 4
    assert "reasoning_effort" in bodies[1]
    for body in bodies[2:]:
        assert set(body) >= {"max_completion_tokens"}
        assert not set(body) & {"max_tokens", "temperature", "reasoning_effort"}


async def test_a_refused_temperature_alone_keeps_the_other_parameters(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(
        openai_error(
            400,
            "Unsupported value: 'temperature' does not support 0.4 with this model. "
            "Only the default (1) value is supported.",
            param="temperature",
            code="unsupported_value",
        ),
        openai_reply("ok"),
    )

    assert (await gpt.complete(MESSAGES, temperature=0.4, max_tokens=300)).value == "ok"

    retry = loopback.requests[1].json()
    assert "temperature" not in retry and retry["max_tokens"] == 300
    assert not gpt.sends_temperature and not gpt.uses_max_completion_tokens


async def test_the_request_posted_is_the_one_chat_completions_create_sends(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    """argue posts its body through the client's ``post`` (``create`` first walks it against
    its typed parameters, about 0.8 ms a request): the same bytes' meaning, path and headers.
    Teeth: ``sdk_body`` without ``extra_body`` merged (the slot and cache_prompt lost), or
    with ``timeout`` left in, fails here."""
    request = {
        "model": "gpt-5.4-mini",
        "messages": [{"role": "system", "content": "Ada"}, {"role": "user", "content": "é\n“q”"}],
        "timeout": 30.0,
        "prompt_cache_key": "argue-1234",
        "extra_body": {"cache_prompt": True, "id_slot": 2},
        "max_completion_tokens": 400,
        "temperature": 0.25,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "Verdict", "schema": compact_schema(Verdict), "strict": False},
        },
    }
    loopback.enqueue(openai_json_reply(VALID_VERDICT), openai_json_reply(VALID_VERDICT))
    client = gpt._client_for_running_loop()

    posted = await gpt._attempt(client, dict(request))
    created = await client.chat.completions.create(**request)

    assert posted.model_dump() == created.model_dump()
    ours, sdk = loopback.requests
    assert (ours.method, ours.path) == (sdk.method, sdk.path) == ("POST", "/v1/chat/completions")
    assert ours.json() == sdk.json()
    assert ours.json()["id_slot"] == 2 and "timeout" not in ours.json()
    varying = {"x-stainless-retry-count", "x-stainless-read-timeout", "content-length"}
    assert {k: v for k, v in ours.headers.items() if k not in varying} == {
        k: v for k, v in sdk.headers.items() if k not in varying
    }
