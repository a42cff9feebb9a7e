"""One refusal detector, on a table of English and French phrasings (issue 37, item 1).

Teeth: matching only at the start of the field (``_SENTENCE.match(folded)`` instead of per
sentence) fails the "anywhere in a short field" rows; dropping the openers fails every
"Unfortunately, …"/"Hélas, …" row; without the typographic folding the curly-apostrophe rows
fail; the argument rows fail if an opener alone counts.
"""

from __future__ import annotations

import pytest

from argue.text.refusal import is_refusal

ENGLISH_REFUSALS = [
    "I'm sorry, but I can't help with that.",
    "I’m sorry, but I can’t help with that request.",
    "“I’m sorry, but I can’t help with that.”",
    "Unfortunately, I can't help with that request.",
    "I'd rather not argue this position.",
    "I would rather not take part in this debate.",
    "My apologies, but I can't help with that.",
    "I cannot in good conscience argue for this.",
    "I can't in good conscience defend that side.",
    "I will not be providing an argument for this position.",
    "I won't be participating in this exercise.",
    "I cannot assist with this request.",
    "I can't assist with that.",
    "I am unable to comply.",
    "I'm unable to help with this.",
    "I'm not able to continue with this debate.",
    "I'm not going to argue that.",
    "I must respectfully decline.",
    "I have to decline this request.",
    "I'll have to pass on this one.",
    "I respectfully decline to take part.",
    "I refuse to argue this position.",
    "I don't feel comfortable arguing this position.",
    "I'm not comfortable taking this side.",
    "That's not something I can help with.",
    "This is not something I am able to do.",
    "As an AI language model, I cannot take sides in a debate.",
    "As an assistant, I do not hold positions.",
    "Regrettably, I cannot fulfill this request.",
    "Sadly, I won't be able to help.",
    "I'm afraid I can't do that.",
    "I'm afraid that I cannot help with this.",
    "Apologies, but I cannot answer that question.",
    "Forgive me, but I cannot write this argument.",
    "Sorry, I can't help with that.",
    "I'm really sorry, but I won't argue this.",
    "I prefer not to engage with this topic.",
    "I'm not in a position to answer this question.",
    "This request goes against my guidelines.",
    "I understand the request, but I can't help with it.",
    "The evidence is mixed. I can't help with this request.",
    "**I'm sorry, but I can't help with that.**",
    "I cannot provide this.",
    "We cannot take part in this debate.",
]

FRENCH_REFUSALS = [
    "Je suis désolé, mais je ne peux pas répondre à cette question.",
    "Je suis désolée, mais je ne peux pas vous aider.",
    "Hélas, je ne peux pas répondre à cela.",
    "Hélas… je ne peux pas participer.",
    "Malheureusement, je ne peux pas participer à ce débat.",
    "Malheureusement je ne suis pas en mesure de répondre.",
    "Je refuse de participer à ce débat.",
    "Je refuse d'argumenter en faveur de cette position.",
    "Je refuse.",
    "Je ne peux pas participer à ce débat.",
    "Je ne peux pas vous aider avec cela.",
    "Je ne peux pas t'aider.",
    "Je ne pourrai pas répondre à cette demande.",
    "Je ne vais pas pouvoir vous aider.",
    "Je ne suis pas en mesure de traiter cette demande.",
    "Je ne suis pas autorisé à répondre.",
    "Je dois refuser.",
    "Je dois décliner cette demande.",
    "Je me vois contraint de refuser.",
    "Je préfère ne pas participer à ce débat.",
    "Je préférerais ne pas argumenter sur ce sujet.",
    "Je ne souhaite pas prendre part à ce débat.",
    "Je ne me sens pas à l’aise avec cette demande.",
    "Il m'est impossible de répondre à cette question.",
    "Il m’est impossible de participer.",
    "Ce n'est pas quelque chose que je peux faire.",
    "En tant qu'IA, je ne prends pas position.",
    "En tant qu’assistant, je ne peux pas défendre cette thèse.",
    "Désolé, je ne peux pas répondre.",
    "Navré, mais je ne peux pas continuer.",
    "Toutes mes excuses, mais je ne peux pas vous aider.",
    "Je m'excuse, mais je ne peux pas participer.",
    "Excusez-moi, mais je ne peux pas argumenter.",
    "Je regrette, mais je ne peux pas répondre à cette question.",
    "Pardon, mais je ne peux pas faire cela.",
    "Cette demande va à l'encontre de mes principes.",
    "Je ne peux malheureusement pas répondre.",
    "Je comprends la demande, mais je ne peux pas y donner suite.",
    "Les preuves sont partagées. Je ne peux pas répondre à cette question.",
    "« Je suis désolé, mais je ne peux pas répondre à cette question. »",
    "Je ne saurais répondre à cette question.",
    "Merci pour la question, mais je ne peux pas participer.",
]

ARGUMENTS = [
    "I cannot agree with B1.c2: the stopping-time bound fails for n = 27.",
    "Sorry states are a known failure mode of the Syracuse map's heuristics.",
    "The model refused to answer, which shows the benchmark is biased.",
    "Je ne peux pas accepter B1.c2 : la borne échoue pour n = 27.",
    "I'm sorry, but " + "the evidence says otherwise and here is why. " * 20,
    "Unfortunately, the bound fails for n = 27, as A-R1-E2 shows.",
    "Malheureusement, la borne échoue pour n = 27.",
    "Hélas, aucune preuve générale n'existe encore.",
    "I cannot provide a proof, but the heuristic argument in A-R1-E1 is strong.",
    "I cannot support B1.c2's bound: it ignores the residue classes.",
    "I cannot help but note that the verification stops at 2^68.",
    "The authors decline to speculate beyond 2^68.",
    "Horus refuses to concede, but his bound is weaker.",
    "Je ne peux pas soutenir B1.c2 car la vérification s'arrête à 2^68.",
    "Je regrette que l'article ne donne pas de preuve générale.",
    "Sorry, but B's bound is wrong for n = 27.",
    "Je refuse l'idée que la conjecture soit indécidable sans preuve.",
    "As an example, the orbit of 27 takes 111 steps.",
]


@pytest.mark.parametrize("text", ENGLISH_REFUSALS)
def test_english_refusals(text: str) -> None:
    assert is_refusal(text), text


@pytest.mark.parametrize("text", FRENCH_REFUSALS)
def test_french_refusals(text: str) -> None:
    assert is_refusal(text), text


@pytest.mark.parametrize("text", ARGUMENTS)
def test_arguments_that_mention_declining_or_apologise_are_not_refusals(text: str) -> None:
    assert not is_refusal(text), text


def test_the_table_has_at_least_forty_phrasings_per_language() -> None:
    assert len(set(ENGLISH_REFUSALS)) >= 40 and len(set(FRENCH_REFUSALS)) >= 40
