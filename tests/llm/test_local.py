"""In-process llama.cpp: message shaping, configuration errors, and one real completion."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel

from argue.llm import LocalLlamaModel, Message, ModelRequestError, ProviderNotConfigured, _local
from argue.llm._local import DEFAULT_MODEL_NOTICE, _chat_messages


class SkyReport(BaseModel):
    sky: Literal["clear", "cloudy", "rainy"]
    windy: bool


def test_gemma_gets_system_text_folded_into_the_first_user_turn():
    messages = [
        Message(role="system", content="Be brief."),
        Message(role="user", content="Is it raining?"),
        Message(role="assistant", content="No."),
        Message(role="system", content="Answer in JSON."),
        Message(role="user", content="Sure?"),
    ]
    assert _chat_messages(messages, fold_system=True) == [
        {"role": "user", "content": "Be brief.\n\nAnswer in JSON.\n\nIs it raining?"},
        {"role": "assistant", "content": "No."},
        {"role": "user", "content": "Sure?"},
    ]
    assert _chat_messages(messages, fold_system=False)[0] == {
        "role": "system",
        "content": "Be brief.",
    }


def test_missing_llama_cpp_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(_local, "llama_cpp_installed", lambda: False)
    with pytest.raises(ProviderNotConfigured, match=r"pip install 'argue-debate\[local\]'"):
        LocalLlamaModel()


def test_missing_model_file_is_a_configuration_error(tmp_path: Path):
    with pytest.raises(ProviderNotConfigured, match="local model file not found"):
        LocalLlamaModel(tmp_path / "nope.gguf")


@pytest.mark.local_llm
async def test_real_completion_with_the_default_gemma_is_schema_valid(
    capfd: pytest.CaptureFixture[str],
):
    model = LocalLlamaModel()
    question = [
        Message(role="system", content="You report the weather."),
        Message(role="user", content="Heavy rain and strong gusts today. Describe the sky."),
    ]

    first, second = await asyncio.gather(
        model.complete(question, output=SkyReport, max_tokens=48, temperature=0.0),
        model.complete(question, output=SkyReport, max_tokens=48, temperature=0.0),
    )

    for result in (first, second):
        assert isinstance(result.value, SkyReport)
        assert SkyReport.model_validate_json(result.text) == result.value
        assert result.usage.provider == "local"
        assert result.usage.model == "gemma-3-270m-q4_k_m"
        assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0
        assert result.usage.cost_usd == 0.0
    assert _local.default_model_path().is_file()

    too_long = [Message(role="user", content="rain " * 5000)]
    with pytest.raises(ModelRequestError, match=r"^local: .*context window"):
        await model.complete(too_long, max_tokens=16)

    # Loaded once for two concurrent callers: exactly one line on stderr, the notice.
    assert capfd.readouterr().err.splitlines() == [DEFAULT_MODEL_NOTICE]


def test_compact_schema_caps_long_strings_inlines_defs_and_keeps_the_root_title():
    from pydantic import BaseModel, Field

    from argue.engine.schemas import SynthesisDraft
    from argue.llm._dialects import MAX_GRAMMAR_STRING, compact_schema

    schema = compact_schema(SynthesisDraft)
    text = json.dumps(schema)
    assert '"maxLength": 4000' not in text
    assert f'"maxLength": {MAX_GRAMMAR_STRING}' in text
    assert "$ref" not in text and "$defs" not in text
    assert schema["title"] == "SynthesisDraft"

    class Short(BaseModel):
        word: str = Field(max_length=20)

    assert compact_schema(Short)["properties"]["word"] == {"maxLength": 20, "type": "string"}
