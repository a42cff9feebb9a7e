"""References in model free text: detection (kind, exact span, key) and matching to documents.

How to check these tests have teeth: make ``ReferenceIndex.resolve`` return
``Resolution(True, None, "")`` for everything, or make ``find_references`` return ``[]``, and
run ``.venv/bin/python -m pytest tests/grounding -q``: every unverified case, every ``why`` and
every ``evidence_id`` assertion fails in the first case, every detection test in the second.
Both were done once when this file was written.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argue.grounding import (
    DocumentRef,
    Reference,
    ReferenceIndex,
    Resolution,
    find_references,
)


def only_reference(text: str) -> Reference:
    refs = find_references(text)
    assert len(refs) == 1, refs
    return refs[0]


# --------------------------------------------------------------------------------------------
# Detection
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "written", "key"),
    [
        ("As Tao (2019) proved, it holds.", "author_year", "Tao (2019)", "tao|2019"),
        ("Tao 2019 showed it.", "author_year", "Tao 2019", "tao|2019"),
        ("It holds (Tao, 2019).", "author_year", "Tao, 2019", "tao|2019"),
        ("Tao et al. (2019) found", "author_year", "Tao et al. (2019)", "tao|2019"),
        ("as shown (Tao et al., 2019)", "author_year", "Tao et al., 2019", "tao|2019"),
        ("see Smith & Jones, 2021.", "author_year", "Smith & Jones, 2021", "smith|2021"),
        ("Smith and Jones (2021) argue", "author_year", "Smith and Jones (2021)", "smith|2021"),
        ("(Smith, Jones & Lee 2020)", "author_year", "Smith, Jones & Lee 2020", "smith|2020"),
        ("by van der Waals (1873).", "author_year", "van der Waals (1873)", "van der waals|1873"),
        ("O'Neil (2016) warns", "author_year", "O'Neil (2016)", "o'neil|2016"),
        ("Erdős (1947) proved", "author_year", "Erdős (1947)", "erdős|1947"),
        ("Lévy-Leblond 1999 wrote", "author_year", "Lévy-Leblond 1999", "lévy-leblond|1999"),
        ("Tao (2019a) and", "author_year", "Tao (2019a)", "tao|2019"),
        ("Tao's 2019 paper", "author_year", "Tao's 2019", "tao|2019"),
        ("Tao (2019, p. 4) says", "author_year", "Tao (2019, p. 4)", "tao|2019"),
        ("IPCC (2021) projects", "author_year", "IPCC (2021)", "ipcc|2021"),
        (
            "Dupont et Martin (2018) montrent",
            "author_year",
            "Dupont et Martin (2018)",
            "dupont|2018",
        ),
        ("However, Smith and Jones (2020)", "author_year", "Smith and Jones (2020)", "smith|2020"),
        ("see https://example.org/paper", "url", "https://example.org/paper", "example.org/paper"),
        (
            "at www.Example.org/a/?utm_source=x&b=2&a=1#part now",
            "url",
            "www.Example.org/a/?utm_source=x&b=2&a=1#part",
            "example.org/a?a=1&b=2",
        ),
        ("doi:10.1234/abcd.5678 says", "doi", "doi:10.1234/abcd.5678", "10.1234/abcd.5678"),
        ("DOI 10.1234/ABCD.5678 says", "doi", "DOI 10.1234/ABCD.5678", "10.1234/abcd.5678"),
        ("bare 10.1234/abcd.5678 too", "doi", "10.1234/abcd.5678", "10.1234/abcd.5678"),
        ("arXiv:2101.00001v2 shows", "arxiv", "arXiv:2101.00001v2", "2101.00001"),
        ("arXiv 2101.00001 shows", "arxiv", "arXiv 2101.00001", "2101.00001"),
        ("arXiv:hep-th/9901001 shows", "arxiv", "arXiv:hep-th/9901001", "hep-th/9901001"),
        ("per A-R2-E3, it holds", "evidence_id", "A-R2-E3", "A-R2-E3"),
        ("contra A2.c1, it fails", "claim_id", "A2.c1", "A2.c1"),
    ],
)
def test_each_shape_is_found_with_its_exact_span_and_key(
    text: str, kind: str, written: str, key: str
) -> None:
    ref = only_reference(text)
    assert (ref.kind, ref.text, ref.key) == (kind, written, key)
    assert ref.start == text.index(written)
    assert ref.end == ref.start + len(written)


@pytest.mark.parametrize(
    "text",
    [
        "In 2019 the model improved.",
        "Since 2020, nothing changed.",
        "By (2021) it was over.",
        "The 2019 survey says otherwise.",
        "Round 2 (2019) went badly.",
        "March 2020 was hard.",
        "COVID-19 spread quickly.",
        "En 2019, rien. Depuis 2020, peu. Dès 2021 enfin. Janvier 2022 aussi.",
        "D'ici 2030, tout change.",
        "the result 21.01 is a decimal, as is 3.14 and 2101.5",
        "Tao proved 12019 cases and 2019.5 more, in 2019",
        "Smith 1450 and Smith 2150 are out of range",
        "COP 2021 met in Glasgow.",
        "a-r2-e3 and a2.C1 are not ids; neither is AB-R2-E3",
    ],
)
def test_common_words_dates_and_numbers_are_not_references(text: str) -> None:
    assert find_references(text) == []


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("see https://example.org/paper.", "https://example.org/paper"),
        ("(https://example.org/a), then", "https://example.org/a"),
        ("is it https://example.org/a?!", "https://example.org/a"),
        ("**https://example.org/a**", "https://example.org/a"),
        (
            "(see https://en.wikipedia.org/wiki/Set_(mathematics)).",
            "https://en.wikipedia.org/wiki/Set_(mathematics)",
        ),
        ('<a href="https://example.org/q">', "https://example.org/q"),
        ("(doi:10.1002/(SICI)1097-4636(199711)36:2).", "doi:10.1002/(SICI)1097-4636(199711)36:2"),
        ("it is doi:10.1234/abcd.5678.", "doi:10.1234/abcd.5678"),
    ],
)
def test_trailing_punctuation_is_stripped_unless_the_reference_opened_it(
    text: str, written: str
) -> None:
    assert only_reference(text).text == written


def test_markdown_link_with_two_urls_gives_two_references() -> None:
    refs = find_references("[https://a.org](https://a.org/b).")
    assert [ref.text for ref in refs] == ["https://a.org", "https://a.org/b"]


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        ("read https://doi.org/10.1000/XYZ123.", "doi", "10.1000/xyz123"),
        ("read https://dx.doi.org/10.1000/xyz123 now", "doi", "10.1000/xyz123"),
        ("read https://arxiv.org/abs/2101.00001v2 now", "arxiv", "2101.00001"),
        ("read https://arxiv.org/pdf/2101.00001v3.pdf now", "arxiv", "2101.00001"),
        ("read http://arxiv.org/abs/hep-th/9901001 now", "arxiv", "hep-th/9901001"),
        ("read https://arxiv.org/list/math.NT/recent now", "url", "arxiv.org/list/math.NT/recent"),
    ],
)
def test_an_id_inside_its_own_url_is_reported_once_as_the_specific_kind(
    text: str, kind: str, key: str
) -> None:
    ref = only_reference(text)
    assert (ref.kind, ref.key) == (kind, key)
    assert ref.text.startswith("http") and ref.text == text[ref.start : ref.end]


def test_a_doi_inside_another_url_is_part_of_that_url() -> None:
    ref = only_reference("see https://link.springer.com/article/10.1007/s1234 today")
    assert ref.kind == "url"
    assert ref.text == "https://link.springer.com/article/10.1007/s1234"


def test_mixed_text_gives_every_reference_in_order() -> None:
    text = (
        "Tao (2019) and A-R1-E2 support A2.c1; see doi:10.1234/x.y, arXiv:2101.00001 and "
        "https://example.org/p."
    )
    refs = find_references(text)
    assert [(ref.kind, ref.text) for ref in refs] == [
        ("author_year", "Tao (2019)"),
        ("evidence_id", "A-R1-E2"),
        ("claim_id", "A2.c1"),
        ("doi", "doi:10.1234/x.y"),
        ("arxiv", "arXiv:2101.00001"),
        ("url", "https://example.org/p"),
    ]


FRAGMENTS = [
    "Tao (2019)",
    "Smith & Jones, 2021",
    "(Smith, Jones & Lee 2020)",
    "van der Waals (1873)",
    "https://example.org/a_(b)",
    "https://doi.org/10.1000/x",
    "www.x.org",
    "doi:10.1234/a.b",
    "arXiv:2101.00001v2",
    "https://arxiv.org/abs/2101.00001",
    "A-R2-E3",
    "A2.c1",
    "In 2019",
    "et al.",
    " ",
    ", ",
    "(",
    ")",
    ".",
    "](",
    "’s",
]


@given(st.lists(st.one_of(st.text(max_size=12), st.sampled_from(FRAGMENTS)), max_size=12))
def test_spans_are_exact_sorted_and_never_overlap(parts: list[str]) -> None:
    text = "".join(parts)
    refs = find_references(text)
    for ref in refs:
        assert text[ref.start : ref.end] == ref.text
        assert ref.text and ref.key
    for before, after in itertools.pairwise(refs):
        assert before.end <= after.start


# --------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------

DOCUMENTS = [
    DocumentRef(
        evidence_id="A-R1-E1",
        title="Long arithmetic progressions",
        url="https://arxiv.org/pdf/2101.00001v1.pdf",
        authors=("Terence Tao",),
        year=2019,
    ),
    DocumentRef(
        evidence_id="A-R1-E2",
        title="A survey of rigidity",
        url="https://www.example.org/paper/?utm_source=feed",
        snippet="Published as doi:10.1234/ABCD.5678 in a journal.",
        identifiers=("doi:10.1234/ABCD.5678",),
    ),
    DocumentRef(
        evidence_id="A-R1-E3",
        title="On the continuity of the gaseous and liquid states",
        authors=("J. D. van der Waals",),
        year=1873,
    ),
    DocumentRef(
        evidence_id="A-R1-E4",
        title="Random graphs",
        url="https://en.wikipedia.org/wiki/Set_(mathematics)",
        snippet="Erdős introduced the probabilistic method in 1947.",
    ),
    DocumentRef(
        evidence_id="A-R2-E1",
        title="Youth surveys",
        snippet="Most young people in 2019 said so. See arXiv:hep-th/9901001.",
        authors=("Paul Erdos",),
        year=1959,
        identifiers=("arXiv:hep-th/9901001",),
    ),
]


@pytest.fixture
def index() -> ReferenceIndex:
    return ReferenceIndex(
        DOCUMENTS,
        claim_ids=["A2.c1", "B2.c3"],
        model_written={"A-R1-E9": "testimony", "A-R2-E9": "recall", "A-R3-E9": "label"},
    )


@pytest.mark.parametrize(
    ("text", "evidence_id"),
    [
        ("http://example.org/paper", "A-R1-E2"),
        ("https://EXAMPLE.org/paper/#top", "A-R1-E2"),
        ("www.example.org/paper?fbclid=abc", "A-R1-E2"),
        ("https://en.wikipedia.org/wiki/Set_%28mathematics%29", "A-R1-E4"),
        ("https://en.wikipedia.org/wiki/Set_(mathematics)", "A-R1-E4"),
        ("doi:10.1234/abcd.5678", "A-R1-E2"),
        ("https://doi.org/10.1234/ABCD.5678", "A-R1-E2"),
        ("arXiv:2101.00001", "A-R1-E1"),
        ("https://arxiv.org/abs/2101.00001v3", "A-R1-E1"),
        ("arXiv:hep-th/9901001v2", "A-R2-E1"),
        ("doi:10.48550/arXiv.2101.00001", "A-R1-E1"),
        ("A-R1-E3", "A-R1-E3"),
        ("Tao (2019)", "A-R1-E1"),
        ("Tao et al., 2019", "A-R1-E1"),
        ("van der Waals (1873)", "A-R1-E3"),
        ("Waals 1873", "A-R1-E3"),
        ("Erdős (1959)", "A-R2-E1"),  # accents in the text, none in the authors
        ("Erdos (1947)", "A-R1-E4"),  # none in the text, accents in the snippet
        ("ERDŐS (1947)", "A-R1-E4"),
    ],
)
def test_references_matching_a_document_are_verified_by_it(
    index: ReferenceIndex, text: str, evidence_id: str
) -> None:
    resolution = index.resolve(only_reference(text))
    assert resolution == Resolution(True, evidence_id, f"matches {evidence_id}")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("https://example.org/paper2", "no retrieved document has this URL"),
        ("https://other.org/paper", "no retrieved document has this URL"),
        ("doi:10.1234/abcd.567", "no retrieved document has DOI 10.1234/abcd.567"),
        ("doi:10.1234/abcd.56789", "no retrieved document has DOI 10.1234/abcd.56789"),
        ("arXiv:2101.00002", "no retrieved document is arXiv 2101.00002"),
        ("arXiv:2101.0000", "no retrieved document is arXiv 2101.0000"),
        ("A-R9-E9", "no evidence A-R9-E9 in this debate"),
        ("A-R1-E9", "A-R1-E9 is a colleague's answer (model-written), not a document"),
        ("A-R2-E9", "A-R2-E9 is recalled from memory (model-written), not a document"),
        ("A-R3-E9", "A-R3-E9 is a taxonomy label (model-written), not a document"),
        ("A9.c9", "no claim A9.c9 in this debate"),
        ("Tao (2018)", "A-R1-E1 names Tao, but not the year 2018"),
        ("Young (2019)", "no retrieved document by or about Young from 2019"),
        ("Taon (2019)", "no retrieved document by or about Taon from 2019"),
    ],
)
def test_references_matching_nothing_are_unverified_with_a_reason(
    index: ReferenceIndex, text: str, why: str
) -> None:
    assert index.resolve(only_reference(text)) == Resolution(False, None, why)


def test_an_existing_claim_id_is_verified_without_a_document(index: ReferenceIndex) -> None:
    assert index.resolve(only_reference("B2.c3")) == Resolution(
        True, None, "claim B2.c3 exists in this debate"
    )


def test_an_unknown_provenance_word_is_still_named(index: ReferenceIndex) -> None:
    odd = ReferenceIndex([], model_written={"C-R1-E1": "hunch"})
    resolution = odd.resolve(only_reference("C-R1-E1"))
    assert not resolution.verified
    assert "hunch" in resolution.why and "model-written" in resolution.why


def test_check_and_unverified_follow_the_text(index: ReferenceIndex) -> None:
    text = "Tao (2019) and A-R1-E9 back A2.c1, unlike A9.c9 at https://fake.example/x."
    checked = index.check(text)
    assert [(ref.text, res.verified) for ref, res in checked] == [
        ("Tao (2019)", True),
        ("A-R1-E9", False),
        ("A2.c1", True),
        ("A9.c9", False),
        ("https://fake.example/x", False),
    ]
    assert [ref.text for ref in index.unverified(text)] == [
        "A-R1-E9",
        "A9.c9",
        "https://fake.example/x",
    ]


def test_an_empty_index_verifies_nothing() -> None:
    empty = ReferenceIndex([])
    text = "Tao (2019), A-R1-E1, A2.c1, doi:10.1234/abcd.5678, https://example.org/paper"
    assert len(empty.unverified(text)) == 5


def test_an_id_cannot_be_both_a_document_and_model_written() -> None:
    with pytest.raises(ValueError, match="A-R1-E1"):
        ReferenceIndex(DOCUMENTS, model_written={"A-R1-E1": "testimony"})
