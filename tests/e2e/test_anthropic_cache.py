"""The loopback fake's Anthropic prompt cache, and what argue's requests get from it.

The fake (``tests/e2e/anthropic_cache.py``) counts cache reads and writes as Anthropic's
documentation describes them; the debate test then sends a real debate through argue's
Anthropic adapter and checks that each persona's later requests read the earlier ones back.

Teeth (each broken on purpose once, the test named failed):
- ``prompts.opening`` joining the record parts into one message (the old layout: one block that
  grew every round) → ``test_each_round_reads_the_record_of_the_rounds_before_it`` (from round
  2 on, an argument read only the system text);
- the adapters ignoring ``schema_shown`` (the schema sent again after the last cache point) →
  ``test_a_guided_request_sends_only_its_own_words_uncached``;
- the stable output schema left off persona requests (``stable_schema_for`` returning None) →
  ``test_every_persona_request_is_constrained_by_one_schema_and_read_from_the_cache``;
- the stable schema sent without the SDK's ``transform_schema`` (``maxLength``, open objects),
  or without its lists required (27 optional properties) → the fake answers 400, the adapter
  retires ``output_config`` and that test fails, as do
  ``test_the_stable_schema_is_taken_and_the_untransformed_one_refused`` and
  ``test_a_decoder_writes_only_what_the_schema_offers``;
- ``output_config`` left out of the fake's cache key →
  ``test_another_output_schema_shares_nothing``; ``maxLength`` accepted by the fake →
  ``test_the_stable_schema_is_taken_and_the_untransformed_one_refused``;
- the fake answering the script's value as it is, not as a decoder held to the schema writes
  it → the module fixture (``fake.schema_violations``: required lists missing).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from argue.engine.schemas import PhaseAnswer
from argue.llm._anthropic import stable_wire_schema
from tests.e2e.anthropic_cache import (
    MAX_OPTIONAL_PROPERTIES,
    MAX_UNION_PROPERTIES,
    MIN_TOKENS,
    AnthropicPromptCache,
    DecodedSchema,
    schema_rejection,
)
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.wire_debate import run_wire_debate
from tests.engine.script import DebateScript, ScriptedToolkit

LONG = "x" * (4 * MIN_TOKENS)  # a block of MIN_TOKENS tokens at four characters a token
MARK = {"cache_control": {"type": "ephemeral"}}


def _body(*texts: str, marked: tuple[int, ...] = (), system: str = "card") -> dict:
    blocks = [
        {"type": "text", "text": t, **(MARK if i in marked else {})} for i, t in enumerate(texts)
    ]
    return {
        "model": "claude-sonnet-4-6",
        "system": [{"type": "text", "text": system, **MARK}],
        "messages": [{"role": "user", "content": blocks}],
    }


def test_a_prefix_written_once_is_read_by_the_next_request():
    cache = AnthropicPromptCache()
    first = cache.account(_body(LONG, "tail one", marked=(0,)))
    second = cache.account(_body(LONG, "tail two", marked=(0,)))
    assert first.cache_read_input_tokens == 0 and first.cache_creation_input_tokens >= MIN_TOKENS
    assert second.cache_read_input_tokens == first.cache_creation_input_tokens
    assert second.cache_creation_input_tokens == 0
    assert second.input_tokens == len("tail two") // 4


def test_a_block_whose_text_grew_is_a_new_block():
    cache = AnthropicPromptCache()
    cache.account(_body(LONG, marked=(0,)))
    grown = cache.account(_body(LONG + " and one more round", marked=(0,)))
    assert grown.cache_read_input_tokens == 0  # the system text alone is under the minimum


def test_a_prefix_under_the_minimum_caches_nothing():
    cache = AnthropicPromptCache()
    short = "y" * (4 * MIN_TOKENS - 40)
    cache.account(_body(short, marked=(0,)))
    again = cache.account(_body(short, marked=(0,)))
    assert again.cache_read_input_tokens == 0 and again.cache_creation_input_tokens == 0


def test_a_hit_is_looked_for_twenty_blocks_back_at_most():
    def reads(extra: int) -> int:
        cache = AnthropicPromptCache()
        cache.account(_body(LONG, marked=(0,)))
        texts = [LONG, *(f"block {n}" for n in range(extra))]
        return cache.account(_body(*texts, marked=(len(texts) - 1,))).cache_read_input_tokens

    assert reads(20) > 0  # the entry sits 20 blocks before the breakpoint
    assert reads(21) == 0


def test_another_output_schema_shares_nothing():
    cache = AnthropicPromptCache()
    cache.account(_body(LONG, marked=(0,)))
    other = _body(LONG, marked=(0,))
    other["output_config"] = {"format": {"type": "json_schema", "schema": {"title": "X"}}}
    assert cache.account(other).cache_read_input_tokens == 0


def test_the_same_output_schema_keeps_the_prefix():
    cache = AnthropicPromptCache()
    fmt = {"format": {"type": "json_schema", "schema": {"title": "X", "type": "object"}}}
    cache.account({**_body(LONG, "tail one", marked=(0,)), "output_config": fmt})
    again = cache.account({**_body(LONG, "tail two", marked=(0,)), "output_config": fmt})
    assert again.cache_read_input_tokens >= MIN_TOKENS


# ---------------------------------------------------------------- schemas the API refuses


def _closed(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def test_the_stable_schema_is_taken_and_the_untransformed_one_refused():
    assert schema_rejection(stable_wire_schema(PhaseAnswer)) is None
    refused = schema_rejection(PhaseAnswer.model_json_schema())  # no SDK transform
    assert refused is not None and refused.startswith("output_config.format.schema: ")
    assert "'maxLength' is not supported" in refused and "additionalProperties" in refused


@pytest.mark.parametrize(
    ("schema", "said"),
    [
        (_closed({"n": {"type": "integer", "maximum": 3}}), "'maximum' is not supported"),
        (_closed({"s": {"type": "string", "pattern": "^a"}}), "'pattern' is not supported"),
        ({"type": "object", "properties": {}}, "'additionalProperties' must be explicitly"),
        (_closed({"a": {"type": "array", "items": {"type": "string"}, "minItems": 2}}),
         "minItems values other than 0 or 1"),
        ({**_closed({"next": {"$ref": "#/$defs/Node"}}),
          "$defs": {"Node": _closed({"next": {"$ref": "#/$defs/Node"}})}}, "recursive"),
        ({"anyOf": [_closed({}), _closed({"a": {"type": "string"}})]}, "root schema must be"),
        (_closed({"s": {"type": "string", "format": "text"}}), "format 'text'"),
        (_closed({f"p{i}": {"type": "string"} for i in range(MAX_OPTIONAL_PROPERTIES + 1)}, []),
         "too many optional parameters"),
        (_closed({f"p{i}": {"anyOf": [{"type": "string"}, {"type": "null"}]}
                  for i in range(MAX_UNION_PROPERTIES + 1)}), "union types"),
    ],
)  # fmt: skip
def test_a_schema_the_api_refuses_is_refused(schema: dict[str, Any], said: str):
    refused = schema_rejection(schema)
    assert refused is not None and said in refused, refused


def test_the_fake_answers_a_refused_schema_with_a_400_naming_output_config():
    fake = FakeLLM(DebateScript(names={})).start()
    try:
        body = {
            "model": "claude-sonnet-4-6",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": "?"}],
            "output_config": {
                "format": {
                    "type": "json_schema",
                    "schema": _closed({"n": {"type": "integer", "minimum": 0}}),
                }
            },
        }
        reply = httpx.post(f"{fake.url}/v1/messages", json=body, timeout=10)
    finally:
        fake.stop()
    assert reply.status_code == 400
    assert "output_config.format.schema" in reply.json()["error"]["message"]
    assert fake.count() == 0


def test_a_decoder_writes_only_what_the_schema_offers():
    schema = stable_wire_schema(PhaseAnswer)
    decoded = DecodedSchema(schema)
    rebuttal = {
        "counters": [{"target_claim_id": "B1.c1", "kind": "refute", "text": "no",
                      "evidence_ids": ["x"]}],
        "hidden": 1,
    }  # fmt: skip
    written = decoded.decoded({"reply": rebuttal})
    assert written == {
        "reply": {
            "counters": [
                {"target_claim_id": "B1.c1", "kind": "refute", "text": "no", "citations": []}
            ],
            "concessions": [],
            "common_ground": [],
        }
    }
    assert decoded.refuses(written) == []
    # A required key that is no list or string stays out, and is reported.
    assert decoded.refuses(decoded.decoded({"reply": {"position": "p"}})) != []
    assert "not one of" in " ".join(
        decoded.refuses({"reply": {**written["reply"], "counters": [
            {"target_claim_id": "B1.c1", "kind": "shout", "text": "no", "citations": []}]}})
    )  # fmt: skip


# ---------------------------------------------------------------- a debate over the wire

NAMES = {"Embry": "A", "Horus": "B"}


@pytest.fixture(scope="module")
def wire_debate(tmp_path_factory: pytest.TempPathFactory):
    """A 4-round pair sent through argue's Anthropic adapter to the caching fake."""
    folder: Path = tmp_path_factory.mktemp("wire")
    script = DebateScript(names={}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    fake = FakeLLM(script, anthropic_cache=AnthropicPromptCache()).start()
    try:
        state = run_wire_debate(
            folder,
            ["embry", "horus"],
            4,
            "anthropic",
            "claude-sonnet-4-6",
            fake.url,
            ScriptedToolkit(),
        )
    finally:
        fake.stop()
    assert not fake.errors, fake.errors
    assert not fake.schema_violations, fake.schema_violations  # what a decoder could write
    assert state.termination == "max_rounds"
    seen = [
        (call.schema + ("/guide" if call.from_guide else ""), call.letter, usage, body)
        for call, usage, body in fake.anthropic_log
    ]
    return seen


def _round(body: dict) -> int:
    import re

    text = body["messages"][-1]["content"][-1]["text"]
    found = re.search(r"Round (\d+)", text)
    return int(found.group(1)) if found else 0


def test_each_round_reads_the_record_of_the_rounds_before_it(wire_debate):
    arguments = [(k, u, b) for schema, k, u, b in wire_debate if schema == "ArgumentDraft/guide"]
    assert len(arguments) == 8
    read = {(letter, _round(body)): (usage, body) for letter, usage, body in arguments}
    for letter in NAMES.values():
        for rnd in range(2, 5):
            usage, body = read[letter, rnd]
            system_tokens = len(body["system"][0]["text"]) // 4
            # the system text, the brief and every closed round's block but the newest
            assert usage["cache_read_input_tokens"] > system_tokens, (letter, rnd, usage)
            if rnd > 2:  # one block more each round
                assert usage["cache_read_input_tokens"] > system_tokens + 200, (rnd, usage)
                earlier = read[letter, rnd - 1][0]["cache_read_input_tokens"]
                assert usage["cache_read_input_tokens"] > earlier, (letter, rnd)


def test_a_guided_request_sends_only_its_own_words_uncached(wire_debate):
    """Every phase's instruction and answer format is in the cached system text: what is left
    uncached is the request's own short tail (no schema of a thousand tokens), in every round,
    the last included (its rebuttal names no colleague, its reflection plans nothing)."""
    phases = ("ArgumentDraft", "RebuttalDraft", "ReflectionDraft")
    persona_calls = [
        (s, u, b)
        for s, _, u, b in wire_debate
        if s.split("/")[0] in phases
        and "taking part in a structured debate" in b["system"][0]["text"]
    ]
    assert len(persona_calls) >= 2 * 3 * 4  # each persona's three phases, four rounds
    rounds = {_round(b) for _, _, b in persona_calls}
    assert rounds == {1, 2, 3, 4}
    for schema, usage, body in persona_calls:
        assert schema.endswith("/guide"), (schema, _round(body))  # no schema of its own
        assert "ARGUMENT: " in body["system"][0]["text"]
        assert usage["input_tokens"] < 400, (schema, usage)


def test_every_persona_request_is_constrained_by_one_schema_and_read_from_the_cache(wire_debate):
    """Issue 43 item 3: each persona request (plans, the three phases, re-asks) carries the
    same ``output_config.format`` (any phase's form, or a plan), so the API holds the answer to
    a form, and still reads most of what it sends from the cache: the schema is part of the
    prefix, and the same. Other callers (framing, judge, support checks) keep their own."""
    persona = [
        (schema, usage, body)
        for schema, _, usage, body in wire_debate
        if "taking part in a structured debate" in body["system"][0]["text"]
    ]
    assert len(persona) >= 2 * (1 + 3 * 4)  # two personas: a plan, three phases a round
    formats = {json.dumps(b.get("output_config"), sort_keys=True) for _, _, b in persona}
    assert formats == {
        json.dumps(
            {"format": {"type": "json_schema", "schema": stable_wire_schema(PhaseAnswer)}},
            sort_keys=True,
        )
    }
    assert {s.split("/")[0] for s, _, _ in persona} >= {
        "ResearchPlanDraft", "ArgumentDraft", "RebuttalDraft", "ReflectionDraft"
    }  # fmt: skip
    read = sum(u["cache_read_input_tokens"] for _, u, _ in persona)
    sent = sum(
        u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] + u["input_tokens"]
        for _, u, _ in persona
    )
    assert read / sent > 0.80, read / sent
    others = [b for s, _, _, b in wire_debate if s.split("/")[0] in ("JudgeDraft", "FramingDraft")]
    assert others and all(
        b["output_config"]["format"]["schema"]["title"] != "PhaseAnswer" for b in others
    )
