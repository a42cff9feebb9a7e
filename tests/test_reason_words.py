"""This session's new failure reasons read in French too (a French debate's terminal and
documents): the offline hint and the model declining (issue 37 and 40 follow-up).

Teeth: without their shapes in argue/records/reasons.py the French words are quoted English and
this fails.
"""

from __future__ import annotations

from argue.records.reasons import OFFLINE_HINT, note_words


def test_the_offline_hint_and_a_declining_model_read_in_french() -> None:
    offline = note_words("could not look up x.org (boom)" + OFFLINE_HINT, "fr")
    assert offline.endswith(
        "plus interrogée dans ce débat (pas de réseau\u202f? "
        "`--sources library` cherche dans votre propre bibliothèque)"
    )
    assert note_words("the model declined instead of answering (“Sorry”)", "fr") == (
        "le modèle a refusé au lieu de répondre («\u00a0Sorry\u00a0»)"
    )
    declined = "the model declined to judge (“no”)"
    judged = note_words(declined + "; coherence not measured this round", "fr")
    assert judged.startswith("le modèle a refusé de juger («\u00a0no\u00a0»)")
    assert note_words(declined, "en") == declined
