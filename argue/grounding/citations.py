"""A claim's citations checked against the persona's own evidence: id, provenance, quote.

Each ``{evidence_id, quote}`` gets one verdict (:data:`argue.domain.CitationVerdict`). Only a
quote located in a retrieved document makes a citation ``quoted``; the located span is kept as
the document's own words, with its offsets, so the transcript and the synthesis show what the
source says rather than what the model says it says.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Literal

from argue.domain import Citation, Evidence
from argue.grounding.quotes import (
    MAX_QUOTE_CHARS,
    QuoteMatch,
    locate_quote,
    normalise,
    quote_form,
)

_ID_DASHES = str.maketrans({c: "-" for c in "‐‑‒–—―−﹘﹣－"} | {"．": ".", "。": "."})


def canonical_evidence_id(written: str) -> str:
    """An evidence id as the model wrote it, in code's form: ``a‑r2‑e3`` (non-breaking
    hyphens, full-width letters, a zero-width space) is ``A-R2-E3``."""
    folded = unicodedata.normalize("NFKC", written).translate(_ID_DASHES)
    kept = "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")
    return kept.strip().strip("[]()").strip().upper()


def _locate_in(item: Evidence, quote: str) -> tuple[Literal["snippet", "title"], QuoteMatch]:
    """The quote in the item's snippet, else its title."""
    in_snippet = locate_quote(quote, item.snippet)
    if in_snippet.found or not item.title:
        return "snippet", in_snippet
    in_title = locate_quote(quote, item.title)
    return ("title", in_title) if in_title.found else ("snippet", in_snippet)


def check_citation(evidence_id: str, quote: str, registry: Mapping[str, Evidence]) -> Citation:
    """The verdict on one citation, against the citing persona's ``registry``."""
    eid = canonical_evidence_id(evidence_id)
    kept_quote = quote.strip()[: MAX_QUOTE_CHARS * 2]
    item = registry.get(eid)
    if item is None:
        return Citation(
            evidence_id=eid,
            quote=kept_quote,
            verdict="unverified",
            note=f"no evidence {eid} in this persona's research",
        )
    if not item.is_document:
        return Citation(
            evidence_id=eid,
            quote=kept_quote,
            verdict="model_written",
            note=f"{eid} is a {item.provenance_words()}, not a document",
        )
    if not kept_quote:
        return Citation(
            evidence_id=eid, verdict="quote_not_found", note="no quote given with this citation"
        )
    field, match = _locate_in(item, kept_quote)
    if match.found:
        text = item.snippet if field == "snippet" else item.title
        return Citation(
            evidence_id=eid,
            quote=kept_quote,
            verdict="quoted",
            located=text[match.start : match.end],
            field=field,
            start=match.start,
            end=match.end,
            exact=match.exact,
            similarity=match.similarity,
        )
    note = match.reason
    elsewhere = _found_elsewhere(kept_quote, eid, registry.values())
    if elsewhere:
        note += f"; these words are in {elsewhere}, not in {eid}"
    return Citation(
        evidence_id=eid,
        quote=kept_quote,
        verdict="quote_not_found",
        similarity=match.similarity,
        note=note,
    )


def _found_elsewhere(quote: str, cited: str, items: Iterable[Evidence]) -> str:
    """Another document holding the quote exactly (after normalisation): a hint for the
    note only, so no near match is searched for here."""
    wanted = quote_form(quote)
    if not wanted:
        return ""
    for item in items:
        if item.id == cited or not item.is_document:
            continue
        if wanted in normalise(item.snippet).text or wanted in normalise(item.title).text:
            return item.id
    return ""


def check_citations(
    citations: Iterable[tuple[str, str]], registry: Mapping[str, Evidence]
) -> list[Citation]:
    """Every ``(evidence_id, quote)`` checked; the same id and quote twice is kept once."""
    seen: set[tuple[str, str]] = set()
    checked: list[Citation] = []
    for evidence_id, quote in citations:
        citation = check_citation(evidence_id, quote, registry)
        key = (citation.evidence_id, citation.quote)
        if key in seen:
            continue
        seen.add(key)
        checked.append(citation)
    return checked
