"""The Anthropic adapter's stable output schema: a persona's requests, whose system text holds
the phase guide, carry one ``output_config.format`` for every phase (``schemas.PhaseAnswer``),
so the API constrains the answer and the cached prefix stays byte for byte the same; the reply
is unwrapped and checked against the request's own schema by code.

Teeth (each broken on purpose once, the test named failed):
- ``stable_schema_for`` returning None (today's layout: no schema on the wire) →
  ``test_every_phase_carries_the_same_output_schema``;
- ``unwrapped_answer`` left out of ``_send_in_mode`` → ``test_the_answer_is_unwrapped_and_
  validated_as_the_per_call_schema`` (the reply's one field is no argument: re-asked, then
  failed);
- ``wire_schema`` sending ``model_json_schema()`` untransformed (maxLength, maximum, open
  objects) → ``test_the_stable_schema_is_one_the_api_takes``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from argue.engine import prompts
from argue.engine.schemas import (
    PHASE_FORMS,
    ArgumentForm,
    PhaseAnswer,
    ResearchPlanDraft,
    argument_model,
    rebuttal_model,
    reflection_model,
    research_plan_model,
)
from argue.llm import AnthropicModel, AnthropicProvider, Message, ModelOutputError
from argue.llm._anthropic import stable_wire_schema, wire_schema
from argue.llm._structured import schema_instruction, unwrapped_answer
from tests.e2e.anthropic_cache import AnthropicPromptCache, schema_rejection
from tests.llm.wire import FAST_RETRY, SleepRecorder, anthropic_error, anthropic_json_reply
from tests.loopback import LoopbackServer

API_KEY = "sk-ant-api03-loopback-test-key-0123456789"
GUIDE = prompts.phase_guide(
    "You argue for.", {phase: schema_instruction(form) for phase, form in PHASE_FORMS.items()}
)
SYSTEM = "You are Ada, a precise economist.\n\n" + GUIDE
RECORD = "Proposition: cities should ban cars.\n" + "A said: congestion fell. " * 400

ARGUMENT = {
    "position": "Ban them.",
    "claims": [
        {
            "text": "Congestion fell.",
            "citations": [{"evidence_id": "A-R1-E1", "quote": "fell 20%"}],
            "warrant": "measured",
        }
    ],
    "taxonomy_tags": [],
}
REBUTTAL = {"counters": [], "concessions": [], "common_ground": ["cities differ"]}
REFLECTION = {
    "confidence": 0.6,
    "belief_updates": [],
    "would_change_my_mind": "a city where it failed",
    "position_now": "Ban them, slowly.",
    "next_research": {"why": "check", "dogpile_query": "car bans", "memory_query": "bans"},
}


def guided(phase: str) -> list[Message]:
    return [
        Message(role="system", content=SYSTEM),
        Message(role="user", content=RECORD, cache_point=True),
        Message(role="user", content=f"Round 2 of 4 — {phase}.\n\nAnswer as the {phase} section "
                "of your instructions says."),
    ]  # fmt: skip


@pytest.fixture
async def claude(loopback: LoopbackServer) -> AsyncIterator[AnthropicModel]:
    model = AnthropicModel(
        "claude-sonnet-4-6",
        provider=AnthropicProvider(api_key=API_KEY, base_url=loopback.url),
        retry=FAST_RETRY,
        sleep=SleepRecorder(),
    )
    yield model
    await model.aclose()


async def test_every_phase_carries_the_same_output_schema(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_json_reply({"reply": ARGUMENT}),
        anthropic_json_reply({"reply": {**REBUTTAL, "next_ask": {"colleague": "bram",
                                                                 "question": "why?"}}}),
        anthropic_json_reply({"reply": REFLECTION}),
    )  # fmt: skip
    plan = type("Plan", (ResearchPlanDraft,), {})

    await claude.complete(guided("ARGUMENT"), output=argument_model(("A-R1-E1",)))
    await claude.complete(guided("REBUTTAL"), output=rebuttal_model(("bram",)))
    await claude.complete(guided("REFLECTION"), output=reflection_model(plan))

    bodies = [r.json() for r in loopback.requests]
    formats = [b.get("output_config", {}).get("format") for b in bodies]
    assert formats[0] == {"type": "json_schema", "schema": stable_wire_schema(PhaseAnswer)}
    assert formats[0] == formats[1] == formats[2]
    for body in bodies:
        assert "tools" not in body
        text = json.dumps(body["messages"])
        assert "validates against this JSON schema" not in text  # nothing after the cache point
        assert body["system"][0]["text"] == SYSTEM
    # The per-call enums are not on the wire: only the stable forms.
    assert "A-R1-E1" not in json.dumps(formats[0])


async def test_a_research_plan_carries_it_too_with_its_own_schema_after_the_cache_point(
    claude: AnthropicModel, loopback: LoopbackServer
):
    """A persona's plan has no form in the guide: its per-call schema goes in the request's
    tail, as in prompt mode, and the wire schema is the persona's one (a plan is a branch)."""
    plan = research_plan_model(("dogpile", "memory"), (), 3)
    loopback.enqueue(
        anthropic_json_reply({"reply": ARGUMENT}),
        anthropic_json_reply({"reply": {"why": "w", "dogpile_query": "q", "memory_query": "m"}}),
    )
    await claude.complete(guided("ARGUMENT"), output=argument_model(("A-R1-E1",)))
    result = await claude.complete(guided("ARGUMENT")[:2], output=plan)

    assert result.value.dogpile_query == "q"
    argument, planned = (r.json() for r in loopback.requests)
    assert planned["output_config"] == argument["output_config"]
    assert planned["system"] == argument["system"]
    assert planned["messages"][-1]["content"][-1]["text"] == schema_instruction(plan)
    assert "cache_control" not in planned["messages"][-1]["content"][-1]


async def test_a_request_without_the_guide_keeps_its_own_schema(
    claude: AnthropicModel, loopback: LoopbackServer
):
    """The judge, a colleague, a framing: no phase guide in the system text, no stable schema
    (their per-call schema on the wire when the prefix is short, as before)."""
    loopback.enqueue(anthropic_json_reply(ARGUMENT))
    messages = [Message(role="system", content="You judge."), Message(role="user", content="?")]
    await claude.complete(messages, output=argument_model(("A-R1-E1",)))
    schema = loopback.requests[0].json()["output_config"]["format"]["schema"]
    assert schema["title"] == "ArgumentDraft" and "A-R1-E1" in json.dumps(schema)


async def test_the_prefix_is_read_back_with_the_schema_on_it(
    claude: AnthropicModel, loopback: LoopbackServer
):
    """Under the documented cache (the output format keys it), the second and third phases read
    the first's prefix back: the schema is part of it, and the same."""
    loopback.enqueue(
        anthropic_json_reply({"reply": ARGUMENT}),
        anthropic_json_reply({"reply": REBUTTAL}),
        anthropic_json_reply({"reply": REFLECTION}),
    )
    await claude.complete(guided("ARGUMENT"), output=argument_model(("A-R1-E1",)))
    await claude.complete(guided("REBUTTAL"), output=rebuttal_model())
    await claude.complete(guided("REFLECTION"), output=reflection_model(None))

    cache = AnthropicPromptCache()
    first, *later = (cache.account(r.json()) for r in loopback.requests)
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens > 1024
    for usage in later:
        assert usage.cache_read_input_tokens == first.cache_creation_input_tokens
        assert usage.input_tokens < 100


async def test_the_answer_is_unwrapped_and_validated_as_the_per_call_schema(
    claude: AnthropicModel, loopback: LoopbackServer
):
    """The union lets a rebuttal leave ``next_ask`` out (the form says "only when asked"); the
    per-call schema of a round that asks for it does not: code re-asks, under the same schema."""
    loopback.enqueue(
        anthropic_json_reply({"reply": REBUTTAL}),
        anthropic_json_reply(
            {"reply": {**REBUTTAL, "next_ask": {"colleague": "bram", "question": "why?"}}}
        ),
    )

    result = await claude.complete(guided("REBUTTAL"), output=rebuttal_model(("bram",)))

    assert result.value.next_ask is not None and result.value.next_ask.colleague == "bram"
    first, second = (r.json() for r in loopback.requests)
    assert first["output_config"] == second["output_config"]
    reask = second["messages"][-1]["content"][-1]["text"]
    assert "next_ask" in reask and "RebuttalForm schema in your instructions" in reask
    # The re-ask shows the model its answer as the form has it, not the wrapper.
    assert second["messages"][-2]["content"][-1]["text"] == json.dumps(REBUTTAL)


async def test_a_colleague_outside_the_enum_fails_after_one_reask(
    claude: AnthropicModel, loopback: LoopbackServer
):
    wrong = {"reply": {**REBUTTAL, "next_ask": {"colleague": "zed", "question": "why?"}}}
    loopback.enqueue(anthropic_json_reply(wrong), anthropic_json_reply(wrong))

    with pytest.raises(ModelOutputError, match=r"next_ask\.colleague"):
        await claude.complete(guided("REBUTTAL"), output=rebuttal_model(("bram",)))
    assert len(loopback.requests) == 2


async def test_a_model_without_output_config_gets_todays_layout(
    claude: AnthropicModel, loopback: LoopbackServer
):
    loopback.enqueue(
        anthropic_error(
            400, "invalid_request_error", "output_config.format: not supported for this model"
        ),
        anthropic_json_reply(ARGUMENT),
        anthropic_json_reply(ARGUMENT),
    )

    await claude.complete(guided("ARGUMENT"), output=argument_model(("A-R1-E1",)))
    await claude.complete(guided("ARGUMENT"), output=argument_model(("A-R1-E2",)))

    rejected, *after = (r.json() for r in loopback.requests)
    assert "output_config" in rejected
    for body in after:  # the schema stays in the system text, none on the wire or in the tail
        assert "output_config" not in body and "tools" not in body
        assert "validates against this JSON schema" not in json.dumps(body["messages"])


def test_the_stable_schema_is_one_the_api_takes():
    schema = stable_wire_schema(PhaseAnswer)
    assert schema_rejection(schema) is None
    assert schema["type"] == "object" and schema["required"] == ["reply"]
    branches = schema["properties"]["reply"]["anyOf"]
    assert [b["$ref"].rsplit("/", 1)[-1] for b in branches] == [
        "ArgumentForm",
        "RebuttalForm",
        "ReflectionForm",
        "ResearchPlanDraft",
    ]
    # Lists are required on the wire (written empty for none): optional properties stay few.
    claim = schema["$defs"]["ClaimDraft"]
    assert set(claim["required"]) == {"text", "citations", "warrant"}
    # The same content every time, a fresh dict each time.
    assert stable_wire_schema(PhaseAnswer) == schema
    assert stable_wire_schema(PhaseAnswer) is not schema
    # Each phase's form on its own is taken too (the per-call schemas are narrower).
    assert schema_rejection(wire_schema(ArgumentForm)) is None


def test_unwrapping_leaves_other_replies_as_they_are():
    assert json.loads(unwrapped_answer('{"reply": {"a": 1}}')) == {"a": 1}
    assert unwrapped_answer('{"reply": {"a": 1}, "b": 2}') == '{"reply": {"a": 1}, "b": 2}'
    assert unwrapped_answer('{"reply": {"a"') == '{"reply": {"a"'  # cut off: the parser says so
    assert unwrapped_answer("I cannot help.") == "I cannot help."
