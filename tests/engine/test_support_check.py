"""Evidence that cannot mislead (issue 36 items 5-6): counters cite quotes, and an independent
support check says whether each quoted sentence supports what cites it.

A quote found word for word proves the document has those words, not that they support the
claim: one request per persona per round, beside the reflections and the judge, shows a model
the claim and the quoted sentence (fenced, nothing else) and records ``supports``,
``contradicts`` or ``unrelated`` per citation; only ``supports`` ranks. Offline (the scripted
model), rules answer: shared content words, negation on one side only.

Teeth (each broken on purpose once, the test named failed):
- ``rule_verdict`` without its negation test (``said``/``denied`` ignored) →
  ``test_a_contradicting_quote_is_caught_by_the_support_check``;
- ``apply_support`` left out of ``RoundWaves._support_check`` and ``_score`` (verdicts on disk,
  never applied) → ``test_an_honest_persona_still_has_its_claims_ranked`` and the contradiction
  test;
- ``prompts.support_messages`` given the claim's warrant too →
  ``test_the_support_check_asks_a_model_with_the_claim_and_the_sentence_only``;
- the model's answer ignored for item numbers (every check ``supports``) → the same test;
- a failed check saved as ``supports`` (``item.verdict("supports", note)``) →
  ``test_a_failed_support_check_leaves_its_quotes_unchecked_and_says_why``;
- ``_load_or_make`` not reading the support record back (``existing = None`` for it) →
  ``test_resume_never_repeats_a_support_check_on_disk``;
- the transcript marking a counter's ``verified_evidence_ids`` again (as before) →
  ``test_a_counter_s_evidence_marker_needs_a_located_quote``.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from argue.engine import DebateRunner, create_debate, load_history
from argue.engine.schemas import ArgumentDraft, JudgeDraft, SupportDraft
from argue.llm import ScriptedModel
from argue.llm.base import ModelUnavailableError
from argue.records.support import SupportRecord
from tests.engine.script import DebateScript, ScriptedToolkit, asked, support_verdicts

NAMES = {"Embry": "A", "Horus": "B"}


def _misreads_for_b(letter: str, rnd: int, i: int, text: str) -> str:
    """Horus says the opposite of what its sources say (it quotes them verbatim all the same)."""
    return text.replace(" claim ", " claim that does not hold: ") if letter == "B" else text


def _evidence_value(store, letter: str, rnd: int) -> float:
    score = json.loads(store.paths.round_score(rnd).read_text())["personas"][letter]
    return next(c["value"] for c in score["components"] if c["name"] == "evidence_quality")


def test_a_contradicting_quote_is_caught_by_the_support_check(run_debate):
    run = run_debate(script=DebateScript(names=NAMES, claim_text=_misreads_for_b), rounds=2)
    assert run.state.status == "completed"
    history = run.history
    horus = [c for c in history.all_claims() if c.persona == "B"]
    assert horus
    for claim in horus:
        # found word for word in a document all the same: only the support check catches it
        assert [c.verdict for c in claim.citations] == ["quoted"], claim.id
        assert [(c.support, c.support_by) for c in claim.citations] == [("contradicts", "rules")]
        assert not claim.evidence_backed
        assert claim.not_ranked_because == "contradicts"
    for rnd in (1, 2):
        assert _evidence_value(run.store, "B", rnd) == 0  # the round was scored with it
        assert _evidence_value(run.store, "A", rnd) > 0
        support = SupportRecord.model_validate_json(run.store.paths.support("B", rnd).read_text())
        assert support.checked_by == "rules" and support.count("contradicts") == 2
    # said on the terminal beside the claim's id
    said = [e for e in run.events if "contradicts it (support check)" in e]
    assert sorted(re.findall(r"(B\d\.c\d)", " ".join(said))) == sorted(c.id for c in horus)


def test_an_honest_persona_still_has_its_claims_ranked(run_debate):
    run = run_debate(script=DebateScript(names=NAMES), rounds=2)
    history = run.history
    claims = history.all_claims()
    assert claims
    for claim in claims:
        assert [c.support for c in claim.citations] == ["supports"], claim.id
        assert claim.evidence_backed and claim.not_ranked_because is None
    scores = history.claim_scores()
    assert all(scores[c.id] >= 1.0 for c in claims)  # evidence-backed counts in each score
    for letter in ("A", "B"):
        assert _evidence_value(run.store, letter, 1) > 0


class _SecretWarrant(DebateScript):
    """Every claim's warrant is a marker the support check must never show."""

    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        if output is not None and issubclass(output, ArgumentDraft) and isinstance(reply, dict):
            for claim in reply["claims"]:
                claim["warrant"] = "WARRANT-NEVER-SHOWN-TO-THE-CHECKER"
        return reply


def _checker(requests: list, fail_for: str | None = None):
    """A verifier that finds "claim 1" contradicted and every other item supported."""

    def judge(claim: str, sentence: str) -> tuple[str, str]:
        if " claim 1:" in claim:
            return "contradicts", "the sentence says otherwise"
        return "supports", "the sentence says so"

    def responder(messages, output):  # type: ignore[no-untyped-def]
        requests.append(messages)
        assert output is SupportDraft
        if fail_for is not None and f"from {fail_for}-R" in messages[-1].content:
            return ModelUnavailableError("checker", "HTTP 503 from loopback (3 attempts)")
        return support_verdicts(asked(messages), judge)

    return ScriptedModel(responder, provider="checker", model="checker-1")


def _run(store, script, verifier=None, events=None) -> None:
    runner = DebateRunner(
        store,
        ScriptedModel(script),
        ScriptedToolkit(),
        reporter=(events if events is not None else []).append,
        verifier_model=verifier,
    )
    asyncio.run(runner.run())


def test_the_support_check_asks_a_model_with_the_claim_and_the_sentence_only(new_store):
    store = new_store("model_check", rounds=2)
    requests: list = []
    script = _SecretWarrant(names=NAMES)
    _run(store, script, _checker(requests))
    # one request per persona per round, none to the debate's model
    assert len(requests) == 2 * 2
    assert not any("SupportDraft" in entry for entry in script.log)
    history = load_history(store)
    for messages in requests:
        text = "\n".join(m.content for m in messages)
        assert "WARRANT-NEVER-SHOWN-TO-THE-CHECKER" not in text
        assert "taking part in a structured debate" not in text  # no persona card
    for claim in history.all_claims():
        # the claim and its quoted sentence are in one request, each fenced as data
        request = next(
            "\n".join(m.content for m in r) for r in requests if claim.text in r[-1].content
        )
        assert re.search(r"<data claim \w+>\n" + re.escape(claim.text) + r"\n</data \w+>", request)
        sentence = claim.citations[0].sentence
        assert re.search(r"<data sentence \w+>\n" + re.escape(sentence) + r"\n</data", request)
        citation = claim.citations[0]
        assert citation.support_by == "checker/checker-1"
        if " claim 1:" in claim.text:
            assert (citation.support, claim.not_ranked_because) == ("contradicts", "contradicts")
            assert citation.support_note == "the sentence says otherwise"
        else:
            assert citation.support == "supports" and claim.evidence_backed


def test_a_failed_support_check_leaves_its_quotes_unchecked_and_says_why(new_store):
    store = new_store("failed_check", rounds=1)
    _run(store, DebateScript(names=NAMES), _checker([], fail_for="A"))
    history = load_history(store)
    for claim in history.all_claims():
        citation = claim.citations[0]
        if claim.persona == "A":
            assert citation.support == "unchecked"
            assert "support check failed" in citation.support_note
            assert "HTTP 503" in citation.support_note
            assert claim.not_ranked_because == "unchecked" and not claim.evidence_backed
        else:
            assert citation.support == "supports" or " claim 1:" in claim.text
    failures = json.loads(store.paths.failures.read_text())
    checks = [f for f in failures if f["phase"] == "support check"]
    assert [(f["persona"], f["what"], f.get("cause")) for f in checks] == [
        ("A", "support check model call", "unavailable")
    ]
    assert "stay unchecked (not ranked)" in checks[0]["reason"]
    assert _evidence_value(store, "A", 1) == 0


class _JudgeCrashesOnce(DebateScript):
    """The judge's first answer is a crash (not a model failure): the run dies in wave 3,
    after the support checks were saved."""

    crashed: bool = False

    async def __call__(self, messages, output):  # type: ignore[override]
        if output is JudgeDraft and not self.crashed:
            await asyncio.sleep(0.05)  # the support checks finish (and are saved) first
            self.crashed = True
            raise RuntimeError("the judge's process died")
        return super().__call__(messages, output)


def test_resume_never_repeats_a_support_check_on_disk(new_store):
    store = new_store("resume_check", rounds=1)
    first: list = []
    script = _JudgeCrashesOnce(names=NAMES)
    with pytest.raises(RuntimeError, match="the judge's process died"):
        _run(store, script, _checker(first))
    assert store.state().status == "failed"
    assert len(first) == 2 and store.has(store.paths.support("A", 1))
    again: list = []
    _run(store, script, _checker(again))
    assert store.state().status == "completed"
    assert again == []  # read back from disk, not asked again
    history = load_history(store)
    assert all(c.citations[0].support_by == "checker/checker-1" for c in history.all_claims())


def _verbatim_for_a(letter: str, rnd: int, shown: str) -> str:
    return shown if letter == "A" else "a quote that the cited document never says anywhere"


def test_a_counter_s_evidence_marker_needs_a_located_quote(run_debate):
    from argue.render import render_transcript

    run = run_debate(script=DebateScript(names=NAMES, counter_quote=_verbatim_for_a), rounds=1)
    rebuttals = run.history.round(1).rebuttals
    embry, horus = rebuttals["A"].counters[0], rebuttals["B"].counters[0]
    assert [c.verdict for c in embry.citations] == ["quoted"]
    assert [c.verdict for c in horus.citations] == ["quote_not_found"]
    assert horus.verified_evidence_ids == ["B-R1-E1"]  # a real document, its quote not in it
    # a quoted counter is support-checked too ("weak" does not address the sentence)
    assert embry.citations[0].support == "unrelated"
    assert horus.citations[0].support == "unchecked"

    transcript = run.store.paths.transcript.read_text()
    line_a = next(x for x in transcript.splitlines() if x.startswith("- refutes [B1.c"))
    line_b = next(x for x in transcript.splitlines() if x.startswith("- refutes [A1.c"))
    assert "**evidence:** A-R1-E1" in line_a
    assert "**evidence:**" not in line_b
    assert "**cited, quote not found:** B-R1-E1" in line_b

    # A record from before counters had quotes: its ids are shown, never marked as evidence.
    history = run.history
    old = rebuttals["A"].model_copy(
        update={"counters": [embry.model_copy(update={"citations": []})]}
    )
    history.round(1).rebuttals["A"] = old
    text = render_transcript(history, run.store.state(), [])
    line = next(x for x in text.splitlines() if x.startswith("- refutes [B1.c"))
    assert "**evidence:**" not in line and "A-R1-E1" in line


def test_an_old_debate_without_support_records_still_loads(new_store):
    """Rounds written before the support check: every citation unchecked, nothing ranked,
    nothing fails to load."""
    store = new_store("old", rounds=1)
    _run(store, DebateScript(names=NAMES))
    for letter in ("A", "B"):
        store.paths.support(letter, 1).unlink()
    history = load_history(store)
    assert history.all_claims()
    for claim in history.all_claims():
        assert [c.support for c in claim.citations] == ["unchecked"]
        assert claim.not_ranked_because == "unchecked"


def test_a_debate_records_its_verifier_model(tmp_path, personas):
    from argue.domain import SeatModel

    store = create_debate(
        tmp_path / "d",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], personas["horus"]],
        max_rounds=1,
        provider="scripted",
        model="scripted-1",
        verifier_model=SeatModel(provider="checker", model="checker-1"),
    )
    config = json.loads(store.paths.config.read_text())
    assert config["verifier_model"] == {"provider": "checker", "model": "checker-1"}
    plain = create_debate(
        tmp_path / "e",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], personas["horus"]],
        max_rounds=1,
        provider="scripted",
        model="scripted-1",
    )
    assert "verifier_model" not in json.loads(plain.paths.config.read_text())
