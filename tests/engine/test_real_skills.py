"""The engine wired to the real skills (library, memory, ask, taxonomy), offline."""

from __future__ import annotations

import asyncio
import json

from argue.engine import DebateRunner, SkillToolkit, create_debate, memory_writer
from argue.llm import ScriptedModel
from argue.skills.library import LibraryStore
from argue.skills.memory import MemoryStore
from tests.engine.script import DebateScript

NAMES = {"Embry": "A", "Horus": "B"}


def test_a_debate_researches_the_library_consults_colleagues_and_remembers(tmp_path, personas):
    book = tmp_path / "collatz.md"
    book.write_text(
        "# Collatz\n\nThe query about A query 0 round 1 and B query 0 round 1: Terras showed "
        "that almost all orbits descend; query round.\n\n# Conway\n\nGeneralised Collatz "
        "maps are undecidable (query round).\n"
    )
    LibraryStore().add(book)
    store = create_debate(
        tmp_path / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], personas["horus"]],
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
        research_sources=["library"],
    )
    # every plan has its dogpile, memory and ask slots: no knob needed to get all three
    script = DebateScript(names=NAMES, confidence=lambda k, r: 0.9 if r % 2 else 0.4)
    model = ScriptedModel(script)
    toolkit = SkillToolkit(model, sources=["library"])
    runner = DebateRunner(store, model, toolkit, memory_writer=memory_writer)
    state = asyncio.run(runner.run())
    assert state.status == "completed"

    research = json.loads(store.paths.research("A", 1).read_text())
    by_skill = {call["skill"]: call for call in research["calls"]}
    assert by_skill["dogpile"]["status"] == "ok"
    assert [s["source"] for s in by_skill["dogpile"]["source_statuses"]] == ["library"]
    library_items = [e for e in research["evidence"] if e["source"] == "library"]
    assert library_items and library_items[0]["locator"]
    # round 1's rebuttal asked the colleague question of round 2, answered beside the
    # reflections: round 2's research holds it, with the colleague's answer
    second = json.loads(store.paths.research("A", 2).read_text())
    asked = {call["skill"]: call for call in second["calls"]}
    assert asked["ask"]["status"] == "ok"
    consults = json.loads(store.paths.consults("A", 2).read_text())
    assert consults["answers"][0]["skill"] == "ask"
    # round 1 memory is empty and says so, rather than pretending
    assert by_skill["memory"]["status"] == "empty"

    # well-scored claims were stored in each persona's memory, and the debate was archived
    with MemoryStore() as memory:
        embry = memory.list("embry")
        assert embry and all(r.debate_id == store.debate_id for r in embry)
        recalled = memory.recall("Collatz", persona=None, include_shared=True)
        assert any(store.debate_id in item.snippet for item in recalled.items) or recalled.items
    assert json.loads((store.paths.root / "archived.json").read_text())["archived"] is True
    sources = store.paths.synthesis.read_text().split("## Sources", 1)[1]
    assert "[library] " in sources
