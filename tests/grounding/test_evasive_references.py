"""References in every evasive form, English and French (issue 37, item 2): each is found, none
verifies unless a retrieved document's own metadata or identifier matches, and an author–year
needs the surname as a person's name beside the year.

Teeth (each seen failing when broken on purpose): ``_find_prose_author_years`` not yielded (the
"2007 study by Kurtz", "étude de Kurtz parue en 2007", "selon Kurtz en 2007" and theorem
rows); ``_MARKER_RE``/``_NUMBERED_RE``/``_JOURNAL_RE`` not run (their rows); the DOI body
without ``\\s{0,3}`` around its slash (the spaced-DOI row); ``_SCHEMES`` back to http(s) (the
ftp/hxxps rows); ``_find_defanged``/``_find_bare_hosts`` not yielded (their rows);
``_lowercase_surname`` returning None (the lowercase row); ``_person_with_year`` back to "any
year in the sentence" (the Kurtz Street test).
"""

from __future__ import annotations

import pytest

from argue.grounding import DocumentRef, ReferenceIndex, find_references

FORMS = [
    ("According to a 2007 study by Kurtz, the map halts.", "author_year", "kurtz|2007"),
    ("A study by Kurtz in 2007 showed that the map halts.", "author_year", "kurtz|2007"),
    ("See doi: 10.9999 / kurtz.2007 for the proof.", "doi", "10.9999/kurtz.2007"),
    ("Ibid., p. 4 has the bound.", "marker", "ibid."),
    ("As shown op. cit., the map halts.", "marker", "op. cit."),
    ("Kurtz (n.d.) says so.", "marker", "n.d."),
    ("The map halts.[^1]", "numbered", "[^1]"),
    ("The map halts [12].", "numbered", "[12]"),
    ("Kurtz [19] proved it.", "numbered", "[19]"),
    ("Kurtz (in press) proves it.", "marker", "(in press)"),
    ("Kurtz (forthcoming) proves it.", "marker", "(forthcoming)"),
    ("Kurtz '07 proved it.", "author_year", "kurtz|2007"),
    ("Kurtz (2007: 12) proved it.", "author_year", "kurtz|2007"),
    ("as kurtz (2007) proved, the map halts", "author_year", "kurtz|2007"),
    ("the Green–Kurtz theorem (2007) says so", "author_year", "green|2007"),
    ("Ann. Math. 190(3):1-45 has it.", "journal", "190(3):1-45"),
    ("ISBN 978-3-16-148410-0 has it.", "isbn", "9783161484100"),
    ("PMID: 12345678 shows it.", "pmid", "12345678"),
    ("ftp://example.org/kurtz.pdf has it.", "url", "example.org/kurtz.pdf"),
    ("hxxps://fabricated.org/paper has it.", "url", "fabricated.org/paper"),
    ("see fabricated[.]org/paper for it", "url", "fabricated.org/paper"),
    ("see fabricated-journal.org for more", "url", "fabricated-journal.org"),
    ("D'après une étude de Kurtz parue en 2007, la suite s'arrête.", "author_year", "kurtz|2007"),
    ("Kurtz (sous presse) le montre.", "marker", "(sous presse)"),
    ("Kurtz (à paraître) le montre.", "marker", "(à paraître)"),
    ("Voir [12].", "numbered", "[12]"),
    ("Selon Kurtz en 2007, la suite s'arrête.", "author_year", "kurtz|2007"),
    ("Kurtz et collab. (2007) l'ont montré.", "author_year", "kurtz|2007"),
    ("Le théorème de Kurtz (2007) le montre.", "author_year", "kurtz|2007"),
]


@pytest.mark.parametrize(("text", "kind", "key"), FORMS)
def test_each_evasive_form_is_found_and_verifies_nothing_retrieved(
    text: str, kind: str, key: str
) -> None:
    refs = [(r.kind, r.key) for r in find_references(text)]
    assert (kind, key) in refs, refs
    unrelated = DocumentRef(
        evidence_id="A-R1-E1",
        title="Iteration of the 3x+1 map",
        url="https://example.org/collatz",
        snippet="We study iteration of the 3x+1 map on residue classes.",
        authors=("Jeffrey Lagarias",),
        year=2010,
    )
    index = ReferenceIndex([unrelated])
    assert index.unverified(text), text


def test_an_author_year_matches_only_a_person_beside_the_year() -> None:
    bakery = DocumentRef(
        evidence_id="A-R1-E1",
        title="Local news",
        snippet="The Kurtz Street bakery opened in 2007. Kurtz Inc. was founded in 2007 too.",
    )
    person = DocumentRef(
        evidence_id="A-R1-E2",
        title="Kurtz 2007",  # a title word, not a citation
        snippet="In a survey, Kurtz showed in 2007 that the map halts on residue classes.",
    )
    assert ReferenceIndex([bakery]).unverified("Kurtz (2007) proved it.")
    titled = DocumentRef(evidence_id="A-R1-E3", title="Kurtz 2007 results", snippet="No names.")
    assert ReferenceIndex([titled]).unverified("Kurtz (2007) proved it.")
    assert not ReferenceIndex([bakery, person]).unverified("Kurtz (2007) proved it.")


def test_an_isbn_or_pmid_verifies_only_through_the_documents_own_identifier() -> None:
    book = DocumentRef(
        evidence_id="A-R1-E1",
        title="A book",
        snippet="Cites ISBN 978-3-16-148410-0 in passing.",
        identifiers=("isbn:9783161484100",),
    )
    mentioned = DocumentRef(
        evidence_id="A-R1-E2", title="Other", snippet="See ISBN 978-0-00-000000-2."
    )
    index = ReferenceIndex([book, mentioned])
    assert not index.unverified("ISBN 978-3-16-148410-0 has it.")
    assert index.unverified("ISBN 978-0-00-000000-2 has it.")


@pytest.mark.parametrize(
    "prose",
    [
        "The committee (2019) met twice and the crisis (2008) hit hard.",
        "Files like notes.md and run.sh are not hosts; nor is e.g. or i.e.",
        "The interval [0, 1] and the pair (3, 4) are not references.",
        "La commission (2019) s'est réunie deux fois.",
        "Smith said so in 2019, and Jones agreed a year later.",
    ],
)
def test_ordinary_prose_stays_unmarked(prose: str) -> None:
    assert find_references(prose) == []
