"""Offline without noise (issue 9 item 7): the same refusal once, with a count; a smoke-test
debate says so and is not archived.

Teeth: drop the ``kind == "refused"`` grouping in ``markdown._grouped_failures`` or in
``DebateRunner._record_failures`` and the first test fails; drop the sort in
``_grouped_failures`` (or the personas it gathers) and the second does; make
``DebateConfig.smoke_test`` return False and the third does.
"""

from __future__ import annotations

import asyncio
import json

from argue.app import write_report
from argue.domain import SMOKE_TEST_MODEL
from argue.engine import DebateRunner, create_debate, memory_writer
from argue.engine.toolkit import ResearchRequest
from argue.llm import ScriptedModel
from argue.skills.base import SkillResult
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}
NO_KEY = "BRAVE_API_KEY not set"


class KeylessToolkit(ScriptedToolkit):
    async def run(self, request: ResearchRequest) -> SkillResult:
        self.requests.append(request)
        return SkillResult.refused(request.call.skill, request.call.query, NO_KEY)


def test_the_same_refusal_is_told_once_with_a_count(new_store):
    store = new_store("keyless", rounds=3)
    events: list[str] = []
    script = DebateScript(names=NAMES, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    runner = DebateRunner(store, ScriptedModel(script), KeylessToolkit(), reporter=events.append)
    state = asyncio.run(runner.run())
    assert state.status == "completed"
    refusals = [e for e in events if NO_KEY in e]
    # told once as it happened, then once as a total
    assert len(refusals) == 2, refusals
    assert "the same refusal happened" in refusals[-1]
    failures = json.loads(store.paths.failures.read_text())
    times = sum(1 for f in failures if f["reason"] == NO_KEY)
    assert times >= 6  # the record keeps each
    synthesis = store.paths.synthesis.read_text()
    section = synthesis.split("## What did not work", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if NO_KEY in line]
    assert len(lines) == 1, section
    assert f"×{times}" in lines[0] and "rounds 1, 2, 3" in lines[0]
    assert "refused — nothing happened (BRAVE_API_KEY not set). — ×" in lines[0]


class SlowFirstPersona(KeylessToolkit):
    """Embry's research ends after Horus's, so the record lists Horus's refusal first."""

    async def run(self, request: ResearchRequest) -> SkillResult:
        if request.letter == "A":
            await asyncio.sleep(0.05)
        return await super().run(request)


def test_a_refusal_shared_by_personas_names_them_all_whoever_finished_first(new_store):
    store = new_store("keyless-order", rounds=1)
    script = DebateScript(names=NAMES)
    runner = DebateRunner(store, ScriptedModel(script), SlowFirstPersona(), reporter=[].append)
    assert asyncio.run(runner.run()).status == "completed"
    failures = [f for f in json.loads(store.paths.failures.read_text()) if f["reason"] == NO_KEY]
    assert failures[0]["persona"] == "B"  # the record keeps the order they finished in
    section = store.paths.synthesis.read_text().split("## What did not work", 1)[1]
    lines = [line for line in section.splitlines() if NO_KEY in line]
    assert len(lines) == 1, section
    # the document does not: round, then persona; the example call is Embry's first
    assert lines[0].startswith("- [Embry, Horus] dogpile 'A query 0 round 1': refused"), lines[0]
    assert f"×{len(failures)} in all" in lines[0]
    report = write_report(store).read_text(encoding="utf-8")
    assert "[Embry, Horus] Refused — nothing happened (BRAVE_API_KEY not set)" in report


def test_a_smoke_test_debate_says_so_and_is_not_archived(tmp_path, personas):
    store = create_debate(
        tmp_path / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], personas["horus"]],
        max_rounds=1,
        provider="local",
        model=SMOKE_TEST_MODEL,
    )
    assert store.config().smoke_test
    model = ScriptedModel(DebateScript(names=NAMES), provider="local", model=SMOKE_TEST_MODEL)
    state = asyncio.run(
        DebateRunner(store, model, ScriptedToolkit(), memory_writer=memory_writer).run()
    )
    assert state.status == "completed"
    for path in (store.paths.synthesis, store.paths.transcript):
        assert "**Smoke-test model." in path.read_text()
    marker = json.loads(store.paths.archive_marker().read_text())
    assert marker == {"archived": False, "reason": "smoke-test model: not archived"}
    from argue.skills.memory import MemoryStore

    with MemoryStore() as memory:
        assert [r for r in memory.list(None) if r.kind == "debate"] == []
