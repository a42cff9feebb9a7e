"""Argument: claims with code-assigned ids, citations checked against the registry."""

from __future__ import annotations

from argue.domain import (
    BRIDGES,
    ArgumentRecord,
    Claim,
)
from argue.engine import prompts
from argue.engine.phases._common import (
    PersonaSeat,
    PhaseOutcome,
    citable_ids,
    complete_for,
    material_for,
    opening_for,
    records_phase_failure,
    refusal_failures,
)
from argue.engine.schemas import argument_model
from argue.grounding.citations import check_citations
from argue.grounding.debate import unverified_in
from argue.llm.base import ChatModel
from argue.records.history import DebateHistory
from argue.text.markers import marker_copies
from argue.text.refusal import is_refusal


@records_phase_failure
async def make_argument(
    model: ChatModel, history: DebateHistory, seat: PersonaSeat, round_no: int
) -> PhaseOutcome[ArgumentRecord]:
    letter = seat.letter
    messages = prompts.argument_messages(
        opening_for(seat, history, round_no),
        material_for(seat, history, round_no),
        round_no,
        history.config.max_rounds,
        seat.role_hint,
        guided=seat.guided,
    )
    purpose = f"{letter}/R{round_no}/argument"
    result = await complete_for(
        model,
        messages,
        argument_model(citable_ids(seat, history, round_no)),
        round_no=round_no,
        letter=letter,
        phase="argument",
        purpose=purpose,
    )
    draft = result.parsed()
    registry = history.evidence_registry(letter, round_no)
    references = history.reference_index(round_no)
    claims = []
    for index, claim in enumerate(draft.claims, start=1):
        citations = check_citations(claim.cited(), registry)
        cited = list(dict.fromkeys(c.evidence_id for c in citations))
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
                citations=citations,
                refusal=is_refusal(claim.text),
                marker_copies=marker_copies(f"{claim.text}\n{claim.warrant}"),
            )
        )
    wanted = [t.strip().lower() for t in draft.taxonomy_tags]
    tags: list[str] = [t for t in dict.fromkeys(wanted) if t in BRIDGES]
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
    failures = refusal_failures(
        {"position": draft.position}, round_no=round_no, letter=letter, phase="argument"
    )
    return PhaseOutcome(record, failures)


def _keyword_tags(text: str) -> list[str]:
    from argue.skills.taxonomy import classify

    return list(classify(text).tags)
