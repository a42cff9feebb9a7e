"""Termination rules, checked after each committed round; the first that holds wins."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from argue.domain import Termination
from argue.engine.modes import MODES
from argue.records.history import DebateHistory
from argue.records.labels import label, label_of

CONVERGENCE_DELTA = 0.1


@dataclass(frozen=True)
class TerminationDecision:
    """``detail`` is the English words recorded in state.json; ``shown(lang)`` says them in the
    debate's language (``key``/``fields``: the value of the catalog's ``detail`` family the
    detail is made of, and its fields)."""

    reason: Termination
    detail: str
    key: str = ""
    fields: dict[str, object] = field(default_factory=dict)

    def shown(self, lang: str = "en") -> str:
        if not self.key:
            return self.detail
        return label_of(
            "detail", self.key, lang, **{k: _said(v, lang) for k, v in self.fields.items()}
        )


def _said(value: object, lang: str) -> Any:  # a format field: label_of's **fields
    return value.shown(lang) if isinstance(value, _Words) else value


@dataclass(frozen=True)
class _Words:
    """A part of a detail that is itself said in words (a persona's deltas in a convergence):
    ``text(lang)``."""

    text: Callable[[str], str]

    def shown(self, lang: str) -> str:
        return self.text(lang)


def decision(ending: Termination, key: str, /, **fields: object) -> TerminationDecision:
    """A decision whose detail is the English side of ``key`` (a value of the catalog's
    ``detail`` family)."""
    english = label_of("detail", key, "en", **{k: _said(v, "en") for k, v in fields.items()})
    return TerminationDecision(ending, english, key, fields)


def max_rounds_decision(rounds: int) -> TerminationDecision:
    return decision("max_rounds", "max_rounds", n=rounds)


def check_termination(
    history: DebateHistory, round_no: int, stop_requested: bool
) -> TerminationDecision | None:
    if stop_requested:
        return decision("stopped", "stop_completed", n=round_no)
    converged = _convergence(history, round_no)
    if converged:
        return converged
    if round_no >= 2:
        scores = [
            record.score
            for record in (history.rounds.get(round_no), history.rounds.get(round_no - 1))
            if record is not None and record.score is not None
        ]
        if len(scores) == 2 and all(
            s.novel_claims == 0 and s.new_verified_evidence == 0 for s in scores
        ):
            return decision("null_production", "null_production", a=round_no - 1, b=round_no)
        current = history.rounds.get(round_no)
        if current and current.score and current.score.judge.synthesis_ready:
            why = current.score.judge.ready_reason
            return decision(
                "synthesis_ready",
                "judge",
                reason=why or _Words(lambda lang: label("t_judge_ready", lang)),
            )
    if round_no >= history.config.max_rounds:
        return max_rounds_decision(round_no)
    return None


def _convergence(history: DebateHistory, round_no: int) -> TerminationDecision | None:
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
    each = [
        {
            "name": history.persona_name(k),
            "d1": f"{d[0]:.2f}",
            "d2": f"{d[1]:.2f}",
            "now": f"{finals[k]:.2f}",
        }
        for k, d in deltas.items()
    ]
    summary = _Words(
        lambda lang: ", ".join(label("t_persona_delta", lang, **fields) for fields in each)
    )
    mode = MODES.get(history.config.mode)
    if mode is not None and mode.opposed and all(v >= 0.5 for v in finals.values()):
        return decision("convergence", "stable_disagreement", summary=summary)
    return decision("convergence", "confidence_settled", summary=summary)
