"""One persona's turn in each phase: build the prompt, call the model, check every id.

Each function returns a record plus the failures met; it never writes files (the orchestrator
alone writes the store) and never raises for a model failure of one persona.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from pydantic import BaseModel

from argue.domain import (
    BRIDGES,
    ArgumentRecord,
    BeliefUpdate,
    Claim,
    Concession,
    Counter,
    Evidence,
    Failure,
    RebuttalRecord,
    ReflectionRecord,
    ResearchCallRecord,
    ResearchRecord,
)
from argue.engine import prompts
from argue.engine.context import DebateHistory
from argue.engine.digest import build_digest, clip
from argue.engine.schemas import (
    ArgumentDraft,
    RebuttalDraft,
    ReflectionDraft,
    ResearchCallDraft,
    ResearchPlanDraft,
)
from argue.engine.toolkit import ResearchRequest, ResearchToolkit
from argue.grounding.debate import unverified_in
from argue.llm.base import ChatModel, ChatResult, Message, ModelAuthError, ModelError
from skills.base import SkillResult

RESEARCH_BUDGET = 3
P = ParamSpec("P")
T = TypeVar("T", bound=BaseModel)
MAX_EVIDENCE_PER_CALL = 8


@dataclass
class PhaseOutcome:
    record: object | None
    failures: list[Failure] = field(default_factory=list)


@dataclass
class PersonaSeat:
    """What a phase needs to speak as one persona."""

    letter: str
    system: str
    role_hint: str


def model_failure(round_no: int, letter: str, phase: str, exc: ModelError) -> Failure:
    return Failure(
        round=round_no,
        persona=letter,
        phase=phase,
        kind="failed",
        what=f"{phase} model call",
        reason=str(exc),
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
    produce: Callable[P, Awaitable[PhaseOutcome]],
) -> Callable[P, Awaitable[PhaseOutcome]]:
    @functools.wraps(produce)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> PhaseOutcome:
        try:
            return await produce(*args, **kwargs)
        except PhaseFailed as failed:
            return PhaseOutcome(None, [failed.failure])

    return wrapper


# ---------------------------------------------------------------- research


@records_phase_failure
async def plan_research(
    model: ChatModel,
    history: DebateHistory,
    seat: PersonaSeat,
    toolkit: ResearchToolkit,
    round_no: int,
) -> PhaseOutcome:
    letter = seat.letter
    previous = history.rounds.get(round_no - 1)
    opponents_latest = prompts.claims_table(
        [c for c in (previous.claims() if previous else []) if c.persona != letter],
        {k: history.persona_name(k) for k in history.letters},
    )
    messages = prompts.research_plan_messages(
        seat.system,
        build_digest(history, letter, round_no),
        opponents_latest,
        toolkit.menu(history.personas[letter]),
        round_no,
        history.config.max_rounds,
    )
    result = await complete_for(
        model,
        messages,
        ResearchPlanDraft,
        round_no=round_no,
        letter=letter,
        phase="research plan",
        purpose=f"{letter}/R{round_no}/research-plan",
    )
    return PhaseOutcome(result.value)


async def run_research(
    plan: ResearchPlanDraft,
    history: DebateHistory,
    letter: str,
    toolkit: ResearchToolkit,
    round_no: int,
    *,
    first_evidence: int = 1,
) -> PhaseOutcome:
    """Enforce the budget, run the calls concurrently, number the evidence A-R2-E1…"""
    calls = plan.calls[:RESEARCH_BUDGET]
    dropped = [f"{c.skill} {c.query!r}" for c in plan.calls[RESEARCH_BUDGET:]]
    persona = history.personas[letter]
    participants = _published_arguments(history, exclude=letter)
    requests = [
        ResearchRequest(
            call=call,
            persona=persona,
            letter=letter,
            debate_id=history.config.id,
            participants=participants,
        )
        for call in calls
    ]
    results = await asyncio.gather(*(_run_one(toolkit, r) for r in requests))
    record = ResearchRecord(persona=letter, round=round_no, why=plan.why, dropped_calls=dropped)
    failures: list[Failure] = []
    counter = first_evidence - 1
    for call, result in zip(calls, results, strict=True):
        ids: list[str] = []
        for item in result.items[:MAX_EVIDENCE_PER_CALL]:
            counter += 1
            evidence = Evidence(
                id=f"{letter}-R{round_no}-E{counter}",
                persona=letter,
                round=round_no,
                skill=result.skill,
                query=call.query,
                title=item.title,
                url=item.url,
                locator=item.locator,
                snippet=item.snippet,
                source=item.source,
                origin_id=item.id,
                provenance=item.provenance,
            )
            record.evidence.append(evidence)
            ids.append(evidence.id)
        record.calls.append(
            ResearchCallRecord(
                skill=call.skill,
                query=call.query,
                colleague=call.colleague,
                sources=call.sources,
                status=result.status,
                note=result.note,
                elapsed_s=result.elapsed_s,
                evidence_ids=ids,
                source_statuses=[s.model_dump(mode="json") for s in result.sources],
            )
        )
        failures += _research_failures(call, result, round_no, letter)
    if dropped:
        failures.append(
            Failure(
                round=round_no,
                persona=letter,
                phase="research",
                kind="refused",
                what=f"{len(dropped)} research call(s) over the budget of {RESEARCH_BUDGET}",
                reason="dropped by the engine: " + "; ".join(dropped),
            )
        )
    return PhaseOutcome(record, failures)


def _research_failures(
    call: ResearchCallDraft, result: SkillResult, round_no: int, letter: str
) -> list[Failure]:
    """What did not work in one research call: the whole call, or (when the call worked) any of
    its sources, in the fixed words."""
    query = clip(call.query, 60)
    if result.status in ("refused", "failed"):
        problems = [(result.status, f"{call.skill} {query!r}", result.note)]
    else:
        problems = [
            (s.status, f"{call.skill} source {s.source} for {query!r}", s.note)
            for s in result.sources
            if s.status in ("refused", "failed")
        ]
    return [
        Failure(
            round=round_no,
            persona=letter,
            phase="research",
            kind=kind,  # type: ignore[arg-type]
            what=what,
            reason=note or "no reason given",
        )
        for kind, what, note in problems
    ]


async def _run_one(toolkit: ResearchToolkit, request: ResearchRequest) -> SkillResult:
    """A skill must not raise; if one does anyway, the debate records it as failed."""
    try:
        return await toolkit.run(request)
    except Exception as exc:
        return SkillResult.failed(
            request.call.skill, request.call.query, f"{type(exc).__name__}: {exc}"
        )


def _published_arguments(history: DebateHistory, exclude: str) -> dict[str, list[str]]:
    published: dict[str, list[str]] = {}
    for letter in history.letters:
        if letter == exclude:
            continue
        name = history.personas[letter].name
        texts = [
            f"[{c.id}] {c.text}"
            for r in history.ordered_rounds()
            if letter in r.arguments
            for c in r.arguments[letter].claims
        ]
        published[name] = texts[-8:]
    return published


# ---------------------------------------------------------------- argument


def argument_evidence(history: DebateHistory, letter: str, round_no: int) -> list[Evidence]:
    """This round's evidence first, then earlier evidence this persona already cited."""
    current = history.rounds.get(round_no)
    fresh = (
        list(current.research[letter].evidence) if current and letter in current.research else []
    )
    registry = history.evidence_registry(letter, round_no - 1)
    cited = [
        eid
        for r in history.ordered_rounds()
        if r.round < round_no and letter in r.arguments
        for c in r.arguments[letter].claims
        for eid in c.verified_evidence_ids
    ]
    earlier = [registry[eid] for eid in dict.fromkeys(reversed(cited)) if eid in registry][:5]
    return fresh[:15] + earlier


@records_phase_failure
async def make_argument(
    model: ChatModel, history: DebateHistory, seat: PersonaSeat, round_no: int
) -> PhaseOutcome:
    letter = seat.letter
    table = prompts.evidence_table(argument_evidence(history, letter, round_no))
    messages = prompts.argument_messages(
        seat.system,
        build_digest(history, letter, round_no),
        table,
        round_no,
        history.config.max_rounds,
        seat.role_hint,
        research=prompts.research_report(history, letter, round_no),
    )
    result = await complete_for(
        model,
        messages,
        ArgumentDraft,
        round_no=round_no,
        letter=letter,
        phase="argument",
        purpose=f"{letter}/R{round_no}/argument",
    )
    draft: ArgumentDraft = result.value  # type: ignore[assignment]
    registry = history.evidence_registry(letter, round_no)
    references = history.reference_index(round_no)
    claims = []
    for index, claim in enumerate(draft.claims, start=1):
        cited = list(dict.fromkeys(claim.evidence_ids))
        claims.append(
            Claim(
                id=f"{letter}{round_no}.c{index}",
                persona=letter,
                round=round_no,
                text=claim.text,
                warrant=claim.warrant,
                evidence_ids=cited,
                verified_evidence_ids=[
                    e for e in cited if e in registry and registry[e].is_document
                ],
                model_written_evidence_ids=[
                    e for e in cited if e in registry and not registry[e].is_document
                ],
                unverified_evidence_ids=[e for e in cited if e not in registry],
                unverified_references=unverified_in(references, claim.text, claim.warrant),
            )
        )
    wanted = [t.strip().lower() for t in draft.taxonomy_tags]
    tags = [t for t in dict.fromkeys(wanted) if t in BRIDGES]
    dropped = [t for t in wanted if t not in BRIDGES]
    if not tags and claims:
        tags = _keyword_tags(" ".join(c.text for c in claims))
    record = ArgumentRecord(
        persona=letter,
        round=round_no,
        position=draft.position,
        claims=claims,
        taxonomy_tags=tags,
        dropped_tags=dropped,
    )
    return PhaseOutcome(record)


def _keyword_tags(text: str) -> list[str]:
    from skills.taxonomy import classify

    return list(classify(text).tags)


# ---------------------------------------------------------------- rebuttal


@records_phase_failure
async def make_rebuttal(
    model: ChatModel, history: DebateHistory, seat: PersonaSeat, round_no: int
) -> PhaseOutcome:
    letter = seat.letter
    current = history.round(round_no)
    names = {k: history.persona_name(k) for k in history.letters}
    own = current.arguments[letter].claims if letter in current.arguments else []
    opponent_claims = [c for c in current.claims() if c.persona != letter]
    if not opponent_claims:
        return PhaseOutcome(
            None,
            [
                Failure(
                    round=round_no,
                    persona=letter,
                    phase="rebuttal",
                    kind="refused",
                    what="rebuttal",
                    reason="no opponent published a claim this round: nothing to rebut",
                )
            ],
        )
    table = prompts.evidence_table(argument_evidence(history, letter, round_no), limit=10)
    messages = prompts.rebuttal_messages(
        seat.system,
        prompts.claims_table(own, names),
        prompts.claims_table(opponent_claims, names),
        table,
        round_no,
        seat.role_hint,
    )
    purpose = f"{letter}/R{round_no}/rebuttal"
    result = await complete_for(
        model,
        messages,
        RebuttalDraft,
        round_no=round_no,
        letter=letter,
        phase="rebuttal",
        purpose=purpose,
    )
    draft: RebuttalDraft = result.value  # type: ignore[assignment]
    # Any opponent claim of this round or an earlier one is a real target.
    known = {c.id: c for c in history.all_claims() if c.round <= round_no}
    owners = {cid: c.persona for cid, c in known.items() if c.persona != letter}
    reasked = False
    reask_failures: list[Failure] = []
    if not any(c.target_claim_id in owners for c in draft.concessions):
        reasked = True
        retry = [
            *messages,
            Message(role="assistant", content=result.text),
            prompts.concession_reask([c.id for c in opponent_claims]),
        ]
        try:
            again = await complete_for(
                model,
                retry,
                RebuttalDraft,
                round_no=round_no,
                letter=letter,
                phase="rebuttal concession re-ask",
                purpose=purpose + "-reask",
            )
            draft = again.value  # type: ignore[assignment]
        except PhaseFailed as failed:
            reask_failures.append(failed.failure)  # the first rebuttal stands, unconceded
    registry = history.evidence_registry(letter, round_no)
    counters = [
        Counter(
            target_claim_id=c.target_claim_id,
            kind=c.kind,
            text=c.text,
            evidence_ids=c.evidence_ids,
            valid_target=c.target_claim_id in owners,
            target_note=target_note(c.target_claim_id, known, letter, names),
            verified_evidence_ids=[
                e for e in c.evidence_ids if e in registry and registry[e].is_document
            ],
        )
        for c in draft.counters
    ]
    concessions = [
        Concession(
            round=round_no,
            from_persona=letter,
            to_persona=owners.get(c.target_claim_id),
            claim_id=c.target_claim_id,
            kind=c.kind,
            text=c.text,
            reason=c.reason,
            valid_target=c.target_claim_id in owners,
            target_note=target_note(c.target_claim_id, known, letter, names),
        )
        for c in draft.concessions
    ]
    record = RebuttalRecord(
        persona=letter,
        round=round_no,
        counters=counters,
        concessions=concessions,
        common_ground=draft.common_ground,
        declined_to_concede=not any(c.valid_target for c in concessions),
        reasked_for_concession=reasked,
    )
    return PhaseOutcome(record, reask_failures)


def target_note(claim_id: str, known: dict[str, Claim], letter: str, names: dict[str, str]) -> str:
    """Why a rebuttal's target does not count, in plain words ("" when it counts)."""
    claim = known.get(claim_id)
    if claim is None:
        return f"no claim {claim_id} exists in this debate so far: not counted"
    if claim.persona == letter:
        return f"{claim_id} is {names[letter]}'s own claim: not counted"
    return ""


# ---------------------------------------------------------------- reflection


@records_phase_failure
async def make_reflection(
    model: ChatModel, history: DebateHistory, seat: PersonaSeat, round_no: int
) -> PhaseOutcome:
    letter = seat.letter
    current = history.round(round_no)
    names = {k: history.persona_name(k) for k in history.letters}
    mine = current.rebuttals.get(letter)
    by_me = (
        "\n".join(f"- [{c.claim_id}] {clip(c.text)}" for c in mine.concessions if c.valid_target)
        if mine
        else ""
    )
    to_me_items = [
        f"- {names[r.persona]} conceded [{c.claim_id}]: {clip(c.text)}"
        for r in current.rebuttals.values()
        for c in r.concessions
        if c.valid_target and c.to_persona == letter
    ]
    against_me = [
        f"- {names[r.persona]} ({c.kind}) on [{c.target_claim_id}]: {clip(c.text)}"
        for r in current.rebuttals.values()
        for c in r.counters
        if c.valid_target and c.target_claim_id.startswith(letter)
    ]
    scores = _scores_line(history, letter)
    trajectory = history.confidences(letter)
    previous = f"{trajectory[-1][1]:.2f}" if trajectory else "(none yet)"
    messages = prompts.reflection_messages(
        seat.system,
        by_me or "(nothing)",
        "\n".join(to_me_items) or "(nothing)",
        "\n".join(against_me[:8]) or "(none)",
        scores,
        previous,
        round_no,
    )
    result = await complete_for(
        model,
        messages,
        ReflectionDraft,
        round_no=round_no,
        letter=letter,
        phase="reflection",
        purpose=f"{letter}/R{round_no}/reflection",
    )
    draft: ReflectionDraft = result.value  # type: ignore[assignment]
    record = ReflectionRecord(
        persona=letter,
        round=round_no,
        confidence=draft.confidence,
        belief_updates=[BeliefUpdate(**u.model_dump()) for u in draft.belief_updates],
        would_change_my_mind=draft.would_change_my_mind,
        position_now=draft.position_now,
    )
    return PhaseOutcome(record)


def _scores_line(history: DebateHistory, letter: str) -> str:
    parts = []
    for record in history.committed_rounds()[-3:]:
        assert record.score is not None
        own = record.score.personas.get(letter)
        if own:
            parts.append(f"R{record.round}: {own.total:.2f}/{own.max_total:.1f}")
    return ", ".join(parts) or "(no round scored yet)"


def research_call_from_record(call: ResearchCallRecord) -> ResearchCallDraft:
    return ResearchCallDraft(
        skill=call.skill, query=call.query, colleague=call.colleague, sources=call.sources
    )
