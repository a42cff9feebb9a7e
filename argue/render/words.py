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

from argue.records.labels import _LABELS, label

if TYPE_CHECKING:
    from argue.domain import Failure, Persona, Usage


def _word(prefix: str, value: str, lang: str) -> str:
    """The label ``<prefix>_<value>``, or the value itself when there is none."""
    key = f"{prefix}_{value}"
    return label(key, lang) if key in _LABELS else value


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
    if f"kind_{kind}" in _LABELS:
        return label(f"kind_{kind}", lang)
    return _word("edge", kind, lang)


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
    return f"{bridge_words(bridge, lang)}={weight:.2f}"


_SIDES: tuple[tuple[str, str], ...] = (
    ("FOR the proposition", "side_for"),
    ("AGAINST the proposition", "side_against"),
    ("QUESTIONER:", "side_questioner"),
    ("DEFENDER:", "side_defender"),
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
    for prefix, key in _SIDES:
        if stance.startswith(prefix):
            words = label(key, lang)
            if "devil's advocate" in stance:
                words += f" ({label('side_devils_advocate', lang)})"
            return words, False
    return stance, True


def side_line(stance: str, lang: str, model: Callable[[str], str]) -> str:
    """ "camp : pour la proposition" (or "angle : <the model's angle>"), "" for none."""
    words, by_model = stance_words(stance, lang)
    if not words:
        return ""
    if by_model:
        return f"{label('angle', lang)}{label('colon', lang)} {model(words)}"
    return f"{label('side', lang)}{label('colon', lang)} {words}"


def _translated(
    text: str, lang: str, shapes: Iterable[tuple[str, Callable[[re.Match[str]], str]]]
) -> str | None:
    for pattern, build in shapes:
        match = re.fullmatch(pattern, text, flags=re.S)
        if match:
            return build(match)
    return None


def _where(where: str, lang: str) -> str:
    key = f"where_{where}"
    return label(key, lang) if key in _LABELS else where


def _summary_words(summary: str, lang: str) -> str:
    """ "Embry Δ=0.02,0.03 (now 0.70)": only "now" is a word."""
    return re.sub(r"\(now ", f"({label('detail_now', lang)} ", summary)


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
            lambda m: label("detail_stop_completed", lang, n=m[1]),
        ),
        (
            r"stop requested; stopped (.+) of round (\d+)",
            lambda m: label("detail_stop_where", lang, where=_where(m[1], lang), n=m[2]),
        ),
        (
            r"no novel claim and no new verified evidence in rounds (\d+) and (\d+)",
            lambda m: label("detail_null_production", lang, a=m[1], b=m[2]),
        ),
        (
            r"reached the limit of (\d+) rounds?",
            lambda m: label(
                "detail_max_rounds_one" if m[1] == "1" else "detail_max_rounds_many", lang, n=m[1]
            ),
        ),
        (
            r"stable disagreement: confidence settled while both sides still hold opposite "
            r"positions \((.*)\)",
            lambda m: label("detail_stable_disagreement", lang, summary=_summary_words(m[1], lang)),
        ),
        (
            r"confidence settled for every persona \((.*)\)",
            lambda m: label("detail_confidence_settled", lang, summary=_summary_words(m[1], lang)),
        ),
        (
            r"spent (\S+) of a (\S+) budget in round (\d+)",
            lambda m: label("detail_budget_usd", lang, spent=m[1], budget=m[2], n=m[3]),
        ),
        (
            r"used (\d+) of a (\d+)-token budget in round (\d+)",
            lambda m: label("detail_budget_tokens", lang, used=m[1], limit=m[2], n=m[3]),
        ),
    ]
    if detail.startswith("judge: "):
        return detail, True  # the caller splits off the judge's words (model text)
    known = _translated(detail, lang, shapes)
    return (known, False) if known is not None else (quoted(detail, lang), False)


def judge_detail(detail: str, lang: str, model: Callable[[str], str]) -> str:
    """A termination detail laid out: the judge's reason as model text, the rest as words."""
    text, has_model = detail_words(detail, lang)
    if has_model:
        return label("detail_judge", lang, reason=model(detail.removeprefix("judge: ")))
    return text


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
    ]
    known = _translated(note, lang, shapes)
    return known if known is not None else quoted(note, lang)


def _what_words(what: str, lang: str) -> str:
    """A failed step (``Failure.what``) in words."""
    exact = {
        "framing model call": "what_framing_call",
        "judge model call": "what_judge_call",
        "synthesis model call": "what_synthesis_call",
        "rebuttal": "what_rebuttal",
        "debate": "what_debate",
        "episodic archive (shared memory) write": "what_archive",
    }
    if what in exact:
        return label(exact[what], lang)
    shapes: list[tuple[str, Callable[[re.Match[str]], str]]] = [
        (
            r"(\S+) model call",
            lambda m: label("what_phase_call", lang, phase=_word("phase", m[1], lang)),
        ),
        (r"memory write of (\S+)", lambda m: label("what_memory_write", lang, claim_id=m[1])),
        (r"skill (\S+)", lambda m: label("what_skill", lang, name=m[1])),
        (
            r"(\d+) research call\(s\) over the budget of (\d+)",
            lambda m: label("what_over_budget", lang, n=m[1], budget=m[2]),
        ),
        (
            r"(\S+) source (\S+) for ('.*'|\".*\")",
            lambda m: label(
                "what_research_source",
                lang,
                skill=m[1],
                source=m[2],
                query=quoted(m[3][1:-1], lang),
            ),
        ),
        (
            r"(\S+) ('.*'|\".*\")",
            lambda m: label("what_research_call", lang, skill=m[1], query=quoted(m[2][1:-1], lang)),
        ),
    ]
    known = _translated(what, lang, shapes)
    return known if known is not None else quoted(what, lang)


_REASON_PREFIXES = {
    "nothing sent; ": "reason_nothing_sent",
    "no results; ": "reason_no_results",
    "dropped by the engine: ": "reason_dropped",
}
_REASON_SUFFIXES = {
    "; the question itself is used as the proposition": "reason_question_as_proposition",
    "; coherence not measured this round": "reason_coherence_not_measured",
}
_REASON_EXACT = {
    "no opponent published a claim this round: nothing to rebut": "reason_no_opponent_claim",
    "no reason given": "reason_none_given",
}


def _reason_words(reason: str, lang: str) -> str:
    """A failure's reason: code's own parts translated, the rest (an exception's or a
    service's message, a source's note) quoted."""
    if reason in _REASON_EXACT:
        return label(_REASON_EXACT[reason], lang)
    head, tail = "", ""
    for prefix, key in _REASON_PREFIXES.items():
        if reason.startswith(prefix):
            head = label(key, lang) + label("semicolon", lang) + " "
            reason = reason.removeprefix(prefix)
            break
    for suffix, key in _REASON_SUFFIXES.items():
        if reason.endswith(suffix):
            tail = label("semicolon", lang) + " " + label(key, lang)
            reason = reason.removesuffix(suffix)
            break
    return f"{head}{quoted(reason, lang)}{tail}"


def failure_sentence(failure: Failure, lang: str) -> str:
    """``Failure.sentence`` for documents: in French, the step in words and what is not
    code's own quoted, so no English runs into the French sentence."""
    if lang != "fr":
        return failure.sentence(lang)
    if failure.kind == "refused":
        words = label("refused_sentence", lang)
    elif failure.phase == "debate":
        words = label("debate_failed_sentence", lang)
    elif failure.cause is not None:
        words = label(f"cause_{failure.cause}", lang)
    else:
        words = label("failed_sentence", lang)
    what = _what_words(failure.what, lang)
    return f"{what}{label('colon', lang)} {words} ({_reason_words(failure.reason, lang)})."


def _source_outcome(part: str, lang: str) -> str | None:
    """One source's outcome as a skill notes it ("arxiv ok (2)", "brave refused: no key")."""
    shapes: list[tuple[str, Callable[[re.Match[str]], str]]] = [
        (r"(\d+) result\(s\)", lambda m: label("note_results", lang, n=m[1])),
        (r"no results", lambda m: label("reason_no_results", lang)),
        (r"(\S+) ok \((\d+)\)", lambda m: f"{m[1]} {label('call_ok', lang)} ({m[2]})"),
        (r"(\S+) empty", lambda m: f"{m[1]} {label('call_empty', lang)}"),
        (
            r"(\S+) (refused|failed): (.*)",
            lambda m: (
                f"{m[1]} {call_words(m[2], lang)}{label('colon', lang)} " + quoted(m[3], lang)
            ),
        ),
    ]
    return _translated(part, lang, shapes)


def research_note(note: str, lang: str) -> str:
    """A research call's note (sources' outcomes, a skill's refusal) in French: the skills'
    own words translated, anything else (a service's message) quoted."""
    if lang != "fr" or not note:
        return note
    head = ""
    for prefix, key in _REASON_PREFIXES.items():
        if note.startswith(prefix):
            head = label(key, lang) + label("semicolon", lang) + " "
            note = note.removeprefix(prefix)
            break
    parts = re.split(r"(, |; )", note)
    out = []
    for part in parts:
        if part in (", ", "; "):
            out.append(label("semicolon", lang) + " " if part == "; " else part)
            continue
        known = _source_outcome(part, lang)
        if known is None:
            return head + _reason_words(note, lang)
        out.append(known)
    return head + "".join(out)


def component_words(name: str, lang: str) -> str:
    """A score component's name in words ("qualité des preuves" for ``evidence_quality``)."""
    key = f"component_{name}"
    return label(key, lang) if key in _LABELS else name.replace("_", " ")


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
        f"{name} ({label('model_calls_one' if n == 1 else 'model_calls_many', lang, n=n)})"
        for name, n in counts.items()
    )
