"""Termination rules, checked after each committed round; the first that holds wins."""

from __future__ import annotations

from dataclasses import dataclass

from argue.domain import Termination
from argue.engine.context import DebateHistory

CONVERGENCE_DELTA = 0.1


@dataclass(frozen=True)
class TerminationDecision:
    reason: Termination
    detail: str


def check_termination(
    history: DebateHistory, round_no: int, stop_requested: bool
) -> TerminationDecision | None:
    if stop_requested:
        return TerminationDecision("stopped", f"stop requested; round {round_no} was completed")
    converged = _convergence(history, round_no)
    if converged:
        return TerminationDecision("convergence", converged)
    if round_no >= 2:
        scores = [
            record.score
            for record in (history.rounds.get(round_no), history.rounds.get(round_no - 1))
            if record is not None and record.score is not None
        ]
        if len(scores) == 2 and all(
            s.novel_claims == 0 and s.new_verified_evidence == 0 for s in scores
        ):
            return TerminationDecision(
                "null_production",
                "no novel claim and no new verified evidence in rounds "
                f"{round_no - 1} and {round_no}",
            )
        current = history.rounds.get(round_no)
        if current and current.score and current.score.judge.synthesis_ready:
            return TerminationDecision(
                "synthesis_ready", "judge: " + (current.score.judge.ready_reason or "ready")
            )
    if round_no >= history.config.max_rounds:
        return TerminationDecision(
            "max_rounds", f"reached the limit of {round_no} round{'s' if round_no != 1 else ''}"
        )
    return None


def _convergence(history: DebateHistory, round_no: int) -> str | None:
    """Every persona's |Δconfidence| < 0.1 in rounds k and k−1 (needs rounds k−2..k)."""
    if round_no < 3:
        return None
    deltas: dict[str, tuple[float, float]] = {}
    finals: dict[str, float] = {}
    for letter in history.letters:
        by_round = dict(history.confidences(letter))
        if not all(k in by_round for k in (round_no - 2, round_no - 1, round_no)):
            return None
        d1 = abs(by_round[round_no - 1] - by_round[round_no - 2])
        d2 = abs(by_round[round_no] - by_round[round_no - 1])
        if d1 >= CONVERGENCE_DELTA or d2 >= CONVERGENCE_DELTA:
            return None
        deltas[letter] = (d1, d2)
        finals[letter] = by_round[round_no]
    summary = ", ".join(
        f"{history.persona_name(k)} Δ={d[0]:.2f},{d[1]:.2f} (now {finals[k]:.2f})"
        for k, d in deltas.items()
    )
    opposed = history.config.mode in ("adversarial", "devils-advocate")
    if opposed and all(v >= 0.5 for v in finals.values()):
        return (
            "stable disagreement: confidence settled while both sides still hold "
            f"opposite positions ({summary})"
        )
    return f"confidence settled for every persona ({summary})"
