"""The loopback fake's OpenAI prompt cache, and what argue's requests to api.openai.com get.

Teeth: ``prompts.opening`` with the record joined into one message still shares its prefix
here (OpenAI matches text, not blocks), so the guard is the guide: drop ``phase_guide`` from a
persona's system text (``framing._seats``) and
``test_a_persona_s_requests_after_the_first_are_read_from_the_cache`` fails (instructions and
schemas in each request again: a third of the input read from the cache instead of over 80 %).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.fake_llm import FakeLLM
from tests.e2e.openai_cache import MIN_TOKENS, STEP_TOKENS, OpenAIPromptCache
from tests.e2e.wire_debate import run_wire_debate
from tests.engine.script import DebateScript, ScriptedToolkit

LONG = "x" * (4 * (MIN_TOKENS + 300))


def _body(*texts: str, key: str | None = "persona-a") -> dict:
    body = {
        "model": "gpt-5.4",
        "messages": [{"role": "user", "content": text} for text in texts],
    }
    if key:
        body["prompt_cache_key"] = key
    return body


def test_a_shared_prefix_is_read_from_1024_tokens_in_128_token_steps():
    cache = OpenAIPromptCache()
    tokens, cached = cache.account(_body(LONG, "first tail"))
    assert cached == 0 and tokens >= MIN_TOKENS
    _, cached = cache.account(_body(LONG, "second tail"))
    assert cached >= MIN_TOKENS and (cached - MIN_TOKENS) % STEP_TOKENS == 0
    assert cached <= len(LONG) // 4 + 10


def test_another_cache_key_or_a_short_prompt_reads_nothing():
    cache = OpenAIPromptCache()
    cache.account(_body(LONG, "tail"))
    assert cache.account(_body(LONG, "tail", key="persona-b"))[1] == 0
    short = "y" * (4 * MIN_TOKENS - 100)
    cache.account(_body(short, key="k"))
    assert cache.account(_body(short, key="k"))[1] == 0


@pytest.fixture(scope="module")
def openai_debate(tmp_path_factory: pytest.TempPathFactory):
    folder: Path = tmp_path_factory.mktemp("openai_wire")
    script = DebateScript(names={}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    fake = FakeLLM(script, openai_cache=OpenAIPromptCache()).start()
    try:
        state = run_wire_debate(
            folder, ["embry", "horus"], 3, "openai", "gpt-5.4", fake.url, ScriptedToolkit()
        )
    finally:
        fake.stop()
    assert not fake.errors, fake.errors
    assert state.termination == "max_rounds"
    return fake.openai_log


def test_a_persona_s_requests_after_the_first_are_read_from_the_cache(openai_debate):
    persona = [
        (call, usage, body)
        for call, usage, body in openai_debate
        if "taking part in a structured debate" in body["messages"][0]["content"]
    ]
    assert len(persona) >= 2 * 3 * 3  # argument, rebuttal, reflection a round, each persona
    later = persona[2:]  # each persona's first request has nothing to read
    read = sum(u["prompt_tokens_details"]["cached_tokens"] for _, u, _ in later)
    sent = sum(u["prompt_tokens"] for _, u, _ in later)
    assert read / sent > 0.8, (read, sent)
