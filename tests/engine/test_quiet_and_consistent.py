"""Quiet and consistent (issue 21, item 4): a concession is counted once per round, and a stop
asked for while a round runs wins over the judge's synthesis_ready.

Teeth: with ``_first_per_target`` removed from the rebuttal phase (every concession the model
wrote kept), the first test fails (``conceded B1.c2 (full…), B1.c2…, B1.c2…``). With the stop
check moved after the judge's synthesis_ready in ``check_termination``, the second fails
(termination synthesis_ready although a stop was asked for during the round).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from argue.engine.schemas import JudgeDraft, RebuttalDraft
from argue.llm.base import Message
from argue.store import DebateStore
from tests.engine.script import DebateScript


@dataclass
class RepeatedConcessions(DebateScript):
    """Every rebuttal concedes the same claim three times (as models do)."""

    def __call__(self, messages: list[Message], output: Any) -> object:
        value = super().__call__(messages, output)
        if (
            output is not None
            and issubclass(output, RebuttalDraft)
            and isinstance(value, dict)
            and value["concessions"]
        ):
            first = value["concessions"][0]
            value["concessions"] = [first, {**first, "text": "again"}, {**first, "text": "more"}]
        return value


def test_the_same_concession_is_recorded_once_per_round(run_debate):
    run = run_debate(rounds=2, script=RepeatedConcessions(names={"Embry": "A", "Horus": "B"}))
    for round_no, record in run.history.rounds.items():
        for letter, rebuttal in record.rebuttals.items():
            targets = [c.claim_id for c in rebuttal.concessions]
            assert len(targets) == len(set(targets)) == 1, (round_no, letter, targets)
            assert rebuttal.concessions[0].text == "fair point"  # the first one is kept
        for letter, score in record.score.personas.items():
            note = next(c.reason for c in score.components if c.name == "concession_quality")
            assert note.count(".c") == 1, (round_no, letter, note)


@dataclass
class StopDuringTheJudge(DebateScript):
    """The judge of round 2 says synthesis_ready; a stop is asked for while it answers."""

    store: DebateStore | None = None

    def __call__(self, messages: list[Message], output: Any) -> object:
        value = super().__call__(messages, output)
        user = next(m.content for m in messages if m.role == "user")
        if (
            output is not None
            and issubclass(output, JudgeDraft)
            and "Round 2" in user
            and self.store is not None
        ):
            self.store.request_stop()
        return value


def test_a_stop_during_the_round_wins_over_synthesis_ready(run_debate, new_store):
    store = new_store("stopped", rounds=4)
    script = StopDuringTheJudge(names={"Embry": "A", "Horus": "B"}, synthesis_ready=True)
    script.store = store
    run = run_debate(store=store, script=script)
    state = store.state()
    assert state.termination == "stopped", (state.termination, state.termination_detail)
    assert state.round == 2
    assert not any("synthesis_ready" in event for event in run.events), run.events
