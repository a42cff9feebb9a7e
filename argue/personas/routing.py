"""Deterministic keyword routing: which personas debate a question, which colleague to ask.

No model is involved, so the same question always yields the same choice and the choice can be
unit-tested (seed 003). A persona's score is the number of its expertise keywords found in the
question, in English or French (see ``argue.personas.keywords``: case, accents, plurals and common
endings such as ``taxer``/``taxed`` → ``taxe`` are folded). The reason names each keyword, and the
question's own word when it matched through an ending: ``mirela matched taxe ("taxer")``.

Selection rule, applied one seat at a time:
1. higher score first;
2. on equal score, a persona whose dominant bridge is not yet represented among those already
   chosen goes first (so a tie yields a more diverse panel);
3. then alphabetical by name.
Seats that no matching persona can fill go to the colleagues of the personas already seated
(the social graph: seat order, then each persona's ``colleagues`` in listed order, then their
colleagues), so a question that names one field gets that field's neighbours rather than
unrelated seats; only when nobody matched at all, or the graph runs out, do seats come from the
fixed default order (embry, horus, brandon, then the rest alphabetically). The reason says which
rule filled each seat.
"""

from __future__ import annotations

from collections.abc import Collection

from pydantic import BaseModel, Field

from argue.domain import Persona
from argue.personas.catalog import PersonaCatalog
from argue.personas.keywords import KeywordMatch, find_keywords

DEFAULT_ORDER_HEAD: tuple[str, ...] = ("embry", "horus", "brandon")
_TIE_RULE = (
    "ties go to a persona whose dominant bridge is not yet represented, then alphabetical order"
)


class NoColleagueError(LookupError):
    """The asker has no colleague left to ask (none listed, or all excluded)."""


class PersonaSelection(BaseModel):
    personas: list[Persona]
    reason: str = Field(description="Why these personas: matched keywords per persona")
    matches: dict[str, list[str]] = Field(
        default_factory=dict, description="Matched expertise keywords per selected persona"
    )

    def names(self) -> list[str]:
        return [persona.name for persona in self.personas]


def default_order(catalog: PersonaCatalog) -> list[Persona]:
    head = [catalog.get(name) for name in DEFAULT_ORDER_HEAD if name in catalog]
    rest = [persona for persona in catalog.all() if persona.name not in DEFAULT_ORDER_HEAD]
    return head + rest


def _said(found: list[KeywordMatch]) -> str:
    """``tax, taxe ("taxer") (2)``: the matched keywords and how many."""
    return f"{', '.join(match.label() for match in found)} ({len(found)})"


def _dominant(persona: Persona) -> str:
    return persona.dominant_bridge()[0]


def select_personas(
    question: str, catalog: PersonaCatalog, count: int = 2, lang: str = "en"
) -> PersonaSelection:
    """Pick ``count`` personas for ``question``; raises ValueError if the catalog is too small.
    The reason is said in ``lang`` ("en" or "fr")."""
    from argue.records.labels import label

    if count < 1:
        raise ValueError("count must be at least 1")
    if count > len(catalog):
        raise ValueError(
            f"cannot select {count} personas: only {len(catalog)} known "
            f"({', '.join(catalog.names())})"
        )
    found = {persona.name: find_keywords(question, persona.expertise) for persona in catalog}
    matches = {name: [match.keyword for match in hits] for name, hits in found.items()}
    candidates = [persona for persona in catalog if matches[persona.name]]
    chosen: list[Persona] = []
    explanations: list[str] = []
    tie_broken = False
    while candidates and len(chosen) < count:
        represented = {_dominant(persona) for persona in chosen}
        candidates.sort(
            key=lambda persona: (
                -len(matches[persona.name]),
                _dominant(persona) in represented,
                persona.name,
            )
        )
        pick = candidates.pop(0)
        if candidates and len(matches[candidates[0].name]) == len(matches[pick.name]):
            tie_broken = True
        chosen.append(pick)
        explanations.append(
            label("route_matched", lang, name=pick.name, said=_said(found[pick.name]))
        )

    via_colleagues = _colleague_fill(chosen, catalog, count - len(chosen))
    seated = chosen + [persona for persona, _ in via_colleagues]
    filler = [persona for persona in default_order(catalog) if persona not in seated]
    filler = filler[: count - len(seated)]
    if not chosen:
        reason = label("route_none", lang) + ", ".join(persona.name for persona in filler)
    else:
        semicolon = label("semicolon", lang) + " "
        reason = label("route_keywords", lang) + semicolon.join(explanations)
        fills = _colleague_reasons(via_colleagues, lang)
        if filler:
            names = ", ".join(persona.name for persona in filler)
            fills.append(label("route_default_order", lang, names=names))
        if fills:
            reason += semicolon + semicolon.join(fills) + label("route_no_other", lang)
        if tie_broken:
            reason += f" ({_TIE_RULE if lang != 'fr' else label('route_tie_rule', lang)})"
    chosen = seated + filler
    return PersonaSelection(
        personas=chosen,
        reason=reason,
        matches={persona.name: matches[persona.name] for persona in chosen},
    )


def _colleague_fill(
    seated: list[Persona], catalog: PersonaCatalog, wanted: int
) -> list[tuple[Persona, str]]:
    """Up to ``wanted`` unseated personas reached through ``colleagues`` links, breadth first.

    Each comes with the name of the seated persona that listed it. Nothing when nobody is seated.
    """
    taken = {persona.name for persona in seated}
    queue = list(seated)
    found: list[tuple[Persona, str]] = []
    for persona in queue:
        if len(found) >= wanted:
            break
        for name in persona.colleagues:
            if len(found) >= wanted:
                break
            if name in catalog and catalog.get(name).name not in taken:
                colleague = catalog.get(name)
                taken.add(colleague.name)
                found.append((colleague, persona.name))
                queue.append(colleague)
    return found


def _colleague_reasons(via_colleagues: list[tuple[Persona, str]], lang: str = "en") -> list[str]:
    """``["horus as odile's colleague", "embry, aldous as brandon's colleagues"]``."""
    from argue.records.labels import label

    groups: dict[str, list[str]] = {}
    for persona, via in via_colleagues:
        groups.setdefault(via, []).append(persona.name)
    return [
        label(
            "route_colleague",
            lang,
            n=len(names),
            names=", ".join(names),
            via=via,
        )
        for via, names in groups.items()
    ]


def route_colleague(
    question: str,
    asker: Persona,
    catalog: PersonaCatalog,
    exclude: Collection[str] = (),
) -> tuple[Persona, str]:
    """The asker's colleague whose expertise best matches ``question``, and why.

    Ties (including "nothing matched") go to the colleague listed first in the asker's file.
    """
    excluded = {name.strip().lower() for name in exclude} | {asker.name}
    candidates = [
        catalog.get(name)
        for name in asker.colleagues
        if name in catalog and name.lower() not in excluded
    ]
    if not candidates:
        listed = ", ".join(asker.colleagues) or "none"
        raise NoColleagueError(
            f"{asker.name} has no colleague to ask (colleagues: {listed}; "
            f"excluded: {', '.join(sorted(excluded))})"
        )
    scored = [
        (find_keywords(question, persona.expertise), position, persona)
        for position, persona in enumerate(candidates)
    ]
    hits, _, best = min(scored, key=lambda entry: (-len(entry[0]), entry[1]))
    pool = ", ".join(persona.name for persona in candidates)
    if hits:
        reason = (
            f"routed to {best.name}: matched {_said(hits)} among {asker.name}'s colleagues ({pool})"
        )
    else:
        reason = (
            f"routed to {best.name}: no colleague's expertise matched, so {asker.name}'s "
            f"first listed colleague among ({pool})"
        )
    return best, reason
