"""Code's recorded reasons in the debate's language (issue 21): a failure's step and reason, a
research note, a score component's reason.

The records keep English (``failures.json``, ``scoring/round_NNN.json`` are an audit record in
one language). A failure is rebuilt at render time from its known shapes: the step
(``Failure.what``) and the reason's parts written by argue's code (the engine, the skill
registry, the dogpile skill and its sources) are translated; anything else (an exception's or an
external service's message) is kept and, in French, quoted « … ». A score component carries its
reason's machine form (``ScoreComponent.parts``: label keys and fields) beside the English
sentence, so it is said in any language; an old record without parts shows its sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from argue.records.labels import has_label, label, label_of

if TYPE_CHECKING:
    from argue.domain import Failure, ReasonPart

Shape = tuple[str, Callable[[re.Match[str]], str]]


def quoted(text: str, lang: str) -> str:
    """Words that are not argue's own (an external message), quoted in French."""
    return label("quoted_text", lang, text=text) if lang == "fr" else text


def _word(family: str, value: str, lang: str) -> str:
    return label_of(family, value, lang, default=value)


def _translated(text: str, shapes: Iterable[Shape]) -> str | None:
    for pattern, build in shapes:
        match = re.fullmatch(pattern, text, flags=re.S)
        if match:
            return build(match)
    return None


# ---------------------------------------------------------------- failures


def what_words(what: str, lang: str) -> str:
    """A failed step (``Failure.what``) in words; English as recorded."""
    if lang != "fr":
        return what
    exact: dict[str, Callable[[], str]] = {
        "framing model call": lambda: label("what_framing_call", lang),
        "judge model call": lambda: label("what_judge_call", lang),
        "synthesis model call": lambda: label("what_synthesis_call", lang),
        "rebuttal": lambda: label("what_rebuttal", lang),
        "debate": lambda: label("what_debate", lang),
        "episodic archive (shared memory) write": lambda: label("what_archive", lang),
    }
    if what in exact:
        return exact[what]()
    shapes: list[Shape] = [
        (
            r"(.+) model call",
            lambda m: label(
                "what_phase_call", lang, phase=_word("phase", m[1].replace(" ", "-"), lang)
            ),
        ),
        (r"memory write of (\S+)", lambda m: label("what_memory_write", lang, claim_id=m[1])),
        (r"skill (\S+)", lambda m: label("what_skill", lang, name=m[1])),
        (r"research plan free call (\d+)", lambda m: label("what_plan_free_call", lang, n=m[1])),
        (
            r"research plan (ask|dogpile query|memory query|dogpile sources|why)",
            lambda m: label(
                "what_plan_slot", lang, slot=label_of("slot", m[1].replace(" ", "_"), lang)
            ),
        ),
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
    known = _translated(what, shapes)
    return known if known is not None else quoted(what, lang)


OFFLINE_HINT = (
    "; not asked again in this debate (no network? `--sources library` searches your own library)"
)
"""What a research failure adds when a source's host name could not be looked up."""

_PREFIXES: dict[str, Callable[[str], str]] = {
    "nothing sent; ": lambda lang: label("reason_nothing_sent", lang),
    "no results; ": lambda lang: label("reason_no_results", lang),
    "dropped by the engine: ": lambda lang: label("reason_dropped", lang),
}
_SUFFIXES: dict[str, Callable[[str], str]] = {
    "; the question itself is used as the proposition": (
        lambda lang: label("reason_question_as_proposition", lang)
    ),
    "; coherence not measured this round": lambda lang: label(
        "reason_coherence_not_measured", lang
    ),
    OFFLINE_HINT: lambda lang: label("reason_offline_hint", lang),
}
_DECLINED = re.compile(r"the model declined (instead of answering|to judge) \(“(.*)”\)", re.S)
_EXACT: dict[str, Callable[[str], str]] = {
    "no opponent published a claim this round: nothing to rebut": (
        lambda lang: label("reason_no_opponent_claim", lang)
    ),
    "no reason given": lambda lang: label("reason_none_given", lang),
    "no research source can answer in this debate": (
        lambda lang: label("reason_no_source_in_debate", lang)
    ),
}


def _why_refused(text: str, lang: str) -> str | None:
    """A source's own refusal, as the skill registry or a source writes it."""
    shapes: list[Shape] = [
        (r"([A-Z][A-Z0-9_]*) not set", lambda m: label("reason_key_not_set", lang, name=m[1])),
        (
            r"the library is empty \(add files with `argue library add`\)",
            lambda m: label("reason_library_empty", lang),
        ),
        (r"not used in this debate", lambda m: label("reason_not_used", lang)),
        (
            r"not allowed by --sources; allowed: (.*)",
            lambda m: label("reason_not_allowed", lang, allowed=m[1]),
        ),
        (
            r"not a research source; allowed: (.*)",
            lambda m: label("reason_not_a_source", lang, allowed=m[1]),
        ),
        (r"not allowed by --sources", lambda m: label("reason_not_allowed_bare", lang)),
        (r"not a research source", lambda m: label("reason_not_a_source_bare", lang)),
        (
            r"(\S+): timed out after (\S+) s( \(including its wait for a rate-limit turn\))?",
            lambda m: label(
                "reason_timed_out_paced" if m[3] else "reason_timed_out", lang, name=m[1], s=m[2]
            ),
        ),
    ]
    return _translated(text, shapes)


def _asked_name(part: str, lang: str) -> str:
    """ "youtub (not a research source)" from the registry's list of names it could not run."""
    match = re.fullmatch(r"(.+?) \((.+)\)", part)
    if match is None:
        return part
    why = _why_refused(match[2], lang)
    return f"{match[1]} ({why})" if why is not None else part


def _source_outcome(part: str, lang: str) -> str | None:
    """One source's outcome as a skill notes it ("arxiv ok (2)", "brave refused: no key")."""
    shapes: list[Shape] = [
        (r"(\d+) result\(s\)", lambda m: label("note_results", lang, n=m[1])),
        (r"no results", lambda m: label("reason_no_results", lang)),
        (r"(\S+) ok \((\d+)\)", lambda m: f"{m[1]} {label_of('call', 'ok', lang)} ({m[2]})"),
        (r"(\S+) empty", lambda m: f"{m[1]} {label_of('call', 'empty', lang)}"),
        (
            r"(\S+) (refused|failed): (.*)",
            lambda m: (
                f"{m[1]} {_word('call', m[2], lang)}{label('colon', lang)} "
                + (_why_refused(m[3], lang) or quoted(m[3], lang))
            ),
        ),
    ]
    known = _translated(part, shapes)
    return known if known is not None else _why_refused(part, lang)


# ", " or "; " before the next source's outcome (not inside "allowed: library, brave")
_BETWEEN_OUTCOMES = (
    r"(, |; )(?=\S+ (?:ok \(\d+\)|empty|refused: |failed: )|\d+ result\(s\)|no results)"
)


def _outcomes(note: str, lang: str) -> str | None:
    """Sources' outcomes joined by ", " or "; ", every one known; None otherwise."""
    out = []
    for part in re.split(_BETWEEN_OUTCOMES, note):
        if part in (", ", "; "):
            out.append(label("semicolon", lang) + " " if part == "; " else part)
            continue
        known = _source_outcome(part, lang)
        if known is None:
            return None
        out.append(known)
    return "".join(out)


def note_words(note: str, lang: str) -> str:
    """A research call's note or a failure's reason in the debate's language: argue's own
    parts translated, anything else (an exception's or a service's message) quoted."""
    if lang != "fr" or not note:
        return note
    if note in _EXACT:
        return _EXACT[note](lang)
    head, tail = "", ""
    for prefix, words in _PREFIXES.items():
        if note.startswith(prefix):
            head = words(lang) + label("semicolon", lang) + " "
            note = note.removeprefix(prefix)
            break
    for suffix, words in _SUFFIXES.items():
        if note.endswith(suffix):
            tail = label("semicolon", lang) + " " + words(lang)
            note = note.removesuffix(suffix)
            break
    repair = _repair_words(note, lang)
    if repair is not None:
        return f"{head}{repair}{tail}"
    declined = _DECLINED.fullmatch(note)
    if declined:
        key = "reason_declined_judge" if declined[1] == "to judge" else "reason_declined"
        return f"{head}{label(key, lang, said=quoted(declined[2], lang))}{tail}"
    not_asked = re.match(r"not asked \(not used in this debate\): ([^;]+); ", note)
    if not_asked:
        head += label("reason_not_asked", lang, names=not_asked[1]) + label("semicolon", lang)
        head += " "
        note = note[not_asked.end() :]
    asked = re.fullmatch(
        r"asked only for (.+?): ran on every allowed source instead\.(?: (.*))?", note, re.S
    )
    if asked:
        names = ", ".join(_asked_name(p, lang) for p in re.split(r", (?![^()]*\))", asked[1]))
        body = label("reason_asked_only", lang, names=names)
        if asked[2]:
            body += " " + (_outcomes(asked[2], lang) or quoted(asked[2], lang))
        return f"{head}{body}{tail}"
    known = _outcomes(note, lang)
    return f"{head}{known if known is not None else quoted(note, lang)}{tail}"


def failure_sentence(failure: Failure, lang: str = "en") -> str:
    """ "<step>: <what happened> (<reason>)." in ``lang``: the record stays English; in French
    the step and code's parts of the reason are translated, the rest quoted."""
    if failure.kind == "refused":
        words = label("refused_sentence", lang)
    elif failure.phase == "debate":
        words = label("debate_failed_sentence", lang)
    elif failure.cause is not None:
        words = label_of("cause", failure.cause, lang)
    else:
        words = label("failed_sentence", lang)
    what = what_words(failure.what, lang)
    reason = note_words(failure.reason, lang)
    return f"{what}{label('colon', lang)} {words} ({reason})."


def _repair_words(note: str, lang: str) -> str | None:
    """A slot argue dropped or replaced in a research plan (``PlanRepair.reason``)."""
    match = re.fullmatch(r"(.+); (dropped|replaced by argue's query ('.*'|\".*\"))", note, re.S)
    if match is None:
        return None
    problem = _translated(
        match[1],
        [
            (r"missing", lambda m: label("repair_missing", lang)),
            (r"blank", lambda m: label("repair_blank", lang)),
            (r"(\S+) missing", lambda m: label("repair_missing_field", lang, field=m[1])),
            (r"(\S+) blank", lambda m: label("repair_blank_field", lang, field=m[1])),
            (
                r"colleague (.+) is not offered \(offered: (.*)\)",
                lambda m: label("repair_colleague", lang, name=quoted(m[1], lang), offered=m[2]),
            ),
            (r"no colleague is offered in this plan", lambda m: label("repair_no_colleague", lang)),
            (
                r"not offered: no research source can answer in this debate",
                lambda m: label("repair_no_source", lang),
            ),
            (
                r"skill (.+) is not offered",
                lambda m: label("repair_skill", lang, name=quoted(m[1], lang)),
            ),
            (
                r"over the (\d+) free call\(s\) the budget leaves",
                lambda m: label("repair_over_room", lang, n=m[1]),
            ),
            (
                r"invalid \((.*)\)",
                lambda m: label("repair_invalid", lang, detail=quoted(m[1], lang)),
            ),
        ],
    )
    if problem is None:
        return None
    if match[2] == "dropped":
        action = label("repair_dropped", lang)
    else:
        action = label("repair_replaced", lang, query=quoted(match[3][1:-1], lang))
    return f"{problem}{label('semicolon', lang)} {action}"


def source_unused_line(name: str, reason: str, lang: str, *, warning: bool = False) -> str:
    """The terminal's line for a source left out before round 1 ("youtube not used:
    YOUTUBE_API_KEY not set"), its reason in the debate's language (a warning when the user
    named the source)."""
    key = "t_source_unused_named" if warning else "t_source_unused"
    return label(key, lang, name=name, reason=_why_refused(reason, lang) or quoted(reason, lang))


# ---------------------------------------------------------------- score reasons


def _field(value: object) -> str:
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return str(value)


def _concession_notes(fields: Mapping[str, object], lang: str) -> str:
    claims = _list(fields.get("claims"))
    kinds = _list(fields.get("kinds"))
    strongest = set(_list(fields.get("strongest")))
    notes = []
    for claim_id, kind in zip(claims, kinds, strict=False):
        kind_word = _word("kind", kind, lang) if lang == "fr" else kind
        key = "score_concession_strongest" if claim_id in strongest else "score_concession"
        notes.append(label(key, lang, claim_id=claim_id, kind=kind_word))
    return ", ".join(notes)


def _list(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


def part_words(key: str, fields: Mapping[str, object], lang: str) -> str:
    """One part of a score reason: its key (a value of the catalog's ``reason_part`` family,
    as recorded) and its fields (lists joined with ", ")."""
    if key == "score_conceded":
        return label_of("reason_part", key, lang, notes=_concession_notes(fields, lang))
    return label_of(
        "reason_part", key, lang, **{name: _field(value) for name, value in fields.items()}
    )


def score_reason_words(parts: Sequence[ReasonPart], lang: str) -> str:
    """A score component's reason from its parts, joined as the scorer joins them ("; ")."""
    separator = label("semicolon", lang) + " "
    return separator.join(part_words(p.key, p.fields, lang) for p in parts)


def component_reason(reason: str, parts: Sequence[ReasonPart] | None, lang: str) -> str:
    """What a reader sees: the reason rebuilt from its parts, or, for a record written before
    parts existed (or with a key this version does not know), the stored sentence."""
    if lang == "en" or not parts or any(not has_label("reason_part", p.key) for p in parts):
        return reason
    try:
        return score_reason_words(parts, lang)
    except (KeyError, IndexError, ValueError):
        return reason
