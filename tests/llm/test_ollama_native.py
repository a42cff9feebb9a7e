"""Ollama's native /api/chat (ARGUE_OLLAMA_API=native) against a loopback fake of it.

Guarantees (each broken once on purpose): the schema travels in ``format`` and the output limit
in ``options.num_predict``; an older server that rejects a schema there gets ``format: "json"``
with the schema in the prompt, once, remembered; ``done_reason: "length"`` before the limit is a
context-window cut-off, not resent; token counts become usage.
"""

from __future__ import annotations

import json

import pytest

from argue.llm import Message, ModelOutputError, resolve_model
from argue.llm._dialects import compact_schema
from argue.llm._ollama import OllamaNativeModel, OllamaNativeProvider
from argue.llm.base import ProviderNotConfigured
from tests.llm.wire import FAST_RETRY, VALID_VERDICT, SleepRecorder, Verdict
from tests.loopback import LoopbackServer, RecordedRequest, Reply

MESSAGES = [Message(role="user", content="Should cities ban cars from their centres?")]


def chat_reply(
    content: str, *, done_reason: str = "stop", prompt: int = 52, out: int = 31
) -> Reply:
    return Reply(
        json={
            "model": "qwen3:8b",
            "created_at": "2026-12-01T10:00:00Z",
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": done_reason,
            "prompt_eval_count": prompt,
            "eval_count": out,
        }
    )


def native(loopback: LoopbackServer) -> OllamaNativeModel:
    return OllamaNativeModel(
        "qwen3:8b",
        provider=OllamaNativeProvider(loopback.url),
        retry=FAST_RETRY,
        sleep=SleepRecorder(),
    )


async def test_the_schema_goes_in_format_and_the_limit_in_num_predict(loopback: LoopbackServer):
    loopback.enqueue(chat_reply(json.dumps(VALID_VERDICT)))
    model = native(loopback)

    result = await model.complete(MESSAGES, output=Verdict, max_tokens=300)
    await model.aclose()

    assert result.value == Verdict.model_validate(VALID_VERDICT)
    [request] = loopback.requests
    assert request.path == "/api/chat"
    body = request.json()
    assert body["format"] == compact_schema(Verdict)
    assert body["options"]["num_predict"] == 300 and body["stream"] is False
    assert (result.usage.input_tokens, result.usage.output_tokens) == (52, 31)


async def test_an_older_server_gets_json_format_and_the_schema_in_the_prompt(
    loopback: LoopbackServer,
):
    def handle(request: RecordedRequest) -> Reply:
        if isinstance(request.json().get("format"), dict):
            return Reply(status=400, json={"error": 'invalid format: expected "json"'})
        return chat_reply(f"Sure. {json.dumps(VALID_VERDICT)}")

    loopback.handler = handle
    model = native(loopback)

    await model.complete(MESSAGES, output=Verdict)
    await model.complete(MESSAGES, output=Verdict)
    await model.aclose()

    formats = [r.json().get("format") for r in loopback.requests]
    assert formats[0] == compact_schema(Verdict) and formats[1:] == ["json", "json"]
    assert '"stance"' in loopback.requests[1].json()["messages"][0]["content"]
    assert "format" in model.dialect_notes[0]


async def test_a_context_window_cut_off_is_not_resent(loopback: LoopbackServer):
    loopback.enqueue(chat_reply('{"stance": "ag', done_reason="length", out=13))
    model = native(loopback)

    with pytest.raises(ModelOutputError, match="context window after 13 output tokens"):
        await model.complete(MESSAGES, output=Verdict, max_tokens=2048)
    await model.aclose()

    assert len(loopback.requests) == 1


def test_native_is_chosen_by_setting_and_a_bad_value_is_named(loopback: LoopbackServer):
    loopback.enqueue(Reply(json={"models": [{"name": "qwen3:8b", "model": "qwen3:8b"}]}))
    env = {"OLLAMA_HOST": loopback.url, "ARGUE_OLLAMA_API": "native"}
    assert isinstance(resolve_model("ollama", env=env), OllamaNativeModel)
    with pytest.raises(ProviderNotConfigured, match="ARGUE_OLLAMA_API"):
        resolve_model("ollama", env={**env, "ARGUE_OLLAMA_API": "grpc"})
