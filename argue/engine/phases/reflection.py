"""Reflection: confidence and belief updates, with the next round's research plan."""

from __future__ import annotations

from argue.domain import (
    BeliefUpdate,
    ReflectionRecord,
    ResearchCallRecord,
)
from argue.engine import prompts
from argue.engine.digest import clip
from argue.engine.phases._common import (
    PersonaSeat,
    PhaseOutcome,
    claims_for,
    complete_for,
    material_for,
    opening_for,
    records_phase_failure,
    refusal_failures,
)
from argue.engine.phases.research import plan_schema
from argue.engine.schemas import (
    ReflectionDraft,
    ResearchCallDraft,
    reflection_model,
)
from argue.engine.toolkit import ResearchToolkit
from argue.llm.base import ChatModel
from argue.records.history import DebateHistory


@records_phase_failure
async def make_reflection(
    model: ChatModel,
    history: DebateHistory,
    seat: PersonaSeat,
    round_no: int,
    toolkit: ResearchToolkit | None = None,
) -> PhaseOutcome[ReflectionRecord]:
    """The reflection; before the last round it also plans the next round's research (one call
    instead of a planning wave at the start of the next round)."""
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
    next_round = ""
    plan_model = None
    if toolkit is not None and round_no < history.config.max_rounds:
        # Same slots as a round-1 plan, offered as of now (who has published changes the ask).
        decided = mine is not None and mine.next_ask is not None  # answered beside this call
        plan_model, slots = plan_schema(
            history, letter, toolkit, round_no + 1, consult_answered=decided
        )
        next_round = prompts.next_round_plan(
            toolkit.menu(history.personas[letter]),
            round_no + 1,
            history.config.max_rounds,
            slots,
        )
    messages = prompts.reflection_messages(
        opening_for(seat, history, round_no),
        material_for(seat, history, round_no),
        claims_for(seat, history, round_no),
        by_me or "(nothing)",
        "\n".join(to_me_items) or "(nothing)",
        "\n".join(against_me[:8]) or "(none)",
        scores,
        previous,
        round_no,
        next_round,
        guided=seat.guided,
    )
    answer_format = history.config.answer_format
    if answer_format:  # an answer-seeking debate (argue eval): the persona's answer so far
        messages[-1].content += "\n\n" + prompts.answer_instruction(
            answer_format, "answer", "your current answer", history.config.question
        )
    result = await complete_for(
        model,
        messages,
        reflection_model(plan_model, answer=answer_format is not None),
        round_no=round_no,
        letter=letter,
        phase="reflection",
        purpose=f"{letter}/R{round_no}/reflection",
    )
    draft: ReflectionDraft = result.parsed()
    record = ReflectionRecord(
        persona=letter,
        round=round_no,
        confidence=draft.confidence,
        belief_updates=[BeliefUpdate(**u.model_dump()) for u in draft.belief_updates],
        would_change_my_mind=draft.would_change_my_mind,
        position_now=draft.position_now,
        answer=getattr(draft, "answer", None) if answer_format else None,
    )
    # Required by the schema whenever a plan was asked for; ignored when none was.
    plan = draft.next_research if plan_model is not None else None
    failures = refusal_failures(
        {"position": draft.position_now, "what would change its mind": draft.would_change_my_mind},
        round_no=round_no,
        letter=letter,
        phase="reflection",
    )
    return PhaseOutcome(record, failures, next_plan=plan)


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
        skill=call.skill,
        query=call.query,
        colleague=call.colleague,
        sources=call.sources,
        query_by_argue=call.query_by_argue,
    )
