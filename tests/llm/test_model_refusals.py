"""A refusal is recorded as refused by the model, quoting its first words, and it was billed.

Two shapes, through the real SDKs against a loopback server: the provider's own refusal
(OpenAI's ``message.refusal`` field, Anthropic's ``stop_reason`` "refusal") and prose in place
of the JSON asked for ("I'm sorry, but I can't help with that."). Either is a
``ModelRefusalError`` (cause ``refused_by_model``), not "invalid JSON"; a prose refusal is not
re-asked (that would only bill a second refusal), and its answer's tokens stay on the bill.

Teeth: with both ``refuses_in_prose`` checks removed from ``complete_structured``
(argue/llm/_structured.py) the four prose tests fail (a re-ask is sent, and the cause is
invalid_output: "did not match the Verdict schema"); with ``ModelRefusalError`` in
``_reply_text`` (argue/llm/_openai_compat.py) put back to ``ModelOutputError`` the
refusal-field test fails on the cause.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from argue.llm import (
    AnthropicModel,
    AnthropicProvider,
    Message,
    ModelOutputError,
    OpenAICompatModel,
    OpenAICompatProvider,
)
from argue.llm.base import ModelRefusalError, billed_answers
from argue.text.refusal import is_refusal
from tests.llm.wire import (
    FAST_RETRY,
    INVALID_VERDICT,
    SleepRecorder,
    Verdict,
    anthropic_text_reply,
    openai_json_reply,
    openai_reply,
)
from tests.loopback import LoopbackServer

API_KEY = "sk-proj-loopback-refusal-key-abcdefghijkl"
MESSAGES = [
    Message(role="system", content="You are Ada, a precise economist."),
    Message(role="user", content="Should cities ban cars from their centres?"),
]
PROSE_REFUSAL = "I'm sorry, but I can't help with that. " + "It would not be appropriate. " * 8


@pytest.fixture
async def gpt(loopback: LoopbackServer) -> AsyncIterator[OpenAICompatModel]:
    provider = OpenAICompatProvider(
        name="openai", base_url=f"{loopback.url}/v1", api_key=API_KEY, key_env="OPENAI_API_KEY"
    )
    model = OpenAICompatModel(
        "gpt-5.4-mini", provider=provider, retry=FAST_RETRY, sleep=SleepRecorder()
    )
    yield model
    await model.aclose()


@pytest.fixture
async def claude(loopback: LoopbackServer) -> AsyncIterator[AnthropicModel]:
    provider = AnthropicProvider(base_url=loopback.url, api_key=API_KEY)
    model = AnthropicModel(
        "claude-sonnet-4-6", provider=provider, retry=FAST_RETRY, sleep=SleepRecorder()
    )
    yield model
    await model.aclose()


def said(error: BaseException) -> str:
    return str(error)


async def test_prose_in_place_of_json_is_refused_by_the_model_not_re_asked(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(openai_reply(PROSE_REFUSAL, completion_tokens=23))
    with pytest.raises(ModelRefusalError) as caught:
        await gpt.complete(MESSAGES, output=Verdict, purpose="A/R1/argument")
    error = caught.value
    assert error.cause == "refused_by_model"
    assert "“I'm sorry, but I can't help with that." in said(error)
    quoted = said(error).split("“", 1)[1]
    assert "\n" not in quoted and len(quoted) <= 121  # bounded, on one line
    assert len(loopback.requests) == 1  # not re-asked
    [answer] = billed_answers(error)
    assert (answer.output_tokens, answer.purpose, answer.unpriced_calls) == (23, "A/R1/argument", 0)
    assert answer.cost_usd > 0


async def test_a_refusal_after_the_re_ask_is_refused_too_and_both_answers_billed(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(
        openai_json_reply(INVALID_VERDICT), openai_reply("I cannot assist with this request.")
    )
    with pytest.raises(ModelRefusalError, match=r"“I cannot assist with this request\.”") as caught:
        await gpt.complete(MESSAGES, output=Verdict)
    assert len(billed_answers(caught.value)) == 2 == len(loopback.requests)


async def test_the_refusal_field_inside_the_json_reply_is_refused_by_the_model(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(openai_reply(None, refusal="I'm sorry, I cannot comply.", completion_tokens=7))
    with pytest.raises(ModelOutputError) as caught:
        await gpt.complete(MESSAGES, output=Verdict, purpose="B/R2/rebuttal")
    assert caught.value.cause == "refused_by_model"
    assert "“I'm sorry, I cannot comply.”" in said(caught.value)
    [answer] = billed_answers(caught.value)
    assert (answer.output_tokens, answer.purpose) == (7, "B/R2/rebuttal")
    assert len(loopback.requests) == 1


async def test_a_claim_that_is_not_json_is_still_invalid_output_after_a_re_ask(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    """Narrow: "I cannot agree with B1.c2 because…" is an argument in the wrong shape."""
    claim = "I cannot agree with B1.c2 because the bound fails for n = 27."
    loopback.enqueue(openai_reply(claim), openai_reply(claim))
    with pytest.raises(ModelOutputError) as caught:
        await gpt.complete(MESSAGES, output=Verdict)
    assert caught.value.cause == "invalid_output"
    assert len(loopback.requests) == 2


async def test_anthropic_stop_reason_refusal_is_refused_by_the_model_and_billed(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_text_reply(
            "I can't help with that request.", stop_reason="refusal", output_tokens=11
        )
    )
    with pytest.raises(ModelRefusalError) as caught:
        await claude.complete(MESSAGES, output=Verdict, purpose="A/R1/argument")
    assert caught.value.cause == "refused_by_model"
    assert "stop_reason refusal" in said(caught.value)
    assert "“I can't help with that request.”" in said(caught.value)
    [answer] = billed_answers(caught.value)
    assert (answer.output_tokens, answer.purpose) == (11, "A/R1/argument")
    assert answer.cost_usd > 0
    assert len(loopback.requests) == 1


async def test_anthropic_prose_refusal_in_french_is_refused_by_the_model(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_text_reply("Désolé, mais je ne peux pas vous aider."))
    with pytest.raises(ModelRefusalError, match=r"“Désolé, mais je ne peux pas vous aider\.”"):
        await claude.complete(MESSAGES, output=Verdict)
    assert len(loopback.requests) == 1


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but I can't help with that.",
        "I apologize, but I cannot help with that request.",
        "Sorry — I can’t do that.",
        "I'm sorry, but that's not something I can help with.",
        "I can't argue this position.",
        "Désolé, je ne peux pas vous aider.",
        "Je ne suis pas en mesure de répondre à cette demande.",
    ],
)
def test_more_refusal_formulas(text: str):
    assert is_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but the evidence says otherwise.",
        "I'm sorry to say B1.c2 is wrong.",
        "I cannot argue that B2 holds without the bound.",
        "I cannot provide a proof, but the data suggest it.",
        "I cannot help but note that B1.c2 ignores n = 27.",
        "I cannot produce a counterexample below 2^68.",
        "I cannot support B1.c2.",
        "Désolé, mais B1.c2 se trompe.",
        "Je ne peux pas faire confiance à ce chiffre.",
    ],
)
def test_arguments_that_open_like_a_refusal_are_not_one(text: str):
    assert not is_refusal(text)
