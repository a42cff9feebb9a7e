"""Build template contexts from the record; templates only lay them out.

Model text reaches templates as variables (data), never as template source.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, StrictUndefined

from argue.domain import DebateState, Evidence, Usage
from argue.engine.context import DebateHistory
from argue.engine.schemas import SynthesisDraft


@cache
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("argue.render", "templates"),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["md"] = inline_markdown
    env.filters["paragraphs"] = markdown_paragraphs
    env.filters["link"] = safe_link
    return env


_BLOCK_START = re.compile(r"^(\s*)([#>+*-]|\d+[.)])(?=\s|$)")


def inline_markdown(text: object) -> str:
    """Model or user text as one inert line: it cannot open a heading, list, quote or tag."""
    line = " ".join(str(text).split())
    line = line.replace("<", "&lt;")
    return _BLOCK_START.sub(lambda m: m.group(1) + "\\" + m.group(2), line)


def markdown_paragraphs(text: object) -> str:
    """Longer model text (the conclusion): paragraphs kept, each line made inert."""
    paragraphs = [p for p in re.split(r"\n\s*\n", str(text)) if p.strip()]
    return "\n\n".join(inline_markdown(p) for p in paragraphs)


def safe_link(url: object) -> str:
    """A URL that stays one autolink: spaces and angle brackets percent-encoded."""
    return quote(str(url).strip(), safe=":/?#[]@!$&'()*+,;=%~")


def _usage_total(usage: list[Usage]) -> Usage:
    from argue.llm import UsageLedger

    return UsageLedger(usage).total()


def _participants(history: DebateHistory) -> list[dict[str, Any]]:
    framing = history.config.framing
    rows = []
    for letter, persona in history.personas.items():
        rows.append(
            {
                "letter": letter,
                "persona": persona,
                "label": persona.label(),
                "bridges": ", ".join(
                    f"{name.capitalize()}={weight:.2f}"
                    for name, weight in sorted(persona.bridges.items(), key=lambda kv: -kv[1])
                ),
                "stance": framing.stances.get(letter, "") if framing else "",
            }
        )
    return rows


def _evidence_index(history: DebateHistory) -> dict[str, Evidence]:
    index: dict[str, Evidence] = {}
    for letter in history.letters:
        index.update(history.evidence_registry(letter, max(history.rounds, default=0)))
    return index


def render_transcript(history: DebateHistory, state: DebateState, usage: list[Usage]) -> str:
    evidence = _evidence_index(history)
    return (
        _environment()
        .get_template("transcript.md.j2")
        .render(
            config=history.config,
            state=state,
            participants=_participants(history),
            rounds=history.ordered_rounds(),
            names={k: history.persona_name(k) for k in history.letters},
            evidence=evidence,
            failures=history.failures,
            notes=history.moderator_notes,
            usage=_usage_total(usage),
        )
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

    partial_reasons = []
    if state.status != "completed":
        partial_reasons.append(f"the debate is {state.status}, not completed")
    if state.termination == "stopped":
        partial_reasons.append("it was stopped before a natural ending")
    for letter in history.letters:
        missing = [r.round for r in history.ordered_rounds() if letter not in r.arguments]
        if missing:
            partial_reasons.append(
                f"{names[letter]} produced no argument in round(s) {', '.join(map(str, missing))}"
            )

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
    strongest = [
        {"claim": claims[cid], "score": score}
        for cid, score in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        if cid in claims
    ]
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
                "points": [f"R{r}={v:.2f}" for r, v in history.confidences(letter)],
            }
        )
    sources, consultations = _cited_sources(history, evidence)

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
        "cruxes": cruxes,
        "trajectories": trajectories,
        "sources": sources,
        "consultations": consultations,
        "rounds_started": max(history.rounds, default=0),
        "failures": history.failures,
        "usage": _usage_total(usage),
    }


def _cited_sources(
    history: DebateHistory, evidence: dict[str, Evidence]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Retrieved items that some claim cited (verified ids only), one row per document.

    Colleague answers (/ask) are opinions, not documents: they are listed apart.
    """
    rows: dict[tuple[str, str | None], dict[str, Any]] = {}
    for claim in history.all_claims():
        for eid in claim.verified_evidence_ids:
            item = evidence.get(eid)
            if item is None:
                continue
            key = (item.url or item.title.lower(), item.locator)
            row = rows.setdefault(key, {"item": item, "ids": []})
            if eid not in row["ids"]:
                row["ids"].append(eid)
    documents = [r for r in rows.values() if r["item"].source != "ask"]
    consultations = [r for r in rows.values() if r["item"].source == "ask"]
    return documents, consultations


def render_synthesis(
    history: DebateHistory,
    state: DebateState,
    usage: list[Usage],
    prose: SynthesisDraft | None,
    prose_failure: str | None,
) -> str:
    context = synthesis_context(history, state, usage, prose, prose_failure)
    return _environment().get_template("synthesis.md.j2").render(**context)
