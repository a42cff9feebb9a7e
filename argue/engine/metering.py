"""A ChatModel wrapper that records the Usage of every call (debate calls and skill calls)."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from argue.domain import Usage
from argue.llm.base import ChatModel, ChatResult, Message

T = TypeVar("T", bound=BaseModel)


class MeteredModel:
    def __init__(self, inner: ChatModel, usage: list[Usage]) -> None:
        self.inner = inner
        self.usage = usage
        self.provider = inner.provider
        self.model = inner.model

    async def complete(
        self,
        messages: list[Message],
        *,
        output: type[T] | None = None,
        max_tokens: int = 2048,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> ChatResult[T]:
        result = await self.inner.complete(
            messages, output=output, max_tokens=max_tokens, temperature=temperature, purpose=purpose
        )
        record = result.usage.model_copy()
        if purpose and not record.purpose:
            record.purpose = purpose
        self.usage.append(record)
        return result

    def total(self) -> Usage:
        from argue.llm import UsageLedger

        return UsageLedger(self.usage).total()
