"""Wire adapter for Ollama's native ``/api/chat`` (``ARGUE_OLLAMA_API=native``).

Ollama also serves the OpenAI-style ``/v1`` (argue's default for it, negotiated like any such
server). Natively, structured output is the ``format`` field: a JSON schema (Ollama 0.5 and
later, enforced by a grammar), or ``"json"`` on older servers, which reject a schema there; the
adapter then sends ``"json"`` with the schema in the prompt, and remembers that. The output limit
is ``options.num_predict``; ``done_reason: "length"`` is a cut-off reply.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from argue.concurrency import cede_on_the_wire
from argue.domain import Usage
from argue.llm._adapter import CallSettings, EarlierBills, SDKAdapter, with_unanswered
from argue.llm._dialects import compact_schema
from argue.llm._retry import (
    RetryPolicy,
    Sleep,
    TransportFailure,
    one_line,
    sent_before_dropping,
    sent_before_timeout,
    status_failure,
)
from argue.llm._structured import ContextCut, RawReply, schema_instruction
from argue.llm.base import Message, ModelRequestError
from argue.llm.pricing import PriceTable
from argue.redact import redact, strip_credential_text

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class OllamaNativeProvider:
    """Where the Ollama server is: ``host_url`` without ``/v1``."""

    host_url: str
    name: str = "ollama"
    api_key: str = field(default="", repr=False)
    key_env: str = ""

    @property
    def base_url(self) -> str:
        return self.host_url.rstrip("/")

    def client(self, timeout_s: float) -> _HttpClient:
        import httpx

        return _HttpClient(
            httpx.AsyncClient(
                base_url=self.base_url,
                timeout=timeout_s,
                trust_env=False,
                event_hooks={"request": [cede_on_the_wire]},
            )
        )


class _HttpClient:
    """httpx's client under the ``close()`` the SDK clients have."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self.http = client

    async def close(self) -> None:
        await self.http.aclose()


class OllamaNativeModel(SDKAdapter[OllamaNativeProvider, _HttpClient, dict]):
    def __init__(
        self,
        model: str,
        *,
        provider: OllamaNativeProvider,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 4,
        sleep: Sleep = asyncio.sleep,
        prices: PriceTable | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(model, provider, retry, max_concurrency, sleep, prices, clock)
        self.schema_in_format = True
        self.dialect_notes: list[str] = []

    @property
    def context_window(self) -> int:
        """Ollama's default context (``num_ctx``) is 4,096 tokens; argue does not change it,
        so each persona's record is sized for that."""
        return 4096

    def __repr__(self) -> str:
        return f"OllamaNativeModel(model={self.model!r}, host={self._connection.base_url!r})"

    async def _send(self, messages: list[Message], call: CallSettings) -> RawReply:
        earlier = EarlierBills()  # what rejected calls were billed stays counted
        with earlier.kept():
            while True:
                request = self._build_request(messages, call)
                try:
                    return earlier.before(await self._reply(request, call.max_tokens))
                except ModelRequestError as error:
                    if not (self.schema_in_format and "format" in request and _about_format(error)):
                        raise
                    earlier.recovered_from(error)
                    self.schema_in_format = False
                    self.dialect_notes.append(
                        "the server rejected a JSON schema in `format` "
                        f'(HTTP {error.status_code}); argue now sends format "json" with the '
                        "schema in the prompt"
                    )

    def _build_request(self, messages: list[Message], call: CallSettings) -> dict[str, Any]:
        output = call.output
        if output is not None and not self.schema_in_format:
            messages = [Message(role="system", content=schema_instruction(output)), *messages]
        options: dict[str, Any] = {"num_predict": call.max_tokens}
        if call.temperature is not None:
            options["temperature"] = call.temperature
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "stream": False,
            "options": options,
        }
        if output is not None:
            request["format"] = compact_schema(output) if self.schema_in_format else "json"
        return request

    async def _reply(self, request: dict[str, Any], max_tokens: int) -> RawReply:
        body, latency_s, unanswered = await self._call(request)
        message = body.get("message")
        text = message.get("content") if isinstance(message, dict) else None
        prompt_tokens, output_tokens, counted = 0, 0, False
        raw_prompt, raw_output = body.get("prompt_eval_count"), body.get("eval_count")
        if isinstance(raw_prompt, int) and isinstance(raw_output, int):
            prompt_tokens, output_tokens, counted = raw_prompt, raw_output, True
        usage = self._prices.price(
            Usage(
                provider=self.provider,
                model=self.model,
                input_tokens=prompt_tokens,
                output_tokens=output_tokens,
                latency_s=latency_s,
            ),
            tokens_known=counted,
        )
        truncated = body.get("done_reason") == "length"
        context_cut = None
        if truncated and counted and output_tokens < 0.9 * max_tokens:
            context_cut = ContextCut(
                prompt_tokens=prompt_tokens, output_tokens=output_tokens, output_limit=max_tokens
            )
        reply = RawReply(
            text=text if isinstance(text, str) else "",
            usage=usage,
            truncated=truncated,
            context_cut=context_cut,
        )
        return with_unanswered(reply, unanswered)

    async def _attempt(self, client: _HttpClient, request: dict[str, Any]) -> dict:
        import httpx

        timeout = request.pop("timeout")
        try:
            response = await client.http.post("/api/chat", json=request, timeout=timeout)
        except httpx.TimeoutException as error:
            raise TransportFailure(
                "timeout",
                detail=f"no answer within {timeout:g} s",
                possibly_billed=sent_before_timeout(error),
            ) from None
        except httpx.RemoteProtocolError:
            raise TransportFailure(
                "dropped",
                detail="the server closed the connection without answering",
                possibly_billed=True,
            ) from None
        except httpx.TransportError as error:
            raise TransportFailure(
                "connection",
                detail=f"connection failed ({error})",
                possibly_billed=sent_before_dropping(error),  # a reset after sending: ReadError
            ) from None
        try:
            body: object = response.json()
        except ValueError:
            body = response.text
        if response.status_code >= 400:
            raise status_failure(response.status_code, response.headers, body)
        if not isinstance(body, dict) or not isinstance(body.get("message"), dict):
            shown = redact(strip_credential_text(body if isinstance(body, str) else str(body)))
            raise TransportFailure(
                "unreadable", detail=f"HTTP 200, not a chat reply: {one_line(shown, 120)}"
            )
        return body


def _about_format(error: ModelRequestError) -> bool:
    lowered = str(error).lower()
    return "format" in lowered or "schema" in lowered
