from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pydantic import BaseModel

from argue.domain import BRIDGES, Persona
from argue.llm import ScriptedModel
from argue.llm.base import Message, ModelUnavailableError
from argue.personas import PersonaCatalog, load_catalog, persona_card
from argue.skills.ask import ColleagueAnswer, ask
from argue.skills.base import SkillItem, SkillResult

COLLATZ_QUESTION = "What is the complexity-theory angle on Collatz stopping times?"
EMBRY_ARGUMENTS = [
    "A1.c1: Terras' theorem shows almost every orbit has a finite stopping time.",
    "A2.c1: Density arguments cannot by themselves exclude a divergent orbit.",
]
SECRET_RESEARCH = "PRIVATE-NOTE-7731: Embry plans to cite the unpublished Lagarias draft"


@pytest.fixture
def catalog() -> PersonaCatalog:
    return load_catalog()


def answering(text: str, confidence: float = 0.7) -> ScriptedModel:
    return ScriptedModel(replies=[ColleagueAnswer(answer=text, confidence=confidence)])


def prompt_of(model: ScriptedModel) -> str:
    return "\n".join(message.content for message in model.requests[0].messages)


async def test_without_a_named_colleague_the_question_is_routed_by_keywords(
    catalog: PersonaCatalog,
) -> None:
    model = answering("Stopping times look like a hard counting problem.")
    result = await ask(COLLATZ_QUESTION, asker=catalog.get("embry"), catalog=catalog, model=model)

    assert result.skill == "ask" and result.status == "ok"
    assert "routed to brandon: matched" in result.note and "collatz" in result.note
    [item] = result.items
    digest = hashlib.sha1(COLLATZ_QUESTION.encode()).hexdigest()[:10]
    assert item.id == f"ask:brandon:{digest}"
    assert item.title == f"Brandon on: {COLLATZ_QUESTION}"
    assert item.snippet == "Stopping times look like a hard counting problem."
    assert item.source == "ask" and item.score == 0.7

    [request] = model.requests
    assert request.purpose == "ask" and request.output is ColleagueAnswer
    system = request.messages[0]
    assert system.role == "system"
    assert persona_card(catalog.get("brandon")) in system.content
    assert "Embry" in system.content
    assert COLLATZ_QUESTION in request.messages[-1].content
    assert "published arguments" not in prompt_of(model)


async def test_routing_is_deterministic(catalog: PersonaCatalog) -> None:
    first = await ask(
        COLLATZ_QUESTION, asker=catalog.get("embry"), catalog=catalog, model=answering("a")
    )
    second = await ask(
        COLLATZ_QUESTION, asker=catalog.get("embry"), catalog=catalog, model=answering("b")
    )
    assert first.items[0].id == second.items[0].id
    assert first.note == second.note


async def test_a_named_colleague_is_asked_directly(catalog: PersonaCatalog) -> None:
    model = answering("Measure it first.")
    result = await ask(
        "Is the bound tight?",
        asker=catalog.get("embry"),
        catalog=catalog,
        model=model,
        colleague="Horus",
    )
    assert result.status == "ok"
    assert result.items[0].id.startswith("ask:horus:")
    assert result.note == "asked horus by name"
    assert persona_card(catalog.get("horus")) in model.requests[0].messages[0].content


async def test_unknown_colleague_and_asking_yourself_are_refused(
    catalog: PersonaCatalog,
) -> None:
    model = answering("never used")
    unknown = await ask(
        "Is it true?", asker=catalog.get("embry"), catalog=catalog, model=model, colleague="zorg"
    )
    assert unknown.status == "refused"
    assert "unknown colleague 'zorg'" in unknown.note and "horus" in unknown.note
    yourself = await ask(
        "Is it true?", asker=catalog.get("embry"), catalog=catalog, model=model, colleague="EMBRY"
    )
    assert yourself.status == "refused" and "cannot ask itself" in yourself.note
    assert model.requests == []


async def test_an_asker_without_colleagues_is_refused() -> None:
    loner = Persona(
        name="loner",
        display_name="Loner",
        role="hermit",
        lens="solitary",
        expertise=["silence"],
        style="quiet",
        bridges=dict.fromkeys(BRIDGES, 0.5),
    )
    catalog = PersonaCatalog({"loner": loner}, {"loner": "builtin"})
    result = await ask("Anyone?", asker=loner, catalog=catalog, model=answering("x"))
    assert result.status == "refused"
    assert "loner has no colleague to ask" in result.note


async def test_a_debating_colleague_answers_only_from_published_arguments_and_memory(
    catalog: PersonaCatalog, tmp_path: Path
) -> None:
    # Embry's private research exists on disk, as it would in the debate folder.
    research = tmp_path / "debates" / "argue_1" / "persona_a" / "research" / "round_001.md"
    research.parent.mkdir(parents=True)
    research.write_text(SECRET_RESEARCH, encoding="utf-8")
    recalls: list[tuple[str, str]] = []

    async def memory_recall(question: str, persona_name: str) -> SkillResult:
        recalls.append((question, persona_name))
        memory = SkillItem(
            id="memory:embry:3",
            title="Earlier debate",
            snippet="Embry held that ergodic arguments stop short of a proof.",
            source="memory",
        )
        return SkillResult.from_items("memory", question, [memory])

    question = "Does the dynamical systems approach really converge?"
    model = answering("Only almost everywhere, as I argued in A1.c1.")
    result = await ask(
        question,
        asker=catalog.get("horus"),
        catalog=catalog,
        model=model,
        colleague="embry",
        participants={"embry": EMBRY_ARGUMENTS, "horus": ["B1.c1: FRACTRAN is universal."]},
        memory_recall=memory_recall,
    )

    assert result.status == "ok"
    assert "answered from embry's published arguments and memory only" in result.note
    assert recalls == [(question, "embry")]
    prompt = prompt_of(model)
    for argument in EMBRY_ARGUMENTS:
        assert argument in prompt
    assert "ergodic arguments stop short of a proof" in prompt
    assert "ONLY from your published arguments and your memory" in prompt
    assert SECRET_RESEARCH not in prompt
    assert "FRACTRAN is universal" not in prompt


async def test_a_debating_colleague_with_nothing_published_is_refused(
    catalog: PersonaCatalog,
) -> None:
    async def empty_memory(question: str, persona_name: str) -> SkillResult:
        return SkillResult.from_items("memory", question, [])

    model = answering("never used")
    result = await ask(
        "Does it converge?",
        asker=catalog.get("horus"),
        catalog=catalog,
        model=model,
        colleague="embry",
        participants={"embry": []},
        memory_recall=empty_memory,
    )
    assert result.status == "refused"
    assert "nothing to answer from yet" in result.note
    assert model.requests == []


async def test_a_failed_memory_recall_is_reported_and_arguments_still_used(
    catalog: PersonaCatalog,
) -> None:
    async def broken_memory(question: str, persona_name: str) -> SkillResult:
        return SkillResult.failed("memory", question, "database is locked")

    model = answering("From A2.c1: no.")
    result = await ask(
        "Does it converge?",
        asker=catalog.get("horus"),
        catalog=catalog,
        model=model,
        colleague="embry",
        participants={"Embry": EMBRY_ARGUMENTS},
        memory_recall=broken_memory,
    )
    assert result.status == "ok"
    assert "memory recall failed: database is locked" in result.note
    assert EMBRY_ARGUMENTS[1] in prompt_of(model)


async def test_a_model_error_becomes_a_failed_result(catalog: PersonaCatalog) -> None:
    model = ScriptedModel(replies=[ModelUnavailableError("scripted", "HTTP 503 after 3 tries")])
    result = await ask(COLLATZ_QUESTION, asker=catalog.get("embry"), catalog=catalog, model=model)
    assert result.status == "failed"
    assert "model call failed: scripted: HTTP 503 after 3 tries" in result.note
    assert "routed to brandon" in result.note
    assert result.items == []


async def test_invalid_model_output_becomes_a_failed_result(catalog: PersonaCatalog) -> None:
    def never_valid(messages: list[Message], output: type[BaseModel] | None) -> dict:
        return {"answer": "", "confidence": 3}

    result = await ask(
        COLLATZ_QUESTION,
        asker=catalog.get("embry"),
        catalog=catalog,
        model=ScriptedModel(never_valid),
    )
    assert result.status == "failed"
    assert "model call failed" in result.note


async def test_an_empty_question_is_refused(catalog: PersonaCatalog) -> None:
    result = await ask(" ", asker=catalog.get("embry"), catalog=catalog, model=answering("x"))
    assert result.status == "refused"


async def test_routing_skips_a_debating_colleague_with_nothing_published_yet():
    from argue.llm import ScriptedModel
    from argue.personas import load_catalog
    from argue.skills.ask import ask

    catalog = load_catalog()
    horus = catalog.get("horus")
    model = ScriptedModel(
        lambda messages, output: {"answer": "from a free colleague", "confidence": 0.6}
    )
    silent = {name: [] for name in horus.colleagues[:1]}
    result = await ask(
        "anything at all", asker=horus, catalog=catalog, model=model, participants=silent
    )
    assert result.status == "ok", result.note
    assert not result.items[0].id.startswith(f"ask:{horus.colleagues[0]}:")
