"""The eval's numbers: per arm accuracy with a Wilson 95 % interval, mean calls, tokens and cost
per item, wall time; paired McNemar comparisons of debate against single and vote; and the
terminal table. Everything is computed from the per-item records, so a merge reports alike."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from argue.eval.arms import ARMS, ItemResult
from argue.eval.stats import compare, wilson_interval

COMPARISONS = (("debate", "single"), ("debate", "vote"))


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
        "unanswered": sum(1 for r in records if r.normalized is None),
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
