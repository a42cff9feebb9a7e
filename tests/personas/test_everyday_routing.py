"""Automatic persona choice for everyday questions, in English and French (issue 21, item 3).

Teeth: checked by breaking the guarantee on purpose, then restoring it —
* dropping the French keyword forms added for issue 21 (tomas's ``voiture``/``thermique``,
  mirela's ``héritage``/``loyer``/``école``…, hana's ``tabac``/``viande``…) failed 10 tests: 9
  French rows of ``EVERYDAY`` (voitures thermiques, tabac, école, loyers, emplois, kérosène,
  viande…) and ``test_the_issue_questions_say_which_words_matched``;
* emptying ``INFLECTIONS`` (exact words only, as before issue 21) failed 17 tests: the
  sugar-tax rows (mirela is reached only through ``taxed``/``taxer``), the ``hôpitaux`` and
  ``emplois`` rows, the issue's reason (``taxe ("taxer")``), every
  ``test_endings_reach_the_keyword`` case and the one-word-counts-once test;
* removing the four-letter ``_MIN_BASE`` guard failed ``test_an_ending_needs_four_letters_left``
  (``caring`` became ``car``) and the issue's reason.

Routing is keyword matching (``argue.personas.routing``), deterministic, so each row is a fact:
the seats for a pair, who must be among them, and the reason names the words that matched.
"""

from __future__ import annotations

import pytest

from argue.personas import PersonaCatalog, load_catalog, select_personas
from argue.personas.keywords import find_keywords, inflection_bases

# (question, the pair seated, field) — every field in English and in French.
EVERYDAY: list[tuple[str, list[str], str]] = [
    # the issue's three questions
    ("Faut-il taxer davantage les héritages ?", ["mirela", "lucien"], "tax"),
    ("Should we ban petrol cars by 2035?", ["tomas", "mirela"], "transport"),
    ("Faut-il interdire les voitures thermiques en 2035 ?", ["tomas", "mirela"], "transport"),
    # tax
    ("Should inheritance be taxed more heavily?", ["mirela", "lucien"], "tax"),
    ("Should the wealthy pay more taxes?", ["mirela", "lucien"], "tax"),
    ("Faut-il augmenter les impôts des riches ?", ["mirela", "lucien"], "tax"),
    ("Should sugar be taxed?", ["hana", "mirela"], "tax"),  # mirela only through "taxed"
    ("Faut-il taxer le sucre ?", ["hana", "mirela"], "tax"),
    # transport
    ("Should public transport be free?", ["mirela", "tomas"], "transport"),
    ("Les transports en commun doivent-ils être gratuits ?", ["mirela", "tomas"], "transport"),
    ("Should we switch to electric vehicles?", ["tomas", "mirela"], "transport"),
    ("Faut-il passer à la voiture électrique ?", ["tomas", "mirela"], "transport"),
    # health
    ("Should smoking be banned in public places?", ["hana", "lucien"], "health"),
    ("Faut-il interdire le tabac ?", ["hana", "lucien"], "health"),
    ("Is the hospital system underfunded?", ["hana", "lucien"], "health"),
    ("Les hôpitaux manquent-ils de moyens ?", ["hana", "lucien"], "health"),
    # energy
    ("Is nuclear energy safe?", ["tomas", "mirela"], "energy"),
    ("L'énergie nucléaire est-elle sûre ?", ["tomas", "mirela"], "energy"),
    # software
    ("Is Python better than Java?", ["horus", "embry"], "software"),
    ("Python est-il meilleur que Java ?", ["horus", "embry"], "software"),
    ("Should we rewrite our legacy code?", ["horus", "odile"], "software"),
    ("Faut-il migrer notre base de données vers le cloud ?", ["odile", "horus"], "software"),
    # law
    ("Should cannabis be legalised?", ["hana", "lucien"], "law"),
    ("Faut-il légaliser le cannabis ?", ["hana", "lucien"], "law"),
    ("Should judges be elected?", ["lucien", "noor"], "law"),
    ("Les juges doivent-ils être élus ?", ["lucien", "noor"], "law"),
    # education
    ("Should phones be banned in schools?", ["mirela", "noor"], "education"),
    ("Faut-il interdire les téléphones portables à l'école ?", ["mirela", "noor"], "education"),
    ("Should university be free?", ["mirela", "lucien"], "education"),
    ("L'université devrait-elle être gratuite ?", ["mirela", "lucien"], "education"),
    # housing
    ("Is rent control a good idea?", ["mirela", "lucien"], "housing"),
    ("Faut-il encadrer les loyers ?", ["mirela", "lucien"], "housing"),
    # AI
    ("Will AI take our jobs?", ["horus", "mirela"], "AI"),
    ("L'IA va-t-elle prendre nos emplois ?", ["horus", "mirela"], "AI"),
    # mathematics
    ("Is the Collatz conjecture decidable?", ["embry", "brandon"], "mathematics"),
    ("Les mathématiques sont-elles découvertes ou inventées ?", ["embry", "brandon"], "maths"),
    # climate
    ("Should airlines pay for their pollution?", ["tomas", "mirela"], "climate"),
    ("Faut-il taxer le kérosène des avions ?", ["tomas", "mirela"], "climate"),
    # food
    ("Should we eat less meat to save the planet?", ["hana", "tomas"], "food"),
    ("Faut-il manger moins de viande ?", ["hana", "tomas"], "food"),
    ("Is fast food making us fat?", ["hana", "lucien"], "food"),
    ("La malbouffe nous rend-elle obèses ?", ["hana", "lucien"], "food"),
]

# The persona whose lens covers each field: it must hold a seat for every row of its field.
EXPERT = {
    "tax": "mirela",
    "transport": "tomas",
    "health": "hana",
    "energy": "tomas",
    "software": "horus",
    "law": "lucien",
    "education": "mirela",
    "housing": "mirela",
    "AI": "horus",
    "mathematics": "embry",
    "maths": "embry",
    "climate": "tomas",
    "food": "hana",
}


@pytest.fixture(scope="module")
def catalog() -> PersonaCatalog:
    return load_catalog()


@pytest.mark.parametrize(("question", "pair", "field"), EVERYDAY)
def test_an_everyday_question_seats_its_expert(
    catalog: PersonaCatalog, question: str, pair: list[str], field: str
) -> None:
    selection = select_personas(question, catalog, count=2)
    names = selection.names()
    assert names == pair, selection.reason
    assert len(set(names)) == 2
    assert EXPERT[field] in names, selection.reason
    # one line, naming the words that seated the first persona; never the fallback
    assert "\n" not in selection.reason
    assert selection.reason.startswith(f"keyword routing: {names[0]} matched "), selection.reason
    assert "default order" not in selection.reason
    for keyword in selection.matches[names[0]]:
        assert keyword in selection.reason
    assert select_personas(question, catalog, count=2) == selection  # deterministic


def test_every_field_is_asked_in_english_and_in_french() -> None:
    french_marks = ("Faut-il", "Les ", "L'", "La ", "Un ", "Le ")
    for field in EXPERT:
        questions = [question for question, _, name in EVERYDAY if name == field]
        if field == "maths":  # the French half of "mathematics"
            continue
        if field == "mathematics":
            questions += [question for question, _, name in EVERYDAY if name == "maths"]
        assert any(question.startswith(french_marks) for question in questions), field
        assert any(not question.startswith(french_marks) for question in questions), field


def test_the_issue_questions_say_which_words_matched(catalog: PersonaCatalog) -> None:
    tax = select_personas("Faut-il taxer davantage les héritages ?", catalog)
    assert tax.reason == (
        'keyword routing: mirela matched taxe ("taxer"), héritage (2); '
        "lucien as mirela's colleague (no other persona matched)"
    )
    petrol = select_personas("Should we ban petrol cars by 2035?", catalog)
    assert petrol.reason == (
        "keyword routing: tomas matched car, petrol (2); "
        "mirela as tomas's colleague (no other persona matched)"
    )
    thermal = select_personas("Faut-il interdire les voitures thermiques en 2035 ?", catalog)
    assert thermal.reason.startswith("keyword routing: tomas matched voiture, thermique (2)")


@pytest.mark.parametrize("question", ["What is love?", "Qu'est-ce que l'amour ?", "Et alors ?"])
def test_no_topical_word_gets_the_default_pair_and_says_so(
    catalog: PersonaCatalog, question: str
) -> None:
    selection = select_personas(question, catalog, count=2)
    assert selection.names() == ["embry", "horus"]
    assert selection.reason == (
        "no expertise keyword matched the question; default order: embry, horus"
    )


# ---------------------------------------------------------------- how words reach keywords


@pytest.mark.parametrize(
    ("text", "keyword", "label"),
    [
        ("taxer", "taxe", 'taxe ("taxer")'),
        ("taxed", "taxe", 'taxe ("taxed")'),
        ("taxing", "taxe", 'taxe ("taxing")'),
        ("taxée", "taxe", 'taxe ("taxée")'),
        ("légaliser", "legal", 'legal ("légaliser")'),
        ("legalised", "legal", 'legal ("legalised")'),
        ("legalization", "legal", 'legal ("legalization")'),
        ("hôpitaux", "hôpital", 'hôpital ("hôpitaux")'),
        ("emplois", "emploi", 'emploi ("emplois")'),
        ("pricing", "price", 'price ("pricing")'),
        ("moralement", "moral", 'moral ("moralement")'),
        ("Voitures", "voiture", "voiture"),  # plural and case: an exact match, shown as is
        ("Théorèmes", "théorème", "théorème"),  # accents folded on both sides
    ],
)
def test_endings_reach_the_keyword(text: str, keyword: str, label: str) -> None:
    found = find_keywords(f"Question : {text} ?", [keyword])
    assert [match.label() for match in found] == [label]


def test_an_ending_needs_four_letters_left() -> None:
    assert find_keywords("Is caring for the elderly a duty?", ["car"]) == []
    assert find_keywords("Is the cared-for patient better?", ["car"]) == []
    assert "car" not in inflection_bases("caring")
    assert find_keywords("cars", ["car"])[0].label() == "car"  # the plural still matches
    assert find_keywords("c'est ++ ou --", ["++"]) == []  # a keyword with no word matches nothing


def test_one_word_counts_once_through_an_ending() -> None:
    """``moralement`` is ``moral``, not also ``morale``; an exact keyword wins over an ending."""
    found = find_keywords("Est-ce moralement acceptable ?", ["moral", "morale"])
    assert [match.keyword for match in found] == ["moral"]
    found = find_keywords("Is taxation fair?", ["taxe", "taxation"])
    assert [match.label() for match in found] == ["taxation"]
    # exact keywords still overlap as before (a persona's longer phrase adds to its score)
    found = find_keywords("climate change", ["climate", "climate change"])
    assert [match.keyword for match in found] == ["climate", "climate change"]


def test_look_alikes_are_not_inflections() -> None:
    assert find_keywords("Faut-il voter à droite ?", ["droit"]) == []  # the right, not law
    assert find_keywords("Nos équipements publics", ["équipe"]) == []
    assert find_keywords("Le droit de vote", ["droit"])[0].label() == "droit"


def test_french_car_after_a_comma_is_because(catalog: PersonaCatalog) -> None:
    assert find_keywords("Faut-il lire, car c'est utile ?", ["car"]) == []
    assert [match.keyword for match in find_keywords("Le car scolaire", ["car"])] == ["car"]
    selection = select_personas("Faut-il apprendre le latin, car c'est beau ?", catalog)
    assert selection.names() == ["embry", "horus"]  # nothing topical: the default, said so
    assert selection.reason.startswith("no expertise keyword matched")


def test_the_french_verb_avoir_is_still_not_ai(catalog: PersonaCatalog) -> None:
    selection = select_personas("J'ai une question sur les impôts locaux", catalog)
    assert selection.names()[0] == "mirela"
    assert "horus" not in selection.names() and "ai" not in selection.matches["mirela"]
