"""Wire adapter for OpenAI-style ``chat.completions`` (AsyncOpenAI).

One adapter serves OpenAI, Ollama, vLLM, the llama.cpp server and LM Studio; the provider object
says where. Structured output asks for ``response_format: json_schema``; a server that rejects
it (HTTP 400 naming response_format/json_schema) gets ``json_object`` with the schema in the
system prompt instead, and this adapter instance remembers to use that from then on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from argue.domain import Usage
from argue.llm._adapter import CallSettings, SDKAdapter
from argue.llm._providers import OpenAICompatProvider
from argue.llm._retry import RetryPolicy, Sleep
from argue.llm._secrets import masked_error
from argue.llm._structured import (
    RawReply,
    output_schema,
    schema_instruction,
    tool_name_for,
)
from argue.llm.base import Message, ModelOutputError, ModelRequestError
from argue.llm.pricing import PriceTable

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion


_SCHEMA_REJECTION_MARKERS = ("response_format", "json_schema")
_REASONING_MODEL_PREFIXES = ("gpt-5", "o1", "o3", "o4")


class OpenAICompatModel(SDKAdapter[OpenAICompatProvider, "AsyncOpenAI", "ChatCompletion"]):
    def __init__(
        self,
        model: str,
        *,
        provider: OpenAICompatProvider,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 4,
        sleep: Sleep = asyncio.sleep,
        prices: PriceTable | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(model, provider, retry, max_concurrency, sleep, prices, clock)
        self.uses_json_object_fallback = False
        # OpenAI's reasoning models (gpt-5*, o-series) reject any temperature but the default.
        self._accepts_temperature = not (
            provider.official_openai and model.startswith(_REASONING_MODEL_PREFIXES)
        )

    def __repr__(self) -> str:
        return (
            f"OpenAICompatModel(provider={self.provider!r}, model={self.model!r}, "
            f"base_url={self._connection.base_url!r})"
        )

    async def _send(self, messages: list[Message], call: CallSettings) -> RawReply:
        if call.output is None or self.uses_json_object_fallback:
            return await self._send_once(messages, call)
        try:
            return await self._send_once(messages, call)
        except ModelRequestError as error:
            if error.status_code != 400 or not _rejects_json_schema(str(error)):
                raise
        self.uses_json_object_fallback = True
        return await self._send_once(messages, call)

    def _build_request(
        self,
        messages: list[Message],
        output: type[BaseModel] | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, Any]:
        if output is not None and self.uses_json_object_fallback:
            messages = [Message(role="system", content=schema_instruction(output)), *messages]
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "timeout": self._retry.request_timeout_s,
        }
        # OpenAI's own API wants max_completion_tokens (reasoning models reject max_tokens);
        # compatible servers (Ollama, vLLM, llama.cpp, LM Studio) know max_tokens.
        if self._connection.official_openai:
            request["max_completion_tokens"] = max_tokens
        else:
            request["max_tokens"] = max_tokens
        if temperature is not None and self._accepts_temperature:
            request["temperature"] = temperature
        if output is not None and self.uses_json_object_fallback:
            request["response_format"] = {"type": "json_object"}
        elif output is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": tool_name_for(output),
                    "schema": output_schema(output),
                    "strict": False,
                },
            }
        return request

    async def _send_once(self, messages: list[Message], call: CallSettings) -> RawReply:
        request = self._build_request(messages, call.output, call.max_tokens, call.temperature)
        response, latency_s = await self._call(request)
        return RawReply(text=self._reply_text(response), usage=self._usage(response, latency_s))

    async def _attempt(self, client: AsyncOpenAI, request: dict[str, Any]) -> ChatCompletion:
        import openai

        with self._sdk_failures(openai):
            return await client.chat.completions.create(**request)

    def _reply_text(self, response: ChatCompletion) -> str:
        if not response.choices:
            raise masked_error(
                ModelOutputError,
                self.provider,
                f"{self._connection.base_url} returned no choices",
                secrets=[self._connection.api_key],
            )
        message = response.choices[0].message
        if message.content is None and getattr(message, "refusal", None):
            raise masked_error(
                ModelOutputError,
                self.provider,
                f"the model refused: {message.refusal}",
                secrets=[self._connection.api_key],
            )
        return message.content or ""

    def _usage(self, response: ChatCompletion, latency_s: float) -> Usage:
        reported = response.usage
        prompt_tokens = reported.prompt_tokens if reported else 0
        details = reported.prompt_tokens_details if reported else None
        cached = (details.cached_tokens or 0) if details else 0
        usage = Usage(
            provider=self.provider,
            model=self.model,
            # Usage counts uncached input apart from cache reads (see argue.llm.pricing).
            input_tokens=max(prompt_tokens - cached, 0),
            output_tokens=reported.completion_tokens if reported else 0,
            cache_read_tokens=cached,
            latency_s=latency_s,
        )
        usage.cost_usd = self._prices.cost(usage)
        return usage


def _rejects_json_schema(message: str) -> bool:
    lowered = message.lower()
    return any(marker in lowered for marker in _SCHEMA_REJECTION_MARKERS)
