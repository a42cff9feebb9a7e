"""Recorded ids and code's recorded English, as words of the debate's language.

The record keeps ids (``max_rounds``, ``completed``, ``panel``) and a few English sentences
written by the engine (a termination's detail, a failure's step, a rebuttal target's note).
Documents show them through these functions, so a French synthesis, transcript or report has
no English word from code. A sentence that matches no known shape is kept as it is and, in
French, quoted « … » (it may be an external service's message) rather than run into French.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from argue.records import reasons
from argue.records.labels import label, label_of
from argue.text.typography import format_number, localise_amounts

if TYPE_CHECKING:
    from argue.domain import Citation, Failure, Persona, ScoreComponent, Usage


def _word(family: str, value: str, lang: str) -> str:
    """The words the catalog's ``family`` has for ``value``, or the value itself when none."""
    return label_of(family, value, lang, default=value)


def termination_words(termination: str | None, lang: str) -> str:
    """ "Synthèse prête" / "Synthesis ready" for ``synthesis_ready``; "—" for none."""
    return _word("termination", termination, lang) if termination else "—"


def status_words(status: str, lang: str) -> str:
    return _word("status", status, lang)


def mode_words(mode: str, lang: str) -> str:
    return _word("mode", mode, lang)


def bridge_words(bridge: str, lang: str) -> str:
    return _word("bridge", bridge, lang)


def quoted(text: str, lang: str) -> str:
    """Words that are not the document's own (an external message), quoted in French."""
    return label("quoted_text", lang, text=text) if lang == "fr" else text


def call_words(status: str, lang: str) -> str:
    """A research call's or source's outcome: ok / empty / refused / failed."""
    return _word("call", status, lang)


def kind_words(kind: str, lang: str) -> str:
    """A counter's or a concession's kind: refutes / undercuts / questions, full / partial."""
    return label_of("kind", kind, lang, default=_word("edge", kind, lang))


def support_words(citation: Citation, lang: str) -> str:
    """What the support check found for a located quote: "supports the claim", "contradicts
    the claim", "does not address the claim", "support not checked"."""
    return label_of("support", citation.support, lang)


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def persona_role(persona: Persona, lang: str) -> str:
    words = persona.fr if lang == "fr" else None
    return words.role if words is not None else persona.role


def persona_lens(persona: Persona, lang: str) -> str:
    words = persona.fr if lang == "fr" else None
    return words.lens if words is not None else persona.lens


def dominant_bridge_words(persona: Persona, lang: str) -> str:
    """The dominant bridge and its weight, as the spec writes it: "Précision=0.85"."""
    bridge, weight = persona.dominant_bridge()
    return f"{bridge_words(bridge, lang)}={format_number(weight, lang)}"


_SIDES: tuple[tuple[str, str], ...] = (
    ("FOR the proposition", "for"),
    ("AGAINST the proposition", "against"),
    ("QUESTIONER:", "questioner"),
    ("DEFENDER:", "defender"),
)
_OWN_LENS = "PANELIST: argue from your own lens"


def stance_words(stance: str, lang: str) -> tuple[str, bool]:
    """The side a persona argues, as shown to a reader: (words, written by a model).

    A stance is the instruction code gives the model ("FOR the proposition", "PANELIST: …");
    the reader sees the side in words ("pour la proposition"), a panelist's angle (suggested by
    the framing model), or nothing when the panelist argues from its own lens (already shown).
    """
    stance = stance.strip()
    if not stance or stance.startswith(_OWN_LENS):
        return "", False
    if stance.startswith("PANELIST:"):
        return stance.removeprefix("PANELIST:").strip(), True
    for prefix, side in _SIDES:
        if stance.startswith(prefix):
            words = label_of("side", side, lang)
            if "devil's advocate" in stance:
                words += f" ({label('side_devils_advocate', lang)})"
            return words, False
    return stance, True


def _translated(
    text: str, lang: str, shapes: Iterable[tuple[str, Callable[[re.Match[str]], str]]]
) -> str | None:
    for pattern, build in shapes:
        match = re.fullmatch(pattern, text, flags=re.S)
        if match:
            return build(match)
    return None


def _where(where: str, lang: str) -> str:
    return label_of("where", where, lang, default=where)


def _summary_words(summary: str, lang: str) -> str:
    """ "Embry Δ=0.02,0.03 (now 0.70)": only "now" is a word; in French the numbers take
    decimal commas, so the two deltas are set apart by " ; " ("Δ=0,02 ; 0,03")."""
    summary = re.sub(r"\(now ", f"({label('detail_now', lang)} ", summary)
    return delta_summary(summary, lang)


def delta_summary(summary: str, lang: str) -> str:
    """The numbers of a convergence summary in ``lang`` (``Δ=0.02,0.03 (now 0.70)``)."""
    if lang != "fr":
        return summary
    summary = re.sub(
        r"Δ=(-?\d+\.\d+),(-?\d+\.\d+)",
        lambda m: label("delta_pair", lang, a=m[1], b=m[2]),
        summary,
    )
    return localise_amounts(summary, lang)


def detail_words(detail: str, lang: str) -> tuple[str, bool]:
    """A termination's detail in the debate's language: (text, contains model text).

    English is returned as recorded. In French a known shape is rebuilt from labels; the
    judge's reason is model text (the caller shows it as such); anything else is quoted.
    """
    if lang != "fr" or not detail:
        return detail, detail.startswith("judge: ")
    shapes: list[tuple[str, Callable[[re.Match[str]], str]]] = [
        (
            r"stop requested; round (\d+) was completed",
            lambda m: label_of("detail", "stop_completed", lang, n=m[1]),
        ),
        (
            r"stop requested; stopped (.+) of round (\d+)",
            lambda m: label_of("detail", "stop_where", lang, where=_where(m[1], lang), n=m[2]),
        ),
        (
            r"no novel claim and no new verified evidence in rounds (\d+) and (\d+)",
            lambda m: label_of("detail", "null_production", lang, a=m[1], b=m[2]),
        ),
        (
            r"reached the limit of (\d+) rounds?",
            lambda m: label_of("detail", "max_rounds", lang, n=m[1]),
        ),
        (
            r"stable disagreement: confidence settled while both sides still hold opposite "
            r"positions \((.*)\)",
            lambda m: label_of(
                "detail", "stable_disagreement", lang, summary=_summary_words(m[1], lang)
            ),
        ),
        (
            r"confidence settled for every persona \((.*)\)",
            lambda m: label_of(
                "detail", "confidence_settled", lang, summary=_summary_words(m[1], lang)
            ),
        ),
        (
            r"spent (\S+) of a (\S+) budget in round (\d+)",
            lambda m: label_of(
                "detail",
                "budget_usd",
                lang,
                spent=localise_amounts(m[1], lang),
                budget=localise_amounts(m[2], lang),
                n=m[3],
            ),
        ),
        (
            r"used (\d+) of a (\d+)-token budget in round (\d+)",
            lambda m: label_of("detail", "budget_tokens", lang, used=m[1], limit=m[2], n=m[3]),
        ),
    ]
    if detail.startswith("judge: "):
        return detail, True  # the caller splits off the judge's words (model text)
    known = _translated(detail, lang, shapes)
    return (known, False) if known is not None else (quoted(detail, lang), False)


def target_note_words(note: str, lang: str) -> str:
    """Why a rebuttal's target does not count (recorded in English by the engine)."""
    if lang != "fr" or not note:
        return note
    shapes: list[tuple[str, Callable[[re.Match[str]], str]]] = [
        (
            r"no claim (.+) exists in this debate so far: not counted",
            lambda m: label("target_missing", lang, claim_id=m[1]),
        ),
        (
            r"(.+) is (.+)'s own claim: not counted",
            lambda m: label("target_own", lang, claim_id=m[1], name=m[2]),
        ),
        (
            r"the model declined instead of answering \(a refusal\): not counted",
            lambda m: label("target_refusal", lang),
        ),
    ]
    known = _translated(note, lang, shapes)
    return known if known is not None else quoted(note, lang)


def failure_sentence(failure: Failure, lang: str) -> str:
    """A failure said in documents: in French, the step in words, code's parts of the reason
    translated and the rest quoted, so no English runs into the French sentence."""
    return reasons.failure_sentence(failure, lang)


def research_note(note: str, lang: str) -> str:
    """A research call's note (sources' outcomes, a skill's refusal) in French: the skills'
    own words translated, anything else (a service's message) quoted."""
    return reasons.note_words(note, lang)


def source_unused(name: str, reason: str, lang: str) -> str:
    """A research source left out before round 1, with why ("youtube not used:
    YOUTUBE_API_KEY not set"), in the debate's language."""
    return reasons.source_unused_line(name, reason, lang)


def component_reason(component: ScoreComponent, lang: str) -> str:
    """A score component's reason in the debate's language (its stored sentence for a record
    written before reasons had a machine form)."""
    return reasons.component_reason(component.reason, component.parts, lang)


def component_words(name: str, lang: str) -> str:
    """A score component's name in words ("qualité des preuves" for ``evidence_quality``)."""
    return label_of("component", name, lang, default=name.replace("_", " "))


def provenance_words(provenance: str, lang: str) -> str:
    return _word("provenance", provenance, lang)


def models_used_words(records: Iterable[Usage], lang: str) -> str:
    """Every provider/model that answered, in order of first use, with its calls."""
    counts: dict[str, int] = {}
    for usage in records:
        name = f"{usage.provider}/{usage.model}" if usage.model else usage.provider or "?"
        counts[name] = counts.get(name, 0) + usage.calls
    if not counts:
        return label("no_model", lang)
    return ", ".join(
        f"{name} ({label_of('plural', 'call', lang, n=n)})" for name, n in counts.items()
    )
