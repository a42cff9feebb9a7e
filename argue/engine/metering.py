"""A ChatModel wrapper that records the Usage of every call (debate calls and skill calls).

Every answer the provider sent is recorded, one Usage each, the moment the call returns or
raises: a re-ask, a resend after a cut-off reply, an answer that failed validation or could not
be read are all billed, so they are all counted. ``record`` (the store's append-only usage log)
makes each record durable before the caller sees the result.
"""

from __future__ import annotations

from collections.abc import Callable

from argue.concurrency import cede
from argue.domain import Usage
from argue.llm import WrappedModel
from argue.llm.base import ChatModel, ChatResult, Message, T


class MeteredModel(WrappedModel):
    def __init__(
        self,
        inner: ChatModel,
        usage: list[Usage],
        record: Callable[[Usage], None] | None = None,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        """``notify`` is told, once each, what the model adapter changed in how it asks (a
        structured-output dialect the server rejected, and the one argue uses instead)."""
        super().__init__(inner)
        self.usage = usage
        self._record = record
        self._notify = notify
        self._notes_told = 0
        self.in_flight = 0
        """Calls sent and not yet returned (a stop waits for them: the terminal says how many)."""
        self.on_send: Callable[[], object] | None = None
        """Told as each call starts (the runner's background views wait for the next wave)."""

    async def complete(
        self,
        messages: list[Message],
        *,
        output: type[T] | None = None,
        max_tokens: int = 2048,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> ChatResult[T]:
        self.in_flight += 1
        if self.on_send is not None:
            self.on_send()
        if not self.cedes_on_the_wire:
            cede()  # a model that cannot say when its request is out: the next call may start
        try:
            return await super().complete(
                messages,
                output=output,
                max_tokens=max_tokens,
                temperature=temperature,
                purpose=purpose,
            )
        finally:
            self.in_flight -= 1

    def on_answers(self, answers: list[Usage], purpose: str | None) -> None:
        # Returned or raised, every answer is counted, then any new dialect note told.
        self._count(answers, purpose)
        self._tell_notes()

    def record_usage(self, answers: list[Usage]) -> None:
        """Record answers billed outside ``complete``: a skill's own model-backed service
        (Perplexity's answer engine, ``SkillResult.usage``)."""
        self._count(answers, None)

    def _tell_notes(self) -> None:
        notes = getattr(self.inner, "dialect_notes", None)
        if not isinstance(notes, list) or self._notify is None:
            return
        for note in notes[self._notes_told :]:
            self._notify(f"  {self.provider}/{self.model}: {note}")
        self._notes_told = len(notes)

    def _count(self, answers: list[Usage], purpose: str | None) -> None:
        for answer in answers:
            record = answer.model_copy()
            if purpose and not record.purpose:
                record.purpose = purpose
            if self._record is not None:
                self._record(record)  # durable first: a crash now loses nothing
            self.usage.append(record)

    def total(self) -> Usage:
        from argue.llm import UsageLedger

        return UsageLedger(self.usage).total()

    def describe_spending(self, lang: str = "en") -> str:
        """Calls, tokens and cost so far, e.g. "12 model calls, 34567 tokens, cost $0.0123"
        (``lang``: the debate's language)."""
        from argue.llm.pricing import describe_cost, total_tokens
        from argue.records.labels import label

        total = self.total()
        return label(
            "t_spending",
            lang,
            calls=total.calls,
            tokens=total_tokens(total),
            cost=describe_cost(total, lang),
        )
