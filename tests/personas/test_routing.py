from __future__ import annotations

import pytest

from argue.domain import BRIDGES, Persona
from argue.personas import (
    NoColleagueError,
    PersonaCatalog,
    load_catalog,
    route_colleague,
    select_personas,
)
from argue.personas.keywords import match_keywords, tokenise


@pytest.fixture
def catalog() -> PersonaCatalog:
    return load_catalog()


def make_persona(
    name: str, expertise: list[str], dominant: str, colleagues: list[str] | None = None
) -> Persona:
    bridges = {bridge: (0.9 if bridge == dominant else 0.3) for bridge in BRIDGES}
    return Persona(
        name=name,
        display_name=name.capitalize(),
        role="tester",
        lens="testing",
        expertise=expertise,
        style="plain",
        bridges=bridges,
        colleagues=colleagues or [],
    )


def catalog_of(*personas: Persona) -> PersonaCatalog:
    return PersonaCatalog(
        {persona.name: persona for persona in personas},
        {persona.name: "builtin" for persona in personas},
    )


def test_tokenise_folds_case_accents_punctuation_and_plurals() -> None:
    assert tokenise("Proofs, THEORIES & Théorèmes!") == ["proof", "theory", "theoreme"]
    assert tokenise("l'algorithme") == ["algorithme"]  # French elision dropped (argue.text)
    assert tokenise("analysis of bus") == ["analysis", "of", "bus"]


def test_multi_word_keywords_match_only_as_consecutive_words() -> None:
    keywords = ["memory safety", "proof"]
    assert match_keywords(tokenise("Memory-safety proofs"), keywords) == keywords
    assert match_keywords(tokenise("safety of memory"), keywords) == []


def test_same_question_gives_same_selection_and_names_matched_keywords(
    catalog: PersonaCatalog,
) -> None:
    first = select_personas("Is there a proof of the Collatz conjecture?", catalog)
    second = select_personas("Is there a proof of the Collatz conjecture?", catalog)
    assert first.names() == second.names() == ["embry", "brandon"]
    assert first.reason == second.reason
    assert "embry matched proof, conjecture, collatz (3)" in first.reason
    assert "brandon matched collatz (1)" in first.reason
    assert first.matches["embry"] == ["proof", "conjecture", "collatz"]


def test_different_topics_route_to_different_personas(catalog: PersonaCatalog) -> None:
    security = select_personas("rust memory safety exploits", catalog)
    maths = select_personas("collatz conjecture proof", catalog)
    assert set(security.names()) == {"horus", "vesper"}
    assert maths.names() == ["embry", "brandon"]
    assert "memory safety" in security.reason and "exploit" in security.reason


def test_french_question_with_technical_words_still_routes(catalog: PersonaCatalog) -> None:
    selection = select_personas("La conjecture de Collatz admet-elle une preuve ?", catalog)
    assert selection.names() == ["embry", "brandon"]
    assert "preuve" in selection.reason


def test_french_j_ai_is_the_verb_not_artificial_intelligence(catalog: PersonaCatalog) -> None:
    from argue.personas.keywords import match_keywords, tokenise

    horus = catalog.get("horus")
    verb = "Je n'ai pas d'avis : ai-je tort de penser que j'ai raison sur les impôts ?"
    assert "ai" not in match_keywords(tokenise(verb), horus.expertise)
    # AI as a topic still routes, in English and in French.
    assert "ai" in match_keywords(tokenise("Will AI replace programmers?"), horus.expertise)
    assert "horus" in select_personas("L'IA et l'informatique", catalog).names()


def test_nothing_matched_uses_the_fixed_default_order(catalog: PersonaCatalog) -> None:
    selection = select_personas("what is love?", catalog, count=3)
    assert selection.names() == ["embry", "horus", "brandon"]
    assert selection.reason.startswith("no expertise keyword matched the question")


def test_empty_seats_go_to_colleagues_then_the_default_order_and_said_so(
    catalog: PersonaCatalog,
) -> None:
    selection = select_personas("Should we raise the tax?", catalog)
    assert selection.names() == ["mirela", "lucien"]  # lucien: mirela's first colleague
    assert "mirela matched tax (1)" in selection.reason
    assert "lucien as mirela's colleague (no other persona matched)" in selection.reason

    lone = catalog_of(
        make_persona("alpha", ["proof"], "precision", colleagues=["beta"]),
        make_persona("beta", ["lemma"], "stealth"),
        make_persona("embry", ["orbit"], "precision"),
        make_persona("gamma", ["lemma"], "loyalty"),
    )
    selection = select_personas("a proof", lone, count=4)
    assert selection.names() == ["alpha", "beta", "embry", "gamma"]
    assert selection.reason == (
        "keyword routing: alpha matched proof (1); beta as alpha's colleague; "
        "embry, gamma from the default order (no other persona matched)"
    )


def test_a_tie_prefers_a_persona_with_a_different_dominant_bridge() -> None:
    catalog = catalog_of(
        make_persona("alpha", ["proof"], "precision"),
        make_persona("beta", ["proof"], "precision"),
        make_persona("gamma", ["proof"], "stealth"),
    )
    selection = select_personas("a proof", catalog, count=2)
    assert selection.names() == ["alpha", "gamma"]
    assert "dominant bridge is not yet represented" in selection.reason


def test_a_higher_score_beats_bridge_diversity() -> None:
    catalog = catalog_of(
        make_persona("alpha", ["proof", "lemma"], "precision"),
        make_persona("beta", ["proof", "lemma"], "precision"),
        make_persona("gamma", ["proof"], "stealth"),
    )
    assert select_personas("a proof and a lemma", catalog, count=2).names() == ["alpha", "beta"]


def test_count_must_fit_the_catalog(catalog: PersonaCatalog) -> None:
    with pytest.raises(ValueError, match=f"only {len(catalog)} known"):
        select_personas("proof", catalog, count=len(catalog) + 1)
    with pytest.raises(ValueError, match="at least 1"):
        select_personas("proof", catalog, count=0)


def test_colleague_routing_is_keyword_based_and_deterministic(catalog: PersonaCatalog) -> None:
    embry = catalog.get("embry")
    question = "Quel est l'angle de complexité informatique sur Collatz ?"
    first = route_colleague(question, embry, catalog)
    second = route_colleague(question, embry, catalog)
    assert first[0].name == second[0].name == "brandon"
    assert first[1] == second[1]
    assert "matched collatz, complexité" in first[1]

    horus, reason = route_colleague("how expensive is this exploit?", catalog.get("horus"), catalog)
    assert horus.name == "vesper"
    assert "exploit" in reason


def test_colleague_routing_respects_exclusions_and_falls_back_to_first_listed(
    catalog: PersonaCatalog,
) -> None:
    embry = catalog.get("embry")
    colleague, _ = route_colleague("collatz complexity", embry, catalog, exclude=["Brandon"])
    assert colleague.name == "horus"
    colleague, reason = route_colleague("what is love?", embry, catalog)
    assert colleague.name == embry.colleagues[0]
    assert "first listed colleague" in reason


def test_no_colleague_left_raises_a_clear_error(catalog: PersonaCatalog) -> None:
    embry = catalog.get("embry")
    with pytest.raises(NoColleagueError, match="embry has no colleague to ask"):
        route_colleague("proof", embry, catalog, exclude=embry.colleagues)
