"""Terminal words about a debate in the debate's language (issue 21): a persona's label and lens,
a termination reason or a mode as a word, a status."""

from __future__ import annotations

from typing import TYPE_CHECKING

from argue.records.labels import label, label_of
from argue.text.typography import format_number, format_percent, localise_amounts

if TYPE_CHECKING:
    from argue.domain import Persona, RebuttalRecord


def persona_label(persona: Persona, lang: str = "en") -> str:
    """``Embry (Precision=0.85)``; French: ``Embry (Précision=0,85)``."""
    bridge, weight = persona.dominant_bridge()
    word = label_of("bridge", bridge, lang, default=bridge.capitalize())
    return f"{persona.display_name} ({word}={format_number(weight, lang)})"


def persona_lens(persona: Persona, lang: str = "en") -> str:
    """The persona's lens, French when its file has one and the debate is French."""
    french = getattr(persona, "fr", None)
    return french.lens if lang == "fr" and french is not None else persona.lens


def word(kind: str, value: str | None, lang: str = "en") -> str:
    """A mode, termination or status id as a word (``kind``: mode, termination, status); an id
    with no label is shown as it is."""
    if value is None:
        return "—"
    return label_of(kind, value, lang, default=value)


_WHERE = {
    "before the research": ("before", "research"),
    "before the rebuttal": ("before", "rebuttal"),
    "before the reflection": ("before", "reflection"),
    "after the research": ("after_research", ""),
    "after scoring": ("after_scoring", ""),
}
# A recorded detail's shape -> its value in the catalog's ``detail`` family.
_DETAILS: list[tuple[str, str]] = [
    (r"stop requested; round (?P<n>\d+) was completed", "stop_completed"),
    (r"stop requested; stopped (?P<where>.+) of round (?P<n>\d+)", "stop_where"),
    (
        r"no novel claim and no new verified evidence in rounds (?P<a>\d+) and (?P<b>\d+)",
        "null_production",
    ),
    (r"reached the limit of (?P<n>1) round(?:\(s\))?", "max_rounds"),
    (r"reached the limit of (?P<n>\d+) rounds?(?:\(s\))?", "max_rounds"),
    (
        r"stable disagreement: confidence settled while both sides still hold opposite "
        r"positions \((?P<summary>.*)\)",
        "stable_disagreement",
    ),
    (r"confidence settled for every persona \((?P<summary>.*)\)", "confidence_settled"),
    (
        r"spent (?P<spent>\$[\d.]+) of a (?P<budget>\$[\d.]+) budget in round (?P<n>\d+)",
        "budget_usd",
    ),
    (
        r"used (?P<used>\d+) of a (?P<limit>\d+)-token budget in round (?P<n>\d+)",
        "budget_tokens",
    ),
    (r"judge: (?P<reason>.*)", "judge"),
]


def detail_words(detail: str, lang: str = "en") -> str:
    """A termination detail as recorded (English, from the engine) in the debate's language;
    a detail it does not recognise is returned as it is."""
    import re

    if lang == "en":
        return detail
    if detail == label("w_orphan", "en"):
        return label("w_orphan", lang)
    for pattern, key in _DETAILS:
        found = re.fullmatch(pattern, detail, flags=re.DOTALL)
        if found is None:
            continue
        fields = dict(found.groupdict())
        if "where" in fields:
            where, phase = _WHERE.get(fields["where"], ("", ""))
            if not where:
                return detail
            named = {"phase": label_of("phase", phase, lang)} if phase else {}
            fields["where"] = label_of("where", where, lang, **named)
        if "summary" in fields:
            fields["summary"] = re.sub(
                r"\(now ([\d.]+)\)",
                lambda m: f"({label('detail_now', lang)} {m[1]})",
                fields["summary"],
            )
            fields["summary"] = re.sub(
                r"Δ=(-?\d+\.\d+),(-?\d+\.\d+)",
                lambda m: label("delta_pair", lang, a=m[1], b=m[2]),
                fields["summary"],
            )
        for name in ("summary", "spent", "budget"):
            if name in fields:
                fields[name] = localise_amounts(fields[name], lang)
        if key == "judge" and fields["reason"] == "ready":
            fields["reason"] = label("t_judge_ready", lang)
        return label_of("detail", key, lang, **fields)
    return detail


def score_words(total: float, max_total: float, lang: str = "en") -> str:
    """``2.50/5.0 (50%)``: a round's score with its share of what could be measured, so two
    personas whose maxima differ (a component not measurable for one) compare at a glance;
    French ``2,50/5,0 (50\u202f%)``."""
    share = 100 * total / max_total if max_total else 0
    return (
        f"{format_number(total, lang, 2)}/{format_number(max_total, lang, 1)} "
        f"({format_percent(share, lang)})"
    )


def plural(n: int, noun: str, lang: str = "en") -> str:
    """``1 call``, ``2 calls``; French ``0 appel``, ``2 appels`` (``noun``: a value of the
    catalog's ``plural`` family: model_call, call, item, claim, counter, concession)."""
    return label_of("plural", noun, lang, n=n)


def rebuttal_line(record: RebuttalRecord, lang: str = "en") -> str:
    """What a rebuttal did, in one line: its counters (how many counted), its concessions and
    the claims they concede, and a refusal to concede (``watch`` and the live page say it)."""
    counted = sum(1 for c in record.counters if c.valid_target)
    conceded = [c.claim_id for c in record.concessions if c.valid_target]
    line = label(
        "w_rebuttal",
        lang,
        round=record.round,
        counters=plural(len(record.counters), "counter", lang),
        counted=counted,
        concessions=plural(len(record.concessions), "concession", lang),
    )
    if conceded:
        line += label("w_conceded", lang, ids=", ".join(conceded))
    if record.declined_to_concede:
        line += label("w_declined", lang)
    return line
