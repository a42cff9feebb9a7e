"""Build template contexts from the record; templates only lay them out.

Model text reaches templates as variables (data), never as template source.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    StrictUndefined,
    pass_context,
)
from jinja2.runtime import Context

from argue.domain import DebateState, Evidence, Failure, Usage
from argue.records.history import DebateHistory
from argue.records.labels import Labels, label
from argue.records.prose import SynthesisDraft
from argue.records.strongest import (
    PER_SIDE,
    contradicted_by,
    reason_words,
    strongest_arguments,
)
from argue.render import words
from argue.render.inline import (
    _model_filter,
    _model_paragraphs_filter,
    inert_text,
    inline_markdown,
    markdown_paragraphs,
    marked_sentence,
    safe_link,
)
from argue.text.typography import format_number, jinja_filters, localise_amounts


def _environment() -> Environment:
    """The Jinja environment: ``$ARGUE_HOME/templates/`` first, then the built-in templates."""
    from argue.paths import ArgueHomeError, user_templates_dir

    try:
        user_templates: Path | None = user_templates_dir()
    except ArgueHomeError:
        user_templates = None  # an unusable ARGUE_HOME fails elsewhere; render the built-ins
    return _environment_for(user_templates, _template_stamps(user_templates))


def _template_stamps(folder: Path | None) -> tuple[tuple[str, int], ...]:
    """Name and mtime of each user template: a template added or edited while the process
    runs gets a fresh environment (Jinja would keep serving the built-in one it cached)."""
    if folder is None:
        return ()
    try:
        with os.scandir(folder) as entries:
            return tuple(sorted((e.name, e.stat().st_mtime_ns) for e in entries))
    except OSError:
        return ()


@lru_cache(maxsize=8)
def _environment_for(
    user_templates: Path | None, stamps: tuple[tuple[str, int], ...]
) -> Environment:
    """One environment per templates folder and content (tests change ARGUE_HOME per test)."""
    loaders: list[BaseLoader] = [PackageLoader("argue.render", "templates")]
    if user_templates is not None:
        loaders.insert(0, FileSystemLoader(user_templates))
    env = Environment(
        loader=ChoiceLoader(loaders),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = inline_markdown
    env.filters["paragraphs"] = markdown_paragraphs
    env.filters["link"] = safe_link
    env.filters["inert"] = inert_text
    env.filters["sentence"] = marked_sentence
    env.filters["model"] = _model_filter
    env.filters["model_paragraphs"] = _model_paragraphs_filter
    env.filters["cost"] = _describe_cost
    # Numbers in the debate's language: ``"%.2f" | format(x)`` reads 0,85 in French.
    env.filters.update(jinja_filters())
    return env


def _usage_total(usage: list[Usage]) -> Usage:
    from argue.llm import UsageLedger

    return UsageLedger(usage).total()


@pass_context
def _describe_cost(context: Context, usage: Usage) -> str:
    """A cost in the debate's language: "$0.0123", or "unknown (…)" / "at least $… (…)" when
    calls lack a price or a request timed out (possibly billed)."""
    from argue.llm.pricing import describe_cost

    lang = str(context.get("lang") or "en")
    return localise_amounts(describe_cost(usage, lang), lang)


def _models_used(usage: list[Usage], lang: str = "en") -> str:
    """Every provider/model that answered, with its calls (``resume --model`` adds one)."""
    return words.models_used_words(usage, lang)


def _participants(history: DebateHistory) -> list[dict[str, Any]]:
    """Each participant as the spec writes it: role, dominant bridge, lens and side, in the
    debate's language ("**Embry** (Ingénieur aérospatial, Précision=0.85) — Prisme
    formel/mathématique")."""
    framing = history.config.framing
    lang = history.config.language
    rows = []
    for letter, persona in history.personas.items():
        stance = framing.stances.get(letter, "") if framing else ""
        side, side_by_model = words.stance_words(stance, lang)
        rows.append(
            {
                "letter": letter,
                "persona": persona,
                "label": f"{persona.display_name} ({words.dominant_bridge_words(persona, lang)})",
                "role": words.capitalised(words.persona_role(persona, lang)),
                "dominant": words.dominant_bridge_words(persona, lang),
                "lens_line": label("lens_line", lang, lens=words.persona_lens(persona, lang)),
                "bridges": ", ".join(
                    f"{words.bridge_words(name, lang)}={format_number(weight, lang)}"
                    for name, weight in sorted(persona.bridges.items(), key=lambda kv: -kv[1])
                ),
                "stance": stance,
                "side": side,
                "side_by_model": side_by_model,
            }
        )
    return rows


def _detail(state: DebateState, lang: str) -> dict[str, str]:
    """The termination's detail: code's words (translated), or the judge's (model text)."""
    text, by_model = words.detail_words(state.termination_detail, lang)
    if by_model:
        return {"words": "", "model": text.removeprefix("judge: ")}
    return {"words": text, "model": ""}


def _document_words(lang: str) -> dict[str, Any]:
    """Recorded ids and code's recorded English as words, for every document template."""
    return {
        "termination_words": lambda value: words.termination_words(value, lang),
        "status_words": lambda value: words.status_words(value, lang),
        "mode_words": lambda value: words.mode_words(value, lang),
        "kind_words": lambda value: words.kind_words(value, lang),
        "call_words": lambda value: words.call_words(str(value), lang),
        "failure_sentence": lambda failure: words.failure_sentence(failure, lang),
        "research_note": lambda note: words.research_note(note, lang),
        "source_unused": lambda name, reason: words.source_unused(name, reason, lang),
        "provenance_words": lambda value: words.provenance_words(value, lang),
        "target_note_words": lambda note: words.target_note_words(note, lang),
        "component_words": lambda name: words.component_words(name, lang),
        "component_reason": lambda component: words.component_reason(component, lang),
        "not_ranked_words": lambda item: reason_words(
            item,
            lang,
            text=inert_text,
            sentence=marked_sentence,
            reference=lambda ref: f"{inert_text(ref)} **{label('unverified', lang)}**",
        ),
        "support_words": lambda citation: words.support_words(citation, lang),
        "contradicted_by": contradicted_by,
    }


def _evidence_index(history: DebateHistory) -> dict[str, Evidence]:
    index: dict[str, Evidence] = {}
    for letter in history.letters:
        index.update(history.evidence_registry(letter, max(history.rounds, default=0)))
    return index


# Rendered sections of committed rounds: (debate root, round) -> (fingerprint, text).
_ROUND_SECTIONS: dict[tuple[str, int], tuple[tuple[object, ...], str]] = {}
_MAX_CACHED_SECTIONS = 4096


def render_transcript(history: DebateHistory, state: DebateState, usage: list[Usage]) -> str:
    """The transcript. Each round's section checks references against the documents retrieved
    up to that round, so a committed round renders the same every time: it is rendered once
    and reused (the transcript of round 50 costs one round's rendering, not fifty)."""
    environment = _environment()
    evidence = _evidence_index(history)
    names = {k: history.persona_name(k) for k in history.letters}
    labels = Labels(history.config.language)
    round_template = environment.get_template("transcript_round.md.j2")
    sections = []
    for record in history.ordered_rounds():
        failures = [f for f in history.failures if f.round == record.round]
        fingerprint = (
            id(environment),
            history.config.language,
            hash(record.model_dump_json()),
            hash(tuple(f.model_dump_json() for f in failures)),
        )
        key = (history.config.id, record.round)
        cached = _ROUND_SECTIONS.get(key)
        if record.committed and cached is not None and cached[0] == fingerprint:
            sections.append(cached[1])
            continue
        text = round_template.render(
            r=record,
            names=names,
            evidence=evidence,
            failures=failures,
            references=history.reference_index(record.round),
            L=labels,
            lang=history.config.language,
            **_document_words(history.config.language),
        )
        if record.committed:
            if len(_ROUND_SECTIONS) >= _MAX_CACHED_SECTIONS:
                _ROUND_SECTIONS.clear()
            _ROUND_SECTIONS[key] = (fingerprint, text)
        sections.append(text)
    return environment.get_template("transcript.md.j2").render(
        config=history.config,
        state=state,
        participants=_participants(history),
        round_sections=sections,
        names=names,
        failures=history.failures,
        notes=history.moderator_notes,
        usage=_usage_total(usage),
        models_used=_models_used(usage, history.config.language),
        references=history.reference_index(),
        L=labels,
        lang=history.config.language,
        detail=_detail(state, history.config.language),
        **_document_words(history.config.language),
    )


def synthesis_context(
    history: DebateHistory,
    state: DebateState,
    usage: list[Usage],
    prose: SynthesisDraft | None,
    prose_failure: str | None,
) -> dict[str, Any]:
    names = {k: history.persona_name(k) for k in history.letters}
    claims = history.claim_index()
    scores = history.claim_scores()
    evidence = _evidence_index(history)
    committed = history.committed_rounds()

    partial_reasons = history.partial_reasons(state, prose_missing=prose is None)

    concessions = [
        {"round": r.round, "concession": c, "claim": claims.get(c.claim_id)}
        for r in history.ordered_rounds()
        for rebuttal in r.rebuttals.values()
        for c in rebuttal.concessions
    ]
    declined = [
        {"round": r.round, "persona": names[rb.persona]}
        for r in history.ordered_rounds()
        for rb in r.rebuttals.values()
        if rb.declined_to_concede
    ]
    references = history.reference_index()
    strongest = strongest_arguments(history.config, claims, scores, references)
    cruxes = []
    trajectories = []
    for letter in history.letters:
        reflections = [
            r.reflections[letter] for r in history.ordered_rounds() if letter in r.reflections
        ]
        if reflections:
            cruxes.append(
                {
                    "name": names[letter],
                    "text": reflections[-1].would_change_my_mind,
                    "position": reflections[-1].position_now,
                }
            )
        trajectories.append(
            {
                "name": names[letter],
                "points": [
                    f"R{r}={format_number(v, history.config.language)}"
                    for r, v in history.confidences(letter)
                ],
            }
        )
    sources, model_written = _cited_sources(history, evidence)

    agreements = []
    if prose:
        for agreement in prose.agreements:
            known = [cid for cid in agreement.claim_ids if cid in claims]
            unknown = [cid for cid in agreement.claim_ids if cid not in claims]
            agreements.append(
                {"point": agreement.point, "claim_ids": known, "unknown_ids": unknown}
            )
    return {
        "config": history.config,
        "state": state,
        "participants": _participants(history),
        "rounds_committed": len(committed),
        "partial_reasons": partial_reasons,
        "prose": prose,
        "prose_failure": prose_failure,
        "agreements": agreements,
        "names": names,
        "concessions": concessions,
        "declined": declined,
        "strongest": strongest,
        "per_side": PER_SIDE,
        "cruxes": cruxes,
        "trajectories": trajectories,
        "sources": sources,
        "model_written": model_written,
        "references": references,
        "rounds_started": max(history.rounds, default=0),
        "failures": history.failures,
        "failure_rows": _grouped_failures(history),
        "usage": _usage_total(usage),
        "L": Labels(history.config.language),
        "lang": history.config.language,
        "models_used": _models_used(usage, history.config.language),
        "detail": _detail(state, history.config.language),
        **_document_words(history.config.language),
    }


def _grouped_failures(history: DebateHistory) -> list[dict[str, Any]]:
    """Failures for the synthesis: the same refusal (say, a missing key) once, with a count, the
    rounds it happened in and every persona it happened to; every other failure as it is.

    Listed by round, then persona: the record keeps the order in which concurrent personas
    finished, which varies run to run; the document must not (nor which persona's call stands
    for a grouped refusal)."""
    rows: list[dict[str, Any]] = []
    refusals: dict[str, dict[str, Any]] = {}
    for failure in sorted(history.failures, key=lambda f: (f.round, f.persona or "")):
        if failure.kind == "refused":
            row = refusals.get(failure.reason)
            if row is not None:
                row["count"] += 1
                if failure.round not in row["rounds"]:
                    row["rounds"].append(failure.round)
                if failure.persona and failure.persona not in row["personas"]:
                    row["personas"].append(failure.persona)
                continue
            row = _failure_row(failure)
            refusals[failure.reason] = row
        else:
            row = _failure_row(failure)
        rows.append(row)
    return rows


def _failure_row(failure: Failure) -> dict[str, Any]:
    personas = [failure.persona] if failure.persona else []
    return {"failure": failure, "count": 1, "rounds": [failure.round], "personas": personas}


def _cited_sources(
    history: DebateHistory, evidence: dict[str, Evidence]
) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Cited items, one row per item: retrieved documents (the Sources), and apart from them the
    model-written items (colleague answers, memories, taxonomy labels) grouped by provenance.
    A document's row keeps each quote found in it (``quotes``: the citation, in its sentence,
    and the claim that quotes it, whose support verdict the page shows beside it)."""
    rows: dict[tuple[str, str, str | None], dict[str, Any]] = {}
    for claim in history.all_claims():
        for eid in [*claim.quoted_evidence_ids, *claim.model_written_evidence_ids]:
            item = evidence.get(eid)
            if item is None:
                continue
            key = (item.provenance, item.url or item.title.lower(), item.locator)
            row = rows.setdefault(key, {"item": item, "ids": [], "quotes": [], "_seen": set()})
            if eid not in row["ids"]:
                row["ids"].append(eid)
            for citation in claim.quoted_citations:
                seen = (citation.sentence, citation.located, citation.support)
                if citation.evidence_id == eid and seen not in row["_seen"]:
                    row["_seen"].add(seen)
                    row["quotes"].append({"citation": citation, "claim_id": claim.id})
    for row in rows.values():
        del row["_seen"]
    documents = [r for r in rows.values() if r["item"].is_document]
    model_written: dict[str, list[dict[str, Any]]] = {}
    for row in rows.values():
        if not row["item"].is_document:
            model_written.setdefault(row["item"].provenance, []).append(row)
    return documents, model_written


def render_synthesis(
    history: DebateHistory,
    state: DebateState,
    usage: list[Usage],
    prose: SynthesisDraft | None,
    prose_failure: str | None,
) -> str:
    context = synthesis_context(history, state, usage, prose, prose_failure)
    # The ids a synthesis cites that match no claim are model text the template joins as they
    # are: made inert here (the HTML report shows them escaped, in code).
    context["agreements"] = [
        {**row, "unknown_ids": [inert_text(cid) for cid in row["unknown_ids"]]}
        for row in context["agreements"]
    ]
    return _environment().get_template("synthesis.md.j2").render(**context)
