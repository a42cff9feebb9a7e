"""What every phase shares: the outcome shape, the seat, one model-call helper."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, ParamSpec, TypeVar

from pydantic import BaseModel

from argue.domain import (
    Failure,
)
from argue.engine.schemas import (
    ResearchPlanDraft,
)
from argue.llm.base import ChatModel, ChatResult, Message, ModelAuthError, ModelError

RESEARCH_BUDGET = 3
P = ParamSpec("P")
T = TypeVar("T", bound=BaseModel)
MAX_EVIDENCE_PER_CALL = 8


R = TypeVar("R")


@dataclass
class PhaseOutcome(Generic[R]):
    """What one persona's phase produced (``record``, None when the call failed) and the
    failures met on the way."""

    record: R | None
    failures: list[Failure] = field(default_factory=list)
    next_plan: ResearchPlanDraft | None = None  # a reflection's plan for the next round


@dataclass
class PersonaSeat:
    """What a phase needs to speak as one persona."""

    letter: str
    system: str
    role_hint: str
    brief: str = ""  # the proposition and the side, fenced, for each user message


def model_failure(round_no: int, letter: str, phase: str, exc: ModelError) -> Failure:
    return Failure(
        round=round_no,
        persona=letter,
        phase=phase,
        kind="failed",
        what=f"{phase} model call",
        reason=str(exc),
        cause=exc.cause,
    )


class PhaseFailed(Exception):
    """A persona's model call failed; the phase records it and that persona sits this one out."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.sentence())
        self.failure = failure


async def complete_for(
    model: ChatModel,
    messages: list[Message],
    output: type[T],
    *,
    round_no: int,
    letter: str,
    phase: str,
    purpose: str,
) -> ChatResult[T]:
    """One persona's model call. Rejected credentials propagate (they end the debate)."""
    try:
        return await model.complete(messages, output=output, purpose=purpose)
    except ModelAuthError:
        raise
    except ModelError as exc:
        raise PhaseFailed(model_failure(round_no, letter, phase, exc)) from exc


def records_phase_failure(
    produce: Callable[P, Awaitable[PhaseOutcome[R]]],
) -> Callable[P, Awaitable[PhaseOutcome[R]]]:
    @functools.wraps(produce)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> PhaseOutcome[R]:
        try:
            return await produce(*args, **kwargs)
        except PhaseFailed as failed:
            return PhaseOutcome(None, [failed.failure])

    return wrapper
