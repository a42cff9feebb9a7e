"""ScriptedModel: the test double the engine's tests lean on."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from argue.llm import (
    ChatModel,
    Message,
    ModelOutputError,
    ModelUnavailableError,
    ScriptedModel,
    ScriptExhausted,
)
from tests.llm.wire import INVALID_VERDICT, VALID_VERDICT, Verdict

ASK = [Message(role="system", content="You are Ada."), Message(role="user", content="Ban cars?")]


def test_it_is_a_chat_model():
    assert isinstance(ScriptedModel(), ChatModel)
    assert (ScriptedModel().provider, ScriptedModel().model) == ("scripted", "scripted-1")


async def test_queued_replies_of_every_kind():
    model = ScriptedModel(replies=[Verdict.model_validate(VALID_VERDICT)])
    model.enqueue(VALID_VERDICT, '{"stance": "for", "confidence": 0.1, "reasons": []}', "plain")

    from_model = await model.complete(ASK, output=Verdict)
    from_dict = await model.complete(ASK, output=Verdict)
    from_text = await model.complete(ASK, output=Verdict)
    plain = await model.complete(ASK)

    assert from_model.value == from_dict.value == Verdict.model_validate(VALID_VERDICT)
    assert from_text.value.stance == "for"
    assert plain.value == "plain" and plain.text == "plain"
    assert model.pending == 0


async def test_responder_sees_messages_and_output_type():
    seen: list[tuple[str, type[BaseModel] | None]] = []

    def responder(messages: list[Message], output: type[BaseModel] | None) -> dict | str:
        seen.append((messages[-1].content, output))
        return VALID_VERDICT if output else f"echo: {messages[-1].content}"

    model = ScriptedModel(responder, provider="fake", model="fake-2")
    structured = await model.complete(ASK, output=Verdict, purpose="A/R1/argument")
    text = await model.complete(ASK)

    assert structured.value.confidence == 0.7
    assert text.value == "echo: Ban cars?"
    assert seen == [("Ban cars?", Verdict), ("Ban cars?", None)]
    assert structured.usage.provider == "fake" and structured.usage.model == "fake-2"


async def test_async_responders_work_too():
    async def responder(messages: list[Message], output: type[BaseModel] | None) -> str:
        await asyncio.sleep(0)
        return "later"

    assert (await ScriptedModel(responder).complete(ASK)).value == "later"


async def test_requests_are_recorded_with_purpose_and_settings():
    model = ScriptedModel(replies=["a"])
    await model.complete(ASK, max_tokens=99, temperature=0.1, purpose="judge/R3")

    [request] = model.requests
    assert request.messages == ASK
    assert (request.output, request.purpose, request.max_tokens, request.temperature) == (
        None,
        "judge/R3",
        99,
        0.1,
    )
    assert request.last_user_message == "Ban cars?"


async def test_invalid_reply_is_re_asked_with_the_validation_error():
    model = ScriptedModel(replies=[INVALID_VERDICT, VALID_VERDICT])

    result = await model.complete(ASK, output=Verdict, purpose="B/R2/rebuttal")

    assert result.value.stance == "against"
    first, reask = model.requests
    assert first.messages == ASK
    assert reask.messages[:2] == ASK
    assert reask.messages[2].role == "assistant" and '"maybe"' in reask.messages[2].content
    assert reask.messages[3].role == "user"
    assert "did not validate against the Verdict schema" in reask.last_user_message
    assert "- reasons: Field required" in reask.last_user_message
    assert reask.purpose == "B/R2/rebuttal"
    assert result.usage.calls == 2


async def test_still_invalid_after_the_re_ask_is_an_output_error():
    model = ScriptedModel(replies=["not json at all", {"stance": "for"}])

    with pytest.raises(ModelOutputError, match=r"^scripted: output still did not match") as caught:
        await model.complete(ASK, output=Verdict)

    assert len(model.requests) == 2
    assert caught.value.usage.calls == 2
    assert caught.value.raw_text == '{"stance": "for"}'


async def test_exception_replies_are_raised():
    boom = ModelUnavailableError("scripted", "HTTP 503 from nowhere")
    model = ScriptedModel(replies=[boom, "recovered"])

    with pytest.raises(ModelUnavailableError, match="HTTP 503"):
        await model.complete(ASK)
    assert (await model.complete(ASK)).value == "recovered"


async def test_running_out_of_replies_is_a_clear_error():
    model = ScriptedModel(replies=["only one"])
    await model.complete(ASK)
    with pytest.raises(ScriptExhausted, match="no scripted reply left for call 2"):
        await model.complete(ASK)


async def test_usage_estimates_tokens_from_text_length():
    model = ScriptedModel(replies=["x" * 40])
    result = await model.complete([Message(role="user", content="y" * 81)])
    assert (result.usage.input_tokens, result.usage.output_tokens) == (21, 10)
    assert result.usage.cost_usd == 0.0


async def test_concurrent_calls_each_get_their_own_reply():
    def responder(messages: list[Message], output: type[BaseModel] | None) -> str:
        return messages[-1].content.upper()

    model = ScriptedModel(responder)
    questions = [f"persona {letter}" for letter in "ABCDEFGH"]
    results = await asyncio.gather(
        *(model.complete([Message(role="user", content=q)]) for q in questions)
    )

    assert [r.value for r in results] == [q.upper() for q in questions]
    assert sorted(r.last_user_message for r in model.requests) == sorted(questions)


async def test_concurrent_calls_drain_the_queue_exactly_once():
    model = ScriptedModel(replies=[str(n) for n in range(20)])
    results = await asyncio.gather(*(model.complete(ASK) for _ in range(20)))
    assert sorted(int(r.value) for r in results) == list(range(20))
    assert model.pending == 0
