"""What every phase shares: the outcome shape, the seat, one model-call helper."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Generic, ParamSpec, TypeVar

from pydantic import BaseModel

from argue.domain import (
    Evidence,
    Failure,
)
from argue.engine import prompts
from argue.engine.digest import notes_block
from argue.engine.record import RECORD_CHARS, citable_from_record, record_parts
from argue.engine.schemas import (
    ResearchPlanDraft,
)
from argue.llm.base import ChatModel, ChatResult, Message, ModelAuthError, ModelError
from argue.records.history import DebateHistory
from argue.records.reasons import failure_sentence

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
    beliefs: str = ""  # beliefs its reflections updated (model text), with the round's material
    record_chars: int = RECORD_CHARS  # the record's budget (argue.engine.record)
    guided: bool = False  # the system text ends with every phase's guide (prompts.phase_guide)


def opening_for(seat: PersonaSeat, history: DebateHistory, round_no: int) -> list[Message]:
    """The stable start of the persona's requests in ``round_no`` (:func:`prompts.opening`)."""
    record = record_parts(history, seat.letter, round_no, seat.record_chars)
    return prompts.opening(seat.system, seat.brief, record)


def material_for(seat: PersonaSeat, history: DebateHistory, round_no: int) -> Message:
    """This round's material for the persona: the same message in its argument, rebuttal and
    reflection (:func:`prompts.round_material`), so all three share it as a cached prefix. It
    shows the round's new evidence; evidence cited in earlier rounds is in the record."""
    extra = notes_block(history.notes_for_round(round_no))
    if seat.beliefs:
        beliefs = (
            "Your beliefs now, as your reflections updated them (your own earlier words):\n"
            + prompts.data(seat.beliefs, "beliefs")
        )
        extra = f"{beliefs}\n\n{extra}" if extra else beliefs
    return prompts.round_material(
        prompts.evidence_table(fresh_evidence(history, seat.letter, round_no)),
        round_no,
        history.config.max_rounds,
        research=prompts.research_report(history, seat.letter, round_no),
        notes=extra,
        earlier=bool(citable_from_record(history, seat.letter, round_no, seat.record_chars)),
    )


def claims_for(seat: PersonaSeat, history: DebateHistory, round_no: int) -> Message:
    """The round's published claims for the persona's rebuttal and reflection
    (:func:`prompts.round_claims`): the same message in both."""
    names = {k: history.persona_name(k) for k in history.letters}
    claims = history.round(round_no).claims()
    return prompts.round_claims(
        prompts.claims_table([c for c in claims if c.persona == seat.letter], names),
        prompts.claims_table([c for c in claims if c.persona != seat.letter], names),
        round_no,
    )


def fresh_evidence(history: DebateHistory, letter: str, round_no: int) -> list[Evidence]:
    """The round's own evidence, as many rows as the table shows."""
    current = history.rounds.get(round_no)
    research = current.research.get(letter) if current else None
    return list(research.evidence[: prompts.EVIDENCE_ROWS]) if research else []


def citable_ids(seat: PersonaSeat, history: DebateHistory, round_no: int) -> tuple[str, ...]:
    """The ids the argument may cite: the round's table and the record's cited evidence."""
    shown = fresh_evidence(history, seat.letter, round_no)
    shown += citable_from_record(history, seat.letter, round_no, seat.record_chars)
    return tuple(dict.fromkeys(item.id for item in shown))


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
        super().__init__(failure_sentence(failure))
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


def refusal_failures(
    fields: dict[str, str], *, round_no: int, letter: str, phase: str
) -> list[Failure]:
    """One failure per model-written field that is a refusal rather than an answer (the
    record keeps the text; documents show it as the model wrote it, and the failure says it
    declined)."""
    from argue.text.refusal import first_words, is_refusal

    return [
        Failure(
            round=round_no,
            persona=letter,
            phase=phase,
            kind="failed",
            what=f"{phase} {name}",
            reason=f"the model declined instead of answering (“{first_words(text, 80)}”)",
            cause="refused_by_model",
        )
        for name, text in fields.items()
        if text and is_refusal(text)
    ]
