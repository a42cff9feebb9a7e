"""Termination rules, scoring arithmetic and the positive effect of an earned concession."""

from __future__ import annotations

import pytest

from argue.domain import (
    ArgumentRecord,
    Citation,
    Claim,
    Concession,
    Counter,
    DebateConfig,
    Evidence,
    Framing,
    JudgeVerdictRecord,
    RebuttalRecord,
    ReflectionRecord,
    ResearchRecord,
)
from argue.engine.scoring import SCORERS, WEIGHTS, cosine, score_round, tokens
from argue.records.history import DebateHistory
from tests.engine.script import DebateScript

NAMES = {"Embry": "A", "Horus": "B"}


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 if rnd % 2 else 0.8


def test_convergence_needs_two_quiet_rounds_and_reports_a_stable_disagreement(run_debate):
    run = run_debate(rounds=6, script=DebateScript(names=NAMES, confidence=lambda k, r: 0.8))
    assert run.state.termination == "convergence"
    assert run.state.round == 3
    assert "stable disagreement" in run.state.termination_detail
    assert "stable disagreement" in run.store.paths.synthesis.read_text()


def test_convergence_with_low_confidence_is_not_called_a_disagreement(run_debate):
    run = run_debate(rounds=6, script=DebateScript(names=NAMES, confidence=lambda k, r: 0.3))
    assert run.state.termination == "convergence"
    assert "stable disagreement" not in run.state.termination_detail


def test_null_production_after_two_rounds_without_novelty_or_new_evidence(run_debate):
    script = DebateScript(names=NAMES, confidence=_swinging, repeat_claims=True, same_queries=True)
    run = run_debate(rounds=6, script=script)
    assert run.state.termination == "null_production"
    assert run.state.round == 3
    scores = [run.history.rounds[k].score for k in (2, 3)]
    assert all(s.novel_claims == 0 and s.new_verified_evidence == 0 for s in scores)


def test_synthesis_ready_ends_from_round_two(run_debate):
    script = DebateScript(names=NAMES, confidence=_swinging, synthesis_ready=True)
    run = run_debate(rounds=6, script=script)
    assert run.state.termination == "synthesis_ready"
    assert run.state.round == 2


def test_max_rounds(run_debate):
    run = run_debate(rounds=4, script=DebateScript(names=NAMES, confidence=_swinging))
    assert run.state.termination == "max_rounds"
    assert sorted(run.history.rounds) == [1, 2, 3, 4]


def test_an_earned_concession_raises_the_score(run_debate):
    conceding = run_debate(rounds=1, script=DebateScript(names=NAMES))
    stubborn = run_debate(rounds=1, script=DebateScript(names=NAMES, concede=False))

    def concession(run):
        persona = run.history.rounds[1].score.personas["A"]
        return persona.total, next(c for c in persona.components if c.name == "concession_quality")

    total_yes, comp_yes = concession(conceding)
    total_no, comp_no = concession(stubborn)
    assert comp_yes.value > 0 and comp_no.value == 0
    assert comp_no.reason == "declined to concede"
    assert total_yes - total_no == pytest.approx(WEIGHTS["concession_quality"] * comp_yes.value)


def _history() -> DebateHistory:
    from argue.personas import load_catalog

    catalog = load_catalog()
    config = DebateConfig(
        id="argue_20260101_000000",
        question="Q",
        mode="adversarial",
        personas={"A": "embry", "B": "horus"},
        max_rounds=3,
        provider="s",
        model="s",
        framing=Framing(proposition="P", stances={"A": "FOR", "B": "AGAINST"}),
    )
    history = DebateHistory(
        config=config, personas={"A": catalog.get("embry"), "B": catalog.get("horus")}
    )
    record = history.round(1)
    record.research["A"] = ResearchRecord(
        persona="A",
        round=1,
        evidence=[
            Evidence(
                id="A-R1-E1",
                persona="A",
                round=1,
                skill="dogpile",
                query="q",
                title="t1",
                source="arxiv",
            ),
            Evidence(
                id="A-R1-E2",
                persona="A",
                round=1,
                skill="dogpile",
                query="q",
                title="t2",
                source="github",
            ),
        ],
    )
    record.arguments["A"] = ArgumentRecord(
        persona="A",
        round=1,
        position="p",
        claims=[
            Claim(
                id="A1.c1",
                persona="A",
                round=1,
                text="orbits of the syracuse map descend",
                evidence_ids=["A-R1-E1", "A-R1-E2"],
                verified_evidence_ids=["A-R1-E1", "A-R1-E2"],
                citations=[
                    Citation(
                        evidence_id=eid,
                        quote="q",
                        verdict="quoted",
                        located="q",
                        exact=True,
                        support="supports",
                        support_by="rules",
                    )
                    for eid in ("A-R1-E1", "A-R1-E2")
                ],
            ),
            Claim(
                id="A1.c2",
                persona="A",
                round=1,
                text="fractran machines are universal",
                evidence_ids=["B-R1-E1"],
                unverified_evidence_ids=["B-R1-E1"],
            ),
        ],
    )
    record.arguments["B"] = ArgumentRecord(
        persona="B",
        round=1,
        position="p",
        claims=[
            Claim(
                id="B1.c1", persona="B", round=1, text="orbits of the syracuse map descend quickly"
            ),
        ],
    )
    record.rebuttals["A"] = RebuttalRecord(
        persona="A",
        round=1,
        counters=[
            Counter(target_claim_id="B1.c1", kind="refute", text="x", valid_target=True),
            Counter(target_claim_id="A1.c1", kind="refute", text="own claim", valid_target=False),
        ],
        concessions=[
            Concession(
                round=1,
                from_persona="A",
                to_persona="B",
                claim_id="B1.c1",
                kind="partial",
                text="ok",
                reason="good",
                valid_target=True,
            )
        ],
    )
    record.reflections["A"] = ReflectionRecord(persona="A", round=1, confidence=0.9)
    return history


def test_scoring_arithmetic_is_auditable():
    history = _history()
    judge = JudgeVerdictRecord(coherence={"A": 0.5}, reasons={"A": "ok"})
    score = score_round(history, 1, judge)
    a = {c.name: c for c in score.personas["A"].components}
    # 1 of 2 claims cites verified evidence; 2 distinct sources of 3 → 0.7*0.5 + 0.3*2/3
    assert a["evidence_quality"].value == pytest.approx(0.55)
    assert a["novelty"].value == 1.0
    # B1.c1 is B's only (hence strongest) claim; partial → 0.9
    assert a["concession_quality"].value == pytest.approx(0.9)
    assert a["rebuttal_precision"].value == 0.5
    assert a["logical_coherence"].value == 0.5
    assert a["confidence_calibration"].value == pytest.approx(1 - abs(0.9 - 0.55))
    expected = sum(WEIGHTS[name] * comp.value for name, comp in a.items())
    assert score.personas["A"].total == pytest.approx(expected, abs=1e-3)
    assert score.personas["A"].max_total == sum(WEIGHTS.values())
    # B's claim is close to A1.c1 of the same round, but novelty never depends on seat order
    b = {c.name: c for c in score.personas["B"].components}
    assert b["novelty"].value == 1.0
    assert b["logical_coherence"].value is None
    assert score.personas["B"].max_total == sum(WEIGHTS.values()) - 1.0 - 0.5
    # novel (0.5) + conceded to by A (0.5); no verified evidence (0)
    assert score.personas["B"].claim_scores["B1.c1"] == pytest.approx(1.0)
    assert score.new_verified_evidence == 2


def test_every_weight_has_a_scorer_and_every_scorer_a_weight():
    # A weight added without its scorer (or a scorer without its weight) is a component that
    # silently never counts, or one that cannot be weighed; the order is the components' order.
    assert list(SCORERS) == list(WEIGHTS)
    history = _history()
    judge = JudgeVerdictRecord(coherence={"A": 0.5}, reasons={"A": "ok"})
    score = score_round(history, 1, judge)
    assert [c.name for c in score.personas["A"].components] == list(WEIGHTS)


def test_cosine_similarity_basics():
    assert cosine(tokens("the syracuse orbit"), tokens("syracuse orbit")) == pytest.approx(1.0)
    assert cosine(tokens("alpha beta"), tokens("gamma delta")) == 0.0


def test_seating_is_deterministic_and_says_why():
    from argue.engine import ModeError, seat_lineup
    from argue.personas import load_catalog

    catalog = load_catalog()
    first = seat_lineup("adversarial", ["vesper"], "collatz conjecture proof", catalog)
    again = seat_lineup("adversarial", ["vesper"], "collatz conjecture proof", catalog)
    assert [p.name for p in first.personas] == [p.name for p in again.personas]
    assert first.personas[0].name == "vesper" and first.reason.startswith("B=")
    assert seat_lineup("panel", [], "q", catalog).reason.startswith("A=")
    assert seat_lineup("adversarial", ["embry", "horus"], "q", catalog).reason is None
    with pytest.raises(ModeError, match="cannot debate itself"):
        seat_lineup("adversarial", ["embry", "Embry"], "q", catalog)
    with pytest.raises(ModeError, match="panel mode needs 3"):
        seat_lineup("panel", ["embry", "horus"], "q", catalog)
