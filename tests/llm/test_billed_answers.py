"""Every answer a provider sends is billed, so every adapter reports one Usage per answer.

A result carries ``answers`` (one Usage each; ``usage`` is their sum); an error raised after the
provider answered carries the answers it cost (``argue.llm.base.billed_answers``). Answers with
no known price are marked unpriced, never priced at $0.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from argue.domain import Usage
from argue.llm import (
    AnthropicModel,
    AnthropicProvider,
    Message,
    ModelOutputError,
    ModelPrice,
    ModelUnavailableError,
    OpenAICompatModel,
    OpenAICompatProvider,
    PriceTable,
    ScriptedModel,
)
from argue.llm._scripted import CutOff
from argue.llm.base import billed_answers
from argue.llm.pricing import describe_cost, models_used, total_tokens
from tests.llm.wire import (
    FAST_RETRY,
    INVALID_VERDICT,
    VALID_VERDICT,
    SleepRecorder,
    Verdict,
    anthropic_json_reply,
    anthropic_text_reply,
    openai_error,
    openai_json_reply,
    openai_reply,
)
from tests.loopback import LoopbackServer, Reply

API_KEY = "sk-proj-loopback-billing-key-abcdefghijkl"
MESSAGES = [
    Message(role="system", content="You are Ada, a precise economist."),
    Message(role="user", content="Should cities ban cars from their centres?"),
]


def one_per_answer(answers: list[Usage], n: int, purpose: str | None = None) -> None:
    assert len(answers) == n
    assert all(a.calls == 1 for a in answers)
    if purpose is not None:
        assert {a.purpose for a in answers} == {purpose}


# ---------------------------------------------------------------- scripted model


async def test_scripted_invalid_twice_bills_both_answers():
    model = ScriptedModel(replies=[INVALID_VERDICT, "not json at all"])
    with pytest.raises(ModelOutputError) as caught:
        await model.complete(MESSAGES, output=Verdict, purpose="A/R1/argument")
    one_per_answer(billed_answers(caught.value), 2, "A/R1/argument")
    assert caught.value.usage.calls == 2


async def test_scripted_re_ask_that_succeeds_reports_each_answer():
    model = ScriptedModel(replies=[INVALID_VERDICT, VALID_VERDICT])
    result = await model.complete(MESSAGES, output=Verdict, purpose="B/R1/rebuttal")
    one_per_answer(result.answers, 2, "B/R1/rebuttal")
    assert result.usage.calls == 2
    assert result.usage.output_tokens == sum(a.output_tokens for a in result.answers)


async def test_scripted_cut_off_twice_bills_both_answers():
    model = ScriptedModel(replies=[CutOff('{"stance": "for"'), CutOff('{"stance": "for", "co')])
    with pytest.raises(ModelOutputError, match="cut off at 1024 tokens") as caught:
        await model.complete(MESSAGES, output=Verdict, max_tokens=1024, purpose="judge/R1")
    one_per_answer(billed_answers(caught.value), 2, "judge/R1")


async def test_an_answer_before_a_failed_re_ask_is_still_billed():
    """The re-ask never came back; the first, invalid, answer was billed all the same."""
    model = ScriptedModel(
        replies=[INVALID_VERDICT, ModelUnavailableError("scripted", "connection reset")]
    )
    with pytest.raises(ModelUnavailableError) as caught:
        await model.complete(MESSAGES, output=Verdict, purpose="A/R2/reflection")
    one_per_answer(billed_answers(caught.value), 1, "A/R2/reflection")


async def test_a_cut_off_answer_before_a_failed_resend_is_still_billed():
    model = ScriptedModel(replies=[CutOff("{"), ModelUnavailableError("scripted", "timeout")])
    with pytest.raises(ModelUnavailableError) as caught:
        await model.complete(MESSAGES, output=Verdict, purpose="framing")
    one_per_answer(billed_answers(caught.value), 1, "framing")


async def test_a_failure_before_any_answer_bills_nothing():
    model = ScriptedModel(replies=[ModelUnavailableError("scripted", "connection refused")])
    with pytest.raises(ModelUnavailableError) as caught:
        await model.complete(MESSAGES, output=Verdict)
    assert billed_answers(caught.value) == []


async def test_a_scripted_model_without_a_price_is_unpriced_not_free():
    model = ScriptedModel(replies=[VALID_VERDICT], prices=PriceTable())
    result = await model.complete(MESSAGES, output=Verdict)
    assert (result.usage.cost_usd, result.usage.unpriced_calls) == (0.0, 1)
    assert describe_cost(result.usage) == "unknown (1 unpriced call)"
    priced = ScriptedModel(
        replies=[VALID_VERDICT],
        prices=PriceTable({"scripted": {"scripted-1": ModelPrice(input=1e6, output=0)}}),
    )
    paid = await priced.complete(MESSAGES, output=Verdict)
    assert paid.usage.unpriced_calls == 0
    assert describe_cost(paid.usage) == f"${paid.usage.input_tokens:.4f}"


def test_cost_and_model_descriptions():
    priced = Usage(provider="anthropic", model="claude-a", cost_usd=0.5, input_tokens=10)
    unpriced = Usage(provider="ollama", model="llama3.2", unpriced_calls=1, output_tokens=5)
    assert describe_cost(priced) == "$0.5000"
    assert describe_cost(unpriced) == "unknown (1 unpriced call)"
    assert describe_cost(priced + unpriced + unpriced) == "at least $0.5000 (2 unpriced calls)"
    assert total_tokens(priced + unpriced) == 15
    assert models_used([priced, priced, unpriced]) == (
        "anthropic/claude-a (2 calls), ollama/llama3.2 (1 call)"
    )
    # A usage.json written before unpriced_calls existed still loads.
    old = Usage.model_validate({"provider": "openai", "model": "gpt-4o", "cost_usd": 0.25})
    assert (old.unpriced_calls, describe_cost(old)) == (0, "$0.2500")


def test_local_llama_cpp_is_free_and_other_unknown_models_are_not():
    table = PriceTable()
    assert table.knows("local", "/models/any.gguf")
    assert not table.knows("ollama", "llama3.2")
    local = table.price(Usage(provider="local", model="gemma", input_tokens=10**6))
    assert (local.cost_usd, local.unpriced_calls) == (0.0, 0)
    ollama = table.price(Usage(provider="ollama", model="llama3.2", input_tokens=10**6))
    assert ollama.unpriced_calls == 1


# ---------------------------------------------------------------- OpenAI-compatible, on the wire


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


async def test_openai_invalid_twice_bills_both_answers(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(openai_json_reply(INVALID_VERDICT), openai_json_reply(INVALID_VERDICT))
    with pytest.raises(ModelOutputError) as caught:
        await gpt.complete(MESSAGES, output=Verdict, purpose="A/R1/argument")
    answers = billed_answers(caught.value)
    one_per_answer(answers, len(loopback.requests), "A/R1/argument")
    assert all(a.input_tokens == 512 and a.cost_usd > 0 for a in answers)


async def test_openai_truncated_then_re_ask_bills_every_answer(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    """Invalid, then a re-ask cut off twice: three answers, three records."""
    loopback.enqueue(
        openai_json_reply(INVALID_VERDICT),
        openai_reply("{", finish_reason="length", completion_tokens=2048),
    )
    with pytest.raises(ModelOutputError, match="cut off") as caught:
        await gpt.complete(MESSAGES, output=Verdict, purpose="B/R1/rebuttal")
    one_per_answer(billed_answers(caught.value), 3, "B/R1/rebuttal")
    assert len(loopback.requests) == 3


async def test_openai_refusal_is_billed(gpt: OpenAICompatModel, loopback: LoopbackServer):
    loopback.enqueue(openai_reply(None, refusal="I can't help with that.", completion_tokens=9))
    with pytest.raises(ModelOutputError, match="refused") as caught:
        await gpt.complete(MESSAGES, output=Verdict)
    [answer] = billed_answers(caught.value)
    assert (answer.output_tokens, answer.unpriced_calls) == (9, 0)


async def test_openai_unreadable_200_is_one_answer_of_unknown_cost(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(Reply(json={"id": "x", "choices": [{"index": 0}]}))
    with pytest.raises(ModelUnavailableError, match="unreadable response") as caught:
        await gpt.complete(MESSAGES, output=Verdict, purpose="judge/R1")
    [answer] = billed_answers(caught.value)
    assert (answer.calls, answer.unpriced_calls, answer.purpose) == (1, 1, "judge/R1")
    assert describe_cost(answer) == "unknown (1 unpriced call)"


async def test_openai_errors_that_are_not_answers_bill_nothing(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    loopback.enqueue(openai_error(500, "boom"), openai_error(500, "boom"), openai_error(500, "x"))
    with pytest.raises(ModelUnavailableError) as caught:
        await gpt.complete(MESSAGES, output=Verdict)
    assert billed_answers(caught.value) == []


async def test_openai_answer_without_token_counts_is_unpriced(
    gpt: OpenAICompatModel, loopback: LoopbackServer
):
    reply = openai_json_reply(VALID_VERDICT)
    reply.json["usage"] = None
    loopback.enqueue(reply)
    result = await gpt.complete(MESSAGES, output=Verdict)
    assert result.usage.unpriced_calls == 1  # $0 would be a guess: the cost is unknown


async def test_an_unlisted_openai_compatible_model_is_unpriced(loopback: LoopbackServer):
    provider = OpenAICompatProvider.ollama(loopback.url)
    model = OpenAICompatModel("llama3.2", provider=provider, retry=FAST_RETRY)
    loopback.enqueue(openai_json_reply(VALID_VERDICT))
    result = await model.complete(MESSAGES, output=Verdict)
    await model.aclose()
    assert (result.usage.provider, result.usage.unpriced_calls) == ("ollama", 1)


# ---------------------------------------------------------------- Anthropic, on the wire


@pytest.fixture
async def claude(loopback: LoopbackServer) -> AsyncIterator[AnthropicModel]:
    provider = AnthropicProvider(base_url=loopback.url, api_key=API_KEY)
    model = AnthropicModel(
        "claude-sonnet-4-6", provider=provider, retry=FAST_RETRY, sleep=SleepRecorder()
    )
    yield model
    await model.aclose()


async def test_anthropic_invalid_twice_bills_both_answers(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_text_reply('{"stance": "for", "confidence": 0.5,'),
        anthropic_json_reply(INVALID_VERDICT),
    )
    with pytest.raises(ModelOutputError) as caught:
        await claude.complete(MESSAGES, output=Verdict, purpose="A/R1/argument")
    one_per_answer(billed_answers(caught.value), 2, "A/R1/argument")


async def test_anthropic_re_ask_cut_off_twice_bills_every_answer(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_json_reply(INVALID_VERDICT),
        anthropic_text_reply("{", stop_reason="max_tokens"),
    )
    with pytest.raises(ModelOutputError, match="cut off") as caught:
        await claude.complete(MESSAGES, output=Verdict, purpose="B/R2/rebuttal")
    one_per_answer(billed_answers(caught.value), 3, "B/R2/rebuttal")
    assert len(loopback.requests) == 3


async def test_anthropic_success_after_a_re_ask_lists_both_answers(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_json_reply(INVALID_VERDICT), anthropic_json_reply(VALID_VERDICT))
    result = await claude.complete(MESSAGES, output=Verdict)
    one_per_answer(result.answers, 2)
    assert result.usage.cost_usd == pytest.approx(sum(a.cost_usd for a in result.answers))


def test_prices_from_config_toml_and_argue_prices(tmp_path):
    from argue.config import ConfigError, load_settings
    from argue.llm import load_price_table

    config = tmp_path / "config.toml"
    config.write_text('[prices.ollama]\n"llama3.2" = { input = 0.5, output = 1 }\n')
    table = load_price_table({}, load_settings(config).prices)
    assert table.knows("ollama", "llama3.2")
    million_out = Usage(provider="ollama", model="llama3.2", output_tokens=10**6)
    assert table.price(million_out).cost_usd == 1
    override = tmp_path / "prices.json"
    override.write_text('{"ollama": {"llama3.2": {"input": 0, "output": 3}}}')
    env = {"ARGUE_PRICES": str(override)}
    table = load_price_table(env, load_settings(config).prices)  # the environment wins
    assert table.price(million_out).cost_usd == 3

    config.write_text('[prices.ollama]\n"llama3.2" = { input = -1, output = 1 }\n')
    with pytest.raises(ConfigError, match=r"prices\.ollama\.llama3\.2\.input") as caught:
        load_settings(config)
    assert "\n" not in str(caught.value)
