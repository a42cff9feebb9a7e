"""Research the spec asks for, guaranteed by code (issue 8, item 4).

Every round, every persona's research holds a ``dogpile`` search, a ``memory`` recall and, when
it has a colleague to ask, an ``ask``: slots the plan schema requires (round 1's plan and each
reflection's ``next_research`` alike), within the budget of 3. Skill and colleague names are
enums of what is really there.

Teeth (tried once each): ``memory_query`` optional in ``research_plan_model`` fails the schema
tests; no ``ask`` call
in ``ResearchPlanDraft._calls_from_slots`` fails the every-round count and the old-plan test.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import pytest
from pydantic import ValidationError

from argue.engine import DebateRunner, SkillToolkit
from argue.engine.phases.research import offered_colleagues, plan_schema
from argue.engine.schemas import (
    ReflectionDraft,
    ResearchCallDraft,
    ResearchPlanDraft,
    reflection_model,
    research_plan_model,
)
from argue.engine.toolkit import BUILTIN_SKILLS
from argue.llm import ScriptedModel
from argue.personas import load_catalog
from argue.skills.dogpile import SOURCE_NAMES
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}
SKILLS = (*BUILTIN_SKILLS, "papers")  # built-in skills and one external command
PLAN = {
    "why": "find support",
    "dogpile_query": "collatz stopping time bounds",
    "memory_query": "what I argued on collatz before",
}
ASK = {"colleague": "brandon", "question": "Is Collatz decidable?"}


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges: every round runs


# ---------------------------------------------------------------- the schema


def test_a_persona_with_colleagues_must_fill_three_slots_and_has_no_room_for_more():
    model = research_plan_model(SKILLS, ("brandon", "aldous"), 3)
    assert issubclass(model, ResearchPlanDraft) and model.__name__ == "ResearchPlanDraft"
    schema = model.model_json_schema()
    assert schema["required"] == ["dogpile_query", "memory_query", "ask"]
    assert "free_calls" not in schema["properties"]  # no budget left: not offered
    colleague = schema["$defs"]["ColleagueQuestionDraft"]["properties"]["colleague"]
    assert colleague["enum"] == ["brandon", "aldous"]

    plan = model.model_validate({**PLAN, "ask": ASK})
    assert [(c.skill, c.query, c.colleague) for c in plan.calls] == [
        ("dogpile", PLAN["dogpile_query"], None),
        ("memory", PLAN["memory_query"], None),
        ("ask", ASK["question"], "brandon"),
    ]
    for missing in ("dogpile_query", "memory_query"):
        with pytest.raises(ValidationError, match=missing):
            model.model_validate({**{k: v for k, v in PLAN.items() if k != missing}, "ask": ASK})
    with pytest.raises(ValidationError, match="ask"):
        model.model_validate(PLAN)  # a colleague exists: the ask is not optional
    with pytest.raises(ValidationError, match="free_calls"):  # a fourth call does not fit
        model.model_validate(
            {**PLAN, "ask": ASK, "free_calls": [{"skill": "library", "query": "x"}]}
        )
    with pytest.raises(ValidationError, match="dogpile_query"):
        model.model_validate({**PLAN, "ask": ASK, "dogpile_query": "   "})  # a blank search


def test_unknown_skills_and_colleagues_are_not_in_the_schema():
    with_colleague = research_plan_model(SKILLS, ("brandon",), 3)
    # one colleague is still an enum (not a `const` some decoders ignore)
    assert with_colleague.model_json_schema()["$defs"]["ColleagueQuestionDraft"]["properties"][
        "colleague"
    ]["enum"] == ["brandon"]
    for who in ("horus", "embry", "Brandon", "nobody"):
        with pytest.raises(ValidationError, match="colleague"):
            with_colleague.model_validate({**PLAN, "ask": {"colleague": who, "question": "?"}})

    alone = research_plan_model(SKILLS, (), 3)
    schema = alone.model_json_schema()
    skill = schema["$defs"]["FreeCallDraft"]["properties"]["skill"]
    assert skill["enum"] == ["dogpile", "memory", "library", "taxonomy", "papers"]  # not ask
    assert schema["properties"]["free_calls"]["maxItems"] == 1
    for name in ("google", "ask", "echo"):
        with pytest.raises(ValidationError, match="skill"):
            alone.model_validate({**PLAN, "free_calls": [{"skill": name, "query": "x"}]})
    with pytest.raises(ValidationError, match="ask"):  # nobody to ask
        alone.model_validate({**PLAN, "ask": ASK})


def test_a_free_call_names_sources_from_an_enum_of_the_allowed_ones():
    # A grammar-constrained model filled a free-text `sources` with sentences; every one was
    # refused and the call wasted. The schema now offers only the sources --sources allows.
    alone = research_plan_model(SKILLS, (), 3, ("arxiv", "library"))
    sources = alone.model_json_schema()["$defs"]["FreeCallDraft"]["properties"]["sources"]
    assert sources["items"]["enum"] == ["arxiv", "library"]
    call = {"skill": "dogpile", "query": "x", "sources": ["library"]}
    assert alone.model_validate({**PLAN, "free_calls": [call]}).calls[-1].sources == ["library"]
    # The enum binds the schema, not validation: a model that writes another name is not
    # re-asked (the dogpile skill drops what it cannot use and runs on the rest).
    for bad in (["google"], ["dogpile is a great resource"]):
        plan = alone.model_validate({**PLAN, "free_calls": [{**call, "sources": bad}]})
        assert plan.calls[-1].sources == bad


def test_the_plans_dogpile_sources_are_an_enum_of_the_allowed_ones():
    # The bundled Gemma filled a free-text `dogpile_sources` with colleague names and
    # `prachi_prachi_…`; every guaranteed search was then refused for its wording.
    plan_model = research_plan_model(SKILLS, ("brandon",), 3, ("arxiv", "library"))
    schema = plan_model.model_json_schema()["properties"]["dogpile_sources"]
    assert schema["items"]["enum"] == ["arxiv", "library"]
    reflection = reflection_model(plan_model).model_json_schema()
    nested = json.dumps(reflection)
    assert '"enum": ["arxiv", "library"]' in nested  # the next-round plan rides in it too
    plan = plan_model.model_validate({**PLAN, "ask": ASK, "dogpile_sources": ["horus"]})
    assert plan.calls[0].skill == "dogpile" and plan.calls[0].sources == ["horus"]


def test_a_persona_without_colleagues_gets_dogpile_memory_and_one_optional_free_call():
    alone = research_plan_model(SKILLS, (), 3)
    assert alone.model_json_schema()["required"] == ["dogpile_query", "memory_query"]
    assert "ask" not in alone.model_json_schema()["properties"]
    assert [c.skill for c in alone.model_validate(PLAN).calls] == ["dogpile", "memory"]
    plan = alone.model_validate({**PLAN, "free_calls": [{"skill": "papers", "query": "x"}]})
    assert [c.skill for c in plan.calls] == ["dogpile", "memory", "papers"]
    with pytest.raises(ValidationError, match="free_calls"):
        alone.model_validate({**PLAN, "free_calls": [{"skill": "library", "query": "x"}] * 2})


def test_the_reflection_carries_the_same_plan_when_there_is_a_next_round():
    plan = research_plan_model(SKILLS, ("brandon",), 3)
    planning = reflection_model(plan)
    assert issubclass(planning, ReflectionDraft) and planning.__name__ == "ReflectionDraft"
    assert "next_research" in planning.model_json_schema()["required"]
    reflection = {
        "confidence": 0.5,
        "would_change_my_mind": "a proof",
        "position_now": "undecided",
    }
    with pytest.raises(ValidationError, match="next_research"):
        planning.model_validate(reflection)
    with pytest.raises(ValidationError, match="memory_query"):
        planning.model_validate({**reflection, "next_research": {"dogpile_query": "x", "ask": ASK}})
    draft = planning.model_validate({**reflection, "next_research": {**PLAN, "ask": ASK}})
    assert [c.skill for c in draft.next_research.calls] == ["dogpile", "memory", "ask"]

    last = reflection_model(None)  # the last round: no plan offered, anything sent is ignored
    assert "next_research" not in last.model_json_schema()["properties"]
    ignored = last.model_validate({**reflection, "next_research": {"calls": "junk"}})
    assert "next_research" not in ignored.model_dump()


def test_offered_colleagues_are_real_never_itself_and_skip_a_silent_debater():
    catalog = load_catalog()
    embry = catalog.get("embry")

    class WithCatalog:
        def __init__(self) -> None:
            self.catalog = catalog

    listed = embry.model_copy(update={"colleagues": ["brandon", "embry", "ghost", "horus"]})
    assert offered_colleagues(WithCatalog(), listed, {}) == ("brandon", "horus")
    # round 1: Horus debates and has published nothing, so it could only refuse
    assert offered_colleagues(WithCatalog(), listed, {"horus": []}) == ("brandon",)
    assert offered_colleagues(WithCatalog(), listed, {"horus": ["[B1.c1] a claim"]}) == (
        "brandon",
        "horus",
    )
    # …unless nobody else is left
    only_horus = embry.model_copy(update={"colleagues": ["horus"]})
    assert offered_colleagues(WithCatalog(), only_horus, {"horus": []}) == ("horus",)


def test_skill_names_come_from_the_toolkit_built_in_and_external(new_store):
    from argue.engine import load_history

    store = new_store("names", rounds=1)
    toolkit = SkillToolkit(None, external={"papers": ["true"]}, plugins=False)  # type: ignore[arg-type]
    model, slots = plan_schema(load_history(store), "A", toolkit, 1)
    schema = model.model_json_schema()
    assert schema["$defs"]["ColleagueQuestionDraft"]["properties"]["colleague"]["enum"] == [
        "brandon",
        "aldous",
    ]
    assert "`ask` (required): `colleague`, one of: brandon, aldous;" in slots
    loner = load_history(store)
    loner.personas["A"] = loner.personas["A"].model_copy(update={"colleagues": []})
    model, slots = plan_schema(loner, "A", toolkit, 1)
    free_call = model.model_json_schema()["$defs"]["FreeCallDraft"]["properties"]
    assert free_call["skill"]["enum"] == ["dogpile", "memory", "library", "taxonomy", "papers"]
    assert free_call["sources"]["items"]["enum"] == list(SOURCE_NAMES)  # no --sources: all
    assert "`free_calls` (optional, at most 1)" in slots and "`ask` (required)" not in slots
    assert "no `ask` in this plan" in slots


# ---------------------------------------------------------------- in a debate


def test_the_three_slots_run_every_round_for_every_persona(run_debate):
    rounds = 4
    run = run_debate(rounds=rounds, script=DebateScript(names=NAMES, confidence=_swinging))
    assert run.state.termination == "max_rounds"
    ran = Counter(
        (r.letter, int(r.call.query.rsplit(" ", 1)[1]), r.call.skill) for r in run.toolkit.requests
    )
    # Round 1 searches and recalls; its rebuttal decides the colleague question of round 2
    # (answered beside the reflections), and so on: every later round has all three.
    expected = {
        (letter, rnd, skill): 1
        for letter in "AB"
        for rnd in range(1, rounds + 1)
        for skill in ("dogpile", "memory", "ask")
        if skill != "ask" or rnd > 1
    }
    assert ran == expected
    # plans after round 1 came from the reflections, with the same slots
    plans = [r for r in run.model.requests if r.output.__name__ == "ResearchPlanDraft"]
    assert len(plans) == 2
    for rnd in range(1, rounds + 1):
        for letter in "AB":
            calls = run.history.rounds[rnd].research[letter].calls
            if rnd == 1:
                assert [c.skill for c in calls] == ["dogpile", "memory"]
                continue
            assert [c.skill for c in calls] == ["dogpile", "memory", "ask"]
            assert calls[2].colleague  # the model picked one of those offered
            rebuttal = run.history.rounds[rnd - 1].rebuttals[letter]
            assert rebuttal.next_ask is not None
            assert (calls[2].colleague, calls[2].query) == (
                rebuttal.next_ask.colleague,
                rebuttal.next_ask.question,
            )
    planned = json.loads(run.store.paths.planned_research("A", 2).read_text())
    assert set(planned) == {
        "why",
        "dogpile_query",
        "dogpile_sources",
        "memory_query",
        "ask",
        "free_calls",
    }


# A plan missing a slot is no longer asked again: its good slots are kept and the missing query
# is argue's (tests/engine/test_research_reach.py, issue 35); a non-plan still is.


def test_a_persona_without_colleagues_researches_dogpile_memory_and_its_free_call(
    tmp_path, personas
):
    from argue.engine import create_debate

    loners = [personas[n].model_copy(update={"colleagues": []}) for n in ("embry", "horus")]
    for free_skill, expected in (
        (None, ["dogpile", "memory"]),
        ("library", ["dogpile", "memory", "library"]),
    ):
        store = create_debate(
            tmp_path / f"alone-{free_skill}",
            question="Is the Collatz conjecture decidable?",
            mode="adversarial",
            personas=loners,
            max_rounds=2,
            provider="scripted",
            model="scripted-1",
        )
        toolkit = ScriptedToolkit()
        script = DebateScript(names=NAMES, free_skill=free_skill, confidence=_swinging)
        asyncio.run(DebateRunner(store, ScriptedModel(script), toolkit).run())
        for letter in "AB":
            for rnd in (1, 2):
                research = json.loads(store.paths.research(letter, rnd).read_text())
                assert [c["skill"] for c in research["calls"]] == expected
        assert all(r.call.skill != "ask" for r in toolkit.requests)


# ---------------------------------------------------------------- plans saved before


def test_plan_files_in_the_earlier_shape_still_load_and_run(new_store):
    store = new_store("legacy", rounds=2)
    old = {
        "calls": [
            {"skill": "library", "query": "old plan query", "colleague": None, "sources": []},
            {"skill": "taxonomy", "query": "old plan label"},
        ],
        "why": "saved by an earlier version",
    }
    store.paths.research_plan("A", 1).parent.mkdir(parents=True, exist_ok=True)
    store.paths.research_plan("A", 1).write_text(json.dumps(old))
    over = {"calls": [{"skill": "dogpile", "query": f"q{n}"} for n in range(5)], "why": "many"}
    store.paths.research_plan("B", 1).parent.mkdir(parents=True, exist_ok=True)
    store.paths.research_plan("B", 1).write_text(json.dumps(over))
    assert ResearchPlanDraft.model_validate(old).calls == [
        ResearchCallDraft(skill="library", query="old plan query"),
        ResearchCallDraft(skill="taxonomy", query="old plan label"),
    ]
    assert ResearchPlanDraft.model_validate({"calls": [], "why": ""}).calls == []

    model = ScriptedModel(DebateScript(names=NAMES, confidence=_swinging))
    state = asyncio.run(DebateRunner(store, model, ScriptedToolkit()).run())
    assert state.status == "completed"
    # the saved plans ran as they were: no plan was asked for in round 1
    assert not any(r.output.__name__ == "ResearchPlanDraft" for r in model.requests)
    first = json.loads(store.paths.research("A", 1).read_text())
    assert [(c["skill"], c["query"]) for c in first["calls"]] == [
        ("library", "old plan query"),
        ("taxonomy", "old plan label"),
    ]
    assert first["why"] == "saved by an earlier version"
    # an old plan over the budget: code still caps it and says what it dropped
    crowded = json.loads(store.paths.research("B", 1).read_text())
    assert [c["query"] for c in crowded["calls"]] == ["q0", "q1", "q2"]
    assert crowded["dropped_calls"] == ["dogpile 'q3'", "dogpile 'q4'"]
    history_failures = json.loads(store.paths.failures.read_text())
    assert any("over the budget of 3" in f["what"] for f in history_failures)
    # round 2 came from the reflections, in slots
    second = json.loads(store.paths.research("A", 2).read_text())
    assert [c["skill"] for c in second["calls"]] == ["dogpile", "memory", "ask"]
    # a plan file written now has the slots and reads back the same
    planned = store.paths.planned_research("A", 2)
    again = ResearchPlanDraft.model_validate_json(planned.read_text())
    assert [c.skill for c in again.calls] == ["dogpile", "memory"]  # the ask: from the rebuttal
    assert "calls" not in json.loads(planned.read_text())
