"""The judge: one call per round, beside the reflections."""

from __future__ import annotations

from argue.domain import (
    Failure,
    JudgeVerdictRecord,
)
from argue.engine import prompts
from argue.engine.phases._common import (
    PhaseOutcome,
)
from argue.engine.schemas import (
    JudgeDraft,
)
from argue.llm.base import ChatModel, ModelAuthError, ModelError
from argue.records.history import DebateHistory
from argue.text.refusal import first_words, is_refusal


async def make_judgement(
    model: ChatModel, history: DebateHistory, round_no: int
) -> PhaseOutcome[JudgeVerdictRecord]:
    """One judge call per round: coherence per persona and whether a synthesis is ready.

    It reads the round's arguments and rebuttals only, so it runs beside the reflections. A
    failed call is recorded; the round is then scored without coherence.
    """
    record = history.round(round_no)
    names = {k: history.persona_name(k) for k in history.letters}
    lines = []
    for letter in history.letters:
        argument = record.arguments.get(letter)
        rebuttal = record.rebuttals.get(letter)
        lines.append(f"Persona {letter} ({names[letter]}):")
        if argument:
            lines.append(f"  position: {argument.position}")
            lines += [f"  [{c.id}] {c.text}" for c in argument.claims]
        else:
            lines.append("  (no argument: the model call failed)")
        if rebuttal:
            lines += [f"  counter on [{c.target_claim_id}]: {c.text}" for c in rebuttal.counters]
            lines += [f"  concedes [{c.claim_id}]: {c.text}" for c in rebuttal.concessions]
    assert history.config.framing is not None
    try:
        result = await model.complete(
            prompts.judge_messages(
                history.config.framing.proposition,
                round_no,
                "\n".join(lines),
                history.letters,
            ),
            output=JudgeDraft,
            purpose=f"judge/R{round_no}",
        )
    except ModelAuthError:
        raise  # rejected credentials end the debate
    except ModelError as exc:
        failure = Failure(
            round=round_no,
            phase="scoring",
            kind="failed",
            what="judge model call",
            reason=f"{exc}; coherence not measured this round",
        )
        return PhaseOutcome(JudgeVerdictRecord(available=False), [failure])
    draft: JudgeDraft = result.parsed()
    refusing = [r for r in draft.ratings if is_refusal(r.reason)]
    if is_refusal(draft.ready_reason) or (draft.ratings and len(refusing) == len(draft.ratings)):
        # A judge that declines judged nothing: never a score, never the termination's reason.
        said = draft.ready_reason if is_refusal(draft.ready_reason) else refusing[0].reason
        failure = Failure(
            round=round_no,
            phase="scoring",
            kind="failed",
            what="judge model call",
            reason=f"the model declined to judge (“{first_words(said)}”); coherence not "
            "measured this round",
            cause="refused_by_model",
        )
        return PhaseOutcome(JudgeVerdictRecord(available=False), [failure])
    ratings = {r.persona.strip().upper(): r for r in draft.ratings if not is_refusal(r.reason)}
    verdict = JudgeVerdictRecord(
        coherence={k: ratings[k].coherence for k in history.letters if k in ratings},
        reasons={k: ratings[k].reason for k in history.letters if k in ratings},
        synthesis_ready=draft.synthesis_ready,
        ready_reason=draft.ready_reason,
        unmatched=[
            r.persona for r in draft.ratings if r.persona.strip().upper() not in history.letters
        ],
    )
    return PhaseOutcome(verdict)
