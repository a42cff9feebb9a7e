"""The eval's numbers: per arm accuracy with a Wilson 95 % interval, mean calls, tokens and cost
per item, wall time; paired McNemar comparisons of debate against single and vote; and the
terminal table. Everything is computed from the per-item records, so a merge reports alike.

Accuracy is scored two ways, each labelled. ``accuracy``: every item counts, an answer that
cannot be read is wrong (argue's own normalisation). ``paper``: Du et al.'s convention — a
number item's answer is the last float-like token of the arm's answer (commas turned into
dots), an answer that does not parse is dropped from the denominator, and so is an item none
of whose agents' answers parse (the society arm: the paper's majority of the agents' last
answers, re-taken over the paper's parse; single, vote and debate: the arm's one final answer).
Choice and text items have no paper parse: there an unanswered item is dropped, the rest scored
as by argue. The paired comparisons use ``accuracy`` (every item in both arms)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from argue.eval.arms import ARMS, ItemResult
from argue.eval.normalize import (
    PAPER_CONVENTION,
    normalize_number,
    paper_majority,
    paper_number,
    plain_number,
)
from argue.eval.stats import compare, wilson_interval

ARGUE_CONVENTION = (
    "argue's scoring: every item in the denominator; an answer that cannot be read as the "
    "item's kind is wrong"
)

COMPARISONS = (
    ("debate", "single"),
    ("debate", "vote"),
    ("debate", "society"),
    ("society", "single"),
)
"""Pairs compared item by item (McNemar), when both arms ran: argue's debate against each
baseline, and the paper's protocol against one call (the paper's own headline comparison)."""


def paper_verdict(record: ItemResult) -> bool | None:
    """Right or wrong under Du et al.'s convention; None when the item is dropped."""
    expected = normalize_number(record.expected) if plain_number(record.expected) else None
    if expected is None:  # a choice or text item: unanswered dropped, the rest as argue scores
        return None if record.normalized is None else record.correct
    rounds = record.detail.get("answers_by_round") if record.arm == "society" else None
    if isinstance(rounds, list) and rounds and isinstance(rounds[-1], list):
        last = [a if isinstance(a, str) else None for a in rounds[-1]]
        value = paper_majority(last)
    else:
        value = paper_number(record.answer)
    if value is None:
        return None
    return value == Fraction(expected)  # exact, as float == int is (no overflow either)


def paper_summary(records: list[ItemResult]) -> dict[str, Any]:
    verdicts = [v for v in map(paper_verdict, records) if v is not None]
    scored, correct = len(verdicts), sum(verdicts)
    low, high = wilson_interval(correct, scored)
    return {
        "convention": PAPER_CONVENTION,
        "n": scored,
        "dropped": len(records) - scored,
        "correct": correct,
        "accuracy": correct / scored if scored else None,
        "ci95": [round(low, 4), round(high, 4)],
    }


def arm_summary(records: list[ItemResult]) -> dict[str, Any]:
    n = len(records)
    correct = sum(r.correct for r in records)
    low, high = wilson_interval(correct, n)
    unpriced = sum(r.unpriced_calls for r in records)
    cost = sum(r.cost_usd for r in records)
    return {
        "n": n,
        "correct": correct,
        "accuracy": correct / n if n else None,
        "ci95": [round(low, 4), round(high, 4)],
        "interval": "Wilson score, 95 %",
        "convention": ARGUE_CONVENTION,
        "unanswered": sum(1 for r in records if r.normalized is None),
        "paper": paper_summary(records),
        "mean_calls": sum(r.calls for r in records) / n if n else 0.0,
        "mean_tokens": sum(r.tokens for r in records) / n if n else 0.0,
        # Unknown when any call had no price; the priced part is a lower bound.
        "mean_cost_usd": (cost / n if n else 0.0) if unpriced == 0 else None,
        "mean_cost_usd_at_least": cost / n if n else 0.0,
        "unpriced_calls": unpriced,
        "wall_time_s": round(
            max(r.finished_at for r in records) - min(r.started_at for r in records), 3
        )
        if records
        else 0.0,
        "mean_item_s": sum(r.finished_at - r.started_at for r in records) / n if n else 0.0,
    }


def build_report(
    results: Iterable[ItemResult], manifests: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    by_arm: dict[str, dict[str, ItemResult]] = {}
    for record in results:
        by_arm.setdefault(record.arm, {})[record.item] = record
    arms = {arm: arm_summary(list(by_arm[arm].values())) for arm in ARMS if arm in by_arm}
    comparisons = []
    for first, second in COMPARISONS:
        if first in by_arm and second in by_arm:
            shared = sorted(set(by_arm[first]) & set(by_arm[second]))
            pairs = [(by_arm[first][i].correct, by_arm[second][i].correct) for i in shared]
            result = compare(first, second, pairs)
            comparisons.append(
                {
                    "arms": [first, second],
                    "n": result.n,
                    "difference": round(result.difference, 4),
                    f"only_{first}_right": result.only_first,
                    f"only_{second}_right": result.only_second,
                    "test": "McNemar exact (two-sided)",
                    "p_value": round(result.p_value, 6),
                    "significant": result.significant,
                    "verdict": result.verdict(),
                }
            )
    matching = sorted({m["vote_matching"] for m in manifests if m.get("vote_matching")})
    manifest = manifests[0] if manifests else {}
    return {
        "dataset": manifest.get("dataset"),
        "model": f"{manifest.get('provider')}/{manifest.get('model')}" if manifest else None,
        "debate": {
            "personas": manifest.get("personas"),
            "mode": manifest.get("mode"),
            "rounds": manifest.get("rounds"),
            "research": "off (the debate argues from reasoning)",
        },
        "society": {
            "agents": manifest.get("society_agents"),
            "rounds": manifest.get("society_rounds"),
        },
        "scoring": {"accuracy": ARGUE_CONVENTION, "paper": PAPER_CONVENTION},
        "arms": arms,
        "vote_matching": matching,
        "comparisons": comparisons,
    }


def run_lines(report: dict[str, Any]) -> list[str]:
    """How the run ended, in words: the whole eval's spending against its budget, and what was
    not run and why (an eval stopped on budget or by Ctrl-C)."""
    lines = []
    if "spent" in report:
        spent, budget = report["spent"], report["budget"]
        limits = [f"${budget['usd']:g}"] if budget["usd"] is not None else []
        limits += [f"{budget['tokens']} tokens"] if budget["tokens"] is not None else []
        calls = f"{spent['calls']} call{'' if spent['calls'] == 1 else 's'}"
        lines.append(
            f"Spent over the whole eval: {calls}, {spent['tokens']} tokens, "
            f"cost {spent['cost']}" + (f" (budget: {', '.join(limits)})" if limits else "")
        )
    status, missing = report.get("status"), report.get("not_run", {})
    left = (
        f"{missing.get('item_arms', 0)} item-arm run(s) not done, "
        f"on {missing.get('items', 0)} item(s)"
    )
    if status == "budget_exhausted":
        lines.append(
            f"Stopped on budget: {left}; the report covers what ran. Re-run the same command "
            "with a larger --budget-usd / --max-tokens to resume."
        )
    elif status == "interrupted":
        lines.append(
            f"Interrupted: {left}; the report covers what ran. Re-run the same command to resume."
        )
    return lines
