"""Code's own words, in the debate's language: headings, markers, failure sentences.

The language is chosen once per debate (``--lang``, else detected from the question) and
recorded in config.json; personas already answer in the question's language, so a French
question gets a French synthesis throughout ("Synthèse du débat", "Points d'accord", …).
"""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["en", "fr"]
LANGUAGES: tuple[Language, ...] = ("en", "fr")

# key -> (English, French)
_LABELS: dict[str, tuple[str, str]] = {
    # synthesis
    "synthesis_title": ("Debate synthesis", "Synthèse du débat"),
    "partial_synthesis": ("Partial synthesis.", "Synthèse partielle."),
    "participants": ("Participants", "Participants"),
    "lens": ("lens", "prisme"),
    "side": ("side", "camp"),
    "rounds": ("Rounds", "Tours"),
    "round": ("Round", "Tour"),
    "incomplete": ("incomplete", "inachevé"),
    "termination": ("Termination", "Fin"),
    "proposition": ("Proposition", "Proposition"),
    "prose_missing": (
        "The prose parts (agreements, disagreements, open questions, conclusion) are missing:",
        "Les parties rédigées (accords, désaccords, questions ouvertes, conclusion) manquent :",
    ),
    "agreements": ("Points of agreement", "Points d'accord"),
    "disagreements": ("Genuine disagreements", "Points de désaccord authentique"),
    "unknown_ids": ("cited ids that do not exist:", "identifiants cités qui n'existent pas :"),
    "crux": ("crux", "nœud"),
    "none_recorded": ("(none recorded)", "(aucun)"),
    "concession_log": ("Concession log", "Journal des concessions"),
    "conceded": ("conceded", "a concédé"),
    "to": ("to", "à"),
    "because": ("because", "parce que"),
    "no_concessions": ("(no concessions)", "(aucune concession)"),
    "declined": ("declined to concede.", "a refusé de concéder."),
    "strongest": ("Strongest arguments", "Arguments les plus forts"),
    "score": ("score", "score"),
    "no_scored_claims": ("(no scored claims)", "(aucune affirmation notée)"),
    "not_ranked": (
        "Not ranked, because they carry references that match no retrieved document, or "
        "because no quote they give was found in the document they cite:",
        "Non classées, car elles portent des références qui ne correspondent à aucun document "
        "trouvé, ou parce qu'aucune de leurs citations n'a été trouvée dans le document cité :",
    ),
    "open_questions": ("Open questions", "Questions ouvertes"),
    "cruxes": (
        "Cruxes: what would change each side's mind",
        "Points décisifs : ce qui ferait changer chaque camp d'avis",
    ),
    "now": ("now", "maintenant"),
    "no_reflections": ("(no reflections recorded)", "(aucune réflexion)"),
    "confidence": ("Confidence", "Confiance"),
    "conclusion": ("Nuanced conclusion", "Conclusion nuancée"),
    "sources": ("Sources", "Sources"),
    "sources_note": (
        "Retrieved documents that a claim quoted (the quote was found in the document; its "
        "words are shown); nothing model-written is listed here.",
        "Documents trouvés et cités par une affirmation (la citation a été trouvée dans le "
        "document ; ses mots sont donnés) ; rien d'écrit par un modèle ici.",
    ),
    "cited_as": ("cited as", "cité comme"),
    "no_documents": ("(no retrieved document was cited)", "(aucun document trouvé n'a été cité)"),
    "answers_cited": (
        "Answers cited (model-written: colleagues, answer engines)",
        "Réponses citées (écrites par un modèle : collègues, moteurs de réponse)",
    ),
    "memories_cited": (
        "Memories cited (model-written, recalled from earlier debates)",
        "Souvenirs cités (écrits par un modèle, issus de débats antérieurs)",
    ),
    "labels_cited": (
        "Taxonomy labels cited (model-written)",
        "Étiquettes de taxonomie citées (écrites par un modèle)",
    ),
    "not_evidence_note": (
        "Not evidence: shown so the reader can see what was leaned on.",
        "Pas des preuves : montrées pour que le lecteur voie sur quoi l'on s'est appuyé.",
    ),
    "what_did_not_work": ("What did not work", "Ce qui n'a pas fonctionné"),
    "debate": ("Debate", "Débat"),
    "model_calls": ("model calls", "appels au modèle"),
    "tokens": ("tokens in/out", "jetons entrée/sortie"),
    "cost": ("cost", "coût"),
    "models": ("Models", "Modèles"),
    "smoke_test": (
        "Smoke-test model. This debate was run by the bundled Gemma 3 270M, a tiny model that "
        "shows argue works end to end; its arguments carry no weight. It is not archived to "
        "shared memory.",
        "Modèle de test. Ce débat a été mené par le Gemma 3 270M fourni, un tout petit modèle qui "
        "montre qu'argue fonctionne de bout en bout ; ses arguments n'ont aucun poids. Il n'est "
        "pas archivé dans la mémoire partagée.",
    ),
    "times": ("times", "fois"),
    "in_all_same_refusal": ("in all, the same refusal", "en tout, le même refus"),
    # transcript
    "transcript_title": ("Debate transcript", "Transcription du débat"),
    "debate_id": ("Debate ID", "Identifiant du débat"),
    "mode": ("Mode", "Mode"),
    "status": ("Status", "Statut"),
    "model": ("Model", "Modèle"),
    "moderator_notes": ("Moderator notes", "Notes du modérateur"),
    "in_progress": ("in progress", "en cours"),
    "research": ("Research", "Recherche"),
    "argument": ("Argument", "Argument"),
    "rebuttal": ("Rebuttal", "Réfutation"),
    "reflection": ("Reflection", "Réflexion"),
    "warrant": ("warrant:", "justification :"),
    "tags": ("tags", "étiquettes"),
    "concedes": ("concedes", "concède"),
    "declined_to_concede": ("declined to concede", "a refusé de concéder"),
    "even_when_asked": ("(even when asked again)", "(même après une seconde demande)"),
    "common_ground": ("common ground", "terrain d'entente"),
    "confidence_lower": ("confidence", "confiance"),
    "would_change": ("would change my mind", "me ferait changer d'avis"),
    "belief_update": ("belief update", "croyance révisée"),
    "score_heading": ("Score", "Score"),
    "not_measured": ("not measured", "non mesuré"),
    "what_did_not_work_round": (
        "What did not work this round",
        "Ce qui n'a pas fonctionné ce tour-ci",
    ),
    "before_first_round": ("Before the first round", "Avant le premier tour"),
    "not_evidence": ("not evidence", "pas une preuve"),
    "dropped": ("dropped (over budget)", "abandonné (au-delà du budget)"),
    "not_opponent_claim": ("not an opponent claim id", "pas une affirmation adverse"),
    # markers (code's own, bold in Markdown)
    "unverified": ("unverified", "non vérifié"),
    "evidence": ("evidence:", "preuves :"),
    "model_written_not_evidence": (
        "model-written, not evidence:",
        "écrit par un modèle, pas une preuve :",
    ),
    "unverified_citations": ("unverified citations:", "citations non vérifiées :"),
    "not_evidence_backed": ("not evidence-backed", "sans preuve à l'appui"),
    "unverified_references": ("unverified references", "références non vérifiées"),
    "quoted": ("quoted:", "citation trouvée :"),
    "refused_by_model": (
        "refused by the model (not an argument)",
        "refus du modèle (pas un argument)",
    ),
    "quote_not_found": ("quote not found", "citation introuvable"),
    "near_match": ("near match", "correspondance approchée"),
    "source_says": ("the source says", "la source dit"),
    "model_wrote": ("the model wrote", "le modèle a écrit"),
    # report (HTML)
    "report_title": ("Debate report", "Rapport du débat"),
    "partial_report": ("Partial report.", "Rapport partiel."),
    "contents": ("Contents", "Sommaire"),
    "argument_map": ("Argument map", "Carte des arguments"),
    "map_note": (
        "Each box is a claim (id, persona, round, score). Arrows start at a persona's rebuttal "
        "and end at the claim it counters or concedes.",
        "Chaque boîte est une affirmation (identifiant, persona, tour, score). Les flèches partent "
        "de la réfutation d'un persona et aboutissent à l'affirmation contestée ou concédée.",
    ),
    "confidence_over_rounds": ("Confidence over rounds", "Confiance au fil des tours"),
    "score_components": ("Score components per round", "Composantes du score par tour"),
    "claims": ("Claims", "Affirmations"),
    "usage_and_cost": ("Usage and cost", "Consommation et coût"),
    "by_model": ("By model", "Par modèle"),
    "calls": ("calls", "appels"),
    "weight": ("weight", "poids"),
    "total": ("total", "total"),
    "edge_refute": ("refutes", "réfute"),
    "edge_undercut": ("undercuts", "sape"),
    "edge_question": ("questions", "questionne"),
    "edge_concede_full": ("concedes", "concède"),
    "edge_concede_partial": ("concedes in part", "concède en partie"),
    "edge_not_counted": ("not counted", "non compté"),
    "conceded_badge": ("conceded", "concédée"),
    "no_such_claim": ("no such claim", "affirmation inexistante"),
    "countered_by": ("countered by", "contestée par"),
    "conceded_by": ("conceded by", "concédée par"),
    "cited_by": ("cited by", "citée par"),
    "nothing_yet": ("(nothing recorded yet)", "(rien d'enregistré pour l'instant)"),
    "component_evidence_quality": ("evidence quality", "qualité des preuves"),
    "component_novelty": ("novelty", "nouveauté"),
    "component_concession_quality": ("concession quality", "qualité des concessions"),
    "component_logical_coherence": ("logical coherence", "cohérence logique"),
    "component_rebuttal_precision": ("rebuttal precision", "précision de la réfutation"),
    "component_confidence_calibration": ("confidence calibration", "calibrage de la confiance"),
    # failure sentences
    "refused_sentence": ("refused — nothing happened", "refusé — rien ne s'est passé"),
    "failed_sentence": ("failed — effect unknown", "échoué — effet inconnu"),
    "debate_failed_sentence": ("could not go on", "n'a pas pu continuer"),
    "cause_rejected": (
        "rejected — the server refused this request",
        "rejeté — le serveur a refusé cette requête",
    ),
    "cause_unavailable": (
        "unavailable — the server did not answer",
        "indisponible — le serveur n'a pas répondu",
    ),
    "cause_crashed": (
        "crashed — the server process died (check its log or dmesg)",
        "planté — le processus du serveur est mort (voir son journal ou dmesg)",
    ),
    "cause_cut_off": (
        "cut off — the answer was incomplete",
        "tronqué — la réponse était incomplète",
    ),
    "cause_invalid_output": (
        "invalid output — the answer did not match what was asked",
        "sortie invalide — la réponse ne correspondait pas à la demande",
    ),
    "cause_refused_by_model": (
        "refused by the model — it declined to answer",
        "refusé par le modèle — il a refusé de répondre",
    ),
    # a stated cost (argue.llm.pricing.describe_cost)
    "cost_unknown": ("unknown", "inconnu"),
    "cost_at_least": ("at least {cost}", "au moins {cost}"),
    "cost_unpriced_one": ("{n} unpriced call", "{n} appel sans prix connu"),
    "cost_unpriced_many": ("{n} unpriced calls", "{n} appels sans prix connu"),
    "cost_possibly_billed_one": (
        "{n} request timed out, possibly billed",
        "{n} requête expirée, peut-être facturée",
    ),
    "cost_possibly_billed_many": (
        "{n} requests timed out, possibly billed",
        "{n} requêtes expirées, peut-être facturées",
    ),
    # partial reasons
    "partial_status": (
        "the debate is {status}, not completed",
        "le débat est {status}, pas terminé",
    ),
    "partial_stopped": (
        "it was ended by stop, before a natural ending",
        "il a été arrêté par stop, avant une fin naturelle",
    ),
    "partial_missing": (
        "{name} produced no argument in round(s) {rounds}",
        "{name} n'a produit aucun argument au(x) tour(s) {rounds}",
    ),
    "partial_prose": (
        "the synthesis prose (agreements, disagreements, open questions, conclusion) is missing",
        "les parties rédigées de la synthèse (accords, désaccords, questions ouvertes, "
        "conclusion) manquent",
    ),
}

_FRENCH_WORDS = frozenset(
    [
        "le",
        "la",
        "les",
        "des",
        "du",
        "de",
        "un",
        "une",
        "est",
        "sont",
        "et",
        "ou",
        "que",
        "qui",
        "quoi",
        "pour",
        "par",
        "avec",
        "dans",
        "sur",
        "faut-il",
        "peut-on",
        "est-ce",
        "quel",
        "quelle",
        "quels",
        "quelles",
        "meilleure",
        "meilleur",
        "entre",
        "ce",
        "cette",
        "ces",
        "comment",
        "pourquoi",
        "il",
        "elle",
        "nous",
        "vous",
        "ils",
        "au",
        "aux",
        "pas",
        "plus",
        "sans",
        "selon",
    ]
)
_ENGLISH_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "is",
        "are",
        "and",
        "or",
        "that",
        "which",
        "who",
        "what",
        "for",
        "by",
        "with",
        "in",
        "on",
        "should",
        "can",
        "does",
        "do",
        "how",
        "why",
        "best",
        "between",
        "this",
        "these",
        "it",
        "we",
        "you",
        "they",
        "to",
        "of",
        "not",
        "more",
        "without",
    ]
)


def detect_language(text: str) -> Language:
    """French or English, from function words and accents; English when unsure."""
    words = re.findall(r"[a-zàâçéèêëîïôûùüÿœ'-]+", text.lower())
    french = sum(1 for w in words if w in _FRENCH_WORDS or w.split("'")[-1] in _FRENCH_WORDS)
    french += sum(1 for w in words if "'" in w and w.split("'")[0] in ("l", "d", "qu", "n", "s"))
    french += 2 * len(re.findall(r"[àâçéèêëîïôûùüÿœ]", text.lower())) // 3
    english = sum(1 for w in words if w in _ENGLISH_WORDS)
    return "fr" if french > english else "en"


def label(key: str, lang: str = "en", **fields: object) -> str:
    english, french = _LABELS[key]
    text = french if lang == "fr" else english
    return text.format(**fields) if fields else text


class Labels:
    """Attribute access for templates: ``{{ L.agreements }}``; an unknown key is an error."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in LANGUAGES else "en"

    def __getattr__(self, key: str) -> str:
        if key not in _LABELS:
            raise AttributeError(f"no label {key!r}")
        return label(key, self.lang)
