"""``ScriptedModel``: the test double. Replies come from a responder function or a queue.

Replies go through the same parsing and single re-ask as the real adapters
(``argue.llm._structured``), so a test can script invalid output and watch the re-ask happen.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel

from argue.concurrency import cede
from argue.domain import Usage
from argue.llm._adapter import Adapter, CallSettings
from argue.llm._structured import RawReply
from argue.llm.base import Message, ModelUnavailableError
from argue.llm.pricing import PriceTable


@dataclass(frozen=True)
class CutOff:
    """A scripted reply cut off by the output limit (a real API's finish_reason "length")."""

    text: str = ""


ScriptedReply = BaseModel | dict[str, Any] | list[Any] | str | CutOff | Exception
Responder = Callable[
    [list[Message], type[BaseModel] | None], ScriptedReply | Awaitable[ScriptedReply]
]

CHARS_PER_TOKEN = 4


class ScriptExhausted(ModelUnavailableError):
    """The queue ran dry: the test asked the model more often than it scripted."""


@dataclass(frozen=True)
class ScriptedRequest:
    """One call as the scripted model received it (a re-ask is a call of its own)."""

    messages: list[Message]
    output: type[BaseModel] | None
    purpose: str | None
    max_tokens: int
    temperature: float | None

    @property
    def last_user_message(self) -> str:
        """The last user turn as an API receives it: consecutive user messages (a request's
        record, its round material and its instruction) are one turn, joined as
        ``alternating_turns`` joins them."""
        turn: list[str] = []
        for message in reversed(self.messages):
            if message.role == "user":
                turn.append(message.content)
            elif turn and message.role == "assistant":
                break
        return "\n\n".join(reversed(turn))


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


class ScriptedModel(Adapter):
    def __init__(
        self,
        responder: Responder | None = None,
        *,
        replies: list[ScriptedReply] | None = None,
        provider: str = "scripted",
        model: str = "scripted-1",
        prices: PriceTable | None = None,
    ) -> None:
        """``prices``: price calls like a real adapter (a model missing from the table is
        unpriced); without it the scripted model is free."""
        self.provider = provider
        self.model = model
        self._prices = prices
        self._responder = responder
        self._replies: deque[ScriptedReply] = deque(replies or ())
        self.requests: list[ScriptedRequest] = []

    def __repr__(self) -> str:
        return f"ScriptedModel(provider={self.provider!r}, model={self.model!r})"

    def enqueue(self, *replies: ScriptedReply) -> None:
        self._replies.extend(replies)

    @property
    def pending(self) -> int:
        """Queued replies not consumed yet."""
        return len(self._replies)

    cedes_on_the_wire: ClassVar[bool] = True  # its "request" is out once it is recorded

    async def _send(self, conversation: list[Message], call: CallSettings) -> RawReply:
        cede()
        self.requests.append(
            ScriptedRequest(
                messages=list(conversation),
                output=call.output,
                purpose=call.purpose,
                max_tokens=call.max_tokens,
                temperature=call.temperature,
            )
        )
        reply = await self._next_reply(conversation, call.output)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, CutOff):
            return RawReply(
                text=reply.text, usage=self._usage(conversation, reply.text), truncated=True
            )
        text = _reply_text(reply)
        return RawReply(text=text, usage=self._usage(conversation, text))

    async def _next_reply(
        self, messages: list[Message], output: type[BaseModel] | None
    ) -> ScriptedReply:
        # Yield once so concurrent callers interleave the way real network calls do.
        await asyncio.sleep(0)
        if self._responder is not None:
            reply = self._responder(list(messages), output)
            return await reply if inspect.isawaitable(reply) else reply
        if not self._replies:
            raise ScriptExhausted(
                self.provider,
                f"no scripted reply left for call {len(self.requests)} "
                "(enqueue more replies or pass a responder)",
            )
        return self._replies.popleft()

    def _usage(self, messages: list[Message], text: str) -> Usage:
        usage = Usage(
            provider=self.provider,
            model=self.model,
            input_tokens=sum(estimate_tokens(m.content) for m in messages),
            output_tokens=estimate_tokens(text),
        )
        return usage if self._prices is None else self._prices.price(usage)


def _reply_text(reply: BaseModel | dict[str, Any] | list[Any] | str) -> str:
    if isinstance(reply, BaseModel):
        return reply.model_dump_json()
    if isinstance(reply, dict | list):
        return json.dumps(reply)
    return reply
