"""Crash safety and context rules: resume at every phase boundary, stop, isolation, bounds."""

from __future__ import annotations

import asyncio

import pytest

from argue.engine import DebateRunner
from argue.engine.record import RECORD_CHARS
from argue.llm import ScriptedModel
from tests.engine.script import DebateScript, ScriptedToolkit, round_of

NAMES = {"Embry": "A", "Horus": "B"}


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 if rnd % 2 else 0.8


def _snapshot(run) -> dict:
    history = run.history
    rounds = {}
    for number, record in sorted(history.rounds.items()):
        rounds[number] = {
            "claims": [(c.id, c.text, tuple(c.verified_evidence_ids)) for c in record.claims()],
            "concessions": sorted(
                (c.from_persona, c.claim_id)
                for r in record.rebuttals.values()
                for c in r.concessions
            ),
            "confidence": {k: v.confidence for k, v in record.reflections.items()},
            "totals": {k: v.total for k, v in record.score.personas.items()},
        }
    state = run.store.state()
    return {
        "rounds": rounds,
        "status": state.status,
        "termination": state.termination,
        "synthesis": run.store.paths.synthesis.read_text().split("\n---\n")[0],
    }


def _stopped_synthesis(run) -> str:
    return run.store.paths.synthesis.read_text()


@pytest.mark.parametrize(
    ("stop_at_phase", "stop_round", "halted_phase"),
    [
        # Three waves a round: research and argument, rebuttal, reflection with the judge.
        ("ResearchPlanDraft", 1, "research"),  # stops between research and argument
        ("ArgumentDraft", 1, "research"),  # the wave finishes, then it stops
        ("RebuttalDraft", 2, "rebuttal"),
        ("ReflectionDraft", 1, "scoring"),  # the round is scored and committed first;
        ("ReflectionDraft", 2, "scoring"),  # its reflections already planned the next round
        ("JudgeDraft", 1, "scoring"),
    ],
)
def test_resume_after_a_stop_at_any_phase_boundary_matches_an_uninterrupted_run(
    run_debate, stop_at_phase, stop_round, halted_phase
):
    reference = run_debate(rounds=3, script=DebateScript(names=NAMES, confidence=_swinging))
    holder: dict = {}

    def stop_here(letter: str, rnd: int, phase: str):
        if phase == stop_at_phase and rnd in (stop_round, 0) and "store" in holder:
            holder["store"].request_stop()
        return None

    from argue.engine import create_debate

    first_script = DebateScript(names=NAMES, confidence=_swinging, fail=stop_here)
    store = create_debate(
        reference.store.paths.root.parent.parent / "interrupted",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=list(reference.history.personas.values()),
        max_rounds=3,
        provider="scripted",
        model="scripted-1",
    )
    holder["store"] = store
    stopped = run_debate(store=store, script=first_script)
    assert stopped.state.status == "stopped"
    assert stopped.state.termination == "stopped"
    assert stopped.store.state().phase == halted_phase
    assert not store.stop_requested()  # the flag is consumed
    said_anything = bool(stopped.history.all_claims())
    stopped_synthesis = _stopped_synthesis(stopped) if said_anything else ""

    resumed = run_debate(store=store, script=DebateScript(names=NAMES, confidence=_swinging))
    assert resumed.state.status == "completed"
    assert _snapshot(resumed) == _snapshot(reference)
    # the stop wrote a (partial) synthesis of what was said: its one call is the only extra
    extra = [r for r in stopped.model.requests if r.output.__name__ == "SynthesisDraft"]
    assert len(extra) == int(said_anything)
    if said_anything:
        assert "Partial synthesis" in stopped_synthesis
    # resume repeated no model call whose result was on disk
    assert len(stopped.model.requests) - len(extra) + len(resumed.model.requests) == len(
        reference.model.requests
    )


def test_hard_cancel_mid_phase_leaves_a_resumable_debate(run_debate, tmp_path, personas, new_store):

    reference = run_debate(rounds=2, script=DebateScript(names=NAMES, confidence=_swinging))
    store = new_store("cancel", rounds=2)
    script = DebateScript(names=NAMES, confidence=_swinging)
    hang = asyncio.Event()

    async def responder(messages, output):
        reply = script(messages, output)
        if (
            output.__name__ == "ArgumentDraft"
            and messages[0].content.startswith("You are Horus")
            and round_of(messages) == 2
        ):
            await hang.wait()  # never set: the call is in flight when we cancel
        return reply

    async def main() -> None:
        model = ScriptedModel(responder)
        runner = DebateRunner(store, model, ScriptedToolkit())
        task = asyncio.create_task(runner.run())

        async def argument_a_saved() -> None:
            while not store.paths.argument("A", 2).exists():
                assert not task.done(), "the runner ended before the point of cancellation"
                await asyncio.sleep(0.01)

        await asyncio.wait_for(argument_a_saved(), timeout=60)
        # B's argument call is parked on an event that is never set: it is in flight.
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert store.state().status == "interrupted"
    assert not store.paths.argument("B", 2).exists()
    assert not store.is_locked()

    resumed = run_debate(store=store, script=DebateScript(names=NAMES, confidence=_swinging))
    assert resumed.state.status == "completed"
    assert not any(
        r.output.__name__ == "ArgumentDraft"
        and r.messages[0].content.startswith("You are Embry")
        and round_of(r.messages) == 2
        for r in resumed.model.requests
    )
    assert _snapshot(resumed) == _snapshot(reference)


def test_a_persona_never_sees_an_opponents_research(run_debate):
    run = run_debate(rounds=3, script=DebateScript(names=NAMES, confidence=_swinging))
    by_persona: dict[str, list[str]] = {"A": [], "B": []}
    for request in run.model.requests:
        system = request.messages[0].content
        for letter, name in (("A", "Embry"), ("B", "Horus")):
            if system.startswith(f"You are {name},"):
                by_persona[letter] += [m.content for m in request.messages]
    assert any("SECRET-RESEARCH-A" in text for text in by_persona["A"])
    assert any("SECRET-RESEARCH-B" in text for text in by_persona["B"])
    assert not any("SECRET-RESEARCH-B" in text for text in by_persona["A"])
    assert not any("SECRET-RESEARCH-A" in text for text in by_persona["B"])
    # but the opponent's published claims do reach it
    assert any("B1.c1" in text for text in by_persona["A"])


def test_prompt_size_stays_within_the_record_budget(run_debate):
    run = run_debate(rounds=8, script=DebateScript(names=NAMES, confidence=_swinging))
    assert run.state.termination == "max_rounds"
    sizes = {}
    for request in run.model.requests:
        if request.output.__name__ == "ArgumentDraft" and request.messages[0].content.startswith(
            "You are Embry,"
        ):
            round_no = round_of(request.messages)
            sizes[round_no] = sum(len(m.content) for m in request.messages)
    assert sorted(sizes) == list(range(1, 9))
    # The record of closed rounds grows (append-only, so a provider can cache it), but never
    # past its budget: argue.engine.record opens a new chapter first.
    assert all(sizes[k] - sizes[1] <= RECORD_CHARS for k in sizes), sizes


def test_a_second_runner_cannot_take_a_running_debate(run_debate, tmp_path, personas, new_store):
    from argue.store import DebateLocked

    store = new_store("locked", rounds=1)
    store.acquire_lock()
    try:
        assert store.is_locked()
        with pytest.raises(DebateLocked):
            run_debate(store=store, rounds=1)
    finally:
        store.release_lock()
    assert not store.is_locked()


def test_a_crash_while_writing_the_synthesis_resumes_only_the_ending(
    run_debate, tmp_path, personas, new_store
):

    store = new_store("crash", rounds=2)

    def crash(letter: str, rnd: int, phase: str):
        return RuntimeError("power cut") if phase == "SynthesisDraft" else None

    with pytest.raises(RuntimeError, match="power cut"):
        run_debate(store=store, script=DebateScript(names=NAMES, confidence=_swinging, fail=crash))
    state = store.state()
    assert (state.status, state.phase, state.termination) == ("failed", "synthesis", "max_rounds")
    assert "unexpected RuntimeError: power cut" in state.error
    assert not store.paths.synthesis.exists()

    resumed = run_debate(store=store, script=DebateScript(names=NAMES, confidence=_swinging))
    assert [r.output.__name__ for r in resumed.model.requests] == ["SynthesisDraft"]
    assert resumed.state.status == "completed"
    assert resumed.state.termination == "max_rounds"
    text = store.paths.synthesis.read_text()
    assert "Partial synthesis" not in text and "A nuanced conclusion." in text


def test_a_half_written_record_of_an_uncommitted_round_is_redone_on_resume(
    run_debate, tmp_path, personas, new_store
):

    reference = run_debate(rounds=2, script=DebateScript(names=NAMES, confidence=_swinging))
    store = new_store("torn", rounds=2)
    holder = {"store": store}

    def stop_in_round_two(letter: str, rnd: int, phase: str):
        if phase == "RebuttalDraft" and rnd == 2:
            holder["store"].request_stop()

    run_debate(
        store=store, script=DebateScript(names=NAMES, confidence=_swinging, fail=stop_in_round_two)
    )
    torn = store.paths.argument("A", 2)
    torn.write_text(torn.read_text()[:40])  # a write torn in half (e.g. a disk full)
    resumed = run_debate(store=store, script=DebateScript(names=NAMES, confidence=_swinging))
    assert resumed.state.status == "completed"
    assert _snapshot(resumed) == _snapshot(reference)


def test_resume_retries_research_calls_that_failed_before_anyone_argued(
    run_debate, tmp_path, personas, new_store
):

    store = new_store("retry", rounds=1)
    holder = {"store": store}

    def stop_after_research(letter: str, rnd: int, phase: str):
        if phase == "ResearchPlanDraft":
            holder["store"].request_stop()

    first = run_debate(
        store=store,
        script=DebateScript(names=NAMES, fail=stop_after_research),
        toolkit=ScriptedToolkit(fail_skill="dogpile"),
    )
    assert first.state.status == "stopped"
    assert first.history.rounds[1].research["A"].calls[0].status == "failed"

    resumed = run_debate(store=store, script=DebateScript(names=NAMES))
    research = resumed.history.rounds[1].research["A"]
    assert research.calls[0].status == "ok"
    # the retried search keeps its place; its items continue the round's numbering after those
    # of the memory recall and the colleague's answer, which worked and did not run again
    assert [(c.skill, c.evidence_ids) for c in research.calls] == [
        ("dogpile", ["A-R1-E4", "A-R1-E5"]),
        ("memory", ["A-R1-E1", "A-R1-E2"]),
        ("ask", ["A-R1-E3"]),  # a colleague answers once (one-round debate: asked in the plan)
    ]
    assert [r.call.skill for r in resumed.toolkit.requests if r.letter == "A"] == ["dogpile"]
    assert resumed.history.rounds[1].arguments["A"].claims[0].verified_evidence_ids == ["A-R1-E1"]
    # no new research plan was asked for: only the failed skill call ran again
    assert not any(r.output.__name__ == "ResearchPlanDraft" for r in resumed.model.requests)
    # the first failure is still on the record
    assert any(f.kind == "failed" and f.phase == "research" for f in resumed.history.failures)


def test_prose_written_for_a_stopped_debate_is_not_reused_for_its_real_ending(
    run_debate, tmp_path, personas, new_store
):
    from argue.engine import resynthesize

    store = new_store("early", rounds=2)
    holder = {"store": store}

    def stop_in_round_one(letter: str, rnd: int, phase: str):
        if phase == "ReflectionDraft" and rnd == 1:
            holder["store"].request_stop()

    stopped = run_debate(
        store=store, script=DebateScript(names=NAMES, confidence=_swinging, fail=stop_in_round_one)
    )
    # `stop` ends with a synthesis of what was said, labelled partial …
    assert stopped.state.status == "stopped"
    assert "Partial synthesis" in store.paths.synthesis.read_text()
    assert stopped.model.requests[-1].output.__name__ == "SynthesisDraft"
    # … which `synthesize` re-renders without asking again
    early = ScriptedModel(DebateScript(names=NAMES))
    partial = asyncio.run(resynthesize(store, early))
    assert "Partial synthesis" in partial
    assert early.requests == []

    resumed = run_debate(store=store, script=DebateScript(names=NAMES, confidence=_swinging))
    assert resumed.state.status == "completed"
    assert any(r.output.__name__ == "SynthesisDraft" for r in resumed.model.requests)
    assert "Partial synthesis" not in store.paths.synthesis.read_text()
