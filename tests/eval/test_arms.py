"""Each arm on a scripted model: single right and wrong, vote by majority, the debate's final
answer from its synthesis, and — when the synthesis fails — the majority of the personas' last
answers, labelled so in the item record and in the debate folder.

Teeth check (done once): in argue/eval/arms.py ``debate_answer`` return the synthesis branch's
label ``"synthesis"`` for the fallback too; ``test_a_failed_synthesis_falls_back_to_the_majority``
fails.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from argue.eval.arms import ArmSettings, run_debate, run_single, run_vote
from argue.eval.datasets import EvalItem
from argue.llm import ScriptedModel
from argue.personas import load_catalog
from tests.engine.script import names_of
from tests.eval.script import EvalScript, wrong

ITEM = EvalItem(id="q1", question="What is 2+3*4?", answer="14", kind="number")


@pytest.fixture
def lineup():
    catalog = load_catalog()
    return [catalog.get("embry"), catalog.get("horus"), catalog.get("brandon")]


def settings_for(model, tmp_path, lineup, **extra):
    return ArmSettings(
        model=model,
        debates_dir=tmp_path / "debates",
        personas=lineup,
        mode="panel",
        rounds=1,
        **extra,
    )


def test_single_right_and_wrong(tmp_path, lineup):
    right = ScriptedModel(EvalScript(names={}))
    result = asyncio.run(run_single(settings_for(right, tmp_path, lineup), ITEM))
    assert (result.answer, result.correct, result.calls, result.arm) == ("14", True, 1, "single")
    assert result.tokens > 0
    bad = ScriptedModel(EvalScript(names={}, single=wrong))
    result = asyncio.run(run_single(settings_for(bad, tmp_path, lineup), ITEM))
    assert (result.answer, result.normalized, result.correct) == ("15", "15", False)


def test_vote_takes_the_majority_of_k_samples(tmp_path, lineup):
    replies = [{"reasoning": "r", "answer": a} for a in ("15", "14", "The answer is 14.", "15")]
    replies.append({"reasoning": "r", "answer": "14.0"})
    model = ScriptedModel(replies=replies)
    settings = settings_for(model, tmp_path, lineup, vote_samples=5)
    result = asyncio.run(run_vote(settings, ITEM))
    assert result.correct and result.normalized == "14"
    assert result.calls == 5 and len(model.requests) == 5
    assert result.detail["votes"] == {"15": 2, "14": 3}


def test_the_debate_returns_the_synthesis_final_answer(tmp_path, lineup):
    # Personas end on a wrong answer; the synthesis says 14: the synthesis is the answer.
    script = EvalScript(names=names_of(lineup), persona=lambda letter, right: wrong(right))
    model = ScriptedModel(script)
    result = asyncio.run(run_debate(settings_for(model, tmp_path, lineup), ITEM))
    assert result.answer == "14" and result.correct
    assert result.detail["answer_source"] == "synthesis"
    assert result.detail["last_answers"] == {"A": "15", "B": "15", "C": "15"}
    assert result.calls == len(model.requests) > 5
    # Every reflection was asked for an answer, and the debate folder holds the answer.
    reflections = [r for r in model.requests if r.output and r.output.__name__ == "ReflectionDraft"]
    assert reflections and all("answer" in r.output.model_fields for r in reflections)
    folder = tmp_path / "debates" / "q1"
    saved = json.loads((folder / "final_answer.json").read_text())
    assert saved["answer"] == "14" and saved["answer_source"] == "synthesis"
    assert json.loads((folder / "config.json").read_text())["answer_format"] == "number"


def test_a_failed_synthesis_falls_back_to_the_majority(tmp_path, lineup):
    persona = {"A": "14", "B": "15", "C": "14"}
    script = EvalScript(
        names=names_of(lineup),
        persona=lambda letter, right: persona[letter],
        final=lambda right: None,
    )
    result = asyncio.run(run_debate(settings_for(ScriptedModel(script), tmp_path, lineup), ITEM))
    assert result.answer == "14" and result.correct
    source = result.detail["answer_source"]
    assert source.startswith("majority of the personas' last answers (the synthesis failed: ")
    assert "no server" in source
    assert result.detail["votes"] == {"14": 2, "15": 1}
    saved = json.loads((tmp_path / "debates" / "q1" / "final_answer.json").read_text())
    assert saved["answer_source"] == source


def test_an_ordinary_debate_asks_for_no_answer(tmp_path, lineup):
    """Without answer_format the schemas and records are what they were."""
    from argue.engine.schemas import reflection_model

    assert "answer" not in reflection_model(None).model_fields
    assert "answer" in reflection_model(None, answer=True).model_fields
    from argue.domain import ReflectionRecord

    record = ReflectionRecord(persona="A", round=1, confidence=0.5)
    assert "answer" not in record.model_dump(mode="json")
