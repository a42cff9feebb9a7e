"""The loopback fake's Anthropic prompt cache, and what argue's requests get from it.

The fake (``tests/e2e/anthropic_cache.py``) counts cache reads and writes as Anthropic's
documentation describes them; the debate test then sends a real debate through argue's
Anthropic adapter and checks that each persona's later requests read the earlier ones back.

Teeth (each broken on purpose once, the test named failed):
- ``prompts.opening`` joining the record parts into one message (the old layout: one block that
  grew every round) → ``test_each_round_reads_the_record_of_the_rounds_before_it`` (from round
  2 on, an argument read only the system text);
- the adapters ignoring ``schema_shown`` (the schema sent again after the last cache point) →
  ``test_a_guided_request_sends_only_its_own_words_uncached``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.anthropic_cache import MIN_TOKENS, AnthropicPromptCache
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
