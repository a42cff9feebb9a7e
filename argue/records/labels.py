"""Code's own words, in the debate's language: headings, markers, failure sentences.

The language is chosen once per debate (``--lang``, else detected from the question) and
recorded in config.json; personas already answer in the question's language, so a French
question gets a French synthesis throughout ("Synthèse du débat", "Points d'accord", …).
"""

from __future__ import annotations

import re
from typing import Literal

from argue.text.typography import french_spacing, localise_amounts, localise_number

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
    "rounds": ("Rounds", "Rounds"),
    "round": ("Round", "Round"),
    "incomplete": ("incomplete", "inachevé"),
    "termination": ("Termination", "Terminaison"),
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
        "Ce qui n'a pas fonctionné ce round-ci",
    ),
    "before_first_round": ("Before the first round", "Avant le premier round"),
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
    # markers: counters' and concessions' evidence (issue 36, support check)
    "cited_unlocated": ("cited, quote not found:", "cité, citation introuvable :"),
    # report (HTML)
    "report_title": ("Debate report", "Rapport du débat"),
    "partial_report": ("Partial report.", "Rapport partiel."),
    "contents": ("Contents", "Sommaire"),
    "argument_map": ("Argument map", "Carte des arguments"),
    "map_note": (
        "Each box is a claim (id, persona, round, score). Arrows start at a persona's rebuttal "
        "and end at the claim it counters or concedes. Tap or hover a column head, a rebuttal "
        "or a box to follow only its arrows; a box leads to the claim's full text.",
        "Chaque boîte est une affirmation (identifiant, persona, round, score). Les flèches "
        "partent de la réfutation d'un persona et aboutissent à l'affirmation contestée ou "
        "concédée. Touchez ou survolez un en-tête de colonne, une réfutation ou une boîte pour "
        "ne suivre que ses flèches ; une boîte mène au texte complet de l'affirmation.",
    ),
    "confidence_over_rounds": ("Confidence over rounds", "Confiance au fil des rounds"),
    "score_components": ("Score components per round", "Composantes du score par round"),
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
    # sent, then no answer: a timeout, or the connection dropped after sending
    "cost_possibly_billed_one": (
        "{n} request unanswered, possibly billed",
        "{n} requête sans réponse, peut-être facturée",
    ),
    "cost_possibly_billed_many": (
        "{n} requests unanswered, possibly billed",
        "{n} requêtes sans réponse, peut-être facturées",
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
        "{name} n'a produit aucun argument au(x) round(s) {rounds}",
    ),
    "partial_prose": (
        "the synthesis prose (agreements, disagreements, open questions, conclusion) is missing",
        "les parties rédigées de la synthèse (accords, désaccords, questions ouvertes, "
        "conclusion) manquent",
    ),
    "partial_prose_refused": (
        "the model declined to write part of the synthesis ({sections}): those sections are a "
        "refusal, not a synthesis",
        "le modèle a refusé de rédiger une partie de la synthèse ({sections}) : ces sections "
        "sont un refus, pas une synthèse",
    ),
    "section_agreements": ("agreements", "accords"),
    "section_disagreements": ("disagreements", "désaccords"),
    "section_open questions": ("open questions", "questions ouvertes"),
    "section_conclusion": ("conclusion", "conclusion"),
    # documents (issue 21)
    "colon": (":", " :"),
    "percent_sign": (" %", " %"),
    "open_quote": ("“", "« "),
    "close_quote": ("”", " »"),
    "list_separator": ("; ", " ; "),
    "delta_pair": ("Δ={a},{b}", "Δ={a} ; {b}"),
    "semicolon": (";", " ;"),
    "termination_convergence": ("Convergence", "Convergence"),
    "termination_null_production": ("Null production", "Production nulle"),
    "termination_max_rounds": ("Maximum rounds", "Nombre maximum de rounds"),
    "termination_synthesis_ready": ("Synthesis ready", "Synthèse prête"),
    "termination_stopped": ("Stopped", "Interrupteur d'arrêt"),
    "mode_adversarial": ("Adversarial", "Adversaire"),
    "mode_panel": ("Panel", "Panel"),
    "mode_socratic": ("Socratic", "Socratique"),
    "mode_devils-advocate": ("Devil's advocate", "Avocat du diable"),
    "status_running": ("running", "en cours"),
    "status_stopped": ("stopped", "arrêté"),
    "status_completed": ("completed", "terminé"),
    "status_failed": ("failed", "échoué"),
    "status_interrupted": ("interrupted", "interrompu"),
    "status_budget_exhausted": ("budget exhausted", "budget épuisé"),
    "bridge_precision": ("Precision", "Précision"),
    "bridge_resilience": ("Resilience", "Résilience"),
    "bridge_fragility": ("Fragility", "Fragilité"),
    "bridge_corruption": ("Corruption", "Corruption"),
    "bridge_loyalty": ("Loyalty", "Loyauté"),
    "bridge_stealth": ("Stealth", "Furtivité"),
    "lens_line": ("{lens} lens", "Prisme {lens}"),
    "side_for": ("for the proposition", "pour la proposition"),
    "side_against": ("against the proposition", "contre la proposition"),
    "side_devils_advocate": (
        "devil's advocate: the side opposite to its own view",
        "avocat du diable : le camp opposé à son propre avis",
    ),
    "side_questioner": ("questioner", "questionneur"),
    "side_defender": ("defender", "défenseur"),
    "angle": ("angle", "angle"),
    "kind_full": ("full", "totale"),
    "kind_partial": ("partial", "partielle"),
    "call_ok": ("ok", "ok"),
    "call_empty": ("empty", "vide"),
    "call_refused": ("refused", "refusé"),
    "call_failed": ("failed", "échoué"),
    "provenance_document": ("retrieved document", "document trouvé"),
    "provenance_testimony": ("model-written answer", "réponse écrite par un modèle"),
    "provenance_recall": ("recalled memory, model-written", "souvenir, écrit par un modèle"),
    "provenance_label": (
        "taxonomy label, model-written",
        "étiquette de taxonomie, écrite par un modèle",
    ),
    "note_from_round": ("from round {n}", "à partir du round {n}"),
    "note_read_by_no_round": ("read by no round", "lu par aucun round"),
    "not_counted_target": (
        "not a real opponent claim: not counted",
        "pas une vraie affirmation adverse : non comptée",
    ),
    "target_missing": (
        "no claim {claim_id} exists in this debate so far: not counted",
        "aucune affirmation {claim_id} n'existe dans ce débat pour l'instant : non comptée",
    ),
    "target_refusal": (
        "the model declined instead of answering (a refusal): not counted",
        "le modèle a refusé au lieu de répondre (un refus) : non comptée",
    ),
    "target_own": (
        "{claim_id} is {name}'s own claim: not counted",
        "{claim_id} est une affirmation de {name} : non comptée",
    ),
    "model_calls_one": ("{n} call", "{n} appel"),
    "model_calls_many": ("{n} calls", "{n} appels"),
    "no_model": ("none", "aucun"),
    "quoted_text": ("“{text}”", "« {text} »"),
    # termination details (the engine records them in English; documents show them translated)
    "detail_stop_completed": (
        "stop requested; round {n} was completed",
        "arrêt demandé ; le round {n} était terminé",
    ),
    "detail_stop_where": (
        "stop requested; stopped {where} of round {n}",
        "arrêt demandé ; arrêté {where} du round {n}",
    ),
    "detail_null_production": (
        "no novel claim and no new verified evidence in rounds {a} and {b}",
        "aucune affirmation nouvelle ni nouvelle preuve vérifiée aux rounds {a} et {b}",
    ),
    "detail_judge": ("judge: {reason}", "juge : {reason}"),
    "judge": ("judge", "juge"),
    "detail_max_rounds_one": ("reached the limit of {n} round", "limite de {n} round atteinte"),
    "detail_max_rounds_many": (
        "reached the limit of {n} rounds",
        "limite de {n} rounds atteinte",
    ),
    "detail_stable_disagreement": (
        "stable disagreement: confidence settled while both sides still hold opposite "
        "positions ({summary})",
        "désaccord stable : la confiance s'est stabilisée alors que les deux camps gardent des "
        "positions opposées ({summary})",
    ),
    "detail_confidence_settled": (
        "confidence settled for every persona ({summary})",
        "la confiance s'est stabilisée pour chaque persona ({summary})",
    ),
    "detail_now": ("now", "maintenant"),
    "detail_budget_usd": (
        "spent {spent} of a {budget} budget in round {n}",
        "{spent} dépensés sur un budget de {budget} au round {n}",
    ),
    "detail_budget_tokens": (
        "used {used} of a {limit}-token budget in round {n}",
        "{used} jetons utilisés sur un budget de {limit} au round {n}",
    ),
    "where_after the research": ("after the research", "après la recherche"),
    "where_after scoring": ("after scoring", "après la notation"),
    "where_before the argument": ("before the argument", "avant l'argument"),
    "where_before the rebuttal": ("before the rebuttal", "avant la réfutation"),
    "where_before the reflection": ("before the reflection", "avant la réflexion"),
    # failed or refused steps (Failure.what), in documents
    "what_framing_call": ("framing model call", "appel au modèle pour le cadrage"),
    "what_judge_call": ("judge model call", "appel au modèle du juge"),
    "what_synthesis_call": ("synthesis model call", "appel au modèle pour la synthèse"),
    "what_phase_call": ("{phase} model call", "appel au modèle ({phase})"),
    "what_rebuttal": ("rebuttal", "réfutation"),
    "what_debate": ("debate", "débat"),
    "what_archive": (
        "episodic archive (shared memory) write",
        "écriture de l'archive épisodique (mémoire partagée)",
    ),
    "what_memory_write": ("memory write of {claim_id}", "écriture en mémoire de {claim_id}"),
    "what_skill": ("skill {name}", "skill {name}"),
    "what_over_budget": (
        "{n} research call(s) over the budget of {budget}",
        "{n} appel(s) de recherche au-delà du budget de {budget}",
    ),
    "what_research_call": ("{skill} {query}", "{skill} {query}"),
    "what_research_source": (
        "{skill} source {source} for {query}",
        "{skill}, source {source}, pour {query}",
    ),
    "phase_argument": ("argument", "argument"),
    "phase_rebuttal": ("rebuttal", "réfutation"),
    "phase_reflection": ("reflection", "réflexion"),
    "phase_research": ("research", "recherche"),
    "phase_research-plan": ("research plan", "plan de recherche"),
    "phase_framing": ("framing", "cadrage"),
    "phase_scoring": ("scoring", "notation"),
    "phase_synthesis": ("synthesis", "synthèse"),
    "reason_nothing_sent": ("nothing sent", "rien n'a été envoyé"),
    "reason_no_results": ("no results", "aucun résultat"),
    "note_results": ("{n} result(s)", "{n} résultat(s)"),
    "reason_no_opponent_claim": (
        "no opponent published a claim this round: nothing to rebut",
        "aucun adversaire n'a publié d'affirmation ce round-ci : rien à réfuter",
    ),
    "reason_question_as_proposition": (
        "the question itself is used as the proposition",
        "la question elle-même sert de proposition",
    ),
    "reason_coherence_not_measured": (
        "coherence not measured this round",
        "cohérence non mesurée ce round-ci",
    ),
    "reason_dropped": ("dropped by the engine", "abandonnés par le moteur"),
    "reason_none_given": ("no reason given", "aucune raison donnée"),
    # steps of the support check (issue 36)
    "phase_support": ("support check", "vérification du soutien"),
    "phase_support-check": ("support check", "vérification du soutien"),
    # score reasons and failures (issue 21)
    "score_no_claims": ("no claims this round", "aucune affirmation ce round"),
    "score_backed": (
        "{backed}/{total} claims backed by a quote found in a retrieved document; "
        "sources: {sources}",
        "{backed}/{total} affirmation(s) appuyée(s) par une citation retrouvée dans un document "
        "récupéré ; sources : {sources}",
    ),
    "score_backed_no_source": (
        "{backed}/{total} claims backed by a quote found in a retrieved document; sources: none",
        "{backed}/{total} affirmation(s) appuyée(s) par une citation retrouvée dans un document "
        "récupéré ; sources : aucune",
    ),
    "score_quote_not_found": (
        "quote not found (earns nothing): {ids}",
        "citation introuvable (ne rapporte rien) : {ids}",
    ),
    "score_model_written": (
        "model-written items are not evidence: {ids}",
        "les éléments écrits par un modèle ne sont pas des preuves : {ids}",
    ),
    "score_unverified": (
        "unverified ids earn nothing: {ids}",
        "les identifiants non vérifiés ne rapportent rien : {ids}",
    ),
    "score_carrying": (
        "claims carrying an unverified reference are not evidence-backed: {ids}",
        "les affirmations qui portent une référence non vérifiée ne sont pas appuyées par des "
        "preuves : {ids}",
    ),
    "score_novelty": (
        "{novel}/{total} claims below {threshold} similarity to earlier claims "
        "(max similarity: {similarities})",
        "{novel}/{total} affirmation(s) sous {threshold} de similarité avec les affirmations "
        "antérieures (similarité maximale : {similarities})",
    ),
    "score_no_opponent_claim_to_concede": (
        "no opponent claim to concede: not measured",
        "aucune affirmation adverse à concéder : non mesuré",
    ),
    "score_no_rebuttal": ("no rebuttal this round", "aucune réfutation ce round"),
    "score_declined": ("declined to concede", "a refusé de concéder"),
    "score_no_reasoned": ("no reasoned concession", "aucune concession motivée"),
    "score_conceded": ("conceded {notes}", "a concédé {notes}"),
    "score_concession": ("{claim_id} ({kind})", "{claim_id} ({kind})"),
    "score_concession_strongest": (
        "{claim_id} ({kind}, the opponent's strongest)",
        "{claim_id} ({kind}, la plus forte de l'adversaire)",
    ),
    "score_no_argument": (
        "no argument to rate: not measured",
        "aucun argument à évaluer : non mesuré",
    ),
    "score_judge": ("judge: {reason}", "juge : {reason}"),
    "score_judge_no_reason": ("judge: no reason given", "juge : aucune raison donnée"),
    "score_judge_unrated": (
        "the judge answered but gave no rating for persona {letter} (it rated: {rated}): "
        "not measured this round",
        "le juge a répondu sans évaluer le persona {letter} (il a évalué : {rated}) : "
        "non mesuré ce round",
    ),
    "score_judge_unrated_nobody": (
        "the judge answered but gave no rating for persona {letter} (it rated: nobody): "
        "not measured this round",
        "le juge a répondu sans évaluer le persona {letter} (il n'a évalué personne) : "
        "non mesuré ce round",
    ),
    "score_judge_failed": (
        "judge call failed: not measured this round",
        "l'appel au juge a échoué : non mesuré ce round",
    ),
    "score_no_opponent_claim_to_rebut": (
        "no opponent claim to rebut: not measured",
        "aucune affirmation adverse à réfuter : non mesuré",
    ),
    "score_no_counters": ("no counters", "aucun contre-argument"),
    "score_counters": (
        "{hits}/{total} counters hit real opponent claim ids",
        "{hits}/{total} contre-argument(s) visent un identifiant réel d'affirmation adverse",
    ),
    "score_counters_missed": (
        "{hits}/{total} counters hit real opponent claim ids (missed: {missed})",
        "{hits}/{total} contre-argument(s) visent un identifiant réel d'affirmation adverse "
        "(manqués : {missed})",
    ),
    "score_no_reflection": ("no reflection this round", "aucune réflexion ce round"),
    "score_calibration": (
        "confidence {confidence} vs evidence strength {evidence}",
        "confiance {confidence} face à une force des preuves de {evidence}",
    ),
    "phase_rebuttal-concession-re-ask": (
        "rebuttal concession re-ask",
        "nouvelle demande de concession",
    ),
    "reason_key_not_set": ("{name} not set", "{name} non définie"),
    "reason_not_allowed": (
        "not allowed by --sources; allowed: {allowed}",
        "non autorisée par --sources ; autorisées : {allowed}",
    ),
    "reason_not_a_source": (
        "not a research source; allowed: {allowed}",
        "pas une source de recherche ; autorisées : {allowed}",
    ),
    "reason_not_allowed_bare": ("not allowed by --sources", "non autorisée par --sources"),
    "reason_not_a_source_bare": ("not a research source", "pas une source de recherche"),
    "reason_asked_only": (
        "asked only for {names}: ran on every allowed source instead.",
        "seules {names} étaient demandées : recherche lancée sur toutes les sources autorisées.",
    ),
    "reason_timed_out": ("{name}: timed out after {s} s", "{name} : délai dépassé après {s} s"),
    "reason_timed_out_paced": (
        "{name}: timed out after {s} s (including its wait for a rate-limit turn)",
        "{name} : délai dépassé après {s} s (attente due à la limite de débit comprise)",
    ),
    # terminal (issue 21)
    "t_debate_id": ("Debate ID: {id}", "ID du débat : {id}"),
    "t_question": ("Question: {question}", "Question : {question}"),
    "t_personas": (
        "Personas: {personas}  ·  Mode: {mode}  ·  Model: {model}",
        "Personas : {personas}  ·  Mode : {mode}  ·  Modèle : {model}",
    ),
    "t_vs": (" vs ", " vs "),
    "t_panel_implied": (
        "Panel mode: {n} personas named (no --mode given)",
        "Mode Panel : {n} personas nommés (aucun --mode donné)",
    ),
    "t_auto_selected": ("Auto-selected: {reason}", "Choix automatique : {reason}"),
    "t_shared_model": (
        "warning: all personas use {model}; give one its own with {flag} NAME=MODEL (or a "
        "persona file's model field) for more diverse arguments",
        "attention : tous les personas utilisent {model} ; donnez-en un autre à l'un d'eux avec "
        "{flag} NOM=MODÈLE (ou le champ model d'un fichier persona) pour des arguments plus "
        "variés",
    ),
    "t_persona_models": (
        "Persona models: {models}  ·  framing, judge, synthesis: {debate}",
        "Modèles des personas : {models}  ·  cadrage, juge, synthèse : {debate}",
    ),
    "route_keywords": ("keyword routing: ", "choix par mots-clés : "),
    "route_matched": ("{name} matched {said}", "{name} correspond à {said}"),
    "route_none": (
        "no expertise keyword matched the question; default order: ",
        "aucun mot-clé d'expertise ne correspond à la question ; ordre par défaut : ",
    ),
    "route_default_order": (
        "{names} from the default order",
        "{names} pris dans l'ordre par défaut",
    ),
    "route_no_other": (" (no other persona matched)", " (aucun autre persona ne correspond)"),
    "route_colleague_one": ("{names} as {via}'s colleague", "{names} comme collègue de {via}"),
    "route_colleague_many": ("{names} as {via}'s colleagues", "{names} comme collègues de {via}"),
    "route_tie_rule": (
        "ties go to a persona whose dominant bridge is not yet represented, then alphabetical "
        "order",
        "à égalité, priorité à un persona dont le pont dominant n'est pas encore représenté, puis "
        "ordre alphabétique",
    ),
    "t_round": ("Round {n}/{total}", "Round {n}/{total}"),
    "t_search_via": ('[{name}] /{skill} "{query}"', '[{name}] Recherche via /{skill} "{query}"…'),
    "t_skill_call": ('[{name}] /{skill}{target} "{query}"', '[{name}] /{skill}{target} "{query}"'),
    "price_source_built-in table": ("built-in table", "table intégrée"),
    "t_wave": ("  {wave}: {n} personas in parallel…", "  {wave} : {n} personas en parallèle…"),
    "wave_research": ("research and argument", "recherche et argument"),
    "wave_rebuttal": ("rebuttal", "réfutation"),
    "wave_reflection": ("reflection and judge", "réflexion et juge"),
    "t_phase_done": (
        "  [{name}] {phase}: {summary} ({seconds} s)",
        "  [{name}] {phase} : {summary} ({seconds} s)",
    ),
    "t_still_working": (
        "  [{name}] {phase}: still in progress ({seconds} s)",
        "  [{name}] {phase} : toujours en cours ({seconds} s)",
    ),
    "t_asked_again": (
        "  [{name}] {phase}: failed before, asked again",
        "  [{name}] {phase} : échec précédent, redemandé",
    ),
    "t_retrying": (
        "  [{name}] retrying {n} failed research call(s)",
        "  [{name}] nouvel essai de {n} appel(s) de recherche échoué(s)",
    ),
    "sum_research": (
        "{items} item(s) from {ok}/{calls} call(s)",
        "{items} élément(s) issu(s) de {ok}/{calls} appel(s)",
    ),
    "sum_argument": (
        "{claims} claim(s), {quotes} quote(s) found in their sources",
        "{claims} affirmation(s), {quotes} citation(s) trouvée(s) dans leurs sources",
    ),
    "sum_rebuttal": (
        "{counters} counter(s), {conceded} concession(s)",
        "{counters} contre-argument(s), {conceded} concession(s)",
    ),
    "sum_declined": (" — declined to concede", " — a refusé de concéder"),
    "sum_reflection": ("confidence {confidence}", "confiance {confidence}"),
    "sum_done": ("done", "fait"),
    "t_no_argument_from": (
        "Round {n}: no argument from {names} (recorded as failed)",
        "Round {n} : aucun argument de {names} (enregistré comme échec)",
    ),
    "t_no_argument": (
        "no persona produced an argument in round {n}",
        "aucun persona n'a produit d'argument au round {n}",
    ),
    "t_scored": (
        "Round {n} scored: {scores} · {spending} so far",
        "Round {n} noté : {scores} · {spending} jusqu'ici",
    ),
    "t_spending": (
        "{calls} model calls, {tokens} tokens, cost {cost}",
        "{calls} appels au modèle, {tokens} jetons, coût {cost}",
    ),
    "t_termination": ("Termination: {reason} — {detail}", "Terminaison : {reason} — {detail}"),
    "t_judge_ready": ("ready", "prête"),
    "t_persona_delta": (
        "{name} Δ={d1},{d2} (now {now})",
        "{name} Δ={d1} ; {d2} (maintenant {now})",
    ),
    "t_moderator_note": ("Moderator note: {note}", "Note du modérateur : {note}"),
    "t_binds_from": ("binds from round {n}", "s'applique à partir du round {n}"),
    "t_note_queued": (
        "Moderator note queued: it binds from round {n}.",
        "Note du modérateur en attente : elle s'applique à partir du round {n}.",
    ),
    "t_moderator_prompt": (
        "Round {n} done. Moderator note for the next rounds (Enter to continue): ",
        "Round {n} terminé. Note du modérateur pour les rounds suivants (Entrée pour continuer) : ",
    ),
    "t_already_completed": (
        "Debate {id} is already completed ({termination}).",
        "Le débat {id} est déjà terminé ({termination}).",
    ),
    "t_resuming_ending": (
        "Resuming the ending of {id}: {reason}",
        "Reprise de la fin de {id} : {reason}",
    ),
    "t_resuming": ("Resuming {id} after round {n}", "Reprise de {id} après le round {n}"),
    "t_where_before": ("before the {phase}", "avant la {phase}"),
    "where_after_research": ("after the research", "après la recherche"),
    "where_after_scoring": ("after scoring", "après la notation"),
    "t_interrupted": (
        "Interrupted {where} of round {n}; checkpoint saved.",
        "Interrompu {where} du round {n} ; point de reprise enregistré.",
    ),
    "reason_offline_hint": (
        "not asked again in this debate (no network? `--sources library` searches your own "
        "library)",
        "plus interrogée dans ce débat (pas de réseau ? `--sources library` cherche dans votre "
        "propre bibliothèque)",
    ),
    "reason_declined": (
        "the model declined instead of answering ({said})",
        "le modèle a refusé au lieu de répondre ({said})",
    ),
    "reason_declined_judge": (
        "the model declined to judge ({said})",
        "le modèle a refusé de juger ({said})",
    ),
    "t_stop_seen": (
        "Stop requested: finishing {n} call(s) in flight, then the synthesis.",
        "Arrêt demandé : fin du ou des {n} appel(s) en cours, puis la synthèse.",
    ),
    "t_stop_waiting": (
        "Still finishing {n} call(s) in flight before stopping.",
        "Encore {n} appel(s) en cours avant l'arrêt.",
    ),
    "t_stop_requested": (
        "Stop requested: stopped {where} of round {n}; resumable.",
        "Arrêt demandé : arrêté {where} du round {n} ; reprise possible.",
    ),
    "t_budget_reached": (
        "Budget of ${budget} reached (${spent} spent); stopping. Resume with a larger "
        "--budget-usd.",
        "Budget de {budget}\u00a0$ atteint ({spent}\u00a0$ dépensés) ; arrêt. Reprenez avec un "
        "--budget-usd plus grand.",
    ),
    "t_token_budget_reached": (
        "Token budget of {limit} reached ({used} tokens used); stopping. Resume with a larger "
        "--max-tokens.",
        "Budget de {limit} jetons atteint ({used} jetons utilisés) ; arrêt. Reprenez avec un "
        "--max-tokens plus grand.",
    ),
    "t_writing_stopped_synthesis": (
        "Writing the synthesis of the stopped debate…",
        "Rédaction de la synthèse du débat arrêté…",
    ),
    "t_synthesis_not_written": (
        "  synthesis not written: {error}",
        "  synthèse non écrite : {error}",
    ),
    "t_same_refusal": (
        "  (the same refusal happened {count} times in all: {reason})",
        "  (le même refus s'est produit {count} fois en tout : {reason})",
    ),
    "t_check_api_key": (
        "{error} — check the provider's API key",
        "{error} — vérifiez la clé d'API du fournisseur",
    ),
    "t_proposition": ("Proposition: {proposition}", "Proposition : {proposition}"),
    "t_framing": (
        "Framing the question: one model call turns it into a proposition and gives each persona "
        "its side…",
        "Cadrage de la question : un appel au modèle en fait une proposition et donne à chaque "
        "persona son camp…",
    ),
    "t_framing_again": (
        "The framing call failed before: asking for the proposition again…",
        "L'appel de cadrage avait échoué : nouvelle demande de la proposition…",
    ),
    "t_question_as_proposition": (
        "{error}; the question itself is used as the proposition",
        "{error} ; la question elle-même sert de proposition",
    ),
    "t_not_obtained": (
        "{what} could not be obtained: {error}",
        "{what} n'a pas pu être obtenu : {error}",
    ),
    "t_ctrl_c": (
        "Ctrl-C: finishing the current batch, then saving (Ctrl-C again to cancel now).",
        "Ctrl-C : fin du lot en cours, puis sauvegarde (Ctrl-C à nouveau pour annuler tout de "
        "suite).",
    ),
    "t_cancelled": ("Cancelled. Resume with: {command}", "Annulé. Reprendre avec : {command}"),
    "t_run_failed": ("debate {id} failed: {error}", "le débat {id} a échoué : {error}"),
    "t_paused": (
        "Debate {id} is {status}. Resume with: {command}",
        "Le débat {id} est {status}. Reprendre avec : {command}",
    ),
    "t_failed": ("Debate {id} failed: {error}", "Le débat {id} a échoué : {error}"),
    "t_synthesis_path": ("Synthesis: {path}", "Synthèse : {path}"),
    "t_and_report": (" · report: {path}", " · rapport : {path}"),
    "t_answer_conclusion": ("Conclusion:", "Conclusion :"),
    "t_answer_strongest": ("Strongest argument, {side}:", "Argument le plus fort, {side} :"),
    "t_answer_none_ranked": (
        "(no claim of this side can rank: see the synthesis for why)",
        "(aucune affirmation de ce camp ne peut être classée : la synthèse dit pourquoi)",
    ),
    "t_partial_report": (" · partial report: {path}", " · rapport partiel : {path}"),
    "t_no_report": (" · no report ({why})", " · pas de rapport ({why})"),
    "t_background": (
        "Running in the background (pid {pid}); log: {log}\nFollow it with: {watch} · {interject} "
        "NOTE · {stop} · {transcript}",
        "En arrière-plan (pid {pid}) ; journal : {log}\nSuivez-le avec : {watch} · {interject} "
        "NOTE · {stop} · {transcript}",
    ),
    # terminal: the support check (issue 36)
    "sum_support": (
        "{supports} supported, {contradicts} contradicted, {unrelated} unrelated ({by})",
        "{supports} soutenue(s), {contradicts} contredite(s), {unrelated} hors sujet ({by})",
    ),
    "sum_support_failed": (
        "failed: {n} quote(s) left unchecked (not ranked)",
        "échec : {n} citation(s) non vérifiée(s) (non classées)",
    ),
    "t_quote_contradicts": (
        "  [{name}] {what}: the sentence quoted from {evidence} contradicts it (support check)",
        "  [{name}] {what} : la phrase citée de {evidence} la contredit (vérification du soutien)",
    ),
    "t_counter_n": ("counter {n}", "contre-argument {n}"),
    # terminal (issue 21): --dry-run
    "dr_title": (
        "Dry run: no debate folder is created and no model is called.",
        "Simulation : aucun dossier de débat n'est créé et aucun modèle n'est appelé.",
    ),
    "dr_mode": ("Mode: {mode}", "Mode : {mode}"),
    "dr_detach": (
        "  (would run in the background: --detach)",
        "  (tournerait en arrière-plan : --detach)",
    ),
    "dr_seating": ("Seating ({why}):", "Placement ({why}) :"),
    "dr_auto": ("auto-selected: {reason}", "choix automatique : {reason}"),
    "dr_named": ("named on the command line", "nommés sur la ligne de commande"),
    "dr_debate_model": (
        "Debate model (framing, judge, synthesis): {model}",
        "Modèle du débat (cadrage, juge, synthèse) : {model}",
    ),
    "dr_rounds": (
        "Rounds: {n} at most  ·  Sources: {sources}",
        "Rounds : {n} au plus  ·  Sources : {sources}",
    ),
    "dr_all": ("all", "toutes"),
    "dr_budget": ("Budget: {note}", "Budget : {note}"),
    "dr_estimate": ("Estimate for {n} round(s):", "Estimation pour {n} round(s) :"),
    "dr_calls": ("model calls", "appels"),
    "dr_tokens": ("tokens", "jetons"),
    "dr_cost": ("cost", "coût"),
    "dr_step": ("step", "étape"),
    "dr_model": ("model", "modèle"),
    "dr_prices": ("Prices (source of each):", "Prix (source de chacun) :"),
    "dr_assumptions": ("Assumptions: {text}", "Hypothèses : {text}"),
    "dr_fits": ("the estimate fits", "l'estimation tient dans la limite"),
    "dr_may_pause_budget": (
        "may pause the debate (budget_exhausted) before its last round",
        "peut mettre le débat en pause (budget épuisé) avant son dernier round",
    ),
    "dr_will_pause_budget": (
        "will likely pause the debate (budget_exhausted) before its last round",
        "mettra probablement le débat en pause (budget épuisé) avant son dernier round",
    ),
    "dr_may_pause": (
        "may pause the debate before its last round",
        "peut mettre le débat en pause avant son dernier round",
    ),
    "dr_will_pause": (
        "will likely pause the debate before its last round",
        "mettra probablement le débat en pause avant son dernier round",
    ),
    "step_framing": ("framing", "cadrage"),
    "step_pre-debate step": ("pre-debate step", "étape préalable"),
    "step_research plan": ("research plan", "plan de recherche"),
    "step_ask consultation": ("ask consultation", "consultation ask"),
    "step_argument": ("argument", "argument"),
    "step_rebuttal": ("rebuttal", "réfutation"),
    "step_concession re-ask": ("concession re-ask", "nouvelle demande de concession"),
    "step_reflection": ("reflection", "réflexion"),
    "step_judge": ("judge", "juge"),
    "step_synthesis": ("synthesis", "synthèse"),
    "dr_price": (
        "{model}  ${input} in / ${output} out per Mtok  ({source})",
        "{model}  {input}\u00a0$ en entrée / {output}\u00a0$ en sortie par million de jetons  "
        "({source})",
    ),
    "dr_no_price": ("{model}  no price", "{model}  aucun prix"),
    "dr_no_price_for": ("no price for {models}", "aucun prix pour {models}"),
    "dr_cost_unknown": ("unknown ({missing})", "inconnu ({missing})"),
    "dr_cost_at_least": ("at least {span} ({missing})", "au moins {span} ({missing})"),
    "dr_assumptions_fr": (
        "{sizes}",
        "les jetons supposent des tailles typiques par appel (entrée, prompt système et schéma "
        "compris / sortie) : {sizes} ; les prompts grossissent de quelques centaines de jetons "
        "par round précédent et par autre persona. Le maximum suppose que chaque round a lieu ; "
        "un débat qui converge plus tôt en utilise moins. Une réponse qui échoue à la validation "
        "est redemandée une fois (non comptée ici).",
    ),
    "seat_source_debate_model": ("debate model", "modèle du débat"),
    "seat_source_persona_file": ("persona file", "fichier persona"),
    "dr_budget_tokens": ("{n} tokens: {fits}", "{n} jetons : {fits}"),
    # terminal (issue 21): watch and status
    "w_following": (
        "Following {id}: {question} ({names}; {mode}; up to {n} round(s)). Ctrl-C stops watching, "
        "not the debate.",
        "Suivi de {id} : {question} ({names} ; {mode} ; jusqu'à {n} round(s)). Ctrl-C arrête le "
        "suivi, pas le débat.",
    ),
    "w_stopped_watching": (
        "Stopped watching {id}; the debate itself is not affected (watch again with: {command}).",
        "Suivi de {id} arrêté ; le débat lui-même continue (reprendre le suivi avec : {command}).",
    ),
    "w_termination": ("Termination: {status}", "Terminaison : {status}"),
    "w_synthesis": ("synthesis: {path}", "synthèse : {path}"),
    "w_resume": ("resume with: {command}", "reprendre avec : {command}"),
    "w_spending": ("{calls}, {cost} so far", "{calls}, {cost} jusqu'ici"),
    "w_writing_synthesis": (
        "Writing the synthesis ({reason})…",
        "Rédaction de la synthèse ({reason})…",
    ),
    "w_ending": ("ending", "fin"),
    "status_h_id": ("id", "id"),
    "status_h_status": ("status", "statut"),
    "status_h_round": ("round", "round"),
    "status_h_termination": ("termination", "terminaison"),
    "status_h_mode": ("mode", "mode"),
    "status_h_personas": ("personas", "personas"),
    "status_h_question": ("question", "question"),
    # the live page (argue serve): its own words, in the debate's language
    "live_round": ("round", "round"),
    "live_round_heading": ("Round {n}", "Round {n}"),
    "live_cost_so_far": ("cost so far: ", "coût à ce stade : "),
    "live_partial": ("partial", "partiel"),
    "live_full_report": ("Full report", "Rapport complet"),
    "live_report_partial": (
        "(partial while the debate runs; reload it for the latest)",
        "(partiel tant que le débat tourne ; rechargez-le pour la dernière version)",
    ),
    "live_report_later": (
        "The full report appears once the first round has records.",
        "Le rapport complet apparaît dès que le premier round a des enregistrements.",
    ),
    "live_scores": ("Scores", "Notation des rounds"),
    "live_nothing_yet": ("Nothing published yet.", "Rien de publié pour l'instant."),
    "live_no_argument": ("No argument on disk yet.", "Pas encore d'argument sur le disque."),
    "live_declined": ("the model declined to answer", "le modèle a refusé de répondre"),
    "live_confidence": (
        "confidence after reflection: {value}",
        "confiance après réflexion : {value}",
    ),
    "live_failures": ("What did not work", "Ce qui n'a pas fonctionné"),
    "live_notes": ("Moderator notes taken in", "Notes du modérateur prises en compte"),
    "live_all_debates": ("← all debates", "← tous les débats"),
    "live_versus": (" vs ", " contre "),
    "live_connecting": ("Connecting to the live stream…", "Connexion au flux en direct…"),
    "live_open": (
        "Live: this page updates as each phase lands.",
        "En direct : cette page se met à jour à chaque phase.",
    ),
    "live_lost": (
        "Live stream lost: checking every 2 s.",
        "Flux en direct perdu : vérification toutes les 2 s.",
    ),
    "live_retrying": (
        "Cannot reach argue serve; trying again…",
        "argue serve injoignable ; nouvel essai…",
    ),
    "live_unreachable": ("Cannot reach argue serve.", "argue serve injoignable."),
    "live_refused": ("Refused: ", "Refusé : "),
    "live_steer": ("Steer the debate", "Piloter le débat"),
    "live_stop": ("Stop after the current batch", "Arrêter après le lot en cours"),
    "live_resumable": ("(checkpointed; resumable with", "(sauvegardé ; reprise avec"),
    "live_note_label": (
        "Moderator note: binds every round that starts after it",
        "Note du modérateur : s'applique à chaque round qui commence après elle",
    ),
    "live_interject": ("Interject", "Intervenir"),
    "live_ev_quoted": (
        "quote found in a retrieved document",
        "citation trouvée dans un document récupéré",
    ),
    "live_ev_quote_not_found": (
        "cites a document, quote not found",
        "cite un document, citation introuvable",
    ),
    "live_ev_unverified": ("unverified reference", "référence non vérifiée"),
    "live_ev_uncited": ("no evidence cited", "aucune preuve citée"),
    "live_cost_not_read": ("not read", "non lu"),
    "live_no_call_yet": ("no model call yet", "aucun appel au modèle pour l'instant"),
    "live_not_priced": ("not priced", "sans tarif"),
    "live_call": ("{n} model call", "{n} appel au modèle"),
    "live_calls": ("{n} model calls", "{n} appels au modèle"),
    # the live page once a debate ends, and when its server restarts (issue 41 items 1, 4)
    "live_ended": (
        "The debate has ended: this page shows its final state.",
        "Le débat est terminé : cette page montre son état final.",
    ),
    "live_restarted": (
        "argue serve was restarted (or its address changed): this page can no longer reach it. "
        "Open the new address it printed, or paste it here.",
        "argue serve a été redémarré (ou son adresse a changé) : cette page ne peut plus le "
        "joindre. Ouvrez la nouvelle adresse qu'il a affichée, ou collez-la ici.",
    ),
    "live_last_seen": (
        "Last seen before the restart: ",
        "Vu pour la dernière fois avant le redémarrage : ",
    ),
    "live_new_address": (
        "New address printed by argue serve",
        "Nouvelle adresse affichée par argue serve",
    ),
    "live_open_address": ("Open", "Ouvrir"),
    "live_not_an_address": (
        "That is not an address argue serve printed (it ends with ?token=…).",
        "Ce n'est pas une adresse affichée par argue serve (elle se termine par « ?token=… »).",
    ),
    "live_conclusion": ("Conclusion", "Conclusion"),
    "live_no_conclusion_missing": (
        "No conclusion yet: the synthesis is written when a debate completes, or by {command}.",
        "Pas encore de conclusion : la synthèse est rédigée quand un débat se termine, ou par "
        "{command}.",
    ),
    "live_no_conclusion_declined": (
        "No conclusion: the model declined to write it (a refusal, not a synthesis).",
        "Pas de conclusion : le modèle a refusé de la rédiger (un refus, pas une synthèse).",
    ),
    "live_no_conclusion_unreadable": (
        "No conclusion: the synthesis record cannot be read (the full report says why).",
        "Pas de conclusion : l'enregistrement de la synthèse est illisible (le rapport complet "
        "dit pourquoi).",
    ),
    "live_supported_by": ("supported by {ids}", "appuyée par {ids}"),
    "w_phase_framing": ("framing the question", "cadrage de la question"),
    "w_phase_research": ("research and argument", "recherche et argument"),
    "w_phase_argument": ("argument", "argument"),
    "w_phase_rebuttal": ("rebuttal", "réfutation"),
    "w_phase_reflection": ("reflection and judge", "réflexion et juge"),
    "w_phase_scoring": ("scoring", "notation"),
    "w_phase_synthesis": ("writing the synthesis", "rédaction de la synthèse"),
    "w_orphan": (
        "no process is running it any more (it was killed or crashed); its committed rounds are "
        "kept",
        "plus aucun processus ne le fait tourner (tué ou planté) ; ses rounds validés sont "
        "conservés",
    ),
    "w_research": (
        "research R{round}: {calls}, {items} ({documents} retrieved documents)",
        "recherche R{round} : {calls}, {items} ({documents} documents trouvés)",
    ),
    "w_argument": ("argument R{round}: {claims}", "argument R{round} : {claims}"),
    "w_rebuttal": (
        "rebuttal R{round}: {counters} ({counted} on real claims), {concessions}",
        "réfutation R{round} : {counters} ({counted} sur de vraies affirmations), {concessions}",
    ),
    "w_conceded": (" (conceded {ids})", " (a concédé {ids})"),
    "w_declined": (" · declined to concede", " · a refusé de concéder"),
    "w_reflection": (
        "reflection R{round}: confidence {confidence}",
        "réflexion R{round} : confiance {confidence}",
    ),
    "w_scored": ("Round {n} scored: {scores}", "Round {n} noté : {scores}"),
    "w_round": (
        "Round {n}/{total} · {words} · {spending}",
        "Round {n}/{total} · {words} · {spending}",
    ),
    "plural_model_call_one": ("{n} model call", "{n} appel au modèle"),
    "plural_model_call_many": ("{n} model calls", "{n} appels au modèle"),
    "plural_item_one": ("{n} item", "{n} élément"),
    "plural_item_many": ("{n} items", "{n} éléments"),
    "plural_claim_one": ("{n} claim", "{n} affirmation"),
    "plural_claim_many": ("{n} claims", "{n} affirmations"),
    "plural_counter_one": ("{n} counter", "{n} contre-argument"),
    "plural_counter_many": ("{n} counters", "{n} contre-arguments"),
    "plural_concession_one": ("{n} concession", "{n} concession"),
    "plural_concession_many": ("{n} concessions", "{n} concessions"),
    # report (HTML): summary first, charts that say their units, the map in words
    "summary": ("Summary", "En résumé"),
    "confidence_out_of_1": ("confidence (0 to 1)", "confiance (de 0 à 1)"),
    "score_out_of": ("score (out of {max})", "score (sur {max})"),
    "confidence_values": ("The values", "Les valeurs"),
    "persona": ("Persona", "Persona"),
    "map_in_words": ("The map in words", "La carte en mots"),
    "map_in_words_note": (
        "Round by round: each persona's claims, then what its rebuttal did to which claim.",
        "Round par round : les affirmations de chaque persona, puis ce que sa réfutation a "
        "fait à quelle affirmation.",
    ),
    "map_claims": ("claims", "affirme"),
    # the map round by round, and wide figures on a phone (issue 41, items 2 and 3)
    "map_rounds": ("Rounds of the map", "Rounds de la carte"),
    "map_all_rounds": ("All rounds", "Tous les rounds"),
    "map_round_note": (
        "One round at a time (or all of them, one after another): each persona's claims, then "
        "its rebuttal. Counters leave the rebuttal to the left, concessions to the right, each "
        "arrow on a track of its own. Tap or hover a name, a rebuttal or a box to follow only "
        "its arrows; a box leads to the claim's full text.",
        "Un round à la fois (ou tous, l’un après l’autre)\u00a0: les affirmations de chaque "
        "persona, puis sa réfutation. Les objections partent de la réfutation vers la gauche, "
        "les concessions vers la droite, chaque flèche sur sa propre voie. Touchez ou survolez "
        "un nom, une réfutation ou une boîte pour ne suivre que ses flèches\u00a0; une boîte "
        "mène au texte complet de l’affirmation.",
    ),
    "scroll_hint": ("Scroll sideways →", "Faites défiler de côté →"),
    # evidence as shown (issue 36): the sentence around a quote, its support, why a claim
    # cannot rank, the strongest arguments of each side
    "strongest_each_side": (
        "Strongest arguments of each side",
        "Arguments les plus forts de chaque camp",
    ),
    "strongest_each_participant": (
        "Strongest arguments of each participant",
        "Arguments les plus forts de chaque participant",
    ),
    "strongest_per_side_note": (
        "At most {n} per side, by score; only a claim whose quote was found word for word in a "
        "retrieved document, in a sentence that supports it, can rank.",
        "Au plus {n} par camp, par score ; seule une affirmation dont la citation a été trouvée "
        "mot pour mot dans un document trouvé, dans une phrase qui l'appuie, peut être classée.",
    ),
    "strongest_per_participant_note": (
        "At most {n} per participant, by score; only a claim whose quote was found word for word "
        "in a retrieved document, in a sentence that supports it, can rank.",
        "Au plus {n} par participant, par score ; seule une affirmation dont la citation a été "
        "trouvée mot pour mot dans un document trouvé, dans une phrase qui l'appuie, peut être "
        "classée.",
    ),
    "no_ranked_claim": (
        "(no claim of this side can rank)",
        "(aucune affirmation de ce camp ne peut être classée)",
    ),
    "not_ranked_why": ("Not ranked:", "Non classées :"),
    "more_not_ranked": ("… and {n} more not ranked", "… et {n} autres non classées"),
    "quoted_out_of_context": ("quoted out of context:", "citée hors contexte :"),
    "distancing_words": ("the sentence distances itself with", "la phrase s'en distancie par"),
    "near_match_says": (
        "near match — the document says",
        "correspondance approchée — le document dit",
    ),
    "support_supports": ("supports the claim", "appuie l'affirmation"),
    "support_contradicts": ("contradicts the claim", "contredit l'affirmation"),
    "support_unrelated": ("does not address the claim", "ne traite pas de l'affirmation"),
    "support_unchecked": ("support not checked", "appui non vérifié"),
    "support_by": ("checked by {by}", "vérifié par {by}"),
    "support_rules": ("argue's offline rules", "les règles hors ligne d'argue"),
    "contradicted_by_source": (
        "contradicted by the source it quotes:",
        "contredite par la source qu'elle cite :",
    ),
    "nr_refusal": (
        "the model refused to answer (not an argument)",
        "refus du modèle (pas un argument)",
    ),
    "nr_unverified_reference": (
        "it carries references that match no retrieved document: {detail}",
        "elle porte des références qui ne correspondent à aucun document trouvé : {detail}",
    ),
    "nr_contradicts": (
        "the sentence it quotes contradicts it: {detail}",
        "la phrase qu'elle cite la contredit : {detail}",
    ),
    "nr_unrelated": (
        "the sentence it quotes does not address it: {detail}",
        "la phrase qu'elle cite ne traite pas de l'affirmation : {detail}",
    ),
    "nr_unchecked": (
        "nobody checked that the sentence it quotes supports it: {detail}",
        "personne n'a vérifié que la phrase qu'elle cite l'appuie : {detail}",
    ),
    "nr_out_of_context": (
        "quoted out of context: {detail}",
        "citée hors contexte : {detail}",
    ),
    "nr_near_match": (
        "a near match only, not the document's words: {detail}",
        "une correspondance approchée seulement, pas les mots du document : {detail}",
    ),
    "nr_quote_not_found": (
        "its quote was not found in the document it cites: {detail}",
        "sa citation est introuvable dans le document cité : {detail}",
    ),
    "nr_unknown_evidence": (
        "it cites evidence that does not exist: {detail}",
        "elle cite des preuves qui n'existent pas : {detail}",
    ),
    "nr_model_written_only": (
        "it cites only model-written items, never evidence: {detail}",
        "elle ne cite que des éléments écrits par un modèle, jamais des preuves : {detail}",
    ),
    "nr_uncited": ("it cites no evidence", "elle ne cite aucune preuve"),
    "nr_marker_copy": (
        "it writes code's own markers, imitating argue's account of the evidence: {detail}",
        "elle écrit les marques du code, imitant le compte rendu des preuves par argue : {detail}",
    ),
    # research that reaches a usable source (issue 35)
    "t_source_unused": ("{name} not used: {reason}", "{name} non utilisée : {reason}"),
    "t_source_unused_named": (
        "warning: {name} not used: {reason}",
        "attention : {name} non utilisée : {reason}",
    ),
    "t_no_research_source": (
        "No research source can answer now: the debate runs on memory and colleagues only.",
        "Aucune source de recherche ne peut répondre maintenant : le débat s'appuie seulement "
        "sur la mémoire et les collègues.",
    ),
    "dr_no_source": ("none", "aucune"),
    "argue_query": ("argue's query", "requête d'argue"),
    "reason_library_empty": (
        "the library is empty (add files with `argue library add`)",
        "la bibliothèque est vide (ajoutez des fichiers avec `argue library add`)",
    ),
    "reason_not_used": ("not used in this debate", "non utilisée dans ce débat"),
    "reason_not_asked": (
        "not asked (not used in this debate): {names}",
        "non interrogées (non utilisées dans ce débat) : {names}",
    ),
    "reason_no_source_in_debate": (
        "no research source can answer in this debate",
        "aucune source de recherche ne peut répondre dans ce débat",
    ),
    "what_plan_slot": ("research plan {slot}", "plan de recherche, {slot}"),
    "what_plan_free_call": ("research plan free call {n}", "plan de recherche, appel libre {n}"),
    "slot_ask": ("ask", "question au collègue"),
    "slot_dogpile_query": ("dogpile query", "requête dogpile"),
    "slot_memory_query": ("memory query", "requête mémoire"),
    "slot_dogpile_sources": ("dogpile sources", "sources dogpile"),
    "slot_why": ("why", "pourquoi"),
    "repair_missing": ("missing", "absente"),
    "repair_blank": ("blank", "vide"),
    "repair_missing_field": ("{field} missing", "{field} absent"),
    "repair_blank_field": ("{field} blank", "{field} vide"),
    "repair_colleague": (
        "colleague {name} is not offered (offered: {offered})",
        "le collègue {name} n'est pas proposé (proposés : {offered})",
    ),
    "repair_no_colleague": (
        "no colleague is offered in this plan",
        "aucun collègue n'est proposé dans ce plan",
    ),
    "repair_skill": ("skill {name} is not offered", "le skill {name} n'est pas proposé"),
    "repair_over_room": (
        "over the {n} free call(s) the budget leaves",
        "au-delà du ou des {n} appel(s) libre(s) que le budget laisse",
    ),
    "repair_invalid": ("invalid ({detail})", "invalide ({detail})"),
    "repair_no_source": (
        "not offered: no research source can answer in this debate",
        "non proposée : aucune source de recherche ne peut répondre dans ce débat",
    ),
    "repair_dropped": ("dropped", "abandonnée"),
    "repair_replaced": (
        "replaced by argue's query {query}",
        "remplacée par la requête d'argue {query}",
    ),
    # argue serve's index, paged (issue 39 item 4)
    "serve_pages": ("Pages of debates", "Pages de débats"),
    "serve_newer": ("← Newer", "← Plus récents"),
    "serve_older": ("Older →", "Plus anciens →"),
    "serve_page_of": (
        "Page {n} of {count} ({total} debates)",
        "Page {n} sur {count} ({total} débats)",
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


_FRENCH: dict[str, str] = {}


def _french(key: str) -> str:
    """The French of ``key``, with French typography (no-break spaces before ``:`` ``;`` ``?``
    ``!`` ``%`` and inside ``« »``), spaced once: the table is written with plain spaces."""
    text = _FRENCH.get(key)
    if text is None:
        text = _FRENCH[key] = french_spacing(_LABELS[key][1])
    return text


# Fields that carry numbers code formatted (``"0.85"``, ``"$0.0123"``,
# ``"A1.c1=0.00, A1.c2=0.33"``), never model text: their decimals and dollar amounts are shown
# the French way.
_NUMBER_FIELDS = frozenset(
    {"similarities", "threshold", "confidence", "evidence", "spent", "budget", "seconds", "s"}
    | {"cost", "now", "d1", "d2", "value", "span", "input", "output"}
)


def _french_field(name: str, value: object) -> object:
    if name not in _NUMBER_FIELDS or not isinstance(value, str):
        return localise_number(value, "fr")
    shown = localise_amounts(value, "fr")
    if shown != value and re.search(r"\d,\d", shown) and ", " in shown:
        shown = shown.replace(", ", _french("list_separator"))  # "0,00 ; 0,33", not "0,00, 0,33"
    return shown


def label(key: str, lang: str = "en", **fields: object) -> str:
    """Code's words for ``key`` in ``lang``. In French, a field that is one decimal number as its
    caller formatted it (``confidence=f"{c:.2f}"``), or a field that only ever carries numbers
    (``_NUMBER_FIELDS``), is shown with decimal commas."""
    if lang != "fr":
        text = _LABELS[key][0]
        return text.format(**fields) if fields else text
    text = _french(key)
    if not fields:
        return text
    return text.format(**{name: _french_field(name, value) for name, value in fields.items()})


class Labels:
    """Attribute access for templates: ``{{ L.agreements }}``; an unknown key is an error."""

    def __init__(self, lang: str = "en") -> None:
        self.lang = lang if lang in LANGUAGES else "en"

    def __getattr__(self, key: str) -> str:
        if key not in _LABELS:
            raise AttributeError(f"no label {key!r}")
        return label(key, self.lang)
