"""The eval's numbers: per arm accuracy with a Wilson 95 % interval, mean calls, tokens and cost
per item, wall time; paired McNemar comparisons of debate against single and vote; and the
terminal table. Everything is computed from the per-item records, so a merge reports alike.

Accuracy is scored two ways, each labelled, both over the *answered* items only: an item an arm
has no answer for (a failed call, an expired batch, a vote sample or society agent missing:
``ItemResult.unanswered``) is not wrong, it is left out of every figure and of the paired tests,
counted apart ("answered 82 of 100"), and the run ends ``partial``. ``accuracy``: every
answered item counts, an answer that cannot be read is wrong (argue's own normalisation).
``paper``: Du et al.'s convention — a number item's answer is the last float-like token of the
arm's answer (commas turned into dots), an answer that does not parse is dropped from the
denominator, and so is an item none of whose agents' answers parse (the society arm: the
paper's majority of the agents' last
answers, re-taken over the paper's parse; single, vote and debate: the arm's one final answer).
Choice and text items have no paper parse: there an unanswered item is dropped, the rest scored
as by argue. The paired comparisons use ``accuracy`` (every item in both arms).

A judged eval (free-text answers checked against reference facts by the eval's model,
``argue.eval.judging``) is labelled model-judged, with the judge model's name. ``accuracy`` is
then the mean over items of each item's fraction of judged facts found consistent (an
unanswered item is left out, as is an item none of whose facts could be judged), with a
plain mean ± 1.96 standard errors — not a Wilson interval, which is for a count of right
answers, not a mean of fractions. ``paper`` is Du et al.'s biography figure: every (answer,
fact) verdict pooled, consistent over consistent + inconsistent (uncertain and failed dropped),
± 1.96 × their ``np.std / sqrt(n)``. No McNemar for judged arms (it needs right/wrong pairs):
a pair of arms is compared by the mean of their paired score differences ± 1.96 standard
errors, with no test. ``ItemResult.correct`` (every judged fact consistent) is kept in the
records, not used in the figures."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from argue.eval.arms import ARMS, ItemResult
from argue.eval.judging import VERDICTS, JudgedScore
from argue.eval.normalize import (
    PAPER_CONVENTION,
    normalize_number,
    paper_majority,
    paper_number,
    plain_number,
)
from argue.eval.stats import compare, wilson_interval

ARGUE_CONVENTION = (
    "argue's scoring: every answered item in the denominator; an answer that cannot be read as "
    "the item's kind is wrong; an item with no answer (a failed call, an expired batch) is "
    "unanswered: left out, counted apart"
)

MODEL_JUDGED = "model-judged"
JUDGED_CONVENTION = (
    "model-judged: an item's score is the fraction of its reference facts the judge model "
    "found consistent with the answer (an uncertain verdict counts as not consistent; a fact "
    "whose judge call failed is left out); an unanswered item is left out, as is an item "
    "with no fact judged; the arm's figure is the mean score over items"
)
JUDGED_INTERVAL = (
    "mean ± 1.96 standard errors over items (normal approximation; not Wilson: the scores "
    "are fractions, not right/wrong)"
)
JUDGED_PAPER_CONVENTION = (
    "Du et al.'s biography scoring (biography/eval_conversation.py): every (answer, fact) "
    "verdict pooled over items and agents, consistent over consistent + inconsistent "
    "(uncertain and failed judgments dropped), ± 1.96 × std / sqrt(n)"
)
Z95 = 1.96

COMPARISONS = (
    ("debate", "single"),
    ("debate", "vote"),
    ("debate", "society"),
    ("society", "single"),
    ("debate", "du"),
    ("du", "single"),
)
"""Pairs compared item by item (McNemar), when both arms ran: argue's debate against each
baseline, and the paper's protocol against one call (the paper's own headline comparison)."""


def paper_verdict(record: ItemResult) -> bool | None:
    """Right or wrong under Du et al.'s convention; None when the item is dropped."""
    if record.arm == "du":  # the paper's own parse and majority already decided it
        return None if record.answer is None or record.error else record.correct
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
    """Du et al.'s figure over the answered records (``arm_summary`` leaves the rest out)."""
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


def is_judged(records: Iterable[ItemResult]) -> bool:
    return any(r.answer_type == "judged" for r in records)


def judged_item_score(record: ItemResult) -> float | None:
    """The item's score in the mean: its fraction of judged facts found consistent (counted
    from its judgments), 0 when the arm gave no answer, None (left out) when an answer was
    given but no fact could be judged."""
    if record.unanswered:
        return None
    return 0.0 if record.answer is None else JudgedScore.of(record.judgments).fraction


def mean_and_stderr(values: Sequence[float]) -> tuple[float | None, float | None]:
    """The mean and its standard error (sample standard deviation / sqrt(n)); None for the
    mean of nothing, and for the error of fewer than two values."""
    if not values:
        return None, None
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, None
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(variance / len(values))


def _interval(mean: float | None, stderr: float | None) -> list[float]:
    if mean is None or stderr is None:
        return [0.0, 1.0]  # nothing known, as the Wilson interval of no item
    return [round(max(0.0, mean - Z95 * stderr), 4), round(min(1.0, mean + Z95 * stderr), 4)]


def judged_paper_summary(records: list[ItemResult]) -> dict[str, Any]:
    """Du et al.'s pooled figure: every consistent/inconsistent verdict of every answer."""
    verdicts = [j.verdict for r in records for j in r.judgments]
    kept = [v == "consistent" for v in verdicts if v in ("consistent", "inconsistent")]
    n = len(kept)
    p = sum(kept) / n if n else None
    stderr = math.sqrt(p * (1 - p) / n) if p is not None else None  # np.std (ddof 0) / sqrt(n)
    return {
        "convention": JUDGED_PAPER_CONVENTION,
        "n": n,
        "unit": "fact verdicts",
        "dropped": len(verdicts) - n,
        "correct": sum(kept),
        "accuracy": p,
        "stderr": round(stderr, 6) if stderr is not None else None,
        "ci95": _interval(p, stderr),
    }


def judged_summary(records: list[ItemResult]) -> dict[str, Any]:
    """The accuracy part of a judged arm's summary (``arm_summary`` adds the spending)."""
    scores = [s for s in map(judged_item_score, records) if s is not None]
    mean, stderr = mean_and_stderr(scores)
    per_item = [JudgedScore.of(r.judgments) for r in records]
    counted = JudgedScore.of([j for r in records for j in r.judgments])
    judges = sorted({r.judge_model for r in records if r.judge_model})
    return {
        "unreadable": sum(1 for r in records if r.answer is None),
        "label": MODEL_JUDGED,
        "judge_model": ", ".join(judges) or None,
        "n": len(scores),
        "correct": sum(r.correct for r in records),  # every judged fact consistent
        "accuracy": mean,
        "stderr": round(stderr, 6) if stderr is not None else None,
        "ci95": _interval(mean, stderr),
        "interval": JUDGED_INTERVAL,
        "convention": JUDGED_CONVENTION,
        "judging": {
            "verdicts": {v: getattr(counted, v) for v in VERDICTS},
            "facts_judged": counted.judged,
            "facts_unjudged": counted.unjudged,
            "partial_items": sum(1 for score in per_item if score.judged and score.unjudged),
            "unjudged_items": sum(
                1
                for r, score in zip(records, per_item, strict=True)
                if r.answer is not None and not score.judged
            ),
            "mean_judge_calls": sum(r.judge_calls for r in records) / len(records)
            if records
            else 0.0,
            "mean_judge_cost_usd_at_least": sum(r.judge_cost_usd for r in records) / len(records)
            if records
            else 0.0,
        },
        "paper": judged_paper_summary(records),
    }


def arm_summary(records: list[ItemResult], items: int | None = None) -> dict[str, Any]:
    """One arm's figures. Accuracy is over the answered records only (``ItemResult.unanswered``:
    no answer, as after a failed call or an expired batch, is not a wrong answer); ``items`` is
    how many items the arm was to answer (default: its records), so that the table says
    "answered 82 of 100" and an arm with nothing answered has no accuracy at all."""
    n = len(records)
    answered = [r for r in records if not r.unanswered]
    total = max(items if items is not None else n, n)
    unpriced = sum(r.unpriced_calls for r in records)
    # Requests sent and never answered may have been billed: the priced part is a lower bound.
    possibly_billed = sum(r.possibly_billed_calls for r in records)
    cost = sum(r.cost_usd for r in records)
    if is_judged(records):
        scoring = judged_summary(answered)
    else:
        correct = sum(r.correct for r in answered)
        scored = len(answered)
        low, high = wilson_interval(correct, scored)
        scoring = {
            "n": scored,
            "correct": correct,
            "accuracy": correct / scored if scored else None,
            "ci95": [round(low, 4), round(high, 4)] if scored else None,
            "interval": "Wilson score, 95 %",
            "convention": ARGUE_CONVENTION,
            "unreadable": sum(1 for r in answered if r.normalized is None),
            "paper": paper_summary(answered),
        }
    if not answered:
        scoring.update(accuracy=None, ci95=None)
    return {
        **scoring,
        "items": total,
        "answered": len(answered),
        "unanswered": total - len(answered),
        "unanswered_because": unanswered_because(records),
        "mean_calls": sum(r.calls for r in records) / n if n else 0.0,
        "mean_tokens": sum(r.tokens for r in records) / n if n else 0.0,
        # Unknown when any call had no price or may have been billed unanswered; the priced
        # part is a lower bound.
        "mean_cost_usd": (cost / n if n else 0.0) if unpriced == possibly_billed == 0 else None,
        "mean_cost_usd_at_least": cost / n if n else 0.0,
        "unpriced_calls": unpriced,
        "possibly_billed_calls": possibly_billed,
        "wall_time_s": round(
            max(r.finished_at for r in records) - min(r.started_at for r in records), 3
        )
        if records
        else 0.0,
        "mean_item_s": sum(r.finished_at - r.started_at for r in records) / n if n else 0.0,
    }


def unanswered_because(records: Iterable[ItemResult]) -> dict[str, int]:
    """The unanswered records by why, in the fixed words: ``expired`` (a batch's 24-hour
    window ended first), ``cancelled``, ``failed`` (any other failure)."""
    why: dict[str, int] = {}
    for record in records:
        if not record.unanswered:
            continue
        error = record.error or ""
        kind = (
            "expired"
            if "batch expired" in error
            else "cancelled"
            if "batch was cancelled" in error
            else "failed"
        )
        why[kind] = why.get(kind, 0) + 1
    return why


def build_report(
    results: Iterable[ItemResult],
    manifests: Sequence[dict[str, Any]],
    items: int | None = None,
) -> dict[str, Any]:
    """``items``: how many items each arm was to answer (the eval's, or the merged shards')."""
    by_arm: dict[str, dict[str, ItemResult]] = {}
    for record in results:
        by_arm.setdefault(record.arm, {})[record.item] = record
    arms = {arm: arm_summary(list(by_arm[arm].values()), items) for arm in ARMS if arm in by_arm}
    judged = any(s.get("label") == MODEL_JUDGED for s in arms.values())
    comparisons = []
    for first, second in COMPARISONS:
        if first in by_arm and second in by_arm and judged:
            comparisons.append(judged_comparison(first, second, by_arm[first], by_arm[second]))
        elif first in by_arm and second in by_arm:
            # Only the items both arms answered: an unanswered one is no right/wrong pair.
            shared = sorted(
                i
                for i in set(by_arm[first]) & set(by_arm[second])
                if not by_arm[first][i].unanswered and not by_arm[second][i].unanswered
            )
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
    manifest = manifests[0] if manifests else {}
    return {
        "dataset": manifest.get("dataset"),
        "fingerprint": manifest.get("fingerprint"),
        "seed": manifest_seed(manifest),
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
        "du": {
            "wording": manifest.get("du_wording"),
            "agents": manifest.get("du_agents"),
            "rounds": manifest.get("du_rounds"),
        },
        "answer_type": "judged" if judged else "exact",
        "scoring": _scoring(arms)
        if judged
        else {
            "accuracy": ARGUE_CONVENTION,
            "paper": PAPER_CONVENTION,
        },
        "arms": arms,
        "vote_matching": vote_matching_lines(manifests),
        "comparisons": comparisons,
    }


def manifest_seed(manifest: dict[str, Any]) -> int | None:
    """The items' seed as recorded; a folder from before the field has it in its dataset name
    (``arithmetic_s7``) or none (du-arithmetic: the paper's 0; a file: None)."""
    if "seed" in manifest:
        seed = manifest["seed"]
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else None
    name = str(manifest.get("dataset") or "")
    if name == "du-arithmetic":
        return 0
    match = re.fullmatch(r"arithmetic_s(-?\d{1,18})", name)
    return int(match.group(1)) if match else None


def vote_matching_lines(manifests: Sequence[dict[str, Any]]) -> list[str]:
    """How the vote arm's samples were chosen, one line per folder. Shards match their vote to
    their own debates, so a merged report says each shard's line (identical sentences too: a
    line per shard is a count of shards), never one shard's choice for all."""
    lines = [m["vote_matching"] for m in manifests if m.get("vote_matching")]
    if len(manifests) < 2:
        return lines
    out = []
    for m in manifests:
        if not m.get("vote_matching"):
            continue
        shard = m.get("shard")
        where = (
            f"shard {shard[0]}/{shard[1]}"
            if isinstance(shard, list) and len(shard) == 2
            else m.get("name", "?")
        )
        out.append(f"{where}: {m['vote_matching']}")
    return out if out else lines


def _scoring(arms: dict[str, dict[str, Any]]) -> dict[str, Any]:
    judges = sorted({s["judge_model"] for s in arms.values() if s.get("judge_model")})
    judge = ", ".join(judges) or "none (no answer was judged)"
    return {
        "label": f"{MODEL_JUDGED} (judge: {judge})",
        "judge_model": judge if judges else None,
        "accuracy": JUDGED_CONVENTION,
        "interval": JUDGED_INTERVAL,
        "paper": JUDGED_PAPER_CONVENTION,
        "comparisons": "paired mean difference of item scores ± 1.96 standard errors; no "
        "McNemar test (it needs right/wrong pairs)",
    }


def judged_comparison(
    first: str, second: str, a: dict[str, ItemResult], b: dict[str, ItemResult]
) -> dict[str, Any]:
    """Two judged arms item by item: the mean of their score differences ± 1.96 standard
    errors over the items both scored. No test: said in the verdict."""
    pairs = []
    for item in sorted(set(a) & set(b)):
        x, y = judged_item_score(a[item]), judged_item_score(b[item])
        if x is not None and y is not None:
            pairs.append((x, y))
    difference, stderr = mean_and_stderr([x - y for x, y in pairs])
    n = len(pairs)
    if not n or difference is None:
        verdict = (
            f"{first} vs {second} ({MODEL_JUDGED}): no item scored in both; nothing to compare."
        )
    else:
        mean_a, mean_b = sum(x for x, _ in pairs) / n, sum(y for _, y in pairs) / n
        spread = f" ± {Z95 * stderr * 100:.1f}" if stderr is not None else ""
        verdict = (
            f"{first} vs {second} ({MODEL_JUDGED}): {mean_a:.0%} vs {mean_b:.0%} of the facts "
            f"consistent on the same {n} item(s), {difference * 100:+.1f}{spread} points "
            "(mean paired difference ± 1.96 standard errors; no McNemar test: the scores are "
            "fractions). An interval that includes 0 is no evidence of a difference."
        )
    return {
        "arms": [first, second],
        "n": n,
        "difference": round(difference, 4) if difference is not None else None,
        "stderr": round(stderr, 6) if stderr is not None else None,
        "test": "none (paired mean difference ± 1.96 standard errors of model-judged scores)",
        "verdict": verdict,
    }


EXACT_CAPTION = (
    "accuracy: of the answered items (unanswered ones are left out), an unreadable answer is "
    "wrong; paper: Du et al.'s scoring "
    "(last float-like token; unparsed answers dropped), of the items it scored; calls, tokens "
    "and cost: mean per item; time: first start to last finish"
)


def table_caption(report: dict[str, Any]) -> str:
    """The terminal table's caption: what its columns mean for this report's answer type (an
    exact-answer report's is the face's caption of before, word for word)."""
    if report.get("answer_type") != "judged":
        return EXACT_CAPTION
    return (
        f"accuracy: {report['scoring']['label']}, the mean fraction of reference facts found "
        "consistent per item (an unanswered item is left out); 95 % CI: mean ± 1.96 standard "
        "errors; paper: Du et al.'s pooled consistent / (consistent + inconsistent), of the "
        "fact verdicts it counted; calls, tokens and cost: mean per item, the judge's calls "
        "included; time: first start to last finish"
    )


def judged_lines(report: dict[str, Any]) -> list[str]:
    """What a judged report's table needs said beside it (none for an exact-answer report):
    the model-judged label with the judge's name, what the columns mean, and the facts left
    unjudged per arm."""
    if report.get("answer_type") != "judged":
        return []
    scoring = report["scoring"]
    lines = [
        f"Accuracy is {scoring['label']}: the mean fraction of reference facts found "
        "consistent per item, 95 % interval = mean ± 1.96 standard errors (not Wilson); "
        "paper: Du et al.'s pooled consistent / (consistent + inconsistent) over all fact "
        "verdicts (uncertain dropped)."
    ]
    for arm, summary in report["arms"].items():
        judging = summary.get("judging")
        if not judging:
            continue
        verdicts = judging["verdicts"]
        line = (
            f"{arm}: {judging['facts_judged']} fact verdict(s) — {verdicts['consistent']} "
            f"consistent, {verdicts['inconsistent']} inconsistent, {verdicts['uncertain']} "
            f"uncertain; {judging['mean_judge_calls']:.1f} judge call(s) per item (in calls)"
        )
        if judging["facts_unjudged"]:
            line += (
                f"; {judging['facts_unjudged']} fact(s) unjudged (judge call failed, left out): "
                f"{judging['partial_items']} item(s) partial, {judging['unjudged_items']} "
                "with no score"
            )
        lines.append(line)
    return lines


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
    lines += unanswered_lines(report)
    return lines


def unanswered_lines(report: dict[str, Any]) -> list[str]:
    """Per arm with unanswered items: how many it answered, why the rest were not, and that a
    re-run asks exactly those again (the accuracy figures leave them out)."""
    lines = []
    for arm, summary in report.get("arms", {}).items():
        left = summary.get("unanswered") or 0
        if not left:
            continue
        why = summary.get("unanswered_because") or {}
        said = ", ".join(f"{count} {kind}" for kind, count in why.items())
        not_run = left - sum(why.values())
        if not_run > 0:
            said = ", ".join(x for x in (said, f"{not_run} not run") if x)
        figure = (
            "no accuracy figure"
            if summary.get("accuracy") is None
            else "its accuracy is over those only"
        )
        lines.append(
            f"{arm}: answered {summary['answered']} of {summary['items']} ({left} unanswered: "
            f"{said}; {figure}). Re-run the same command to ask exactly those again."
        )
    return lines
