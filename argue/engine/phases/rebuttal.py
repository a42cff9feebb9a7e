"""Rebuttal: counters and concessions, targets checked; one re-ask for a concession; the
evidence they cite checked like a claim's (each quote looked for in its document)."""

from __future__ import annotations

from argue.domain import (
    Claim,
    Concession,
    Counter,
    Failure,
    NextAsk,
    RebuttalRecord,
)
from argue.engine import prompts
from argue.engine.phases._common import (
    PersonaSeat,
    PhaseFailed,
    PhaseOutcome,
    claims_for,
    complete_for,
    material_for,
    opening_for,
    records_phase_failure,
)
from argue.engine.phases.research import consult_colleagues
from argue.engine.schemas import (
    ConcessionDraft,
    RebuttalDraft,
    rebuttal_model,
    repeats_a_description,
)
from argue.engine.toolkit import ResearchToolkit
from argue.grounding.citations import check_citations
from argue.llm.base import ChatModel, Message
from argue.records.history import DebateHistory
from argue.text.refusal import is_refusal


@records_phase_failure
async def make_rebuttal(
    model: ChatModel,
    history: DebateHistory,
    seat: PersonaSeat,
    round_no: int,
    toolkit: ResearchToolkit | None = None,
) -> PhaseOutcome[RebuttalRecord]:
    """Counters and concessions; before the last round (with a ``toolkit`` offering colleagues)
    also the colleague question of the next round, answered beside the reflections."""
    letter = seat.letter
    colleagues = consult_colleagues(history, letter, toolkit, round_no)
    schema = rebuttal_model(colleagues)
    current = history.round(round_no)
    names = {k: history.persona_name(k) for k in history.letters}
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
    messages = prompts.rebuttal_messages(
        opening_for(seat, history, round_no),
        material_for(seat, history, round_no),
        claims_for(seat, history, round_no),
        round_no,
        seat.role_hint,
        consult=prompts.consult_slot(colleagues, round_no + 1) if colleagues else "",
        guided=seat.guided,
    )
    purpose = f"{letter}/R{round_no}/rebuttal"
    result = await complete_for(
        model,
        messages,
        schema,
        round_no=round_no,
        letter=letter,
        phase="rebuttal",
        purpose=purpose,
    )
    draft: RebuttalDraft = result.parsed()
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
                schema,
                round_no=round_no,
                letter=letter,
                phase="rebuttal concession re-ask",
                purpose=purpose + "-reask",
            )
            draft = again.parsed()
        except PhaseFailed as failed:
            reask_failures.append(failed.failure)  # the first rebuttal stands, unconceded
    registry = history.evidence_registry(letter, round_no)
    counters = []
    for c in draft.counters:
        citations = check_citations(c.cited(), registry)
        cited = list(dict.fromkeys(q.evidence_id for q in citations))
        counters.append(
            Counter(
                target_claim_id=c.target_claim_id,
                kind=c.kind,
                text=c.text,
                evidence_ids=cited,
                valid_target=c.target_claim_id in owners and not is_refusal(c.text),
                target_note=target_note(c.target_claim_id, known, letter, names, c.text),
                verified_evidence_ids=[
                    e for e in cited if e in registry and registry[e].is_document
                ],
                citations=citations,
            )
        )
    concessions = []
    for conceded in _first_per_target(draft.concessions):
        citations = check_citations(conceded.cited(), registry)
        concessions.append(
            Concession(
                round=round_no,
                from_persona=letter,
                to_persona=owners.get(conceded.target_claim_id),
                claim_id=conceded.target_claim_id,
                kind=conceded.kind,
                text=conceded.text,
                reason=conceded.reason,
                evidence_ids=list(dict.fromkeys(q.evidence_id for q in citations)),
                valid_target=conceded.target_claim_id in owners and not is_refusal(conceded.text),
                target_note=target_note(
                    conceded.target_claim_id, known, letter, names, conceded.text
                ),
                citations=citations,
            )
        )
    record = RebuttalRecord(
        persona=letter,
        round=round_no,
        counters=counters,
        concessions=concessions,
        common_ground=draft.common_ground,
        declined_to_concede=not any(c.valid_target for c in concessions),
        reasked_for_concession=reasked,
        next_ask=(
            NextAsk(colleague=draft.next_ask.colleague, question=draft.next_ask.question)
            if colleagues
            and draft.next_ask is not None
            and draft.next_ask.question.strip()
            and not repeats_a_description(draft.next_ask.question)
            else None
        ),
    )
    return PhaseOutcome(record, reask_failures)


def _first_per_target(concessions: list[ConcessionDraft]) -> list[ConcessionDraft]:
    """One concession per claim: a persona that concedes the same claim several times in a
    round (``conceded B1.c1, B1.c1, B1.c1``) has conceded it once, in its first words."""
    seen: set[str] = set()
    kept = []
    for concession in concessions:
        if concession.target_claim_id not in seen:
            seen.add(concession.target_claim_id)
            kept.append(concession)
    return kept


REFUSAL_NOTE = "the model declined instead of answering (a refusal): not counted"


def target_note(
    claim_id: str, known: dict[str, Claim], letter: str, names: dict[str, str], text: str = ""
) -> str:
    """Why a counter or concession does not count, in plain words ("" when it counts): a
    refusal in its text, or a target that is no opponent's claim."""
    if text and is_refusal(text):
        return REFUSAL_NOTE
    claim = known.get(claim_id)
    if claim is None:
        return f"no claim {claim_id} exists in this debate so far: not counted"
    if claim.persona == letter:
        return f"{claim_id} is {names[letter]}'s own claim: not counted"
    return ""
