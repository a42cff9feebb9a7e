"""Code's own words in the debate's language (issue 9 item 3)."""

from __future__ import annotations

import pytest

from argue.domain import Failure
from argue.records.labels import Labels, label
from argue.records.reasons import failure_sentence
from argue.text.language import detect_language


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("Meilleure approche pour l'alignement de l'AGI", "fr"),
        ("Faut-il utiliser des microservices ou un monolithe ?", "fr"),
        ("La conjecture de Collatz est-elle décidable ?", "fr"),
        ("Is the Collatz conjecture decidable?", "en"),
        ("Microservices or a monolith for a team of five?", "en"),
        ("Should we rewrite it in Rust?", "en"),
    ],
)
def test_the_language_comes_from_the_question(question: str, lang: str) -> None:
    assert detect_language(question) == lang


def test_labels_read_both_languages() -> None:
    # every key in every language: tests/records/test_label_catalog.py
    assert Labels("fr").agreements == "Points d'accord"
    assert Labels("xx").agreements == "Points of agreement"  # unknown: English
    with pytest.raises(AttributeError):
        _ = Labels("en").no_such_label


def test_failure_sentences_speak_the_debate_language() -> None:
    failure = Failure(round=1, phase="research", kind="refused", what="brave", reason="no key")
    assert failure_sentence(failure) == "brave: refused — nothing happened (no key)."
    # French: a step and a reason code does not know are quoted (they may be a service's words)
    assert (
        failure_sentence(failure, "fr")
        == "«\u00a0brave\u00a0»\u00a0: refusé — rien ne s'est passé («\u00a0no key\u00a0»)."
    )
    assert label("partial_missing", "fr", name="Embry", rounds="2") == (
        "Embry n'a produit aucun argument au(x) round(s) 2"
    )
