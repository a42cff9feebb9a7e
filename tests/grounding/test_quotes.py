"""Quotes are found by code, in the cited document, or they are not (issue 20).

Teeth (seen failing when broken on purpose): making ``locate_quote`` accept any window with
the threshold at 0.5 fails the below-threshold and fabricated-quote tests; dropping
``_same_anchors`` lets "unbounded" pass for "bounded" (the negation test fails); looking up the
quote in every registry item instead of the cited one fails the other-document test; the
window-by-window near-match scan this replaced fails the bounded-work test (11,629 word-bag
operations for one fabricated quote, 100 allowed).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from argue.domain import Evidence
from argue.grounding.citations import canonical_evidence_id, check_citation, check_citations
from argue.grounding.quotes import NEAR_MATCH_THRESHOLD, locate_quote, normalise, quote_form

DOC = (
    "Smith, J. (2021): In a randomised trial of 1,200 workers, remote work had a bounded effect "
    "on productivity: gains of 12 % in focused tasks and no change in collaborative ones. "
    "The authors caution that the effect fades after the first year."
)


def _item(eid: str, snippet: str, provenance: str = "document") -> Evidence:
    return Evidence(
        id=eid,
        persona="A",
        round=1,
        skill="dogpile",
        query="remote work",
        title=f"Title of {eid}",
        url=f"https://example.org/{eid}",
        snippet=snippet,
        source="arxiv",
        provenance=provenance,  # type: ignore[arg-type]
    )


REGISTRY = {
    "A-R1-E1": _item("A-R1-E1", DOC),
    "A-R1-E2": _item("A-R1-E2", "A survey of managers found that office presence rose in 2023."),
    "A-R1-E3": _item("A-R1-E3", "Horus says remote work is always better.", "testimony"),
}


def test_a_verbatim_quote_is_located_with_the_documents_own_offsets():
    quote = "remote work had a bounded effect on productivity"
    match = locate_quote(quote, DOC)
    assert match.found and match.exact and match.similarity == 1.0
    assert DOC[match.start : match.end] == quote


def test_typography_case_width_and_invisible_characters_do_not_hide_a_quote():
    document = "Gains of 12 % in “focused” tasks\u200b—and none elsewhere."
    for quote in (
        '"Gains of 12 % in "focused" tasks-and none elsewhere."',
        "GAINS OF 12 % IN ‘focused’ TASKS —and none",
        "…gains of １２ % in \u00adfocused tasks—and none elsewhere…",
        "gains   of 12 %\nin “focused” tasks",
    ):
        match = locate_quote(quote, document)
        assert match.found and match.exact, quote
        assert document[match.start : match.end].lower().startswith("gains of 12")


def test_a_paraphrase_above_the_threshold_is_a_near_match_showing_the_documents_words():
    # one word in 21 changed ("randomized" for "randomised" is one token)
    quote = (
        "In a randomized trial of 1,200 workers, remote work had a bounded effect on "
        "productivity: gains of 12 % in focused tasks"
    )
    match = locate_quote(quote, DOC)
    assert match.found and not match.exact
    assert NEAR_MATCH_THRESHOLD <= match.similarity < 1.0
    assert DOC[match.start : match.end].startswith("In a randomised trial")


def test_a_paraphrase_below_the_threshold_is_not_found():
    quote = "in a big study of many employees, working from home helped output a little"
    match = locate_quote(quote, DOC)
    assert not match.found
    assert "not in the document" in match.reason
    # two words of fourteen changed: close, but below the threshold
    close = "remote work had a bounded effect on output: gains of 12 % in focused jobs"
    near = locate_quote(close, DOC)
    assert not near.found
    assert 0.75 < near.similarity < NEAR_MATCH_THRESHOLD
    assert "% similar" in near.reason


def test_a_near_match_never_flips_a_negation_or_a_number():
    flipped = "remote work had an unbounded effect on productivity: gains of 12 % in focused tasks"
    assert not locate_quote(flipped, DOC).found
    renumbered = "remote work had a bounded effect on productivity: gains of 21 % in focused tasks"
    assert not locate_quote(renumbered, DOC).found


def test_a_fabricated_quote_and_a_too_short_quote_anchor_nothing():
    assert not locate_quote("the study proves that remote work doubles output", DOC).found
    short = locate_quote("bounded effect", DOC)
    assert not short.found and "too short" in short.reason


def test_a_quote_from_another_document_is_not_found_in_the_cited_one():
    citation = check_citation(
        "A-R1-E2", "remote work had a bounded effect on productivity", REGISTRY
    )
    assert citation.verdict == "quote_not_found"
    assert "these words are in A-R1-E1, not in A-R1-E2" in citation.note


def test_verdicts_for_each_kind_of_citation():
    quoted = check_citation("A-R1-E1", "gains of 12 % in focused tasks", REGISTRY)
    assert quoted.verdict == "quoted" and quoted.field == "snippet"
    assert quoted.located == DOC[quoted.start : quoted.end] == "gains of 12 % in focused tasks"
    assert check_citation("A-R1-E1", "", REGISTRY).verdict == "quote_not_found"
    testimony = check_citation("A-R1-E3", "Horus says remote work is always better", REGISTRY)
    assert testimony.verdict == "model_written"
    assert check_citation("Z-R9-E9", "anything at all here", REGISTRY).verdict == "unverified"


def test_ids_written_with_unicode_hyphens_or_full_width_forms_are_the_same_id():
    for written in ("A‑R1‑E1", "a-r1-e1", "Ａ-Ｒ1-Ｅ1", "A-R1\u200b-E1", "[A–R1–E1]"):
        assert canonical_evidence_id(written) == "A-R1-E1", written
    citation = check_citation("A‑R1‑E1", "gains of 12 % in focused tasks", REGISTRY)
    assert citation.verdict == "quoted" and citation.evidence_id == "A-R1-E1"


def test_the_same_citation_twice_is_kept_once():
    pairs = [("A-R1-E1", "gains of 12 % in focused tasks")] * 2 + [("A-R1-E2", "")]
    assert [c.verdict for c in check_citations(pairs, REGISTRY)] == ["quoted", "quote_not_found"]


@given(st.text(min_size=0, max_size=200))
def test_normalised_offsets_always_point_inside_the_original(text: str):
    form = normalise(text)
    assert len(form.origin) == len(form.text)
    assert all(0 <= i < len(text) for i in form.origin)
    assert list(form.origin) == sorted(form.origin)


@given(st.integers(min_value=0, max_value=20), st.integers(min_value=7, max_value=12))
def test_any_verbatim_span_of_words_is_found_exactly_where_it_is(start: int, length: int):
    words = DOC.split()
    span = " ".join(words[start : start + length])
    match = locate_quote(span, DOC)
    assert match.found and match.exact
    assert normalise(DOC[match.start : match.end]).text == quote_form(span)


def test_a_fabricated_quote_costs_bounded_work_not_a_scan_of_every_window(monkeypatch):
    # Scanning every window of every document (a word bag per window) took 20 s for one
    # fabricated quote against 40 documents of common words. Near matches are now looked for
    # only where quote and document share a run of words, aligned at most twice per candidate
    # start. Counted, not timed: alignments, and word-bag operations.
    import random
    from collections import Counter

    from argue.grounding import quotes

    work = {"align": 0, "bags": 0}
    real = quotes.SequenceMatcher

    def counting(*args, **kwargs):
        work["align"] += 1
        return real(*args, **kwargs)

    class CountingCounter(Counter):
        def __init__(self, *args, **kwargs):
            work["bags"] += 1
            super().__init__(*args, **kwargs)

        def __and__(self, other):
            work["bags"] += 1
            return super().__and__(other)

    monkeypatch.setattr(quotes, "SequenceMatcher", counting)
    monkeypatch.setattr(quotes, "Counter", CountingCounter)
    chooser = random.Random(1)
    vocab = [f"w{i}" for i in range(300)]
    document = " ".join(chooser.choice(vocab) for _ in range(700))
    fabricated = " ".join(chooser.choice(vocab) for _ in range(90))
    assert not locate_quote(fabricated, document).found
    assert work["align"] <= 2 * 16  # two per candidate start (quotes._CANDIDATES)
    assert work["bags"] <= 100
