"""The built-in personas cover the spec's questions and the usual debate fields (issue 9, item 2).

Routing is deterministic keyword matching (``argue.personas.routing``), so the seating for a
question is a fact that can be written down: each row below is question → seats for a pair (2)
and for a panel (3). Every field has ordinary questions in English and in French.
"""

from __future__ import annotations

from collections import deque

import pytest

from argue.domain import BRIDGES
from argue.personas import PersonaCatalog, load_catalog, route_colleague, select_personas
from argue.personas.keywords import match_keywords, tokenise
from argue.text import STOPWORDS

# Field → the built-in persona whose lens covers it.
FIELDS = {
    "mathematics/formal proof": "embry",
    "computation/AI systems": "horus",
    "complexity theory": "brandon",
    "software architecture and operations": "odile",
    "security": "vesper",
    "economics and public policy": "mirela",
    "law and ethics": "lucien",
    "philosophy of mind": "noor",
    "medicine and biology": "hana",
    "climate and energy": "tomas",
    "history": "aldous",
    "product/engineering management": "priya",
}

SPEC_QUESTIONS = [
    # the spec's example commands, as written, and their English forms
    ("La conjecture de Collatz est-elle décidable ?", ["embry", "brandon"], "horus"),
    ("Is the Collatz conjecture decidable?", ["embry", "brandon"], "horus"),
    ("Meilleure approche pour l'alignement de l'AGI", ["horus", "lucien"], "noor"),
    ("Approches d'alignement de l'AGI", ["horus", "lucien"], "noor"),
    ("Best approach to AGI alignment", ["horus", "lucien"], "noor"),
    ("Faut-il utiliser des microservices ou un monolithe ?", ["odile", "priya"], "horus"),
    ("Monolithe vs microservices", ["odile", "priya"], "horus"),
    ("Should we use microservices or a monolith?", ["odile", "priya"], "horus"),
    ("Notre architecture SPARTA est solide", ["brandon", "odile"], "embry"),
    ("Rust est meilleur que C++ pour l'embarqué", ["horus", "embry"], "vesper"),
    ("Is Rust better than C++ for embedded systems?", ["horus", "embry"], "vesper"),
    # the hard problems the spec names: P vs NP, consciousness, policy trade-offs
    ("P vs NP", ["brandon", "embry"], "horus"),
    ("Une machine peut-elle être consciente ?", ["horus", "noor"], "embry"),
    ("Can machines be conscious?", ["horus", "noor"], "embry"),
    ("Should we tax carbon?", ["mirela", "tomas"], "lucien"),
]

FIELD_QUESTIONS = [
    # mathematics/formal proof
    ("Is there an elementary proof of Fermat's last theorem?", ["embry", "brandon"], "horus"),
    (
        "Can every theorem of number theory be proved from the axioms?",
        ["embry", "brandon"],
        "horus",
    ),
    (
        "Existe-t-il une démonstration élémentaire du dernier théorème de Fermat ?",
        ["embry", "brandon"],
        "horus",
    ),
    ("Les mathématiques sont-elles découvertes ou inventées ?", ["embry", "brandon"], "horus"),
    # computation/AI systems
    ("Will large language models replace programmers?", ["horus", "embry"], "vesper"),
    ("Is deep learning hitting a wall?", ["horus", "embry"], "vesper"),
    (
        "Les grands modèles de langage vont-ils remplacer les programmeurs ?",
        ["horus", "embry"],
        "vesper",
    ),
    ("L'apprentissage profond atteint-il ses limites ?", ["horus", "embry"], "vesper"),
    # complexity theory
    ("Are NP-complete problems intractable in practice?", ["brandon", "embry"], "horus"),
    ("Is the halting problem relevant to real software?", ["brandon", "horus"], "embry"),
    (
        "Les problèmes NP-complets sont-ils intraitables en pratique ?",
        ["brandon", "embry"],
        "horus",
    ),
    (
        "Le problème de l'arrêt est-il pertinent pour les logiciels réels ?",
        ["brandon", "horus"],
        "embry",
    ),
    # software architecture and operations
    (
        "How much observability does a small team need to avoid outages?",
        ["odile", "priya"],
        "horus",
    ),
    ("Should a startup run Kubernetes from day one?", ["odile", "priya"], "horus"),
    (
        "Une startup doit-elle déployer Kubernetes dès le premier jour ?",
        ["odile", "priya"],
        "horus",
    ),
    ("Faut-il une astreinte pour une petite équipe ?", ["odile", "priya"], "horus"),
    # security
    ("Should companies pay ransomware attackers?", ["vesper", "horus"], "odile"),
    ("How should we defend LLM agents against prompt injection?", ["horus", "vesper"], "embry"),
    ("Comment se protéger contre les rançongiciels ?", ["vesper", "horus"], "odile"),
    ("Les logiciels libres sont-ils plus sûrs face aux attaques ?", ["horus", "vesper"], "embry"),
    # economics and public policy
    ("Does a minimum wage increase unemployment?", ["mirela", "lucien"], "tomas"),
    ("Should central banks target inflation above 2%?", ["mirela", "lucien"], "tomas"),
    ("Le salaire minimum augmente-t-il le chômage ?", ["mirela", "lucien"], "tomas"),
    ("Faut-il un revenu universel ?", ["mirela", "lucien"], "tomas"),
    # law and ethics
    ("Is euthanasia morally permissible?", ["lucien", "noor"], "mirela"),
    ("Does the GDPR protect privacy effectively?", ["lucien", "noor"], "mirela"),
    ("L'euthanasie est-elle moralement acceptable ?", ["lucien", "noor"], "mirela"),
    (
        "Les images générées par IA doivent-elles être protégées par le droit d'auteur ?",
        ["lucien", "horus"],
        "noor",
    ),
    # philosophy of mind
    ("Is consciousness a purely physical phenomenon?", ["noor", "hana"], "horus"),
    ("Does the Chinese room argument refute strong AI?", ["horus", "noor"], "embry"),
    ("La conscience est-elle un phénomène purement physique ?", ["noor", "hana"], "horus"),
    ("Le libre arbitre existe-t-il ?", ["noor", "hana"], "horus"),
    # medicine and biology
    ("Should COVID vaccines be mandatory for health workers?", ["hana", "lucien"], "mirela"),
    ("Is CRISPR gene editing of embryos ethical?", ["hana", "lucien"], "mirela"),
    (
        "Faut-il rendre la vaccination obligatoire pour les soignants ?",
        ["hana", "lucien"],
        "mirela",
    ),
    ("Les antibiotiques sont-ils trop prescrits ?", ["hana", "lucien"], "mirela"),
    # climate and energy
    ("Is nuclear power necessary to reach net zero?", ["tomas", "mirela"], "horus"),
    ("Can renewable energy alone power the grid?", ["tomas", "mirela"], "horus"),
    (
        "Le nucléaire est-il nécessaire pour atteindre la neutralité carbone ?",
        ["tomas", "mirela"],
        "horus",
    ),
    (
        "Les énergies renouvelables peuvent-elles alimenter seules le réseau électrique ?",
        ["tomas", "mirela"],
        "horus",
    ),
    # history
    ("Did the printing press cause the scientific revolution?", ["aldous", "mirela"], "lucien"),
    ("Was the fall of the Roman empire inevitable?", ["aldous", "mirela"], "lucien"),
    ("La chute de l'Empire romain était-elle inévitable ?", ["aldous", "mirela"], "lucien"),
    ("Quelles leçons tirer de la guerre froide ?", ["aldous", "mirela"], "lucien"),
    # product/engineering management
    ("Is remote work good for engineering teams?", ["priya", "odile"], "mirela"),
    ("Should we rewrite our legacy product or refactor it?", ["odile", "priya"], "horus"),
    ("Le télétravail est-il bon pour les équipes d'ingénierie ?", ["priya", "odile"], "mirela"),
    ("Faut-il réécrire notre produit ou le refactoriser ?", ["odile", "priya"], "horus"),
]

# Each field's persona is seated first for at least one English and one French question above.
LEADS = {
    "embry": (
        "Can every theorem of number theory be proved from the axioms?",
        "Les mathématiques sont-elles découvertes ou inventées ?",
    ),
    "horus": (
        "Is deep learning hitting a wall?",
        "L'apprentissage profond atteint-il ses limites ?",
    ),
    "brandon": (
        "Are NP-complete problems intractable in practice?",
        "Les problèmes NP-complets sont-ils intraitables en pratique ?",
    ),
    "odile": (
        "Should a startup run Kubernetes from day one?",
        "Faut-il une astreinte pour une petite équipe ?",
    ),
    "vesper": (
        "Should companies pay ransomware attackers?",
        "Comment se protéger contre les rançongiciels ?",
    ),
    "mirela": (
        "Does a minimum wage increase unemployment?",
        "Le salaire minimum augmente-t-il le chômage ?",
    ),
    "lucien": (
        "Is euthanasia morally permissible?",
        "L'euthanasie est-elle moralement acceptable ?",
    ),
    "noor": ("Is consciousness a purely physical phenomenon?", "Le libre arbitre existe-t-il ?"),
    "hana": (
        "Is CRISPR gene editing of embryos ethical?",
        "Les antibiotiques sont-ils trop prescrits ?",
    ),
    "tomas": (
        "Is nuclear power necessary to reach net zero?",
        "Le nucléaire est-il nécessaire pour atteindre la neutralité carbone ?",
    ),
    "aldous": (
        "Was the fall of the Roman empire inevitable?",
        "Quelles leçons tirer de la guerre froide ?",
    ),
    "priya": (
        "Is remote work good for engineering teams?",
        "Le télétravail est-il bon pour les équipes d'ingénierie ?",
    ),
}


@pytest.fixture(scope="module")
def catalog() -> PersonaCatalog:
    return load_catalog()


@pytest.mark.parametrize(("question", "pair", "third"), SPEC_QUESTIONS + FIELD_QUESTIONS)
def test_questions_seat_topical_personas(
    catalog: PersonaCatalog, question: str, pair: list[str], third: str
) -> None:
    two = select_personas(question, catalog, count=2)
    three = select_personas(question, catalog, count=3)
    assert two.names() == pair, two.reason
    assert three.names() == [*pair, third], three.reason
    # the reason names the keywords that seated the lead, and never falls back to the default
    # order: a topical question reaches a topical persona or one of its colleagues
    lead = pair[0]
    assert three.matches[lead], three.reason
    said = three.reason.split(f"{lead} matched ", 1)[1]
    assert all(keyword in said for keyword in three.matches[lead]), three.reason
    assert "default order" not in three.reason
    for name in three.names():  # matched, or seated as a colleague of someone who matched
        assert name in three.reason, three.reason
    # deterministic: the same question gives the same seats and the same words
    assert select_personas(question, catalog, count=3) == three


def test_every_field_has_an_english_and_a_french_question_led_by_its_persona(
    catalog: PersonaCatalog,
) -> None:
    assert set(LEADS) == set(FIELDS.values()) == set(catalog.names())
    # Checked: without tomas's French keywords this test and the "Le nucléaire…" row fail.
    for name, (english, french) in LEADS.items():
        for question in (english, french):
            selection = select_personas(question, catalog, count=2)
            assert selection.names()[0] == name, (question, selection.reason)


def test_the_spec_example_seats_say_why(catalog: PersonaCatalog) -> None:
    collatz = select_personas("La conjecture de Collatz est-elle décidable ?", catalog, count=3)
    assert collatz.reason.startswith(
        "keyword routing: embry matched conjecture, collatz, decidable (3); "
        "brandon matched collatz (1); horus matched collatz (1)"
    )
    agi = select_personas("Meilleure approche pour l'alignement de l'AGI", catalog, count=3)
    assert "horus matched agi, alignement (2)" in agi.reason
    assert "lucien matched alignement (1)" in agi.reason and "noor matched agi (1)" in agi.reason
    micro = select_personas("Faut-il utiliser des microservices ou un monolithe ?", catalog, 3)
    assert micro.reason == (
        "keyword routing: odile matched microservices, monolithe (2); "
        "priya matched microservices (1); horus as odile's colleague (no other persona matched)"
    )


def test_unmatched_seats_go_to_colleagues_of_the_seated_personas(catalog: PersonaCatalog) -> None:
    selection = select_personas("Does a minimum wage increase unemployment?", catalog, count=4)
    mirela = catalog.get("mirela")
    assert selection.names() == ["mirela", *mirela.colleagues[:3]]
    assert "lucien, tomas, aldous as mirela's colleagues (no other persona matched)" in (
        selection.reason
    )
    # a question nobody matches still uses the fixed default order
    nothing = select_personas("what is love?", catalog, count=3)
    assert nothing.names() == ["embry", "horus", "brandon"]


def test_a_full_seating_reaches_every_persona(catalog: PersonaCatalog) -> None:
    selection = select_personas("Is euthanasia morally permissible?", catalog, len(catalog))
    assert sorted(selection.names()) == catalog.names()
    assert "default order" not in selection.reason  # the social graph reaches everyone


# ---------------------------------------------------------------- the /ask social graph


def test_every_colleague_exists_and_each_persona_has_two_to_four(catalog: PersonaCatalog) -> None:
    for persona in catalog:
        assert 2 <= len(persona.colleagues) <= 4, persona.name
        assert len(set(persona.colleagues)) == len(persona.colleagues), persona.name
        assert persona.name not in persona.colleagues
        for name in persona.colleagues:
            assert name in catalog, f"{persona.name} lists unknown colleague {name}"


def test_the_social_graph_is_strongly_connected(catalog: PersonaCatalog) -> None:
    """Following ``colleagues`` links, every persona can reach (consult) every other one."""

    def reachable(start: str, edges: dict[str, list[str]]) -> set[str]:
        seen = {start}
        queue = deque([start])
        while queue:
            for name in edges[queue.popleft()]:
                if name not in seen:
                    seen.add(name)
                    queue.append(name)
        return seen

    forward = {persona.name: persona.colleagues for persona in catalog}
    backward: dict[str, list[str]] = {name: [] for name in forward}
    for name, colleagues in forward.items():
        for colleague in colleagues:
            backward[colleague].append(name)
    everyone = set(catalog.names())
    assert reachable("embry", forward) == everyone
    assert reachable("embry", backward) == everyone


ASK_ROUTES = [
    # the spec's /ask examples
    ("embry", "Quel est l'angle de complexité informatique sur Collatz ?", "brandon"),
    ("embry", "angle de théorie de la complexité sur les temps d'arrêt de Collatz", "brandon"),
    ("horus", "L'approche des systèmes dynamiques converge-t-elle réellement ?", "embry"),
    ("horus", "la théorie de la mesure comble-t-elle le fossé sur presque-tous", "embry"),
    # neighbouring fields, in both languages
    ("mirela", "How much does a carbon tax cut emissions?", "tomas"),
    ("mirela", "Une taxe carbone réduit-elle les émissions ?", "tomas"),
    ("odile", "Does this API have a security vulnerability?", "vesper"),
    ("odile", "Cette API a-t-elle une faille de sécurité ?", "vesper"),
    ("noor", "What does neuroscience say about the brain and consciousness?", "hana"),
    ("noor", "Que disent les neurosciences sur la conscience ?", "hana"),
    ("priya", "Combien coûterait la migration vers Kubernetes en astreinte ?", "odile"),
    ("lucien", "Does euthanasia change how patients are treated in hospitals?", "hana"),
    ("hana", "Le consentement du patient suffit-il en droit ?", "lucien"),
    ("tomas", "Would a carbon tax hurt the economy?", "mirela"),
    ("vesper", "Is this exploit legal under the GDPR?", "lucien"),
]


@pytest.mark.parametrize(("asker", "question", "colleague"), ASK_ROUTES)
def test_ask_routes_to_the_relevant_colleague(
    catalog: PersonaCatalog, asker: str, question: str, colleague: str
) -> None:
    chosen, reason = route_colleague(question, catalog.get(asker), catalog)
    assert chosen.name == colleague, reason
    assert reason.startswith(f"routed to {colleague}: matched ")


# ---------------------------------------------------------------- the persona files


def test_lenses_and_bridge_weights_are_distinct(catalog: PersonaCatalog) -> None:
    personas = catalog.all()
    assert len(personas) >= 12
    assert len({persona.lens for persona in personas}) == len(personas)
    vectors = {tuple(persona.bridges[bridge] for bridge in BRIDGES) for persona in personas}
    assert len(vectors) == len(personas)
    assert {persona.dominant_bridge()[0] for persona in personas} == set(BRIDGES)


def test_the_spec_personas_keep_their_description(catalog: PersonaCatalog) -> None:
    embry, horus, brandon = (catalog.get(name) for name in ("embry", "horus", "brandon"))
    assert "aerospace engineer" in embry.role and embry.lens == "formal/mathematical"
    assert embry.label() == "Embry (Precision=0.85)"
    assert "AI" in horus.role and horus.lens == "computational/practical"
    assert horus.label() == "Horus (Resilience=0.80)"
    assert "SPARTA intern" in brandon.role and brandon.lens == "complexity theory"
    assert embry.colleagues[0] == "brandon"  # the spec: Embry asks Brandon
    assert "embry" in horus.colleagues  # the spec: Horus asks Embry


def test_keywords_are_routable(catalog: PersonaCatalog) -> None:
    """No keyword is counted twice, and none is only function words (``c++`` → ``c``)."""
    for persona in catalog:
        needles: dict[str, str] = {}
        for keyword in persona.expertise:
            needle = " ".join(tokenise(keyword))
            assert needle, (persona.name, keyword)
            assert needle not in needles, f"{persona.name}: {keyword!r} = {needles[needle]!r}"
            needles[needle] = keyword
            words = needle.split()
            assert any(word not in STOPWORDS and len(word) > 1 for word in words), keyword
            sentence = tokenise(f"Question: {keyword}?")
            assert match_keywords(sentence, [keyword]) == [keyword], (persona.name, keyword)
