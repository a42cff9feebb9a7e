"""Research that always reaches a usable source (issue 35).

Before round 1 code decides which sources can answer now (a key where one is needed, a
non-empty library, a URL to ask) and offers only those; the others are named once and kept in
config.json. A research plan keeps its good slots: an unknown colleague or a missing ask drops
the ask, an invalid free call is dropped alone, a missing or invalid query is replaced by
argue's own; only an answer that is not a plan at all is asked again.

Teeth (each broken once on purpose, the named tests failed, then restored):
- ``ResearchSource.unusable_reason`` always None (every source offered) -> the table test and
  the arXiv-every-round test fail (the enum offers brave…, youtube is reported unused nowhere);
- ``DogpileSkill`` asking every name the model wrote again (the ``unused`` filter removed) ->
  the arXiv-every-round test fails (brave and youtube come back as refused sources each round);
- ``SalvagingPlan._salvage`` returning ``handler(data)`` only (no salvage) -> the
  unknown-colleague test fails (the plan is asked again, then lost: no search ran);
- ``choose_sources`` without its usage error -> the only-unusable CLI test fails (exit 0 and a
  debate folder).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from argue.app import UsageError
from argue.app._workspace import Workspace
from argue.cli import app as cli_app
from argue.engine import DebateRunner, SkillToolkit, create_debate, load_history
from argue.engine.schemas import ResearchPlanDraft, reflection_model, research_plan_model
from argue.llm import ScriptedModel
from argue.paths import library_db_path
from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile import usable_sources
from argue.skills.dogpile.sources import arxiv
from argue.skills.library import LibraryStore
from tests.engine.script import DebateScript

NAMES = {"Embry": "A", "Horus": "B"}
UNUSABLE = ["brave", "youtube", "perplexity", "library"]
FALLBACK = ("argue dogpile query", "argue memory query")


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges: every round runs


# ---------------------------------------------------------------- which sources can answer


def test_usability_comes_from_the_source_table_and_the_library_is_checked_cheaply(tmp_path):
    usable, unused = usable_sources(env={})
    assert usable == ["arxiv", "github"]
    assert unused == {
        "brave": "BRAVE_API_KEY not set",
        "perplexity": "PERPLEXITY_API_KEY not set",
        "youtube": "YOUTUBE_API_KEY not set",
        "library": "the library is empty (add files with `argue library add`)",
    }
    assert not library_db_path().exists()  # telling it is empty created no database

    keys = {"BRAVE_API_KEY": "k", "YOUTUBE_API_KEY": "k", "PERPLEXITY_API_KEY": " "}
    book = tmp_path / "collatz.md"
    book.write_text("# Collatz\n\nTerras showed that almost all orbits descend.\n")
    LibraryStore().add(book)
    usable, unused = usable_sources(["library", "youtube", "perplexity", "brave"], keys)
    assert usable == ["library", "youtube", "brave"]
    assert unused == {"perplexity": "PERPLEXITY_API_KEY not set"}  # a blank key is no key


def test_sources_are_decided_before_round_one(monkeypatch):
    workspace = Workspace(env={})
    default = workspace.research_sources(None)
    assert (default.usable, list(default.unused), default.named) == (
        ["arxiv", "github"],
        ["brave", "perplexity", "youtube", "library"],
        False,
    )
    some = workspace.research_sources(["arxiv", "brave"])
    assert (some.usable, some.unused, some.named) == (
        ["arxiv"],
        {"brave": "BRAVE_API_KEY not set"},
        True,
    )
    with pytest.raises(UsageError, match=r"no source named by `sources` can run now \(brave: "):
        workspace.research_sources(["brave", "library"])
    none = workspace.research_sources(["none"])
    assert (none.usable, none.unused) == ([], {})
    with pytest.raises(UsageError, match="cannot be combined"):
        workspace.research_sources(["none", "arxiv"])
    # a standing default that cannot run now is said, not an error
    standing = Workspace(env={"ARGUE_RESEARCH_SOURCES": "library"}).research_sources(None)
    assert (standing.usable, list(standing.unused)) == ([], ["library"])


def test_only_unusable_sources_is_one_usage_line_before_any_folder(tmp_path):
    # --dry-run: were the check gone, the plan would print (exit 0) instead of a debate running
    result = CliRunner().invoke(
        cli_app,
        [
            "argue",
            "Q?",
            "--sources",
            "brave,youtube",
            "--dry-run",
            "--debates-dir",
            str(tmp_path / "d"),
        ],
    )
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "BRAVE_API_KEY not set" in lines[0], result.stderr
    assert "YOUTUBE_API_KEY not set" in lines[0]
    assert not (tmp_path / "d").exists()


# ---------------------------------------------------------------- only usable sources are asked


class NamesTheOthers(DebateScript):
    """A model that always names the sources it may not use in its dogpile slot."""

    def _plan(self, letter: str, rnd: int, prompt: str) -> dict[str, Any]:
        return {**super()._plan(letter, rnd, prompt), "dogpile_sources": UNUSABLE}


def test_with_only_arxiv_usable_every_persona_searches_arxiv_every_round(
    tmp_path, personas, monkeypatch
):
    asked: list[str] = []

    async def arxiv_search(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
        asked.append(query)
        item = SkillItem(
            id=f"arxiv:{len(asked)}",
            title=f"A paper on {query}",
            url=f"https://arxiv.org/abs/2101.{len(asked):05d}",
            snippet=f"Terras showed that almost all orbits descend ({query}).",
            source="arxiv",
        )
        return SkillResult.from_items("arxiv", query, [item])

    monkeypatch.setattr(arxiv, "search", arxiv_search)
    choice = Workspace(env={}).research_sources(["arxiv", *UNUSABLE])
    assert choice.usable == ["arxiv"]
    rounds = 3
    store = create_debate(
        tmp_path / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], personas["horus"]],
        max_rounds=rounds,
        provider="scripted",
        model="scripted-1",
        research_sources=choice.usable,
        unused_sources=choice.unused,
    )
    config = json.loads(store.paths.config.read_text())
    assert config["research_sources"] == ["arxiv"]
    assert config["unused_sources"]["youtube"] == "YOUTUBE_API_KEY not set"
    model = ScriptedModel(NamesTheOthers(names=NAMES, confidence=_swinging))
    loaded = store.config()
    toolkit = SkillToolkit(
        model, sources=loaded.sources_in_use(), unused_sources=loaded.unused_sources
    )
    state = asyncio.run(DebateRunner(store, model, toolkit).run())
    assert state.termination == "max_rounds"

    history = load_history(store)
    for rnd in range(1, rounds + 1):
        for letter in "AB":
            dogpile = next(
                c for c in history.rounds[rnd].research[letter].calls if c.skill == "dogpile"
            )
            assert dogpile.status == "ok", (rnd, letter, dogpile.note)
            assert [s["source"] for s in dogpile.source_statuses] == ["arxiv"]
            assert "asked only for brave (not used in this debate)" in dogpile.note
    assert len(asked) == 2 * rounds
    # the schema offered arXiv alone, in round 1's plan and in each reflection's next plan
    offered = [
        r.output.model_json_schema()
        for r in model.requests
        if r.output is not None and r.output.__name__ in ("ResearchPlanDraft", "ReflectionDraft")
    ]
    assert offered and all('"enum": ["arxiv"]' in json.dumps(s) for s in offered[:2])
    assert not any("youtube" in json.dumps(s) or "brave" in json.dumps(s) for s in offered), (
        "an unusable source was offered"
    )
    # a source that cannot answer is not a refusal every round: no failure names one
    assert not [f for f in history.failures if any(n in f.what for n in UNUSABLE)]


def test_with_no_usable_source_a_plan_has_no_dogpile_slot_and_still_recalls(tmp_path, personas):
    store = create_debate(
        tmp_path / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], personas["horus"]],
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
        research_sources=[],
        unused_sources={"library": "the library is empty (add files with `argue library add`)"},
    )
    assert store.config().sources_in_use() == []

    class NoDogpile(DebateScript):
        def _plan(self, letter: str, rnd: int, prompt: str) -> dict[str, Any]:
            plan = super()._plan(letter, rnd, prompt)
            if "no `dogpile_query`" in prompt:
                plan.pop("dogpile_query")
            return plan

    model = ScriptedModel(NoDogpile(names=NAMES, confidence=_swinging))
    toolkit = SkillToolkit(model, sources=[], unused_sources=store.config().unused_sources)
    assert "dogpile" not in toolkit.skill_names and "library" not in toolkit.skill_names
    state = asyncio.run(DebateRunner(store, model, toolkit).run())
    assert state.status == "completed"
    history = load_history(store)
    for rnd in (1, 2):
        for letter in "AB":
            skills = [c.skill for c in history.rounds[rnd].research[letter].calls]
            assert "dogpile" not in skills and "memory" in skills, skills


# ---------------------------------------------------------------- a plan keeps its good slots


def test_a_plan_with_an_unknown_colleague_and_a_missing_ask_keeps_its_other_slots():
    plan_model = research_plan_model(
        ("dogpile", "memory", "library"), ("brandon",), 3, ("arxiv",), FALLBACK
    )
    strict = research_plan_model(("dogpile", "memory", "library"), ("brandon",), 3, ("arxiv",))
    # the model is shown the strict schema: the ask is required, the colleague an enum
    assert plan_model.model_json_schema() == strict.model_json_schema()
    assert reflection_model(plan_model).model_json_schema() == (
        reflection_model(strict).model_json_schema()
    )
    good = {"dogpile_query": "collatz stopping times", "memory_query": "collatz before"}
    unknown = plan_model.model_validate(
        {**good, "ask": {"colleague": "zed", "question": "Is it decidable?"}}
    )
    assert [(c.skill, c.query) for c in unknown.calls] == [
        ("dogpile", "collatz stopping times"),
        ("memory", "collatz before"),
    ]
    assert [(r.what, r.reason) for r in unknown.repairs] == [
        (
            "research plan ask",
            "colleague 'zed' is not offered (offered: brandon); dropped",
        )
    ]
    missing = plan_model.model_validate(good)
    assert [c.skill for c in missing.calls] == ["dogpile", "memory"]
    assert [(r.slot, r.problem) for r in missing.repairs] == [("ask", "missing")]
    # blank and invalid queries: argue's own, said as argue's
    replaced = plan_model.model_validate({"dogpile_query": "  ", "memory_query": 7})
    assert [(c.query, c.query_by_argue) for c in replaced.calls] == [
        ("argue dogpile query", True),
        ("argue memory query", True),
    ]
    # free calls are dropped one by one: the valid one stays
    alone = research_plan_model(("dogpile", "memory", "library"), (), 3, ("arxiv",), FALLBACK)
    calls = [{"skill": "google", "query": "x"}, {"skill": "library", "query": "terras"}]
    kept = alone.model_validate({**good, "free_calls": calls})
    assert [c.skill for c in kept.calls] == ["dogpile", "memory", "library"]
    assert [r.what for r in kept.repairs] == ["research plan free call 1"]
    # the repairs ride with the plan on disk; a model cannot write them itself
    again = ResearchPlanDraft.model_validate_json(unknown.model_dump_json())
    assert [r.slot for r in again.repairs] == ["ask"]
    forged = plan_model.model_validate(
        {**good, "ask": {"colleague": "brandon", "question": "?"}, "repairs": [again.repairs[0]]}
    )
    assert forged.repairs == []
    # not a plan at all: still an error (asked again)
    for junk in ({"why": "no slots"}, ["dogpile_query"], "plan"):
        with pytest.raises(ValueError):
            plan_model.model_validate(junk)


def test_in_a_debate_an_unknown_colleague_and_a_missing_ask_still_search_and_recall(
    run_debate,
):
    class WrongColleague(DebateScript):
        """Round 1 of a one-round debate plans its ask: Embry names a colleague that is not
        offered, Horus leaves the ask out."""

        def _plan(self, letter: str, rnd: int, prompt: str) -> dict[str, Any]:
            plan = super()._plan(letter, rnd, prompt)
            if letter == "A":
                plan["ask"] = {"colleague": "nobody-at-all", "question": "Is it decidable?"}
            else:
                plan.pop("ask", None)
            return plan

    run = run_debate(rounds=1, script=WrongColleague(names=NAMES))
    plans = [r for r in run.model.requests if r.output.__name__ == "ResearchPlanDraft"]
    assert len(plans) == 2  # no re-ask: the good slots were kept
    for letter in "AB":
        calls = run.history.rounds[1].research[letter].calls
        assert [c.skill for c in calls] == ["dogpile", "memory"], letter
    whats = {(f.persona, f.what, f.reason) for f in run.history.failures}
    assert (
        "A",
        "research plan ask",
        "colleague 'nobody-at-all' is not offered (offered: brandon, aldous); dropped",
    ) in whats
    assert ("B", "research plan ask", "missing; dropped") in whats
    assert not [f for f in run.history.failures if f.phase == "research plan"]
    transcript = run.store.paths.transcript.read_text()
    assert "research plan ask" in transcript


def test_a_plan_missing_its_memory_query_runs_argues_query_instead(run_debate):
    class ForgetsMemory(DebateScript):
        def _plan(self, letter: str, rnd: int, prompt: str) -> dict[str, Any]:
            plan = super()._plan(letter, rnd, prompt)
            plan.pop("memory_query")
            return plan

    run = run_debate(rounds=1, script=ForgetsMemory(names=NAMES))
    plans = [r for r in run.model.requests if r.output.__name__ == "ResearchPlanDraft"]
    assert len(plans) == 2  # not asked again
    for letter in "AB":
        memory = next(
            c for c in run.history.rounds[1].research[letter].calls if c.skill == "memory"
        )
        assert memory.query_by_argue
        proposition = run.history.config.framing.proposition
        assert memory.query == proposition
    transcript = run.store.paths.transcript.read_text()
    assert "(argue's query)" in transcript


def test_an_answer_that_is_no_plan_is_asked_again(run_debate):
    class NoPlanOnce(DebateScript):
        def __call__(self, messages, output):  # type: ignore[override]
            reply = super().__call__(messages, output)
            first_try = not any(m.role == "assistant" for m in messages)
            if output is not None and output.__name__ == "ResearchPlanDraft" and first_try:
                return {"why": "I would rather not plan"}
            return reply

    run = run_debate(rounds=1, script=NoPlanOnce(names=NAMES))
    plans = [r for r in run.model.requests if r.output.__name__ == "ResearchPlanDraft"]
    assert len(plans) == 4  # each persona: the non-plan, then the re-ask
    assert "did not validate against the ResearchPlanDraft schema" in plans[-1].last_user_message
    for letter in "AB":
        assert [c.skill for c in run.history.rounds[1].research[letter].calls] == [
            "dogpile",
            "memory",
            "ask",
        ]


def test_the_next_round_plan_in_the_reflection_keeps_its_good_slots(run_debate):
    class BadNextPlan(DebateScript):
        def __call__(self, messages, output):  # type: ignore[override]
            reply = super().__call__(messages, output)
            if isinstance(reply, dict) and isinstance(reply.get("next_research"), dict):
                reply["next_research"]["dogpile_query"] = ""
                reply["next_research"]["free_calls"] = [{"skill": "nope", "query": "x"}]
            return reply

    run = run_debate(rounds=2, script=BadNextPlan(names=NAMES, confidence=_swinging))
    assert run.state.status == "completed"
    for letter in "AB":
        assert run.history.rounds[1].reflections[letter]  # the reflection was not lost
        dogpile = next(
            c for c in run.history.rounds[2].research[letter].calls if c.skill == "dogpile"
        )
        assert dogpile.query_by_argue
    repaired = {(f.round, f.persona, f.what) for f in run.history.failures}
    assert (2, "A", "research plan dogpile query") in repaired
    assert (2, "B", "research plan free call 1") in repaired


def test_a_debate_in_french_says_the_repairs_and_unused_sources_in_french():
    from argue.domain import Failure
    from argue.records.reasons import failure_sentence, source_unused_line

    failure = Failure(
        round=1,
        persona="A",
        phase="research",
        kind="failed",
        what="research plan ask",
        reason="colleague 'zed' is not offered (offered: brandon); dropped",
        cause="invalid_output",
    )
    sentence = failure_sentence(failure, "fr")
    assert sentence.startswith("plan de recherche, question au collègue\u00a0: sortie invalide")
    assert (
        "le collègue «\u00a0'zed'\u00a0» n'est pas proposé (proposés\u00a0: brandon)"
        "\u202f; abandonnée" in sentence
    )
    replaced = failure.model_copy(
        update={
            "what": "research plan dogpile query",
            "reason": "blank; replaced by argue's query 'collatz formal'",
        }
    )
    assert (
        "vide\u202f; remplacée par la requête d'argue «\u00a0collatz formal\u00a0»"
        in failure_sentence(replaced, "fr")
    )
    assert source_unused_line("youtube", "YOUTUBE_API_KEY not set", "fr") == (
        "youtube non utilisée\u00a0: YOUTUBE_API_KEY non définie"
    )
    assert source_unused_line("youtube", "YOUTUBE_API_KEY not set", "en") == (
        "youtube not used: YOUTUBE_API_KEY not set"
    )
    library = source_unused_line(
        "library", "the library is empty (add files with `argue library add`)", "fr", warning=True
    )
    assert library == (
        "attention\u00a0: library non utilisée\u00a0: la bibliothèque est vide "
        "(ajoutez des fichiers avec "
        "`argue library add`)"
    )


# ---------------------------------------------------------------- the spec's command, no keys


def test_the_spec_collatz_command_with_no_keys_lists_its_sources(tmp_path, monkeypatch):
    """``argue "La conjecture de Collatz est-elle décidable ?" --persona-a embry --persona-b
    horus --rounds 5`` with no Brave, Perplexity or YouTube key and an empty library: arXiv and
    GitHub are searched every round, the others are named once, and the synthesis lists the
    documents found."""
    from argue.skills.dogpile.sources import github
    from tests.e2e.fake_llm import FakeLLM, ResearchingScript
    from tests.e2e.harness import Cli, openai_env

    asked: list[tuple[str, str]] = []

    def stand_in(source: str):
        async def search(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
            asked.append((source, query))
            item = SkillItem(
                id=f"{source}:{len(asked)}",
                title=f"{source} document {len(asked)} on the Collatz conjecture",
                url=f"https://{source}.example/{len(asked)}",
                snippet="Terras showed that almost all Collatz orbits descend below their start.",
                source=source,
            )
            return SkillResult.from_items(source, query, [item])

        return search

    monkeypatch.setattr(arxiv, "search", stand_in("arxiv"))
    monkeypatch.setattr(github, "search", stand_in("github"))
    fake = FakeLLM(ResearchingScript(names={})).start()
    try:
        cli = Cli(tmp_path / "work", env_overrides=openai_env(fake.url))
        run = cli.run(
            "argue", "La conjecture de Collatz est-elle décidable ?",
            "--persona-a", "embry", "--persona-b", "horus", "--rounds", "5",
            ARGUE_RESEARCH_SOURCES=None,  # the default: every source of the table
        )  # fmt: skip
    finally:
        fake.stop()
    assert run.returncode == 0, run.describe()
    for line in (
        "brave non utilisée\u00a0: BRAVE_API_KEY non définie",
        "youtube non utilisée\u00a0: YOUTUBE_API_KEY non définie",
        "perplexity non utilisée\u00a0: PERPLEXITY_API_KEY non définie",
        "library non utilisée\u00a0: la bibliothèque est vide",
    ):
        assert run.stderr.count(line) == 1, run.describe()
    (folder,) = (tmp_path / "work" / "debates").iterdir()
    config = json.loads((folder / "config.json").read_text())
    assert config["research_sources"] == ["arxiv", "github"]
    assert set(config["unused_sources"]) == {"brave", "perplexity", "youtube", "library"}
    rounds = json.loads((folder / "state.json").read_text())["round"]
    assert rounds >= 2, run.describe()
    searched = {source for source, _ in asked}
    assert searched == {"arxiv", "github"}
    assert len(asked) == 2 * 2 * rounds  # each persona, each round, both sources
    synthesis = (folder / "synthesis.md").read_text()
    sources = synthesis.split("## Sources", 1)[1].split("\n## ", 1)[0]
    assert "arxiv document" in sources or "github document" in sources, sources
    assert "youtube non utilisée\u00a0: YOUTUBE_API_KEY non définie" in synthesis  # said, in French


def test_a_query_that_copies_the_schemas_description_runs_argues_query_instead(run_debate):
    """Issue 40 item 5: the bundled small model wrote the schema's own words as its queries.
    Teeth: without ``repeats_a_description`` in ``_says_something`` the dogpile searches for
    "A multi-source search, from your own lens" and this fails."""

    class CopiesTheSchema(DebateScript):
        def _plan(self, letter: str, rnd: int, prompt: str) -> dict[str, Any]:
            plan = super()._plan(letter, rnd, prompt)
            plan["dogpile_query"] = "A multi-source search, from your own lens"
            plan["memory_query"] = "dogpile only: subset of sources"
            if plan.get("ask"):
                plan["ask"]["question"] = "Your question for that colleague"
            return plan

    run = run_debate(rounds=1, script=CopiesTheSchema(names=NAMES))
    for letter in "AB":
        calls = run.history.rounds[1].research[letter].calls
        searched = {c.skill: c for c in calls}
        assert searched["dogpile"].query_by_argue and searched["memory"].query_by_argue
        assert "own lens" not in searched["dogpile"].query
        assert "subset of sources" not in searched["memory"].query
        assert all("for that colleague" not in c.query for c in calls)
