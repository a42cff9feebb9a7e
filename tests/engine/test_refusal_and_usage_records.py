"""Refusals and usage are true in the debate's records (issue 20, Deliver 5).

A persona whose model answers prose refusals in place of its argument's JSON is recorded as
*refused by the model*, quoting its first words, in failures.json, the transcript and the
synthesis "What did not work"; the refused answer is in usage.jsonl. A request that timed out
(possibly billed) makes every stated cost "at least". Perplexity's answers, run through the real
toolkit against a loopback server, are in usage.jsonl and in the synthesis footer's cost.

Teeth: with the two ``refuses_in_prose`` checks in ``complete_structured``
(argue/llm/_structured.py) removed, the refusal test fails (cause invalid_output; with only the
first removed it fails too: the refusal is re-asked, two answers billed);
with ``possibly_billed_calls`` dropped from ``Usage.__add__`` (argue/domain.py), the "at least"
test fails; with ``record(result.usage)`` removed from ``SkillToolkit.run``
(argue/engine/toolkit.py), the Perplexity test fails.
"""

from __future__ import annotations

import json

import pytest

from argue.app import usage_summary
from argue.domain import Usage
from argue.engine.schemas import ArgumentDraft
from argue.engine.toolkit import SkillToolkit
from argue.llm import ModelUnavailableError, ScriptedModel, UsageLedger
from argue.llm.base import bill
from argue.llm.pricing import describe_cost
from tests.engine.script import DebateScript, round_of
from tests.loopback import LoopbackServer, RecordedRequest, Reply
from tests.skills.dogpile.payloads import PERPLEXITY_COMPLETION

REFUSAL = "I'm sorry, but I can't help with arguing this position. " + "It is sensitive. " * 6
FIRST_WORDS = "“I'm sorry, but I can't help with arguing this position."


class RefusesInProse(DebateScript):
    """B's model answers its argument calls with a refusal in prose, never JSON."""

    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        is_argument = output is not None and issubclass(output, ArgumentDraft)
        if is_argument and self._letter(messages[0].content) == "B":
            return REFUSAL
        return reply


def section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_a_prose_refusal_is_refused_by_the_model_everywhere_it_is_reported(run_debate):
    run = run_debate(script=RefusesInProse(names={"Embry": "A", "Horus": "B"}), rounds=1)
    failures = json.loads(run.store.paths.failures.read_text())
    [refused] = [f for f in failures if f["persona"] == "B" and f["phase"] == "argument"]
    assert refused["cause"] == "refused_by_model"
    assert FIRST_WORDS in refused["reason"] and "\n" not in refused["reason"]

    words = "refused by the model — it declined to answer"
    transcript = run.store.paths.transcript.read_text()
    assert words in transcript and FIRST_WORDS in transcript
    not_working = section(run.store.paths.synthesis.read_text(), "## What did not work")
    assert words in not_working and FIRST_WORDS in not_working
    assert "did not match" not in not_working

    # The refusal was an answer: billed, recorded; not asked again.
    purposes = [u.purpose for u in run.store.load_usage()]
    assert purposes.count("B/R1/argument") == 1


class OneRequestTimedOut(DebateScript):
    """A's first-round argument call never got its answer: the adapter billed the timed-out
    request as possibly billed (what ``SDKAdapter._call`` does on the wire)."""

    def __call__(self, messages, output):  # type: ignore[override]
        is_argument = output is not None and issubclass(output, ArgumentDraft)
        if is_argument and self._letter(messages[0].content) == "A" and round_of(messages) == 1:
            error = ModelUnavailableError("scripted", "127.0.0.1: no answer within 0.3 s")
            bill(error, [Usage(provider="scripted", model="scripted-1", possibly_billed_calls=1)])
            return error
        return super().__call__(messages, output)


def test_a_timed_out_request_makes_every_stated_cost_at_least(run_debate):
    run = run_debate(script=OneRequestTimedOut(names={"Embry": "A", "Horus": "B"}), rounds=1)
    usage = run.store.load_usage()
    [row] = [u for u in usage if u.possibly_billed_calls]
    assert row.purpose == "A/R1/argument"
    stated = describe_cost(UsageLedger(usage).total())
    assert stated.startswith("at least $") and "1 request unanswered, possibly billed" in stated

    footer = run.store.paths.synthesis.read_text().rsplit("\n---\n", 1)[1]
    assert f"cost {stated}" in footer
    assert any("1 request unanswered, possibly billed" in event for event in run.events)
    summary = usage_summary(run.store).model_dump()
    assert summary["cost_usd"] is None and summary["possibly_billed_calls"] == 1
    assert summary["cost"] == stated


@pytest.fixture
def perplexity_server(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch):
    def answer(request: RecordedRequest) -> Reply:
        return Reply(json=PERPLEXITY_COMPLETION)

    loopback.handler = answer
    monkeypatch.setenv("ARGUE_PERPLEXITY_URL", loopback.url)
    monkeypatch.setenv("PERPLEXITY_API_KEY", "pplx-test")
    return loopback


def test_perplexity_answers_are_in_the_ledger_and_the_footer(run_debate, perplexity_server):
    toolkit = SkillToolkit(ScriptedModel(replies=[]), sources=["perplexity"], plugins=False)
    run = run_debate(
        script=DebateScript(names={"Embry": "A", "Horus": "B"}),
        toolkit=toolkit,  # type: ignore[arg-type]
        rounds=1,
    )
    sent = [r for r in perplexity_server.requests if r.path == "/chat/completions"]
    assert sent
    rows = [u for u in run.store.load_usage() if u.provider == "perplexity"]
    assert len(rows) == len(sent)
    assert all(u.cost_usd > 0 and u.unpriced_calls == 0 for u in rows)
    total = UsageLedger(run.store.load_usage()).total()
    assert total.cost_usd == pytest.approx(sum(u.cost_usd for u in rows))  # scripted is free
    footer = run.store.paths.synthesis.read_text().rsplit("\n---\n", 1)[1]
    assert f"cost {describe_cost(total)}" in footer and total.cost_usd > 0
    assert usage_summary(run.store).models["perplexity/sonar"] == len(sent)
