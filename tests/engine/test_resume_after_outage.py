"""Resume after an outage: a resumed round asks again every call that failed in it.

Which guarantee each test protects:
- ``test_a_failed_framing_is_asked_again_on_resume``: a framing call that failed (the question
  stood in as the proposition) is asked again on resume while no round has used that fallback;
  the debate then reads as one that never failed, and the first failure stays on file.
- ``test_a_failed_plan_and_a_failed_argument_are_asked_again_on_resume``: a persona whose
  research plan failed gets its plan asked again (then its research runs); a persona whose
  argument failed is asked again; nothing that worked (the other plan, its searches) reruns.
- ``test_a_call_that_fails_again_on_resume_is_recorded_once_per_attempt``: failures.json keeps
  one entry per attempt, even when the second failure is worded like the first.
- ``test_an_argument_without_claims_is_asked_again_once`` and
  ``test_an_argument_without_claims_twice_leaves_the_persona_silent``: a claimless answer is
  re-asked once (with a note); a second one makes the persona silent, recorded as
  invalid_output; when every persona is silent the debate fails and resume asks them again.
- ``test_an_argument_without_claims_left_on_disk_is_asked_again_on_resume``: a claimless
  argument an earlier version saved does not end the resumed debate; it is asked again.
- ``test_resume_sends_only_the_calls_that_failed_or_were_never_made``: after resume, the calls
  sent are exactly those that failed plus those never made: no successful call is re-sent.
- ``test_a_failed_search_runs_again_only_on_resume``: a failed search is retried on resume, not
  at once in the run that met it (which recorded a second failure for one event).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from argue.domain import ArgumentRecord
from argue.llm import ModelUnavailableError
from argue.store import DebateStore
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}
DOWN = "connection refused (the server is down)"
Fail = Callable[[str, int, str], Exception | None]


def _failing(
    calls: set[tuple[str, int, str]] | None = None, stop: DebateStore | None = None
) -> tuple[Fail, list[str]]:
    """A ``fail`` knob: the listed (letter, round, schema) calls fail (every call when None),
    each also asking ``stop`` to stop; the second value lists the calls that failed, as
    ``DebateScript.log`` writes them."""
    failed: list[str] = []

    def fail(letter: str, rnd: int, phase: str) -> Exception | None:
        if calls is None or (letter, rnd, phase) in calls:
            failed.append(f"{letter}:{rnd}:{phase}")
            if stop is not None:
                stop.request_stop()
            return ModelUnavailableError("openai", DOWN)
        return None

    return fail, failed


OUTAGE = None  # every call fails: framing, both plans, both arguments, then the debate fails
PLAN_A_AND_ARGUMENTS = {
    ("A", 1, "ResearchPlanDraft"),
    ("A", 1, "ArgumentDraft"),
    ("B", 1, "ArgumentDraft"),
}
ARGUMENTS = {("A", 1, "ArgumentDraft"), ("B", 1, "ArgumentDraft")}


def _record(run) -> dict:
    """What a debate says: the proposition, each round's claims, concessions and totals."""
    history = run.history
    return {
        "proposition": run.store.config().framing.proposition,
        "rounds": {
            number: (
                [(c.id, c.text, tuple(c.verified_evidence_ids)) for c in record.claims()],
                sorted(
                    (c.from_persona, c.claim_id)
                    for r in record.rebuttals.values()
                    for c in r.concessions
                ),
                {k: v.total for k, v in record.score.personas.items()} if record.score else None,
            )
            for number, record in sorted(history.rounds.items())
        },
        "status": run.store.state().status,
    }


def _purposes(run) -> list[str]:
    return [r.purpose for r in run.model.requests]


def _halted(run_debate, new_store, name: str, calls, rounds: int = 1):
    """A debate whose round 1 met the failing ``calls`` and ended as failed."""
    fail, failed = _failing(calls)
    store = new_store(name, rounds=rounds)
    down = run_debate(store=store, script=DebateScript(names=NAMES, fail=fail))
    assert down.state.status == "failed"
    assert "no persona produced an argument in round 1" in down.state.error
    return store, down, failed


def test_a_failed_framing_is_asked_again_on_resume(run_debate, new_store):
    reference = run_debate(rounds=2, script=DebateScript(names=NAMES))
    store, down, _ = _halted(run_debate, new_store, "outage", OUTAGE, rounds=2)
    framing_failures = [f for f in down.history.failures if f.phase == "framing"]
    assert [(f.what, f.cause) for f in framing_failures] == [("framing model call", "unavailable")]
    assert store.config().framing.proposition == store.config().question  # the fallback

    resumed = run_debate(store=store, script=DebateScript(names=NAMES))

    assert resumed.state.status == "completed"
    assert _purposes(resumed)[0] == "framing"
    assert _record(resumed) == _record(reference)  # the new proposition, then the same debate
    # the outage stays on the record, first failure first
    assert resumed.history.failures[: len(down.history.failures)] == down.history.failures


def test_a_failed_plan_and_a_failed_argument_are_asked_again_on_resume(run_debate, new_store):
    reference = run_debate(rounds=1, script=DebateScript(names=NAMES))
    store, down, _ = _halted(run_debate, new_store, "plan", PLAN_A_AND_ARGUMENTS)
    assert down.history.rounds[1].research["A"].calls == []  # no plan, so no search ran

    resumed = run_debate(store=store, script=DebateScript(names=NAMES))

    assert resumed.state.status == "completed"
    purposes = _purposes(resumed)
    assert purposes.count("A/R1/research-plan") == 1
    assert "B/R1/research-plan" not in purposes  # B's plan worked: not asked again
    assert purposes.count("A/R1/argument") == purposes.count("B/R1/argument") == 1
    round_one = resumed.history.rounds[1]
    assert set(round_one.arguments) == {"A", "B"}
    # A's plan ran this time and A argued on its evidence; B's searches did not run again
    assert [c.status for c in round_one.research["A"].calls] == ["ok", "ok", "ok"]
    assert round_one.arguments["A"].claims[0].verified_evidence_ids == ["A-R1-E1"]
    assert {r.letter for r in resumed.toolkit.requests} == {"A"}
    # A is not told its plan failed: the plan asked again worked
    prompt = next(
        r.last_user_message for r in resumed.model.requests if r.purpose == "A/R1/argument"
    )
    assert "No search ran" not in prompt
    assert _record(resumed) == _record(reference)


@pytest.mark.parametrize(
    ("first", "again", "what", "persona"),
    [
        (OUTAGE, {("-", 0, "FramingDraft")}, "framing model call", None),
        (PLAN_A_AND_ARGUMENTS, {("A", 1, "ResearchPlanDraft")}, "research plan model call", "A"),
        (ARGUMENTS, {("B", 1, "ArgumentDraft")}, "argument model call", "B"),
    ],
    ids=["framing", "research-plan", "argument"],
)
def test_a_call_that_fails_again_on_resume_is_recorded_once_per_attempt(
    run_debate, new_store, first, again, what, persona
):
    store, down, _ = _halted(run_debate, new_store, "again", first)
    fail, failed = _failing(again)

    resumed = run_debate(store=store, script=DebateScript(names=NAMES, fail=fail))

    assert resumed.state.status == "completed"  # the other persona (or the question) carried on
    assert len(failed) == 1  # asked once more, not more
    entries = [f for f in resumed.history.failures if f.what == what and f.persona == persona]
    assert len(entries) == 2  # one per attempt, though worded alike
    assert entries[0] in down.history.failures
    assert entries[1].reason.startswith(f"openai: {DOWN}")
    assert (entries[1].round, entries[1].cause) == (entries[0].round, "unavailable")


@dataclass
class Claimless(DebateScript):
    """The first ``claimless[letter]`` argument answers of that persona have no claims."""

    claimless: dict[str, int] = field(default_factory=dict)

    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        letter = self._letter(messages[0].content)
        wanted = self.claimless.get(letter, 0)
        if isinstance(reply, dict) and output.__name__ == "ArgumentDraft" and wanted > 0:
            self.claimless[letter] = wanted - 1
            return {**reply, "claims": []}
        return reply


def test_an_argument_without_claims_is_asked_again_once(run_debate):
    run = run_debate(rounds=1, script=Claimless(names=NAMES, claimless={"A": 1}))

    assert run.state.status == "completed"
    asked = [r for r in run.model.requests if r.purpose.startswith("A/R1/argument")]
    # The schema asks for at least one claim (a grammar then cannot produce none); an answer
    # without any is re-asked once with the validation error.
    assert [r.purpose for r in asked] == ["A/R1/argument", "A/R1/argument"]
    assert "claims: List should have at least 1 item" in asked[1].last_user_message
    assert len(run.history.rounds[1].arguments["A"].claims) == 2
    assert not [f for f in run.history.failures if f.phase == "argument"]


def test_an_argument_without_claims_twice_leaves_the_persona_silent(run_debate, new_store):
    one = run_debate(rounds=1, script=Claimless(names=NAMES, claimless={"B": 2}))
    assert one.state.status == "completed"  # A argued
    assert "B" not in one.history.rounds[1].arguments
    assert not one.store.paths.argument("B", 1).exists()
    [failure] = [f for f in one.history.failures if f.phase == "argument"]
    assert (failure.persona, failure.cause, failure.what) == (
        "B",
        "invalid_output",
        "argument model call",
    )
    assert "claims: List should have at least 1 item" in failure.reason

    # every persona silent: the debate fails, and resume asks both again
    store = new_store("silent", rounds=1)
    both = run_debate(store=store, script=Claimless(names=NAMES, claimless={"A": 2, "B": 2}))
    assert both.state.status == "failed"
    assert "no persona produced an argument in round 1" in both.state.error
    silent = [f for f in both.history.failures if f.phase == "argument"]
    assert sorted((f.persona, f.cause) for f in silent) == [
        ("A", "invalid_output"),
        ("B", "invalid_output"),
    ]
    resumed = run_debate(store=store, script=DebateScript(names=NAMES))
    assert resumed.state.status == "completed"
    assert set(resumed.history.rounds[1].arguments) == {"A", "B"}
    assert "A/R1/research-plan" not in _purposes(resumed)  # the plans worked: kept


def test_an_argument_without_claims_left_on_disk_is_asked_again_on_resume(run_debate, new_store):
    store, _, _ = _halted(run_debate, new_store, "old", ARGUMENTS)
    # what an earlier version saved: an answer without claims, kept as B's argument
    store.save(
        store.paths.argument("B", 1), ArgumentRecord(persona="B", round=1, position="nothing")
    )

    resumed = run_debate(store=store, script=DebateScript(names=NAMES))

    assert resumed.state.status == "completed"
    assert _purposes(resumed).count("B/R1/argument") == 1
    assert len(resumed.history.rounds[1].arguments["B"].claims) == 2


SCENARIOS = {
    "outage": (OUTAGE, False),
    "plan": (PLAN_A_AND_ARGUMENTS, False),
    # B's argument fails while A's works, and the run is stopped before the rebuttals
    "argument-then-stop": ({("B", 1, "ArgumentDraft")}, True),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_resume_sends_only_the_calls_that_failed_or_were_never_made(
    run_debate, new_store, scenario
):
    calls, stop = SCENARIOS[scenario]
    reference = run_debate(rounds=2, script=DebateScript(names=NAMES))
    store = new_store("count", rounds=2)
    fail, failed = _failing(calls, store if stop else None)
    down = run_debate(store=store, script=DebateScript(names=NAMES, fail=fail))
    assert down.state.status == ("stopped" if stop else "failed")

    resumed = run_debate(store=store, script=DebateScript(names=NAMES))

    assert resumed.state.status == "completed"
    # each call is (persona, round, schema); a successful first-run call never comes back (the
    # stop's partial synthesis is a call of its own: the resumed debate writes the final one)
    made = Counter(e for e in down.script.log if not (stop and e.endswith(":SynthesisDraft")))
    never_made = Counter(reference.script.log) - made
    assert Counter(resumed.script.log) == Counter(failed) + never_made
    assert len(resumed.model.requests) == len(failed) + never_made.total()
    assert Counter(reference.script.log) == made - Counter(failed) + Counter(resumed.script.log)
    assert _record(resumed) == _record(reference)


def test_a_failed_search_runs_again_only_on_resume(run_debate):
    """A failed research skill call is not retried in the run that met it (the retry is for
    resume), so the record has one attempt and one failure for it."""
    run = run_debate(rounds=1, toolkit=ScriptedToolkit(fail_skill="dogpile"))
    assert [r.call.skill for r in run.toolkit.requests if r.letter == "A"].count("dogpile") == 1
    failures = [f for f in run.history.failures if f.phase == "research" and f.persona == "A"]
    assert len(failures) == 1
