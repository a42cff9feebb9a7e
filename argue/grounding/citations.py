"""A claim's citations checked against the persona's own evidence: id, provenance, quote.

Each ``{evidence_id, quote}`` gets one verdict (:data:`argue.domain.CitationVerdict`). Only a
quote located word for word, on whole words, in the source's own text of a retrieved document
(:mod:`argue.grounding.quotable`), in a sentence that does not negate or distance it, makes a
citation ``quoted``; the located span is kept as the document's own words, with its offsets and
its sentence, so the transcript and the synthesis show what the source says rather than what
the model says it says.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import replace

from argue.domain import Citation, CitationVerdict, Evidence
from argue.grounding.quotable import QuotableText, quotable_texts, unquotable_reason
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


def _locate_in(item: Evidence, quote: str) -> tuple[QuotableText | None, QuoteMatch]:
    """The quote in the item's quotable snippet, else its quotable title."""
    fields = quotable_texts(item)
    if not fields:
        return None, QuoteMatch(False, reason=unquotable_reason(item) or "nothing quotable")
    first: tuple[QuotableText, QuoteMatch] | None = None
    for text in fields:
        match = locate_quote(quote, text.text)
        if match.found:
            return text, match
        first = first or (text, match)
    assert first is not None
    return first


def _shift(match: QuoteMatch, offset: int) -> QuoteMatch:
    if not offset:
        return match
    return replace(
        match,
        start=match.start + offset,
        end=match.end + offset,
        context_start=match.context_start + offset,
        context_end=match.context_end + offset,
    )


def _verdict(match: QuoteMatch) -> CitationVerdict:
    if not match.exact:
        return "near_match"
    return "out_of_context" if match.distancing else "quoted"


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
    if field is not None and match.found:
        text = item.snippet if field.field == "snippet" else item.title
        match = _shift(match, field.offset)
        verdict = _verdict(match)
        return Citation(
            evidence_id=eid,
            quote=kept_quote,
            verdict=verdict,
            located=text[match.start : match.end],
            field=field.field,
            start=match.start,
            end=match.end,
            exact=match.exact,
            similarity=match.similarity,
            context_before=text[match.context_start : match.start],
            context_after=text[match.end : match.context_end],
            distancing=match.distancing if verdict == "out_of_context" else "",
            note=_located_note(verdict, match),
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


def _located_note(verdict: CitationVerdict, match: QuoteMatch) -> str:
    if verdict == "out_of_context":
        return f"its sentence distances it: “{match.distancing}”"
    if verdict == "near_match":
        return (
            f"near match ({match.similarity:.0%} of the words): the document's words are shown; "
            "only an exact quote counts as support"
        )
    return ""


def _found_elsewhere(quote: str, cited: str, items: Iterable[Evidence]) -> str:
    """Another document holding the quote exactly (after normalisation): a hint for the
    note only, so no near match is searched for here."""
    wanted = quote_form(quote)
    if not wanted:
        return ""
    for item in items:
        if item.id == cited:
            continue
        if any(wanted in normalise(field.text).text for field in quotable_texts(item)):
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
