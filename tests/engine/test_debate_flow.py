"""A whole debate with the scripted model: modes, layout, ledger, honesty in the record."""

from __future__ import annotations

import json

import pytest

from argue.engine.modes import MODES
from argue.llm import ModelUnavailableError
from tests.engine.script import DebateScript, ScriptedToolkit, asked, round_of


def _steady(letter: str, rnd: int) -> float:
    return {1: 0.9, 2: 0.5}.get(rnd, 0.9 if rnd % 2 else 0.5)


def test_adversarial_debate_writes_the_whole_layout(run_debate, personas):
    run = run_debate(
        rounds=2, script=DebateScript(names={"Embry": "A", "Horus": "B"}, confidence=_steady)
    )
    assert run.state.status == "completed"
    assert run.state.termination == "max_rounds"
    root = run.store.paths.root
    for rel in (
        "config.json",
        "state.json",
        "transcript.md",
        "synthesis.md",
        "usage.json",
        "persona_a/research/round_001.json",
        "persona_a/arguments/round_002.json",
        "persona_b/concessions.json",
        "persona_b/confidence.json",
        "scoring/round_001.json",
        "scoring/round_002.json",
        "scoring/summary.json",
    ):
        assert (root / rel).is_file(), rel
    assert (root / "persona_a" / "colleague_consults").is_dir()
    for path in root.rglob("*.json"):
        json.loads(path.read_text())
    config = json.loads((root / "config.json").read_text())
    assert config["personas"] == {"A": "embry", "B": "horus"}
    assert config["framing"]["stances"]["A"].startswith("FOR")
    assert config["framing"]["stances"]["B"].startswith("AGAINST")
    ledger = json.loads((root / "persona_a" / "concessions.json").read_text())
    assert [c["claim_id"] for c in ledger] == ["B1.c2", "B2.c2"]
    assert all(c["to_persona"] == "B" and c["valid_target"] for c in ledger)
    confidence = json.loads((root / "persona_b" / "confidence.json").read_text())
    assert confidence == [{"round": 1, "confidence": 0.9}, {"round": 2, "confidence": 0.5}]


def test_claims_and_citations_get_code_assigned_ids(run_debate):
    run = run_debate(
        rounds=1, script=DebateScript(names={"Embry": "A", "Horus": "B"}, cite_bogus=True)
    )
    argument = run.history.rounds[1].arguments["A"]
    assert [c.id for c in argument.claims] == ["A1.c1", "A1.c2"]
    first = argument.claims[0]
    assert first.verified_evidence_ids == ["A-R1-E1"]
    assert first.unverified_evidence_ids == ["Z-R9-E9"]
    assert argument.taxonomy_tags == ["precision"]
    assert argument.dropped_tags == ["not-a-bridge"]
    transcript = run.store.paths.transcript.read_text()
    assert "unverified citations:** Z-R9-E9" in transcript
    score = run.history.rounds[1].score.personas["A"]
    evidence = next(c for c in score.components if c.name == "evidence_quality")
    assert "unverified ids earn nothing: Z-R9-E9" in evidence.reason


def test_rebuttal_targets_are_checked_against_real_claims(run_debate):
    run = run_debate(rounds=1)
    rebuttal = run.history.rounds[1].rebuttals["A"]
    assert [(c.target_claim_id, c.valid_target) for c in rebuttal.counters] == [
        ("B1.c1", True),
        ("Q9.c9", False),
    ]
    precision = next(
        c
        for c in run.history.rounds[1].score.personas["A"].components
        if c.name == "rebuttal_precision"
    )
    assert precision.value == 0.5
    assert "missed: Q9.c9" in precision.reason


def test_forced_concession_reasks_once_then_records_the_refusal(run_debate):
    script = DebateScript(names={"Embry": "A", "Horus": "B"}, concede=False)
    run = run_debate(rounds=1, script=script)
    reasks = [r for r in run.model.requests if "conceded nothing valid" in r.last_user_message]
    assert len(reasks) == 2  # one per persona, and only one each
    rebuttal = run.history.rounds[1].rebuttals["A"]
    assert rebuttal.declined_to_concede and rebuttal.reasked_for_concession
    assert "declined to concede" in run.store.paths.synthesis.read_text()


# How seat A's stance starts in each mode; a mode added to the registry runs here as well.
SEAT_A_STANCE = {
    "adversarial": "FOR the proposition",
    "panel": "PANELIST",
    "socratic": "QUESTIONER",
    "devils-advocate": "AGAINST the proposition (devil's advocate",
}


@pytest.mark.parametrize("mode", list(MODES))
def test_every_mode_runs_to_a_synthesis(run_debate, personas, mode):
    spec = MODES[mode]
    names = ["embry", "horus", "brandon", "vesper"][: spec.min_personas]
    lineup = {personas[n].display_name: "ABCD"[i] for i, n in enumerate(names)}
    run = run_debate(names, mode=mode, rounds=2, script=DebateScript(names=lineup))
    assert run.state.status == "completed"
    config = run.store.config()
    stances = config.framing.stances
    assert sorted(stances) == list("ABCD"[: len(names)]) and all(stances.values())
    assert stances["A"].startswith(SEAT_A_STANCE.get(mode, ""))
    for seat, name in enumerate(names):  # each seat is told its mode's role hint
        prompt = next(
            r.last_user_message
            for r in run.model.requests
            if r.output.__name__ == "ArgumentDraft"
            and r.messages[0].content.startswith(f"You are {personas[name].display_name},")
        )
        assert spec.role_hint(seat) in prompt
    assert len(run.history.rounds[1].arguments) == len(names)
    assert "## Concession log" in run.store.paths.synthesis.read_text()
    if mode == "devils-advocate":
        assert config.framing.private_views["A"] == "I would hold it true."
        # the advocate's private view never reaches the opponent
        opponent_prompts = [
            m.content
            for r in run.model.requests
            for m in r.messages
            if r.messages[0].content.startswith(f"You are {personas[names[1]].display_name},")
        ]
        assert not any("I would hold it true." in p for p in opponent_prompts)


def test_the_plan_schema_caps_research_at_the_budget(run_debate):
    """Over-budget research cannot be planned: with dogpile, memory and ask filling the budget of
    3, the schema has no room for a fourth call; a plan that adds one anyway keeps its three
    slots (not asked again, issue 35), and the extra call is dropped and named."""

    class Overreaching(DebateScript):
        def __call__(self, messages, output):  # type: ignore[override]
            reply = super().__call__(messages, output)
            if output is not None and output.__name__ == "ResearchPlanDraft":
                reply["free_calls"] = [{"skill": "library", "query": "one more"}]
            return reply

    run = run_debate(rounds=1, script=Overreaching(names={"Embry": "A", "Horus": "B"}))
    plans = [r for r in run.model.requests if r.output.__name__ == "ResearchPlanDraft"]
    assert len(plans) == 2  # each persona's plan, no re-ask
    assert "free_calls" not in plans[0].output.model_json_schema()["properties"]
    ran = sorted((r.letter, r.call.skill) for r in run.toolkit.requests)
    assert ran == [(k, s) for k in "AB" for s in ("ask", "dogpile", "memory")]
    assert "one more" not in [r.call.query for r in run.toolkit.requests]
    dropped = [f for f in run.history.failures if f.what == "research plan free call 1"]
    assert sorted(f.persona for f in dropped) == ["A", "B"]
    assert all(f.reason == "over the 0 free call(s) the budget leaves; dropped" for f in dropped)
    assert not [f for f in run.history.failures if f.phase == "research plan"]


def test_skill_failures_are_written_in_fixed_words(run_debate):
    run = run_debate(rounds=1, toolkit=ScriptedToolkit(fail_skill="dogpile"))
    sentence = "failed — effect unknown (arxiv: HTTP 503 from loopback)"
    assert sentence in run.store.paths.transcript.read_text()
    assert sentence in run.store.paths.synthesis.read_text()
    assert run.history.rounds[1].research["A"].calls[0].status == "failed"


def test_a_persona_whose_model_call_fails_is_recorded_and_the_synthesis_is_partial(run_debate):
    def fail(letter: str, rnd: int, phase: str):
        if letter == "B" and phase == "ArgumentDraft":
            return ModelUnavailableError("openai", "HTTP 503 after 4 attempts")
        return None

    script = DebateScript(names={"Embry": "A", "Horus": "B"}, fail=fail)
    run = run_debate(rounds=1, script=script)
    assert run.state.status == "completed"
    assert "B" not in run.history.rounds[1].arguments
    synthesis = run.store.paths.synthesis.read_text()
    assert "Partial synthesis" in synthesis
    assert "Horus produced no argument in round(s) 1" in synthesis
    assert (
        "argument model call: unavailable — the server did not answer "
        "(openai: HTTP 503 after 4 attempts)" in synthesis
    )


def test_every_persona_failing_to_argue_fails_the_debate(run_debate):
    def fail(letter: str, rnd: int, phase: str):
        return ModelUnavailableError("openai", "down") if phase == "ArgumentDraft" else None

    run = run_debate(rounds=2, script=DebateScript(names={"Embry": "A", "Horus": "B"}, fail=fail))
    assert run.state.status == "failed"
    assert "no persona produced an argument in round 1" in run.state.error


def test_moderator_notes_bind_later_rounds(run_debate, tmp_path, personas, new_store):

    store = new_store("d2", rounds=1)
    store.post_note("Stay within elementary number theory.")
    run = run_debate(store=store, rounds=1)
    argument_prompts = [
        r.last_user_message for r in run.model.requests if r.output.__name__ == "ArgumentDraft"
    ]
    assert argument_prompts and all(
        "Stay within elementary number theory." in p for p in argument_prompts
    )
    assert not list(store.paths.inbox.glob("*.txt"))


def test_well_scored_claims_go_to_memory_and_the_debate_is_archived(run_debate):
    stored: list[tuple] = []

    async def writer(persona, text, **fields):
        stored.append((persona, text, fields))
        return f"mem:{len(stored)}"

    run = run_debate(rounds=1, memory_writer=writer)
    personas_written = {p for p, _, f in stored if f.get("scope") != "shared"}
    assert personas_written == {"embry", "horus"}
    shared = [s for s in stored if s[2].get("scope") == "shared"]
    assert len(shared) == 1 and run.store.config().id in shared[0][1]


def test_belief_updates_from_reflection_shape_the_next_round_as_fenced_data(run_debate):
    """A reflection's belief updates reach the persona's next rounds, as its own earlier words
    in the round's material (fenced data), never in the system text: that stays the persona
    file's card, the same every round (trusted text only, and a prompt cache's prefix)."""
    run = run_debate(rounds=2)
    embry = [
        r.messages
        for r in run.model.requests
        if r.output.__name__ == "ArgumentDraft"
        and r.messages[0].content.startswith("You are Embry")
    ]
    assert embry[0][0].content == embry[1][0].content
    assert "A learned in round 1" not in embry[1][0].content
    assert "A learned in round 1" not in asked(embry[0])
    material = embry[1][-2].content
    assert material.startswith("Round 2 of 2: your research.")
    beliefs = material.split("Your beliefs now", 1)[1]
    assert beliefs.index("<data beliefs ") < beliefs.index("A learned in round 1")


def test_rejected_credentials_end_the_debate_at_once(run_debate):
    from argue.llm import ModelAuthError

    def reject(letter: str, rnd: int, phase: str):
        return ModelAuthError("openai", "HTTP 401: invalid api key")

    run = run_debate(rounds=3, script=DebateScript(names={"Embry": "A", "Horus": "B"}, fail=reject))
    assert run.state.status == "failed"
    assert "openai: HTTP 401" in run.state.error and "API key" in run.state.error
    assert len(run.model.requests) == 1  # the framing call; nothing after it


def test_a_refused_source_inside_a_working_dogpile_is_still_reported(run_debate):
    from argue.skills.base import SourceStatus

    class PartlyRefused(ScriptedToolkit):
        async def run(self, request):
            result = await super().run(request)
            if request.call.skill != "dogpile":  # only dogpile has sources
                return result
            result.sources = [
                SourceStatus(source="library", status="ok", count=2),
                SourceStatus(source="brave", status="refused", note="BRAVE_API_KEY not set"),
            ]
            return result

    run = run_debate(rounds=1, toolkit=PartlyRefused())
    sentence = (
        "source brave for 'A query 0 round 1': refused — nothing happened (BRAVE_API_KEY not set)"
    )
    assert sentence in run.store.paths.synthesis.read_text()
    assert any("refused — nothing happened" in line for line in run.events)


def test_an_interactive_moderator_note_binds_the_next_round(tmp_path, personas, new_store):
    import asyncio

    from argue.engine import DebateRunner
    from argue.llm import ScriptedModel

    store = new_store("interactive", rounds=2)
    asked: list[int] = []

    async def moderator(round_no: int) -> str | None:
        asked.append(round_no)
        return "Only discuss 3n+1, not generalisations."

    model = ScriptedModel(
        DebateScript(
            names={"Embry": "A", "Horus": "B"}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2)
        )
    )
    state = asyncio.run(DebateRunner(store, model, ScriptedToolkit(), moderator=moderator).run())
    assert state.status == "completed"
    assert asked == [1]  # not after the last round: there is no next one
    prompts_by_round = {
        round_of(r.messages): r.last_user_message
        for r in model.requests
        if r.output.__name__ == "ArgumentDraft"
    }
    assert "Only discuss 3n+1" not in prompts_by_round[1]
    assert "Only discuss 3n+1" in prompts_by_round[2]


def test_a_budget_pause_is_resumable_with_a_larger_budget(
    run_debate, tmp_path, personas, new_store
):

    store = new_store("budget", rounds=1, budget_usd=0.0)
    paused = run_debate(store=store)
    assert paused.state.status == "budget_exhausted"
    assert "budget" in paused.state.termination_detail
    assert not paused.history.rounds.get(1, None) or not paused.history.rounds[1].arguments
    config = store.config()
    config.budget_usd = 5.0  # what `resume --budget-usd 5` saves
    store.save_config(config)
    resumed = run_debate(store=store)
    assert resumed.state.status == "completed"
