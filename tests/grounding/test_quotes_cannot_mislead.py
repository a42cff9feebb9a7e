"""Quotes that cannot make a document say what it does not (issue 36, items 1-4).

Teeth (each seen failing when broken on purpose): ``_cut_word`` returning None always lets
"decidable" be quoted out of "undecidable" (the mid-word tests fail); ``distancing_words``
returning "" lets "It is not true that …" stand as quoted; ``number_values`` returning [] lets
"ninety" stand for "nineteen" and 1e9 for 1e6; dropping the ``n't``/``n'`` rule in ``_negates``
lets "does" stand for "doesn't" and "est plus" for "n'est plus"; ``quotable_texts`` ignoring
``byline``, ``filler`` or ``echoes_query`` makes argue's own words quotable; ``MIN_CONTENT_WORDS``
at 0 lets "it is one of the" anchor a claim.
"""

from __future__ import annotations

import pytest

from argue.domain import Evidence
from argue.grounding.citations import check_citation
from argue.grounding.quotable import echoes_query
from argue.grounding.quotes import distancing_words, locate_quote


def _doc(snippet: str, **extra: object) -> dict[str, Evidence]:
    item = Evidence(
        id="A-R1-E1",
        persona="A",
        round=1,
        skill="dogpile",
        query=str(extra.pop("query", "collatz decidability")),
        title=str(extra.pop("title", "A paper")),
        url="https://example.org/paper",
        snippet=snippet,
        source=str(extra.pop("source", "arxiv")),
        **extra,  # type: ignore[arg-type]
    )
    return {item.id: item}


@pytest.mark.parametrize(
    ("document", "quote", "cut"),
    [
        (
            "We show that the problem is undecidable in this framework for every finite rule set.",
            "decidable in this framework for every finite rule set",
            "undecidable",
        ),
        (
            "The model predicts unbounded growth of every orbit under the map.",
            "bounded growth of every orbit under the map",
            "unbounded",
        ),
        (
            "The conjecture was checked for every starting value below 190 by the team.",
            "checked for every starting value below 19",
            "190",
        ),
        (
            "It has been verified for all starting values below 2^68 by distributed search.",
            "verified for all starting values below 2^6",
            "2^68",
        ),
        (
            "Il est impossible de l'étendre à tous les entiers positifs sans hypothèse.",
            "possible de l'étendre à tous les entiers positifs",
            "impossible",
        ),
        (
            "Aucun contre-exemple n'a été trouvé par les chercheurs depuis 1937.",
            "un contre-exemple n'a été trouvé par les chercheurs",
            "Aucun",
        ),
    ],
)
def test_a_quote_that_starts_or_ends_inside_a_word_is_not_found_and_names_the_word(
    document: str, quote: str, cut: str
) -> None:
    citation = check_citation("A-R1-E1", quote, _doc(document))
    assert citation.verdict == "quote_not_found"
    assert f"the quote cuts the word “{cut}”" in citation.note
    assert not citation.located


def test_a_whole_word_occurrence_is_found_even_after_a_cut_one() -> None:
    document = (
        "Earlier work called it undecidable in this framework. We prove it is in fact decidable "
        "in this framework for every finite rule set."
    )
    citation = check_citation(
        "A-R1-E1", "decidable in this framework for every finite rule set", _doc(document)
    )
    assert citation.verdict == "quoted"
    assert document[citation.start - 1] == " " and citation.located.startswith("decidable")


@pytest.mark.parametrize(
    ("document", "quote", "distancing"),
    [
        (
            "It is not true that the Collatz conjecture has been proven decidable. More follows.",
            "the Collatz conjecture has been proven decidable",
            "It is not true that",
        ),
        (
            "Some claim that, in this framework, the conjecture has been proven decidable.",
            "the conjecture has been proven decidable",
            "Some claim that, in this framework,",
        ),
        (
            "Contrary to the paper the conjecture has been proven decidable by nobody yet.",
            "the conjecture has been proven decidable by nobody yet",
            "Contrary to the paper",
        ),
        (
            "Il est faux que la conjecture de Collatz a été démontrée décidable.",
            "la conjecture de Collatz a été démontrée décidable",
            "Il est faux que",
        ),
        (
            "Contrairement à ce que dit l'article la conjecture a été démontrée en 2007.",
            "la conjecture a été démontrée en 2007",
            "Contrairement à ce que dit l'article",
        ),
        (
            "On n'a jamais montré que la conjecture de Collatz est décidable.",
            "montré que la conjecture de Collatz est décidable",
            "On n'a jamais",
        ),
    ],
)
def test_a_span_negated_or_distanced_by_its_sentence_is_quoted_out_of_context(
    document: str, quote: str, distancing: str
) -> None:
    citation = check_citation("A-R1-E1", quote, _doc(document))
    assert citation.verdict == "out_of_context"
    assert not citation.is_quoted and citation.is_located
    assert citation.distancing == distancing
    assert citation.sentence.startswith(distancing)
    assert citation.context_before + citation.located + citation.context_after == citation.sentence


def test_an_honest_quote_keeps_its_sentence_and_a_negation_in_another_clause_does_not_count() -> (
    None
):
    document = (
        "Dr. Lagarias et al. surveyed the problem. Although no proof exists for all n, it has "
        "been verified that all numbers up to 2^68 reach one. Later work extends this."
    )
    quote = "it has been verified that all numbers up to 2^68 reach one"
    citation = check_citation("A-R1-E1", quote, _doc(document))
    assert citation.verdict == "quoted", citation.note
    assert citation.context_before == "Although no proof exists for all n, "
    assert citation.context_after == "."
    assert citation.sentence.startswith("Although no proof")


def test_the_sentence_is_capped_on_both_sides() -> None:
    long_before = "word " * 80
    document = f"{long_before}the measured effect was large in every cohort we followed {'x ' * 90}"
    match = locate_quote("the measured effect was large in every cohort", document)
    assert match.found
    assert match.start - match.context_start <= 150 and match.context_end - match.end <= 150


@pytest.mark.parametrize(
    ("document", "quote"),
    [
        (
            "Overall the measured error was ninety percent in the final trial run of the study.",
            "the measured error was nineteen percent in the final trial run of the study",
        ),
        (
            "The cluster ran 1e6 iterations per second during the whole benchmark campaign.",
            "The cluster ran 1e9 iterations per second during the whole benchmark campaign",
        ),
        (
            "The system doesn't handle the large inputs that we tested in the benchmark suite.",
            "The system does handle the large inputs that we tested in the benchmark suite",
        ),
        (
            "Prices decreased sharply in every region of the country over the last decade.",
            "Prices increased sharply in every region of the country over the last decade",
        ),
        (
            "Le taux n'est plus élevé que prévu dans toutes les régions étudiées cette année.",
            "Le taux est plus élevé que prévu dans toutes les régions étudiées cette année",
        ),
        (
            "Les auteurs ont compté vingt-neuf cas confirmés dans les trois hôpitaux de la ville.",
            "Les auteurs ont compté dix-neuf cas confirmés dans les trois hôpitaux de la ville",
        ),
    ],
)
def test_a_near_match_never_changes_a_number_a_negation_or_a_direction(
    document: str, quote: str
) -> None:
    citation = check_citation("A-R1-E1", quote, _doc(document))
    assert citation.verdict == "quote_not_found"
    assert "other numbers, negations or direction words" in citation.note


def test_numbers_compare_as_numbers_and_a_near_match_earns_nothing() -> None:
    document = "Overall the measured error was nineteen percent in the final trial run of the study"
    citation = check_citation(
        "A-R1-E1",
        "the measured error was 19 percent in the final trial run of the study",
        _doc(document),
    )
    assert citation.verdict == "near_match"
    assert citation.located.startswith("the measured error was nineteen percent")
    assert not citation.is_quoted and citation.is_located


@pytest.mark.parametrize(
    ("quote", "why"),
    [
        ("the results show that", "too short"),
        ("it is one of the most", "too generic"),
    ],
)
def test_a_short_or_generic_quote_anchors_nothing(quote: str, why: str) -> None:
    document = "In short the results show that it is one of the most studied problems in arithmetic"
    citation = check_citation("A-R1-E1", quote, _doc(document))
    assert citation.verdict == "quote_not_found" and why in citation.note


def test_perplexitys_citations_only_placeholder_is_argues_words_not_the_sources() -> None:
    placeholder = "Cited by Perplexity as source [1]"
    for extra in ({"filler": True}, {}):  # as recorded now, and in records before the flag
        registry = _doc(placeholder, source="perplexity", title="https://example.org/x", **extra)
        citation = check_citation("A-R1-E1", "Cited by Perplexity as source [1]", registry)
        assert citation.verdict == "quote_not_found", extra


def test_a_byline_argue_wrote_is_shown_but_never_quotable() -> None:
    byline = "Kurtz, Simon, Green (2007): "
    snippet = byline + "We study iteration of the map on residue classes and bound its cycles."
    registry = _doc(snippet, byline=byline.strip())
    bylined = check_citation("A-R1-E1", "Kurtz, Simon, Green (2007): We study iteration", registry)
    assert bylined.verdict == "quote_not_found"
    body = check_citation("A-R1-E1", "We study iteration of the map on residue classes", registry)
    assert body.verdict == "quoted"
    assert snippet[body.start : body.end] == "We study iteration of the map on residue classes"


def test_a_result_that_echoes_its_query_is_kept_but_never_quotable() -> None:
    query = "Kurtz 2007 proved the Collatz conjecture decidable"
    echo = "Search results for Kurtz 2007 proved the Collatz conjecture decidable"
    assert echoes_query(query, "Kurtz 2007 Collatz decidable", echo)
    assert not echoes_query(
        query,
        "On the 3x+1 problem",
        "We survey the Collatz conjecture, its generalisations and known results on "
        "undecidability of related iterations by Conway.",
    )
    registry = _doc(echo, query=query, echoes_query=True)
    citation = check_citation(
        "A-R1-E1", "Kurtz 2007 proved the Collatz conjecture decidable", registry
    )
    assert citation.verdict == "quote_not_found"
    assert "only repeats the query it answered" in citation.note


def test_distancing_words_look_at_the_spans_own_clause_for_plain_negations() -> None:
    assert distancing_words("Although no proof exists for all n, it was verified that ") == ""
    assert distancing_words("It was never shown that ") == "It was never shown that"
    assert distancing_words("Scientists didn't find that ") == "Scientists didn't find that"
    assert distancing_words("Nobody disputes that ") == "Nobody disputes that"  # cautious


def test_cjk_quotes_are_matched_by_character() -> None:
    document = "近年来脱碳技术的发展非常迅速。其他内容。"
    citation = check_citation("A-R1-E1", "脱碳技术的发展非常迅速", _doc(document))
    assert citation.verdict == "quoted"
    assert citation.sentence == "近年来脱碳技术的发展非常迅速。"


def test_finding_the_sentence_reads_a_bounded_window_at_each_full_stop(monkeypatch) -> None:
    """Linear on hostile text: each full stop's abbreviation check reads at most 41 characters
    (reading the whole text before it took 2.3 s on 20 KB of "a.a. "). Counted, not timed.
    Teeth: ``head = text[: match.start() + 1]`` again fails."""
    from argue.grounding import quotes

    seen: list[int] = []
    real = quotes._LAST_WORD

    class Counting:
        def search(self, text: str):  # type: ignore[no-untyped-def]
            seen.append(len(text))
            return real.search(text)

    monkeypatch.setattr(quotes, "_LAST_WORD", Counting())
    text = "a.a. " * 4000 + "the end of the long hostile text here"
    quotes.sentence_bounds(text, len(text) - 4, len(text))
    assert seen and max(seen) <= 41
