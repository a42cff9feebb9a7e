"""The strongest arguments of each side, and why the others cannot rank (issue 36, item 7).

The spec says "Arguments les plus forts de chaque camp": each side's best claims, side by side
(adversarial, devil's advocate, socratic), or each participant's (panel), at most
:data:`PER_SIDE` each, by score, in a fixed order. A side with many high-scoring claims cannot
crowd the other out. Only an evidence-backed claim ranks (``Claim.evidence_backed``: a quote
found word for word in a retrieved document, in a sentence the support check found to support
it, and no unverified reference); a claim that would have taken a place is listed apart with its
reason (``Claim.not_ranked_because``) and the specifics: the references, the sentence and the
checker's note, the distancing words.

Code's words come from :mod:`argue.records.labels`; the renderers (Markdown, HTML, JSON) pass
their own escaping for what the documents and models wrote.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from argue.domain import Citation, Claim, ClaimBlocker, DebateConfig
from argue.grounding.index import ReferenceIndex
from argue.records.labels import has_label, label, label_of

PER_SIDE = 3
"""The most claims shown per side (or per panelist), and the most listed as not ranked."""

# stance prefix (as framing records it) -> side key
_STANCE_SIDES: tuple[tuple[str, str], ...] = (
    ("FOR the proposition", "for"),
    ("AGAINST the proposition", "against"),
    ("QUESTIONER:", "questioner"),
    ("DEFENDER:", "defender"),
)
# seat order -> side key, for a record without its framing (the modes' fixed seating)
_SEAT_SIDES: dict[str, tuple[str, ...]] = {
    "adversarial": ("for", "against"),
    "socratic": ("questioner", "defender"),
}


def side_of(config: DebateConfig, letter: str) -> tuple[str, bool]:
    """(side key, devil's advocate) of a persona: ``for`` / ``against`` / ``questioner`` /
    ``defender`` from the framing's stance (or the mode's seat order when the record has no
    framing); a panelist, or a seat nothing names, is its own side (its letter)."""
    stance = (config.framing.stances.get(letter, "") if config.framing else "").strip()
    for prefix, key in _STANCE_SIDES:
        if stance.startswith(prefix):
            return key, "devil's advocate" in stance
    if not stance and config.mode in _SEAT_SIDES:
        seats = list(config.personas)
        sides = _SEAT_SIDES[config.mode]
        index = seats.index(letter) if letter in seats else len(sides)
        if index < len(sides):
            return sides[index], False
    return letter, False


def side_words(key: str, advocate: bool, lang: str) -> str:
    """A side in words ("For the proposition"); "" for a persona that is its own side."""
    if not has_label("side", key):
        return ""
    words = label_of("side", key, lang)
    if advocate:
        words += f" ({label('side_devils_advocate', lang)})"
    return words[:1].upper() + words[1:]


def sentence_parts(citation: Citation) -> tuple[str, str, str]:
    """(before, located, after) of a located quote's sentence, the located span without the
    white space at its ends (moved outside, so a marker can hug the words)."""
    located = citation.located
    core = located.strip()
    if not core:
        return citation.context_before, "", citation.context_after
    lead = located[: len(located) - len(located.lstrip())]
    trail = located[len(located.rstrip()) :]
    return citation.context_before + lead, core, trail + citation.context_after


def plain_sentence(citation: Citation) -> str:
    return " ".join(citation.sentence.split()) or " ".join(citation.located.split())


def citation_json(citation: Citation) -> dict[str, Any]:
    """One citation as the JSON documents give it: code's verdicts and the document's words."""
    data = citation.model_dump(
        include={
            "evidence_id",
            "quote",
            "verdict",
            "located",
            "context_before",
            "context_after",
            "distancing",
            "support",
            "support_by",
            "support_note",
            "note",
        }
    )
    data["sentence"] = citation.sentence if citation.is_located else ""
    data["counts"] = citation.supports_claim
    return data


@dataclass(frozen=True)
class Ranked:
    claim: Claim
    score: float

    @property
    def citations(self) -> list[Citation]:
        """Every located quote of the claim (what backs it, and what does not)."""
        return [c for c in self.claim.citations if c.is_located]


@dataclass(frozen=True)
class NotRanked:
    claim: Claim
    score: float
    reason: ClaimBlocker
    references: list[str] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)


@dataclass
class Side:
    key: str
    words: str
    letters: list[str]
    ranked: list[Ranked] = field(default_factory=list)
    not_ranked: list[NotRanked] = field(default_factory=list)
    more_not_ranked: int = 0


@dataclass
class StrongestArguments:
    sides: list[Side]
    panel: bool
    """Each participant is its own side (the heading says "of each participant")."""
    scored: bool
    """Some claim has a score (a committed round)."""

    @property
    def not_ranked(self) -> list[NotRanked]:
        return [item for side in self.sides for item in side.not_ranked]

    def as_json(self, names: dict[str, str], lang: str) -> dict[str, Any]:
        return {
            "per_side": PER_SIDE,
            "sides": [
                {
                    "side": side.key if side.words else "participant",
                    "side_words": side.words,
                    "personas": side.letters,
                    "names": [names.get(letter, letter) for letter in side.letters],
                    "arguments": [_ranked_json(item, names) for item in side.ranked],
                    "not_ranked": [_not_ranked_json(item, names, lang) for item in side.not_ranked],
                    "more_not_ranked": side.more_not_ranked,
                }
                for side in self.sides
            ],
        }


def contradicted_by(claim: Claim) -> list[str]:
    """Evidence ids whose located sentence the support check found to contradict the claim."""
    return list(
        dict.fromkeys(
            c.evidence_id for c in claim.citations if c.is_located and c.support == "contradicts"
        )
    )


def _ranked_json(item: Ranked, names: dict[str, str]) -> dict[str, Any]:
    claim = item.claim
    return {
        "claim_id": claim.id,
        "persona": claim.persona,
        "name": names.get(claim.persona, claim.persona),
        "round": claim.round,
        "score": round(item.score, 4),
        "text": claim.text,
        "evidence_ids": claim.supported_evidence_ids,
        "contradicted_by": contradicted_by(claim),
        "citations": [citation_json(c) for c in item.citations],
    }


def _not_ranked_json(item: NotRanked, names: dict[str, str], lang: str) -> dict[str, Any]:
    claim = item.claim
    return {
        "claim_id": claim.id,
        "persona": claim.persona,
        "name": names.get(claim.persona, claim.persona),
        "round": claim.round,
        "score": round(item.score, 4),
        "reason": item.reason,
        "reason_words": reason_words(item, lang),
        "references": item.references,
        "evidence_ids": item.ids,
        "citations": [citation_json(c) for c in item.citations],
    }


def _claim_order(claim_id: str) -> tuple[int, ...]:
    """``A2.c10`` after ``A2.c9``: the numbers in the id, in order."""
    return tuple(int(n) for n in re.findall(r"\d+", claim_id))


def _same_text(text: str) -> str:
    return " ".join(text.casefold().split())


def blocker(claim: Claim, references: ReferenceIndex | None) -> ClaimBlocker | None:
    """Why ``claim`` cannot rank (None: it can): the record's reason, with the references its
    text or warrant writes that match no document of the debate counted too."""
    if claim.refusal:
        return "refusal"
    if claim.marker_copies:
        return "marker_copy"
    if unverified_references(claim, references):
        return "unverified_reference"
    return claim.not_ranked_because


def unverified_references(claim: Claim, references: ReferenceIndex | None) -> list[str]:
    found = list(claim.unverified_references)
    if references is not None:
        found += [r.text for r in references.unverified(claim.text)]
        found += [r.text for r in references.unverified(claim.warrant)]
    return list(dict.fromkeys(found))


def _not_ranked(
    claim: Claim, score: float, reason: ClaimBlocker, references: ReferenceIndex | None
) -> NotRanked:
    if reason == "unverified_reference":
        return NotRanked(claim, score, reason, references=unverified_references(claim, references))
    if reason in ("contradicts", "unrelated", "unchecked"):
        cited = [c for c in claim.quoted_citations if c.support == reason]
        return NotRanked(claim, score, reason, citations=cited)
    if reason in ("out_of_context", "near_match"):
        return NotRanked(
            claim, score, reason, citations=[c for c in claim.citations if c.verdict == reason]
        )
    if reason == "quote_not_found":
        cited = [c for c in claim.citations if c.verdict == "quote_not_found"]
        with_citation = {c.evidence_id for c in cited}
        ids = [e for e in claim.verified_evidence_ids if e not in with_citation]
        return NotRanked(claim, score, reason, citations=cited, ids=ids)
    if reason == "unknown_evidence":
        return NotRanked(claim, score, reason, ids=list(claim.unverified_evidence_ids))
    if reason == "model_written_only":
        return NotRanked(claim, score, reason, ids=list(claim.model_written_evidence_ids))
    return NotRanked(claim, score, reason)


def strongest_arguments(
    config: DebateConfig,
    claims: dict[str, Claim],
    scores: dict[str, float],
    references: ReferenceIndex | None,
    lang: str | None = None,
) -> StrongestArguments:
    """Each side's best claims (at most :data:`PER_SIDE`, by score, then round and claim number);
    the claims that would have taken a place but cannot rank, with why (at most
    :data:`PER_SIDE` per side listed, the rest counted). A claim repeating one already ranked
    for its side, word for word, is not ranked twice."""
    words_lang = lang or config.language
    sides: dict[str, Side] = {}
    side_by_letter: dict[str, str] = {}
    for letter in config.personas:
        key, advocate = side_of(config, letter)
        side_by_letter[letter] = key
        side = sides.setdefault(key, Side(key, side_words(key, advocate, words_lang), []))
        side.letters.append(letter)
    ordered = sorted(
        ((claims[cid], score) for cid, score in scores.items() if cid in claims),
        key=lambda pair: (-pair[1], pair[0].round, _claim_order(pair[0].id), pair[0].id),
    )
    shown: dict[str, set[str]] = {}
    for claim, score in ordered:
        key = side_by_letter.get(claim.persona, claim.persona)
        side = sides.setdefault(key, Side(key, "", [claim.persona]))
        if len(side.ranked) >= PER_SIDE:
            continue
        reason = blocker(claim, references)
        if reason is None:
            text = _same_text(claim.text)
            if text in shown.setdefault(key, set()):
                continue
            shown[key].add(text)
            side.ranked.append(Ranked(claim, score))
        elif len(side.not_ranked) < PER_SIDE:
            side.not_ranked.append(_not_ranked(claim, score, reason, references))
        else:
            side.more_not_ranked += 1
    return StrongestArguments(
        sides=list(sides.values()),
        panel=all(not side.words for side in sides.values()),
        scored=bool(ordered),
    )


def _plain(value: str) -> str:
    return " ".join(value.split())


def reason_words(
    item: NotRanked,
    lang: str,
    *,
    text: Callable[[str], str] = _plain,
    sentence: Callable[[Citation], str] = plain_sentence,
    reference: Callable[[str], str] | None = None,
) -> str:
    """Why ``item`` cannot rank, in ``lang``, with its specifics. ``text`` makes outside text
    (ids, notes, distancing words) safe for the document, ``sentence`` a located quote's
    sentence (marked, in Markdown and HTML), ``reference`` an unverified reference (followed by
    the document's **unverified** marker; default ``text``); the default is plain text (JSON)."""
    detail = reason_detail(item, lang, text, sentence, reference)
    return label_of("nr", item.reason, lang, detail=detail)


def reason_detail(
    item: NotRanked,
    lang: str,
    text: Callable[[str], str] = _plain,
    sentence: Callable[[Citation], str] = plain_sentence,
    reference: Callable[[str], str] | None = None,
) -> str:
    """The specifics of ``item``'s reason: the references, each citation's sentence and the
    checker's note, the distancing words, the ids ("—" when there are none)."""
    parts: list[str] = []
    if item.reason == "unverified_reference":
        parts = [(reference or text)(ref) for ref in item.references]
    elif item.reason in ("contradicts", "unrelated", "unchecked"):
        for c in item.citations:
            part = f"[{text(c.evidence_id)}] “{sentence(c)}”"
            if c.support_note:
                part += f" — {text(c.support_note)}"
            if c.support_by:
                by = label("support_rules", lang) if c.support_by == "rules" else text(c.support_by)
                part += f" ({label('support_by', lang, by=by)})"
            parts.append(part)
    elif item.reason == "out_of_context":
        for c in item.citations:
            part = f"[{text(c.evidence_id)}] “{sentence(c)}”"
            if c.distancing:
                part += f" — {label('distancing_words', lang)} “{text(c.distancing)}”"
            parts.append(part)
    elif item.reason == "near_match":
        parts = [f"[{text(c.evidence_id)}] “{sentence(c)}”" for c in item.citations]
    elif item.reason == "quote_not_found":
        for c in item.citations:
            part = f"[{text(c.evidence_id)}]"
            if c.note:
                part += f" ({text(c.note)})"
            parts.append(part)
        parts += [f"[{text(e)}]" for e in item.ids]
    elif item.reason in ("unknown_evidence", "model_written_only"):
        parts = [text(e) for e in item.ids]
    elif item.reason == "marker_copy":
        parts = [f"“{text(copy)}”" for copy in item.claim.marker_copies]
    return "; ".join(parts) or "—"
