"""A refusing judge is a judge failure; a synthesis made of refusals is partial, the refusal
named (issue 37, item 1).

Teeth (each seen failing when broken on purpose): without the refusal check in
``make_judgement`` the debate ends "synthesis ready" on a judge that said "I'm sorry…" (the
judge test fails); without ``_record_refusing_sections`` the refusing synthesis is complete,
``partial: false`` and 0 failures (the synthesis test fails).
"""

from __future__ import annotations

import json

from argue.engine.schemas import JudgeDraft, SynthesisDraft
from tests.engine.script import DebateScript

SORRY = "I’m sorry, but I can’t help with that."
DESOLE = "Malheureusement, je ne peux pas répondre à cette question."


class RefusingJudge(DebateScript):
    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        if output is not None and issubclass(output, JudgeDraft):
            assert isinstance(reply, JudgeDraft)
            return reply.model_copy(update={"synthesis_ready": True, "ready_reason": SORRY})
        return reply


class RefusingSynthesis(DebateScript):
    def __call__(self, messages, output):  # type: ignore[override]
        if output is not None and issubclass(output, SynthesisDraft):
            return SynthesisDraft(
                agreements=[{"point": SORRY, "claim_ids": []}],
                open_questions=[DESOLE],
                conclusion=SORRY,
            )
        return super().__call__(messages, output)


def test_a_judge_that_refuses_is_a_judge_failure_never_the_termination_reason(run_debate):
    run = run_debate(script=RefusingJudge(names={"Embry": "A", "Horus": "B"}), rounds=3)
    assert run.state.termination != "synthesis_ready"
    assert SORRY not in (run.state.termination_detail or "")
    judged = [f for f in run.history.failures if f.what == "judge model call"]
    assert judged and all(f.cause == "refused_by_model" for f in judged)
    assert "declined to judge" in judged[0].reason
    synthesis = run.store.paths.synthesis.read_text()
    assert "I’m sorry" not in synthesis.split("## ", 2)[1]  # not in the header's termination


def test_a_synthesis_made_of_refusals_is_partial_with_the_refusal_named(run_debate):
    from argue.app._run import completeness

    run = run_debate(script=RefusingSynthesis(names={"Embry": "A", "Horus": "B"}), rounds=1)
    failures = json.loads(run.store.paths.failures.read_text())
    refused = [f for f in failures if f["phase"] == "synthesis"]
    assert refused and refused[0]["cause"] == "refused_by_model"
    assert refused[0]["reason"] == "agreements, open questions, conclusion"
    summary = completeness(run.store, run.store.state())
    assert summary["partial"] is True and summary["failures"] >= 1
    assert any("declined to write part of the synthesis" in r for r in summary["partial_reasons"])
    synthesis = run.store.paths.synthesis.read_text()
    assert "declined to write part of the synthesis (agreements, open questions, conclusion)" in (
        synthesis
    )


class RefusingRebuttal(DebateScript):
    def __call__(self, messages, output):  # type: ignore[override]
        from argue.engine.schemas import RebuttalDraft

        reply = super().__call__(messages, output)
        rebuttal = output is not None and issubclass(output, RebuttalDraft)
        if rebuttal and isinstance(reply, dict) and self._letter(messages[0].content) == "B":
            for item in [*reply["counters"], *reply["concessions"]]:
                item["text"] = SORRY
        return reply


def test_a_refusing_counter_or_concession_is_not_counted(run_debate):
    """Teeth: without ``is_refusal`` in the rebuttal phase Horus's "concession" counts (an
    earned concession scores positively) and this fails."""
    from argue.engine.phases.rebuttal import REFUSAL_NOTE

    run = run_debate(script=RefusingRebuttal(names={"Embry": "A", "Horus": "B"}), rounds=1)
    rebuttal = run.history.round(1).rebuttals["B"]
    assert rebuttal.concessions and rebuttal.counters
    assert not any(c.valid_target for c in [*rebuttal.concessions, *rebuttal.counters])
    assert all(c.target_note == REFUSAL_NOTE for c in rebuttal.concessions)
    assert rebuttal.declined_to_concede
    transcript = run.store.paths.transcript.read_text()
    assert "**(the model declined instead of answering (a refusal): not counted)**" in transcript


class RefusingPositions(DebateScript):
    def __call__(self, messages, output):  # type: ignore[override]
        from argue.engine.schemas import ArgumentDraft, ReflectionDraft

        reply = super().__call__(messages, output)
        mine = self._letter(messages[0].content) == "B" and isinstance(reply, dict)
        if mine and output is not None and issubclass(output, ArgumentDraft):
            reply["position"] = DESOLE
        if mine and output is not None and issubclass(output, ReflectionDraft):
            reply["position_now"] = SORRY
        return reply


def test_a_refusing_position_or_reflection_is_recorded_as_the_model_declining(run_debate):
    """Teeth: without ``refusal_failures`` in the argument and reflection phases the record
    holds the refusals as positions and says nothing."""
    run = run_debate(script=RefusingPositions(names={"Embry": "A", "Horus": "B"}), rounds=1)
    declined = [f for f in run.history.failures if f.cause == "refused_by_model"]
    assert {(f.persona, f.what) for f in declined} == {
        ("B", "argument position"),
        ("B", "reflection position"),
    }
    assert all("declined instead of answering" in f.reason for f in declined)
