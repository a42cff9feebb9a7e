"""Code, not the model, says what happened: failed research is not empty research, a source
outside ``--sources`` is refused by name, and a moderator note says which round really read it.

Teeth checks (each breaks one guarantee; at least one test here must then fail):
- research aggregate: make ``aggregate_status`` in skills/dogpile/__init__.py return "empty"
  when no item came back → the retry and prompt tests fail;
- argument prompt: pass ``research=""`` in ``make_argument`` (argue/engine/phases.py) → the
  prompt tests fail;
- --sources: restore the old substitution in ``SkillToolkit._dogpile`` (run the allowed sources
  instead of refusing) → the toolkit tests fail;
- notes: in ``DebateStore.drain_inbox`` set ``started = False`` (a resumed round claims the
  note), or drop the ``debate_ends`` drain in ``DebateRunner._round``, or make
  ``first_round_for_a_new_note`` return ``state.round`` for a running round → note tests fail.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from argue.engine import DebateRunner, SkillToolkit
from argue.engine.schemas import ResearchCallDraft, ResearchPlanDraft
from argue.engine.toolkit import ResearchRequest
from argue.llm import ScriptedModel
from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile.sources import arxiv, github
from argue.skills.dogpile.sources import library as library_source
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}


def _item(source: str, query: str, n: int) -> SkillItem:
    return SkillItem(
        id=f"{source}:{n}",
        title=f"{source} paper {n} on {query}",
        url=f"https://example.org/{source}/{n}",
        snippet="a snippet",
        source=source,
    )


class Sources:
    """Stand-ins for the dogpile adapters: no network; arXiv can be told to time out."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.arxiv_down = True
        self.library_has = {"B"}  # letters whose queries the library answers
        self.asked: list[tuple[str, str]] = []
        monkeypatch.setattr(arxiv, "search", self._arxiv)
        monkeypatch.setattr(github, "search", self._github)
        monkeypatch.setattr(library_source, "search", self._library)

    async def _arxiv(self, query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
        self.asked.append(("arxiv", query))
        if self.arxiv_down:
            return SkillResult.failed("arxiv", query, "arxiv: timed out after 15 s")
        return SkillResult.from_items("arxiv", query, [_item("arxiv", query, 1)])

    async def _github(self, query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
        self.asked.append(("github", query))
        return SkillResult.from_items("github", query, [_item("github", query, 1)])

    async def _library(self, query: str, *, client=None, limit: int, **_: object) -> SkillResult:
        self.asked.append(("library", query))
        items = [_item("library", query, 1)] if query[0] in self.library_has else []
        return SkillResult.from_items("library", query, items)


def _runner(store, script: DebateScript, toolkit) -> tuple[DebateRunner, ScriptedModel]:
    model = ScriptedModel(script)
    if isinstance(toolkit, SkillToolkit):
        toolkit.model = model
    return DebateRunner(store, model, toolkit), model


def _argument_prompt(model: ScriptedModel, letter: str, round_no: int) -> str:
    name = {v: k for k, v in NAMES.items()}[letter]
    return next(
        r.last_user_message
        for r in model.requests
        if r.output.__name__ == "ArgumentDraft"
        and r.messages[0].content.startswith(f"You are {name}")
        and f"Round {round_no} of" in r.last_user_message
    )


# ---------------------------------------------------------------- 1. failed is not empty


def test_a_search_whose_sources_failed_and_were_empty_is_failed_and_retried_on_resume(
    new_store, monkeypatch
):
    sources = Sources(monkeypatch)
    store = new_store("retry-mixed", rounds=1, research_sources=["arxiv", "library"])

    def stop_after_research(letter: str, rnd: int, phase: str):
        if phase == "ResearchPlanDraft":
            store.request_stop()

    runner, _ = _runner(
        store,
        DebateScript(names=NAMES, fail=stop_after_research),
        SkillToolkit(None, sources=["arxiv", "library"]),  # type: ignore[arg-type]
    )
    assert asyncio.run(runner.run()).status == "stopped"
    first = json.loads(store.paths.research("A", 1).read_text())["calls"][0]
    # A: arXiv timed out and the library found nothing: that is not "nothing found".
    assert first["status"] == "failed"
    assert first["note"] == "no results; arxiv failed: timed out after 15 s; library empty"
    # B: the library answered, arXiv failed: the call worked, the failed source is named.
    other = json.loads(store.paths.research("B", 1).read_text())["calls"][0]
    assert other["status"] == "ok"
    assert [(s["source"], s["status"]) for s in other["source_statuses"]] == [
        ("arxiv", "failed"),
        ("library", "ok"),
    ]

    sources.arxiv_down = False
    sources.asked.clear()
    runner, model = _runner(
        store,
        DebateScript(names=NAMES),
        SkillToolkit(None, sources=["arxiv", "library"]),  # type: ignore[arg-type]
    )
    assert asyncio.run(runner.run()).status == "completed"
    research = json.loads(store.paths.research("A", 1).read_text())
    assert research["calls"][0]["status"] == "ok"
    # the retried search keeps its place; its item continues the round's numbering after the
    # colleague's answer that the first run got (the memory recall found nothing)
    assert [c["skill"] for c in research["calls"]] == ["dogpile", "memory", "ask"]
    assert research["calls"][0]["evidence_ids"] == ["A-R1-E2"]
    assert [(e["id"], e["skill"]) for e in research["evidence"]] == [
        ("A-R1-E1", "ask"),
        ("A-R1-E2", "dogpile"),
    ]
    # only A's failed call ran again; B's working call (with its failed source) did not
    assert {q for _, q in sources.asked} == {"A query 0 round 1"}
    assert not any(r.output.__name__ == "ResearchPlanDraft" for r in model.requests)
    synthesis = store.paths.synthesis.read_text()
    assert (
        "dogpile 'A query 0 round 1': failed — effect unknown (no results; arxiv failed: "
        "timed out after 15 s; library empty)" in synthesis
    )
    assert (
        "dogpile source arxiv for 'B query 0 round 1': failed — effect unknown "
        "(timed out after 15 s)" in synthesis
    )


# ---------------------------------------------------------------- 2. the argument prompt


class MixedOutcomes(ScriptedToolkit):
    """A's dogpile search fails, its memory recall is refused, its colleague has nothing to
    say; B's calls all work."""

    async def run(self, request: ResearchRequest) -> SkillResult:
        call = request.call
        if request.letter == "A":
            self.requests.append(request)
            if call.query.endswith("0 round 1"):
                return SkillResult.failed(
                    "dogpile", call.query, "no results; arxiv failed: timed out after 15 s"
                )
            if call.query.endswith("1 round 1"):
                return SkillResult.refused("memory", call.query, "memory store unavailable")
            return SkillResult.from_items("ask", call.query, [])
        return await super().run(request)


def test_the_argument_prompt_names_failed_and_refused_searches_apart_from_empty_ones(run_debate):
    run = run_debate(rounds=1, script=DebateScript(names=NAMES), toolkit=MixedOutcomes())
    prompt = _argument_prompt(run.model, "A", 1)
    report = prompt.split("What happened to your research this round", 1)[1]
    assert (
        "- dogpile 'A query 0 round 1': failed — effect unknown (no results; arxiv failed: "
        "timed out after 15 s); you have no evidence from it: do not claim you searched "
        "successfully or that it found nothing"
    ) in report
    assert (
        "- memory 'A query 1 round 1': refused — nothing happened (memory store unavailable); "
        "you have no evidence from it: do not claim you searched"
    ) in report
    assert "- ask 'A query 2 round 1': ran and found nothing (no results)" in report
    # B's searches all worked: nothing to report, no block
    assert "What happened to your research" not in _argument_prompt(run.model, "B", 1)


def test_a_failed_source_inside_a_working_search_is_named_in_the_prompt(run_debate):
    from argue.skills.base import SourceStatus

    class PartlyFailed(ScriptedToolkit):
        async def run(self, request):
            result = await super().run(request)
            result.sources = [
                SourceStatus(source="library", status="ok", count=2),
                SourceStatus(source="arxiv", status="failed", note="HTTP 503 from arxiv.org"),
            ]
            return result

    run = run_debate(rounds=1, toolkit=PartlyFailed())
    prompt = _argument_prompt(run.model, "A", 1)
    assert (
        "- dogpile 'A query 0 round 1', source arxiv: failed — effect unknown "
        "(HTTP 503 from arxiv.org); nothing from that source"
    ) in prompt
    assert run.history.rounds[1].research["A"].calls[0].status == "ok"


def test_a_failed_research_plan_is_named_in_the_argument_prompt(run_debate):
    from argue.llm import ModelUnavailableError

    def fail(letter: str, rnd: int, phase: str):
        if letter == "A" and phase == "ResearchPlanDraft":
            return ModelUnavailableError("openai", "HTTP 503 after 4 attempts")
        return None

    run = run_debate(rounds=1, script=DebateScript(names=NAMES, fail=fail))
    prompt = _argument_prompt(run.model, "A", 1)
    assert (
        "- research plan model call: unavailable — the server did not answer "
        "(openai: HTTP 503 after 4 attempts). No search ran: you have no evidence from this "
        "round's research"
    ) in prompt


# ---------------------------------------------------------------- 3. --sources is obeyed


def _dogpile_request(sources: list[str]) -> ResearchRequest:
    from argue.personas import load_catalog

    call = ResearchCallDraft(skill="dogpile", query="collatz", sources=sources)
    return ResearchRequest(
        call=call, persona=load_catalog().get("embry"), letter="A", debate_id="x"
    )


def test_a_call_naming_only_a_source_outside_sources_runs_on_the_allowed_ones(monkeypatch):
    # A required search slot is never wasted for its wording (issue 20): the name it cannot
    # use is said in the note, and the search runs on every source --sources allows.
    sources = Sources(monkeypatch)
    sources.arxiv_down = False
    toolkit = SkillToolkit(None, sources=["arxiv", "library"])  # type: ignore[arg-type]

    result = asyncio.run(toolkit.run(_dogpile_request(["github"])))

    assert result.status == "ok"
    assert sorted(s for s, _ in sources.asked) == ["arxiv", "library"]
    assert result.note.startswith(
        "asked only for github (not allowed by --sources): ran on every allowed source instead."
    )


def test_a_call_naming_only_unknown_sources_runs_on_the_allowed_ones(monkeypatch):
    sources = Sources(monkeypatch)
    sources.arxiv_down = False
    toolkit = SkillToolkit(None, sources=["arxiv", "library"])  # type: ignore[arg-type]

    result = asyncio.run(toolkit.run(_dogpile_request(["google", "prachi_prachi_prachi"])))

    assert "google (not a research source), prachi_prachi_prachi (not a research source)" in (
        result.note
    )
    assert "ran on every allowed source instead" in result.note
    assert sources.asked  # the search ran


def test_allowed_sources_run_and_the_refused_one_is_reported(monkeypatch):
    sources = Sources(monkeypatch)
    sources.arxiv_down = False
    toolkit = SkillToolkit(None, sources=["arxiv", "library"])  # type: ignore[arg-type]

    result = asyncio.run(toolkit.run(_dogpile_request(["GitHub", "arxiv"])))

    assert result.status == "ok"
    assert [s for s, _ in sources.asked] == ["arxiv"]
    assert [(s.source, s.status, s.note) for s in result.sources] == [
        ("arxiv", "ok", "1 result(s)"),
        ("github", "refused", "not allowed by --sources; allowed: arxiv, library"),
    ]
    assert "github refused: not allowed by --sources; allowed: arxiv, library" in result.note


def test_a_refused_source_reaches_the_debates_failure_list(new_store, monkeypatch):
    Sources(monkeypatch).arxiv_down = False

    class AsksForGithub(DebateScript):
        def __call__(self, messages, output):
            reply = super().__call__(messages, output)
            if output is not None and issubclass(output, ResearchPlanDraft):
                reply["dogpile_sources"] = ["github", "arxiv"]
            return reply

    store = new_store("sources", rounds=1, research_sources=["arxiv"])
    runner, _ = _runner(
        store,
        AsksForGithub(names=NAMES),
        SkillToolkit(None, sources=["arxiv"]),  # type: ignore[arg-type]
    )
    assert asyncio.run(runner.run()).status == "completed"
    synthesis = store.paths.synthesis.read_text()
    assert (
        "dogpile source github for 'A query 0 round 1': refused — nothing happened "
        "(not allowed by --sources; allowed: arxiv)" in synthesis
    )


# ---------------------------------------------------------------- 4. which round reads a note


def _notes(store) -> list[dict]:
    return json.loads(store.paths.moderator_notes.read_text())


def test_a_note_posted_while_a_round_runs_binds_the_next_round(new_store):
    store = new_store("mid-round", rounds=2)

    def post_during_round_one(letter: str, rnd: int, phase: str):
        if (letter, rnd, phase) == ("A", 1, "ResearchPlanDraft"):
            assert store.first_round_for_a_new_note() == (2, "round 1 is already under way")
            store.post_note("Only discuss 3n+1.")

    script = DebateScript(names=NAMES, fail=post_during_round_one, confidence=lambda k, r: r / 3)
    runner, model = _runner(store, script, ScriptedToolkit())
    events: list[str] = []
    runner.report = events.append
    assert asyncio.run(runner.run()).status == "completed"

    # Round 1 had read the inbox before the note arrived: the note binds round 2, not round 1.
    assert _notes(store) == [{"from_round": 2, "text": "Only discuss 3n+1."}]
    assert "Only discuss 3n+1." not in _argument_prompt(model, "A", 1)
    assert "Only discuss 3n+1." in _argument_prompt(model, "A", 2)
    assert "Moderator note: binds from round 2" in events
    assert "- from round 2: Only discuss 3n+1." in store.paths.transcript.read_text()


def test_a_note_posted_in_the_last_round_says_no_round_read_it(new_store):
    store = new_store("last-round", rounds=1)

    def post_during_the_last_round(letter: str, rnd: int, phase: str):
        if (letter, rnd, phase) == ("A", 1, "ArgumentDraft"):
            first, why = store.first_round_for_a_new_note()
            assert (first, why) == (None, "round 1 is the last and is already under way")
            store.post_note("Too late.")

    runner, model = _runner(
        store, DebateScript(names=NAMES, fail=post_during_the_last_round), ScriptedToolkit()
    )
    assert asyncio.run(runner.run()).status == "completed"

    assert _notes(store) == [
        {
            "from_round": None,
            "text": "Too late.",
            "read_by": "posted after round 1 had started and the debate ended with that round: "
            "no round read it",
        }
    ]
    assert not list(store.paths.inbox.glob("*.txt"))
    assert not any("Too late." in r.last_user_message for r in model.requests)
    assert "**read by no round** (posted after round 1 had started and the debate ended" in (
        store.paths.transcript.read_text()
    )


def test_a_note_posted_while_stopped_mid_round_binds_the_round_after(new_store):
    store = new_store("stopped-mid-round", rounds=2)
    assert store.first_round_for_a_new_note() == (1, "round 1 has not started yet")

    def stop_after_research(letter: str, rnd: int, phase: str):
        if phase == "ResearchPlanDraft":
            store.request_stop()

    runner, _ = _runner(
        store, DebateScript(names=NAMES, fail=stop_after_research), ScriptedToolkit()
    )
    assert asyncio.run(runner.run()).status == "stopped"
    # Round 1's research plans were sent without the note; resuming round 1 cannot change that.
    assert store.first_round_for_a_new_note() == (2, "round 1 had already started")
    store.post_note("Stay elementary.")

    script = DebateScript(names=NAMES, confidence=lambda k, r: r / 3)
    runner, model = _runner(store, script, ScriptedToolkit())
    assert asyncio.run(runner.run()).status == "completed"
    assert [(n["from_round"], n["text"]) for n in _notes(store)] == [(2, "Stay elementary.")]
    assert "Stay elementary." not in _argument_prompt(model, "A", 1)
    assert "Stay elementary." in _argument_prompt(model, "A", 2)


def test_no_round_left_for_a_note_of_a_stopped_last_round(new_store):
    store = new_store("stopped-last", rounds=1)

    def stop_after_research(letter: str, rnd: int, phase: str):
        if phase == "ResearchPlanDraft":
            store.request_stop()

    runner, _ = _runner(
        store, DebateScript(names=NAMES, fail=stop_after_research), ScriptedToolkit()
    )
    assert asyncio.run(runner.run()).status == "stopped"
    assert store.first_round_for_a_new_note() == (
        None,
        "round 1 is the last and had already started",
    )
