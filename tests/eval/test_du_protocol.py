"""The ``du`` arm is Du et al.'s code to the letter (argue/eval/du_protocol.py).

``eval --dataset du-arithmetic --arms du --batch`` against the loopback OpenAI Batch fake: the
chat bodies of the first item, every round, are the messages the paper's ``math/gen_math.py``
builds, compared with the paper's own format strings (copied below from
composable-models/llm_multiagent_debate at 9846749) — no system message, the agents' raw
replies, 2 agents × 3 rounds. The gsm wording likewise from ``gsm/gen_gsm.py``; the parsers and
``most_frequent`` as the paper's; a failed call is asked again (bounded), never dropped.

Teeth (done once each): in du_protocol.py give ``MATH_ASK`` two leading spaces instead of one:
test_first_item_sends_the_papers_messages fails on the round-1 body. Make ``followup`` show
``others`` through ``argue.engine.prompts.data`` (fenced): it fails on round 2. Set
``MAX_CALL_ATTEMPTS = 1``: test_a_failed_call_is_asked_again fails (the item is unanswered).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from argue.app import EvalRequest, Workspace, prepare_eval, run_eval
from argue.eval.arms import ArmSettings
from argue.eval.datasets import EvalItem
from argue.eval.du_protocol import gsm_answer, math_answer, most_frequent, paper_answer, run_du
from argue.llm import ScriptedModel
from argue.llm.base import Message, ModelUnavailableError
from tests.llm.batch_fakes import OpenAIBatchFake

# -- the paper's strings, as its code writes them (gen_math.py, gen_gsm.py)
PAPER_MATH_QUESTION = (
    """What is the result of {}+{}*{}+{}-{}*{}? Make sure to state your answer at the end of """
    """the response."""
)
PAPER_MATH_PREFIX = "These are the recent/updated opinions from other agents: "
PAPER_MATH_RESPONSE = "\n\n One agent response: ```{}```"
PAPER_MATH_SUFFIX = (
    "\n\n Use these opinions carefully as additional advice, can you provide an updated "
    "answer? Make sure to state your answer at the end of the response."
)
PAPER_GSM_QUESTION = (
    """Can you solve the following math problem? {} Explain your reasoning. Your final answer """
    """should be a single numerical number, in the form \\boxed{{answer}}, at the end of your """
    """response. """
)
PAPER_GSM_PREFIX = "These are the solutions to the problem from other agents: "
PAPER_GSM_SOLUTION = "\n\n One agent solution: ```{}```"
PAPER_GSM_SUFFIX = (
    """\n\n Using the solutions from other agents as additional information, can you provide """
    """your answer to the math problem? \n The original math problem is {}. Your final answer """
    """should be a single numerical number, in the form \\boxed{{answer}}, at the end of your """
    """response."""
)

FIRST = (12, 15, 21, 0, 3, 27)  # du-001: 12+15*21+0-3*27 = 246


def reply_text(body: dict[str, Any]) -> str:
    """A free-text reply naming the agent's turn, ending with the right answer."""
    turn = sum(1 for m in body["messages"] if m["role"] == "user")
    return f"Round {turn}: I computed it, so the result is 246."


def du_reply(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1767225600,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": reply_text(body)},
            }
        ],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }


def openai_env(fake: OpenAIBatchFake) -> dict[str, str]:
    return {
        "ARGUE_HOME": os.environ["ARGUE_HOME"],
        "OLLAMA_HOST": "127.0.0.1:9",
        "ARGUE_BATCH_POLL_S": "0.01",
        "OPENAI_API_KEY": "sk-test-batch-0000000000000000",
        "OPENAI_BASE_URL": fake.base_url,
        "ARGUE_BATCH_AT_BASE_URL": "1",
    }


def test_first_item_sends_the_papers_messages(tmp_path: Path) -> None:
    fake = OpenAIBatchFake(answer=du_reply)
    try:
        workspace = Workspace(debates_dir=tmp_path / "debates", env=openai_env(fake))
        request = EvalRequest(
            dataset="du-arithmetic",
            arms=["du"],
            shard="1/100",  # du-001 alone
            provider="openai",
            model="gpt-4o-mini",
            batch=True,
        )
        outcome = run_eval(prepare_eval(request, workspace))
    finally:
        fake.stop()
    assert outcome.status == "completed", outcome.report
    bodies = [body for batch in fake.batches.values() for _, body in batch.requests]
    assert len(bodies) == 2 * 3  # the paper's 2 agents × 3 rounds on arithmetic
    assert not any("response_format" in b or "tools" in b for b in bodies)  # free text
    by_round: dict[int, list[list[dict[str, Any]]]] = {}
    for body in bodies:
        by_round.setdefault(len(body["messages"]), []).append(body["messages"])
    question = PAPER_MATH_QUESTION.format(*FIRST)

    def others_turn(turn: int) -> str:
        shown = PAPER_MATH_RESPONSE.format(f"Round {turn}: I computed it, so the result is 246.")
        return PAPER_MATH_PREFIX + shown + PAPER_MATH_SUFFIX.format(question)

    round1 = [{"role": "user", "content": question}]
    round2 = [
        *round1,
        {"role": "assistant", "content": "Round 1: I computed it, so the result is 246."},
        {"role": "user", "content": others_turn(1)},
    ]
    round3 = [
        *round2,
        {"role": "assistant", "content": "Round 2: I computed it, so the result is 246."},
        {"role": "user", "content": others_turn(2)},
    ]
    assert by_round == {1: [round1, round1], 3: [round2, round2], 5: [round3, round3]}
    record = outcome.report["arms"]["du"]
    assert (record["n"], record["correct"]) == (1, 1)
    line = json.loads((Path(outcome.report["folder"]) / "items.jsonl").read_text())
    assert (line["arm"], line["answer"], line["detail"]["parsed"]) == ("du", "246", ["246", "246"])


def settings(model: Any, tmp_path: Path, **extra: Any) -> ArmSettings:
    return ArmSettings(
        model=model, debates_dir=tmp_path, personas=[], mode="panel", rounds=1, **extra
    )


GSM_ITEM = EvalItem(
    id="g1", question="Tom has 3 apples and buys 4. How many?", answer="7", kind="number"
)


def test_gsm_wording_and_three_agents(tmp_path: Path) -> None:
    seen: list[list[Message]] = []

    def respond(messages: list[Message], output: Any) -> str:
        seen.append(list(messages))
        return f"Agent turn {len(messages)}: so \\boxed{{7}}"

    model = ScriptedModel(respond)
    result = asyncio.run(
        run_du(settings(model, tmp_path, du_wording="gsm", du_agents=3, du_rounds=2), GSM_ITEM)
    )
    assert (result.answer, result.correct, result.calls) == ("7", True, 6)
    first = PAPER_GSM_QUESTION.format(GSM_ITEM.question)
    assert all(m[0].role == "user" and m[0].content == first for m in seen)
    later = [m for m in seen if len(m) == 3]
    assert len(later) == 3
    shown = PAPER_GSM_SOLUTION.format("Agent turn 1: so \\boxed{7}") * 2
    expected = PAPER_GSM_PREFIX + shown + PAPER_GSM_SUFFIX.format(GSM_ITEM.question)
    assert all(m[2].content == expected for m in later)


def test_the_papers_parsers_and_majority() -> None:
    assert math_answer("the result of 12+28*19+6 is 550.") == 550.0
    assert math_answer("the answer is 1,234") == 1.234  # the paper's comma → dot
    assert math_answer("no number here") is None
    assert gsm_answer("so {1,000} and then \\boxed{$18}") == "18"
    assert gsm_answer("no box: 3 apples then 12") == "12"
    assert most_frequent([1.0, 2.0, 2.0, 1.0]) == 1.0  # the first to reach the top count
    assert paper_answer(["x is 3", "no idea", "x is 4"], "math") == (3.0, [3.0, None, 4.0])
    # gsm keeps an unparsed reply as a vote (eval_gsm.py's pred_answers keep None)
    assert paper_answer(["none", "nothing", "\\boxed{5}"], "gsm")[0] is None


def test_a_failed_call_is_asked_again(tmp_path: Path) -> None:
    calls = {"n": 0}

    def respond(messages: list[Message], output: Any) -> Any:
        calls["n"] += 1
        if calls["n"] in (1, 4):  # one call of round 1, one of round 2, each fails once
            return ModelUnavailableError("scripted", "no server")
        return "the result is 7."

    model = ScriptedModel(respond)
    result = asyncio.run(
        run_du(settings(model, tmp_path, du_wording="math", du_agents=2, du_rounds=2), GSM_ITEM)
    )
    assert result.error is None and result.correct
    assert len(result.detail["retried_calls"]) == 2
    assert len(result.detail["parsed"]) == 2  # both agents in the majority: none dropped


def test_a_call_that_keeps_failing_leaves_the_item_unanswered(tmp_path: Path) -> None:
    model = ScriptedModel(lambda m, o: ModelUnavailableError("scripted", "no server"))
    result = asyncio.run(
        run_du(settings(model, tmp_path, du_wording="math", du_agents=2, du_rounds=2), GSM_ITEM)
    )
    assert result.answer is None and not result.correct
    assert result.error is not None and "failed 3 time(s)" in result.error
