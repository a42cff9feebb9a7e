"""``WrappedModel``: a ChatModel around another one, with a hook on every call's outcome.

The engine's metering (``argue.engine.metering.MeteredModel``) and the eval's budget tally
(``argue.eval.budget.TalliedModel``) both watch what every call was billed; this is the one
forwarding they share. ``aclose`` is deliberately not forwarded: a wrapper does not own the model
it wraps (one eval model is shared by every (item, arm)'s wrapper); whoever built the model
closes it.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from argue.domain import Usage
from argue.llm.base import ChatModel, ChatResult, Message, billed_answers

T = TypeVar("T", bound=BaseModel)


class WrappedModel:
    """Forwards ``complete`` to ``inner`` (and its ``provider``/``model``). Override
    ``on_answers`` to see every answer the provider sent, or ``on_result``/``on_error`` to see
    the call's whole outcome; the result or the error then goes on to the caller unchanged."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.provider = inner.provider
        self.model = inner.model

    @property
    def cedes_on_the_wire(self) -> bool:
        """The wrapped model's (see ``argue.llm._adapter.Adapter.cedes_on_the_wire``)."""
        return bool(getattr(self.inner, "cedes_on_the_wire", False))

    async def complete(
        self,
        messages: list[Message],
        *,
        output: type[T] | None = None,
        max_tokens: int = 2048,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> ChatResult[T]:
        try:
            result = await self.inner.complete(
                messages,
                output=output,
                max_tokens=max_tokens,
                temperature=temperature,
                purpose=purpose,
            )
        except Exception as error:
            self.on_error(error, purpose)
            raise
        self.on_result(result, purpose)
        return result

    def on_result(self, result: ChatResult[T], purpose: str | None) -> None:
        """A call that returned: each of its answers (or its one Usage) goes to ``on_answers``."""
        self.on_answers(result.answers or [result.usage], purpose)

    def on_error(self, error: Exception, purpose: str | None) -> None:
        """A call that raised after the provider answered (invalid twice, cut off, unreadable,
        refused): those answers were billed all the same, so they go to ``on_answers`` too."""
        self.on_answers(billed_answers(error), purpose)

    def on_answers(self, answers: list[Usage], purpose: str | None) -> None:
        """Every answer one call was billed for (``purpose``: what the caller said it was for)."""
