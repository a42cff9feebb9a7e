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
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from argue.domain import Usage
from argue.llm._limits import provider_slots
from argue.llm._providers import OpenAICompatProvider
from argue.llm._retry import RetryPolicy, Sleep, TransportFailure, call_with_retries, status_failure
from argue.llm._secrets import masked_error
from argue.llm._structured import (
    RawReply,
    complete_structured,
    output_schema,
    schema_instruction,
    tool_name_for,
)
from argue.llm.base import ChatResult, Message, ModelOutputError, ModelRequestError
from argue.llm.pricing import PriceTable

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion

T = TypeVar("T", bound=BaseModel)

_SCHEMA_REJECTION_MARKERS = ("response_format", "json_schema")
_REASONING_MODEL_PREFIXES = ("gpt-5", "o1", "o3", "o4")


class OpenAICompatModel:
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
        self.provider = provider.name
        self.model = model
        self._connection = provider
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._prices = prices or PriceTable()
        self._clock = clock
        self.max_concurrency = max_concurrency
        self._client: AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None
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

    async def complete(
        self,
        messages: list[Message],
        *,
        output: type[T] | None = None,
        max_tokens: int = 2048,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> ChatResult[T]:
        async def send(conversation: list[Message]) -> RawReply:
            return await self._send_with_fallback(conversation, output, max_tokens, temperature)

        return await complete_structured(
            send,
            messages,
            output,
            provider=self.provider,
            purpose=purpose,
            secrets=[self._connection.api_key],
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _client_for_running_loop(self) -> AsyncOpenAI:
        """The SDK client; a new one in a new event loop (its connection pool is loop-bound)."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            self._client = self._connection.client(self._retry.request_timeout_s)
            self._client_loop = loop
        return self._client

    async def _send_with_fallback(
        self,
        messages: list[Message],
        output: type[BaseModel] | None,
        max_tokens: int,
        temperature: float | None,
    ) -> RawReply:
        if output is None or self.uses_json_object_fallback:
            return await self._send(messages, output, max_tokens, temperature)
        try:
            return await self._send(messages, output, max_tokens, temperature)
        except ModelRequestError as error:
            if error.status_code != 400 or not _rejects_json_schema(str(error)):
                raise
        self.uses_json_object_fallback = True
        return await self._send(messages, output, max_tokens, temperature)

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

    async def _send(
        self,
        messages: list[Message],
        output: type[BaseModel] | None,
        max_tokens: int,
        temperature: float | None,
    ) -> RawReply:
        request = self._build_request(messages, output, max_tokens, temperature)
        client = self._client_for_running_loop()
        async with provider_slots(self.provider, self.max_concurrency):
            started = self._clock()
            response = await call_with_retries(
                lambda: self._attempt(client, request),
                provider=self.provider,
                endpoint=self._connection.base_url,
                policy=self._retry,
                sleep=self._sleep,
                auth_hint=self._connection.key_env,
                secrets=[self._connection.api_key],
            )
            latency_s = self._clock() - started
        return RawReply(text=self._reply_text(response), usage=self._usage(response, latency_s))

    async def _attempt(self, client: AsyncOpenAI, request: dict[str, Any]) -> ChatCompletion:
        import openai

        try:
            return await client.chat.completions.create(**request)
        except openai.APIStatusError as error:
            raise status_failure(error.status_code, error.response.headers, error.body) from None
        except openai.APITimeoutError:
            raise TransportFailure(
                "timeout", detail=f"no answer within {self._retry.request_timeout_s:g} s"
            ) from None
        except openai.APIConnectionError as error:
            raise TransportFailure(
                "connection", detail=f"connection failed ({error.__cause__ or error})"
            ) from None
        except openai.APIResponseValidationError as error:
            raise TransportFailure("unreadable", detail=error.message) from None

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
