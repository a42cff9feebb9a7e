"""Prompt caching on the wire (issue #23): where each adapter puts the stable prefix's end.

Teeth: each guarantee was broken on purpose once and its test seen to fail:
- breakpoints on every block; the budget taken from the first flagged messages (the two
  Anthropic breakpoint tests);
- the schema-in-prompt rule off (both "long cached prefix" tests); the threshold set to 0 (both
  "short cached prefix" tests); a prompt schema first again on a self-hosted server;
- prompt_cache_key hashed from the whole request; cache_prompt sent to every server;
- cache reads counted as input (OpenAI) or dropped (Anthropic): the two pricing tests;
- the local schema first again, the state cache not installed, states saved with their logits.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from pydantic import BaseModel

from argue.llm import (
    AnthropicModel,
    AnthropicProvider,
    LocalLlamaModel,
    Message,
    OpenAICompatModel,
    OpenAICompatProvider,
    _local,
)
from argue.llm._adapter import CallSettings
from argue.llm._anthropic import CACHE_MIN_TOKENS as ANTHROPIC_MIN_TOKENS
from argue.llm._anthropic import MAX_CACHE_BREAKPOINTS
from argue.llm._openai_compat import CACHE_MIN_TOKENS as OPENAI_MIN_TOKENS
from argue.llm._structured import schema_instruction
from tests.e2e.wire_debate import OfficialOnLoopback
from tests.llm.wire import (
    FAST_RETRY,
    VALID_VERDICT,
    SleepRecorder,
    Verdict,
    anthropic_json_reply,
    anthropic_text_reply,
    openai_json_reply,
    openai_reply,
)
from tests.loopback import LoopbackServer, Reply

EPHEMERAL = {"type": "ephemeral"}
ADA = "You are Ada, a precise economist. Rules: cite evidence by id."
BRAM = "You are Bram, a sceptical historian. Rules: cite evidence by id."
LONG_RECORD = "Proposition: cities should ban cars.\n" + "A said: congestion fell. " * 400
SHORT_RECORD = "Proposition: cities should ban cars."
EVIDENCE = "E1: Stockholm congestion charge, 2006: traffic fell 20 percent."
INSTRUCTION = "Phase: rebuttal. Answer B's strongest point."


class Stance(BaseModel):
    """Another phase's schema: the cached prefix must not depend on it."""

    side: Literal["for", "against"]


def layout(system: str, record: str, instruction: str = INSTRUCTION) -> list[Message]:
    """What the engine sends (issue #23): the persona, the record, the evidence, the phase."""
    return [
        Message(role="system", content=system),
        Message(role="user", content=record, cache_point=True),
        Message(role="user", content=EVIDENCE, cache_point=True),
        Message(role="user", content=instruction),
    ]


def test_the_long_record_is_long_enough_and_the_short_one_is_not():
    for minimum in (ANTHROPIC_MIN_TOKENS, OPENAI_MIN_TOKENS):
        assert len(ADA + LONG_RECORD + EVIDENCE) >= 4 * minimum
        assert len(ADA + SHORT_RECORD + EVIDENCE) < 4 * minimum


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


# ---------------------------------------------------------------- Anthropic


@pytest.fixture
async def claude(loopback: LoopbackServer, sleeps: SleepRecorder) -> AsyncIterator[AnthropicModel]:
    model = AnthropicModel(
        "claude-sonnet-4-6",
        provider=AnthropicProvider(api_key="sk-ant-loopback-key", base_url=loopback.url),
        retry=FAST_RETRY,
        sleep=sleeps,
    )
    yield model
    await model.aclose()


def cache_controls(body: dict[str, Any]) -> int:
    blocks = [*body.get("system", [])]
    for turn in body["messages"]:
        if isinstance(turn["content"], list):
            blocks += turn["content"]
    return sum("cache_control" in block for block in blocks)


async def test_anthropic_breakpoints_sit_after_flagged_messages(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_text_reply("ok"))

    await claude.complete(layout(ADA, LONG_RECORD))

    body = loopback.requests[0].json()
    assert body["system"] == [{"type": "text", "text": ADA, "cache_control": EPHEMERAL}]
    # One turn (consecutive user messages merged), one block per message.
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": LONG_RECORD, "cache_control": EPHEMERAL},
                {"type": "text", "text": EVIDENCE, "cache_control": EPHEMERAL},
                {"type": "text", "text": INSTRUCTION},
            ],
        }
    ]


async def test_anthropic_without_a_cache_point_sends_what_it_sent_before(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_text_reply("ok"))
    messages = [m.model_copy(update={"cache_point": False}) for m in layout(ADA, SHORT_RECORD)]

    await claude.complete(messages)

    body = loopback.requests[0].json()
    assert body["messages"] == [
        {"role": "user", "content": f"{SHORT_RECORD}\n\n{EVIDENCE}\n\n{INSTRUCTION}"}
    ]
    assert cache_controls(body) == 1  # the system prompt's


async def test_anthropic_keeps_the_system_breakpoint_and_the_last_flagged_ones(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_text_reply("ok"))
    turns = [f"turn {i}" for i in range(6)]
    messages = [Message(role="system", content=ADA)] + [
        Message(role="user" if i % 2 == 0 else "assistant", content=text, cache_point=True)
        for i, text in enumerate(turns)
    ]
    messages.append(Message(role="user", content=INSTRUCTION))

    await claude.complete(messages)
    await claude.complete(messages[1:])  # no system prompt: all four go to the messages

    with_system, without = (r.json() for r in loopback.requests)
    assert cache_controls(with_system) == MAX_CACHE_BREAKPOINTS
    assert "cache_control" in with_system["system"][0]
    flagged = [
        turn["content"][0]["text"]
        for turn in with_system["messages"]
        if "cache_control" in turn["content"][0]
    ]
    assert flagged == turns[-3:]
    assert cache_controls(without) == MAX_CACHE_BREAKPOINTS
    flagged = [
        t["content"][0]["text"] for t in without["messages"] if "cache_control" in t["content"][0]
    ]
    assert flagged == turns[-4:]


async def test_anthropic_long_cached_prefix_gets_the_schema_in_the_prompt(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_json_reply(VALID_VERDICT), anthropic_json_reply({"side": "for"}))

    result = await claude.complete(layout(ADA, LONG_RECORD), output=Verdict)
    await claude.complete(layout(ADA, LONG_RECORD, "Phase: closing."), output=Stance)

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    first, second = (r.json() for r in loopback.requests)
    for body, output in ((first, Verdict), (second, Stance)):
        assert "output_config" not in body and "tools" not in body
        assert body["system"] == [{"type": "text", "text": ADA, "cache_control": EPHEMERAL}]
        [turn] = body["messages"]
        # The schema after the last cache point: the end of the last user turn.
        assert turn["content"][-1] == {"type": "text", "text": schema_instruction(output)}
        assert cache_controls(body) == 3
    # The same prefix, byte for byte, up to the last breakpoint, whatever the schema.
    assert first["system"] == second["system"]
    assert first["messages"][0]["content"][:2] == second["messages"][0]["content"][:2]


async def test_anthropic_short_cached_prefix_keeps_the_schema_on_the_wire(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(anthropic_json_reply(VALID_VERDICT))

    await claude.complete(layout(ADA, SHORT_RECORD), output=Verdict)

    body = loopback.requests[0].json()
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert "validates against this JSON schema" not in json.dumps(body["messages"])
    assert body["system"][0]["text"] == ADA


async def test_anthropic_cache_reads_and_writes_are_recorded_and_priced(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_text_reply("ok", input_tokens=50, output_tokens=10, cache_write=2000),
        anthropic_text_reply("ok", input_tokens=50, output_tokens=10, cache_read=2000),
    )

    written = await claude.complete(layout(ADA, LONG_RECORD))
    read = await claude.complete(layout(ADA, LONG_RECORD, "Phase: closing."))

    assert (written.usage.cache_write_tokens, written.usage.cache_read_tokens) == (2000, 0)
    assert (read.usage.cache_write_tokens, read.usage.cache_read_tokens) == (0, 2000)
    # Sonnet 4.6: 3 USD per million input, 15 output, 3.75 cache write, 0.30 cache read.
    assert written.usage.cost_usd == pytest.approx((50 * 3 + 10 * 15 + 2000 * 3.75) / 1e6)
    assert read.usage.cost_usd == pytest.approx((50 * 3 + 10 * 15 + 2000 * 0.30) / 1e6)


# ---------------------------------------------------------------- OpenAI-compatible


def openai_model(
    loopback: LoopbackServer, sleeps: SleepRecorder, *, official: bool, **kwargs: Any
) -> OpenAICompatModel:
    kind = OfficialOnLoopback if official else OpenAICompatProvider
    provider = kind(
        name="openai", base_url=f"{loopback.url}/v1", api_key="sk-proj-loopback-key-0123456789"
    )
    return OpenAICompatModel(
        "gpt-4.1-mini", provider=provider, retry=FAST_RETRY, sleep=sleeps, **kwargs
    )


def cache_key_of(system: str) -> str:
    return "argue-" + hashlib.sha256(system.encode()).hexdigest()[:16]


async def test_prompt_cache_key_is_stable_per_persona_and_differs_between_personas(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(openai_reply("ok"))
    model = openai_model(loopback, sleeps, official=True)

    await model.complete(layout(ADA, SHORT_RECORD))
    await model.complete(layout(ADA, LONG_RECORD, "Phase: closing."))
    await model.complete(layout(BRAM, SHORT_RECORD))
    await model.complete([Message(role="system", content=ADA), Message(role="user", content="?")])
    await model.aclose()

    keys = [r.json().get("prompt_cache_key") for r in loopback.requests]
    assert keys == [cache_key_of(ADA), cache_key_of(ADA), cache_key_of(BRAM), None]


async def test_openai_long_cached_prefix_gets_json_object_and_the_schema_last(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(openai_json_reply(VALID_VERDICT), openai_json_reply({"side": "against"}))
    model = openai_model(loopback, sleeps, official=True)

    result = await model.complete(layout(ADA, LONG_RECORD), output=Verdict)
    await model.complete(layout(ADA, LONG_RECORD, "Phase: closing."), output=Stance)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    first, second = (r.json() for r in loopback.requests)
    for body, output, instruction in ((first, Verdict, INSTRUCTION), (second, Stance, None)):
        assert body["response_format"] == {"type": "json_object"}
        messages = body["messages"]
        # record, material and instruction: one user turn (strict templates alternate roles)
        assert [m["role"] for m in messages] == ["system", "user"]
        assert messages[-1]["content"].endswith(schema_instruction(output))
        if instruction:
            assert messages[-1]["content"].endswith(
                f"\n\n{instruction}\n\n{schema_instruction(output)}"
            )
    assert first["messages"][0] == second["messages"][0]
    stable = first["messages"][1]["content"].split(INSTRUCTION)[0]
    assert len(stable) > 4096
    assert second["messages"][1]["content"].startswith(stable)  # the prefix, whatever the schema
    assert model.dialect == "json_schema"  # negotiated dialect untouched


async def test_openai_short_cached_prefix_keeps_json_schema(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(openai_json_reply(VALID_VERDICT))
    model = openai_model(loopback, sleeps, official=True)

    await model.complete(layout(ADA, SHORT_RECORD), output=Verdict)
    await model.aclose()

    body = loopback.requests[0].json()
    assert body["response_format"]["type"] == "json_schema"
    assert [m["content"] for m in body["messages"]] == [
        ADA,
        "\n\n".join([SHORT_RECORD, EVIDENCE, INSTRUCTION]),
    ]


async def test_a_self_hosted_server_keeps_json_schema_and_gets_a_prompt_schema_last(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(openai_json_reply(VALID_VERDICT))
    schema_model = openai_model(loopback, sleeps, official=False)
    object_model = openai_model(loopback, sleeps, official=False, dialect="json_object")

    await schema_model.complete(layout(ADA, LONG_RECORD), output=Verdict)
    await object_model.complete(layout(ADA, LONG_RECORD), output=Verdict)
    await schema_model.aclose()
    await object_model.aclose()

    on_wire, in_prompt = (r.json() for r in loopback.requests)
    assert on_wire["response_format"]["type"] == "json_schema"
    assert "prompt_cache_key" not in on_wire
    # The schema last (the prefix is the same for every phase), not as a first system message.
    assert [m["role"] for m in in_prompt["messages"]] == ["system", "user"]
    assert in_prompt["messages"][0]["content"] == ADA
    assert in_prompt["messages"][-1]["content"].endswith(schema_instruction(Verdict))


async def test_a_rejected_json_object_for_a_cached_prefix_goes_back_to_json_schema(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    from tests.llm.wire import openai_error

    loopback.enqueue(
        openai_error(400, "response_format json_object is not supported with this model"),
        openai_json_reply(VALID_VERDICT),
    )
    model = openai_model(loopback, sleeps, official=True)

    await model.complete(layout(ADA, LONG_RECORD), output=Verdict)
    await model.aclose()

    kinds = [r.json()["response_format"]["type"] for r in loopback.requests]
    assert kinds == ["json_object", "json_schema"]
    assert model.dialect == "json_schema" and not model.schema_in_prompt_when_cached


def llama_server_reply(cached: int) -> Reply:
    """llama.cpp's llama-server: OpenAI's fields plus its own ``timings``."""
    reply = openai_reply("ok", prompt_tokens=1200, cached_tokens=cached)
    reply.json["timings"] = {
        "cache_n": cached,
        "prompt_n": 1200 - cached,
        "prompt_ms": 812.5,
        "predicted_n": 40,
        "predicted_ms": 1210.0,
    }
    return reply


async def test_cache_prompt_goes_only_to_a_llama_server(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(llama_server_reply(0), llama_server_reply(1100))
    llama_server = openai_model(loopback, sleeps, official=False)

    first = await llama_server.complete(layout(ADA, LONG_RECORD))
    second = await llama_server.complete(layout(ADA, LONG_RECORD, "Phase: closing."))
    uncached = [Message(role="user", content="Hello?")]
    await llama_server.complete(uncached)
    await llama_server.aclose()

    bodies = [r.json() for r in loopback.requests]
    # Known by its first reply; then told to reuse the slot's KV cache (cache points only).
    assert "cache_prompt" not in bodies[0]
    assert bodies[1]["cache_prompt"] is True
    assert "cache_prompt" not in bodies[2]
    assert all("prompt_cache_key" not in body for body in bodies)
    assert (first.usage.cache_read_tokens, second.usage.cache_read_tokens) == (0, 1100)

    loopback.reset()
    loopback.enqueue(openai_reply("ok", cached_tokens=600))  # vLLM, LM Studio, Ollama...
    other = openai_model(loopback, sleeps, official=False)
    official = openai_model(loopback, sleeps, official=True)
    for model in (other, other, official, official):
        await model.complete(layout(ADA, LONG_RECORD))
    await other.aclose()
    await official.aclose()
    assert all("cache_prompt" not in r.json() for r in loopback.requests)


async def test_openai_cached_tokens_are_recorded_and_priced_at_the_cache_read_price(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    loopback.enqueue(
        openai_reply("ok", prompt_tokens=3000, completion_tokens=40, cached_tokens=2048)
    )
    model = openai_model(loopback, sleeps, official=True)

    result = await model.complete(layout(ADA, LONG_RECORD))
    await model.aclose()

    usage = result.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (952, 2048, 40)
    # gpt-4.1-mini: 0.40 USD per million input, 0.10 cached input, 1.60 output.
    assert usage.cost_usd == pytest.approx((952 * 0.40 + 2048 * 0.10 + 40 * 1.60) / 1e6)


# ---------------------------------------------------------------- in-process llama.cpp


class FakeLlama:
    """Stands in for ``llama_cpp.Llama``: records each chat completion, answers the verdict."""

    instances: ClassVar[list[FakeLlama]] = []

    def __init__(self, **settings: Any) -> None:
        self.settings = settings
        self.chat_format = settings.get("chat_format") or "chatml"
        self._logits_all = False
        self.cache: Any = None
        self.calls: list[dict[str, Any]] = []
        FakeLlama.instances.append(self)

    def set_cache(self, cache: Any) -> None:
        self.cache = cache

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        return {
            "choices": [
                {"message": {"content": json.dumps(VALID_VERDICT)}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 900, "completion_tokens": 20},
        }


async def test_local_model_installs_the_state_cache_and_puts_the_schema_last(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    import llama_cpp
    from llama_cpp.llama_cache import LlamaRAMCache

    monkeypatch.setattr(llama_cpp, "Llama", FakeLlama)
    FakeLlama.instances = []
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    model = LocalLlamaModel(gguf)

    result = await model.complete(layout(ADA, LONG_RECORD), output=Verdict)

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    [llama] = FakeLlama.instances
    assert isinstance(llama.cache, LlamaRAMCache)
    assert llama.cache.capacity_bytes == _local.PROMPT_CACHE_BYTES
    [call] = llama.calls
    assert [m["content"] for m in call["messages"]] == [
        ADA,
        LONG_RECORD,
        EVIDENCE,
        f"{INSTRUCTION}\n\n{schema_instruction(Verdict)}",
    ]
    # Gemma (the bundled model's format) folds the system text into the first user turn.
    folded = _local._chat_messages(
        _local.with_text_last(layout(ADA, LONG_RECORD), "SCHEMA"), fold_system=True
    )
    assert folded == [
        {
            "role": "user",
            "content": f"{ADA}\n\n{LONG_RECORD}\n\n{EVIDENCE}\n\n{INSTRUCTION}\n\nSCHEMA",
        }
    ]


async def test_local_model_keeps_the_schema_first_without_a_cache_point(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """No prefix to keep (framing, a colleague's answer): the schema comes first, as before;
    the bundled 270M model otherwise copies the schema's descriptions into its answer."""
    import llama_cpp

    monkeypatch.setattr(llama_cpp, "Llama", FakeLlama)
    FakeLlama.instances = []
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    model = LocalLlamaModel(gguf)
    plain = [Message(role="system", content=ADA), Message(role="user", content=INSTRUCTION)]

    await model.complete(plain, output=Verdict)

    [call] = FakeLlama.instances[0].calls
    assert [m["content"] for m in call["messages"]] == [
        schema_instruction(Verdict),
        ADA,
        INSTRUCTION,
    ]


@pytest.mark.local_llm
def test_local_states_leave_the_logits_out_and_answer_as_without_the_cache():
    """Two personas taking turns: the second call of each starts from its saved state; the
    answers are those of a model without the cache (greedy decoding), and no saved state holds
    the 537 MB logits array."""
    record = "Record: " + " ".join(f"In city {i}, traffic fell {i % 9} percent." for i in range(25))

    def answers(cached: bool) -> list[str]:
        model = LocalLlamaModel(announce=lambda line: None)
        if not cached:
            with model._lock:
                model._loaded().set_cache(None)
        texts = []
        for instruction in ("Say one word.", "Say two words."):
            for persona in (ADA, BRAM):
                # One call each (no resend of a cut-off answer): a few greedy tokens suffice.
                call = CallSettings(output=None, max_tokens=6, temperature=0.0, purpose=None)
                reply = model._complete_blocking(layout(persona, record, instruction), call)
                texts.append(reply.text)
        if cached:
            states = list(model._llama.cache.cache_state.values())  # type: ignore[union-attr]
            assert len(states) == 4
            assert all(state.scores.nbytes == 0 for state in states)
        return texts

    with_cache = answers(True)
    without = answers(False)
    assert with_cache == without


def test_schema_instruction_is_joined_to_the_last_user_message_or_sent_after_it():
    messages = layout(ADA, SHORT_RECORD)
    assert _local.with_text_last(messages, "S")[-1].content == f"{INSTRUCTION}\n\nS"
    assert len(_local.with_text_last(messages, "S")) == len(messages)
    asked = [*messages, Message(role="assistant", content="{")]
    assert _local.with_text_last(asked, "S")[-1] == Message(role="user", content="S")


class VerdictForThisCall(Verdict):
    """A per-call schema shown to the model as ``Verdict``, narrower than it (as an enum of
    this round's ids is): here, only "for" or "against"."""

    stance: Literal["for", "against"]  # type: ignore[assignment]


VerdictForThisCall.prompt_form = Verdict  # type: ignore[attr-defined]
GUIDED = f"{ADA}\n\nAnswer formats:\n{schema_instruction(Verdict)}"


async def test_a_schema_the_system_text_already_shows_is_not_sent_again(
    claude: AnthropicModel, loopback: LoopbackServer, sleeps: SleepRecorder
):
    """A persona's system text lists each phase's answer format (the engine's phase guide): a
    request whose schema names one of them as its ``prompt_form`` gets no schema of its own, so
    its uncached tail is its own words only; the answer is still checked against the per-call
    schema. A schema the system text does not show is sent after the last cache point as
    before."""
    loopback.enqueue(
        anthropic_json_reply(VALID_VERDICT),
        anthropic_json_reply({"side": "for"}),
        openai_json_reply(VALID_VERDICT),
    )
    shown = await claude.complete(layout(GUIDED, LONG_RECORD), output=VerdictForThisCall)
    await claude.complete(layout(GUIDED, LONG_RECORD), output=Stance)
    openai = openai_model(loopback, sleeps, official=True)
    await openai.complete(layout(GUIDED, LONG_RECORD), output=VerdictForThisCall)
    await openai.aclose()

    assert isinstance(shown.value, VerdictForThisCall)
    first, second, third = (r.json() for r in loopback.requests)
    assert first["messages"][-1]["content"][-1]["text"] == INSTRUCTION
    assert second["messages"][-1]["content"][-1]["text"].endswith(schema_instruction(Stance))
    assert third["response_format"] == {"type": "json_object"}
    assert third["messages"][-1]["content"].endswith(INSTRUCTION)


async def test_an_answer_that_fits_the_shown_form_but_not_the_call_is_asked_again(
    claude: AnthropicModel, loopback: LoopbackServer
):
    """The shown form is broader than the per-call schema: an answer that only fits the form
    is re-asked (once, as every invalid answer is), with the validation error."""
    loopback.enqueue(
        anthropic_json_reply({**VALID_VERDICT, "stance": "undecided"}),
        anthropic_json_reply(VALID_VERDICT),
    )
    result = await claude.complete(layout(GUIDED, LONG_RECORD), output=VerdictForThisCall)
    assert result.value.stance == "against"
    assert len(loopback.requests) == 2
    said = json.dumps(loopback.requests[1].json()["messages"][-1])
    assert "stance" in said  # the validation error
    assert "the Verdict schema in your instructions" in said  # named as the model saw it


def test_whether_a_model_reads_schemas_from_the_prompt_never_changes_mid_debate(
    loopback: LoopbackServer, sleeps: SleepRecorder
):
    """The engine puts the phase guide in a persona's system text when its model reads schemas
    from the prompt; a json_object rejection later (schema_in_prompt_when_cached off) must not
    take the guide away (the system text and its cache key would change, and a resumed run,
    with a fresh adapter, would put it back). A forced dialect never reads them."""
    official = openai_model(loopback, sleeps, official=True)
    assert official.reads_schemas_from_prompt
    official.schema_in_prompt_when_cached = False  # what a rejection does
    assert official.reads_schemas_from_prompt
    assert not openai_model(
        loopback, sleeps, official=True, dialect="json_schema"
    ).reads_schemas_from_prompt
    assert not openai_model(loopback, sleeps, official=False).reads_schemas_from_prompt
