"""Realistic response bodies for the two wire protocols, and a sleep recorder for retries."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from argue.llm import RetryPolicy
from tests.loopback import Reply


class Verdict(BaseModel):
    """A small structured answer, shaped like what a debate phase asks for."""

    stance: Literal["for", "against", "undecided"]
    confidence: float = Field(ge=0.0, le=1.0)
    reasons: list[str]


VALID_VERDICT: dict[str, Any] = {
    "stance": "against",
    "confidence": 0.7,
    "reasons": ["congestion pricing worked in Stockholm"],
}
INVALID_VERDICT: dict[str, Any] = {"stance": "maybe", "confidence": 3}

FAST_RETRY = RetryPolicy(
    max_attempts=3,
    max_total_s=60.0,
    request_timeout_s=5.0,
    initial_backoff_s=0.5,
    max_backoff_s=30.0,
    jitter_s=0.0,
)


class SleepRecorder:
    """Injected instead of asyncio.sleep: records each wait, waits for nothing."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


# ---------------------------------------------------------------- Anthropic Messages API


def anthropic_tool_reply(
    tool_input: dict[str, Any],
    *,
    name: str = "Verdict",
    input_tokens: int = 412,
    output_tokens: int = 57,
    cache_read: int = 0,
    cache_write: int = 0,
    stop_reason: str = "tool_use",
) -> Reply:
    return Reply(
        json={
            "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_01A09q90qw90lq917835lq9",
                    "name": name,
                    "input": tool_input,
                }
            ],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_creation_input_tokens": cache_write,
                "cache_read_input_tokens": cache_read,
                "service_tier": "standard",
            },
        }
    )


def anthropic_text_reply(
    text: str,
    *,
    input_tokens: int = 412,
    output_tokens: int = 57,
    cache_read: int = 0,
    cache_write: int = 0,
    stop_reason: str = "end_turn",
) -> Reply:
    return Reply(
        json={
            "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "cache_creation_input_tokens": cache_write,
                "cache_read_input_tokens": cache_read,
                "service_tier": "standard",
            },
        }
    )


def anthropic_json_reply(payload: dict[str, Any], **usage: int) -> Reply:
    """What structured output (output_config.format) returns: one text block of JSON."""
    return anthropic_text_reply(json.dumps(payload), **usage)


def anthropic_error(
    status: int, error_type: str, message: str, headers: dict[str, str] | None = None
) -> Reply:
    return Reply(
        status=status,
        json={
            "type": "error",
            "error": {"type": error_type, "message": message},
            "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy",
        },
        headers=headers or {},
    )


# ---------------------------------------------------------------- OpenAI chat.completions


def openai_reply(
    content: str | None,
    *,
    prompt_tokens: int = 512,
    completion_tokens: int = 40,
    cached_tokens: int | None = None,
    refusal: str | None = None,
    finish_reason: str = "stop",
    reasoning_tokens: int = 0,
) -> Reply:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "completion_tokens_details": {"reasoning_tokens": reasoning_tokens, "audio_tokens": 0},
    }
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens, "audio_tokens": 0}
    return Reply(
        json={
            "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
            "object": "chat.completion",
            "created": 1741569952,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": content,
                        "refusal": refusal,
                        "annotations": [],
                    },
                    "logprobs": None,
                    "finish_reason": finish_reason,
                }
            ],
            "usage": usage,
            "service_tier": "default",
            "system_fingerprint": "fp_06737a9306",
        }
    )


def openai_json_reply(payload: dict[str, Any], **kwargs: Any) -> Reply:
    return openai_reply(json.dumps(payload), **kwargs)


def openai_error(
    status: int,
    message: str,
    *,
    error_type: str = "invalid_request_error",
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    return Reply(
        status=status,
        json={"error": {"message": message, "type": error_type, "param": param, "code": code}},
        headers=headers or {},
    )
