"""The ``society`` arm (Du et al.'s multiagent debate, composable-models/llm_multiagent_debate):
N identical agents × R rounds; a later round shows an agent the others' previous full answers
(fenced) and its own as its own turn; the answer is the majority of the last round's answers.

Teeth (each broken once on purpose, the named test failed, then restored):
- ``run_society`` loops ``range(1, rounds)`` (one round short): ``test_n_agents_times_r_rounds``
  fails (4 calls, not 6).
- ``others`` keeps the agent itself (drop ``i != agent``): ``test_round_two_shows_the_others``
  fails (its own round-1 working is among "the other agents'").
- the winner is the last-listed tied answer (``reversed`` in the ``raw`` lookup and a Counter
  ``most_common`` winner): ``test_a_tie_goes_to_the_lowest_numbered_agent`` fails.
- a failed call re-raised instead of recorded: ``test_a_failed_agent_drops_out_the_others_vote``
  fails with ModelUnavailableError.
- ``_call`` builds its MeteredModel on a fresh ``[]``: ``test_usage_and_cost_are_summed`` fails
  (0 calls, 0 tokens).
- the runner's ``wave`` ignores ``done``: ``test_a_finished_item_is_not_run_again`` fails.
- ``_check_society`` records and never refuses: ``test_a_folder_of_other_n_r_is_refused``
  fails (exit 0).
- typer's ``max=10`` dropped from ``--society-agents`` *and* the EvalRequest bound:
  ``test_cli_flags_and_their_usage_errors`` fails.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.app import EvalRequest, UsageError
from argue.cli import app
from argue.eval.arms import (
    DEFAULT_SOCIETY_AGENTS,
    DEFAULT_SOCIETY_ROUNDS,
    MAX_SOCIETY_AGENTS,
    MAX_SOCIETY_ROUNDS,
    ArmSettings,
    _messages,
    run_society,
)
from argue.eval.datasets import EvalItem
from argue.eval.folder import EvalFolder
from argue.eval.runner import run_eval
from argue.llm import ScriptedModel
from argue.llm.base import ModelUnavailableError
from argue.llm.pricing import ModelPrice, PriceTable
from tests.eval.script import EvalScript

ITEM = EvalItem(id="q1", question="What is 2+3*4?", answer="14", kind="number")
PRICES = PriceTable({"scripted": {"scripted-1": ModelPrice(input=1.0, output=1.0)}})
WORKING = re.compile(r"agent (\d+) round (\d+) working")


def society(answer, prices=None):
    """A scripted model for the arm: ``answer(agent, round)`` is the agent's answer (1-based;
    an Exception for a failed call). Round 1's agents are told apart by the order of their
    calls (checked against each request's purpose), later ones by their own previous turn."""
    order: dict[int, int] = {}

    def respond(messages, output):
        own = [m.content for m in messages if m.role == "assistant"]
        round_no = len(own) + 1
        if own:
            agent = int(WORKING.search(own[-1]).group(1))
        else:
            order[round_no] = agent = order.get(round_no, 0) + 1
        value = answer(agent, round_no)
        if isinstance(value, Exception):
            return value
        return {"reasoning": f"agent {agent} round {round_no} working", "answer": value}

    return ScriptedModel(respond, prices=prices)


def settings(model, tmp_path, agents=3, rounds=2, **extra):
    return ArmSettings(
        model=model,
        debates_dir=tmp_path / "debates",
        personas=[],
        mode="panel",
        rounds=1,
        society_agents=agents,
        society_rounds=rounds,
        **extra,
    )


def purpose_of(request):
    round_no, agent = re.fullmatch(r"eval/q1/society/r(\d+)/a(\d+)", request.purpose).groups()
    return int(round_no), int(agent)


def test_defaults_are_the_papers_headline():
    assert (DEFAULT_SOCIETY_AGENTS, DEFAULT_SOCIETY_ROUNDS) == (3, 2)
    fields = EvalRequest.model_fields
    assert fields["society_agents"].default == DEFAULT_SOCIETY_AGENTS
    assert fields["society_rounds"].default == DEFAULT_SOCIETY_ROUNDS
    request = EvalRequest(dataset="x", society_agents=MAX_SOCIETY_AGENTS)
    assert request.society_agents == MAX_SOCIETY_AGENTS
    for field, top in (
        ("society_agents", MAX_SOCIETY_AGENTS),
        ("society_rounds", MAX_SOCIETY_ROUNDS),
    ):
        for bad in (0, top + 1):
            with pytest.raises(UsageError, match=field):
                EvalRequest.build(dataset="x", **{field: bad})


def test_n_agents_times_r_rounds(tmp_path):
    model = society(lambda agent, round_no: "14")
    result = asyncio.run(run_society(settings(model, tmp_path, agents=3, rounds=2), ITEM))
    assert (result.arm, result.answer, result.correct, result.error) == (
        "society",
        "14",
        True,
        None,
    )
    assert result.calls == len(model.requests) == 6
    assert sorted(purpose_of(r) for r in model.requests) == [
        (r, a) for r in (1, 2) for a in (1, 2, 3)
    ]
    assert result.detail["answers_by_round"] == [["14"] * 3, ["14"] * 3]
    assert (result.detail["agents"], result.detail["rounds"]) == (3, 2)
    four = society(lambda agent, round_no: "14")
    result = asyncio.run(run_society(settings(four, tmp_path, agents=4, rounds=3), ITEM))
    assert result.calls == len(four.requests) == 12


def test_round_two_shows_the_others(tmp_path):
    model = society(lambda agent, round_no: str(13 + agent) if round_no == 1 else "14")
    asyncio.run(run_society(settings(model, tmp_path), ITEM))
    first = [r for r in model.requests if purpose_of(r)[0] == 1]
    # Round 1 is the single arm's own prompt, the same for every agent.
    assert [r.purpose for r in first] == [f"eval/q1/society/r1/a{a}" for a in (1, 2, 3)]
    assert all(r.messages == _messages(ITEM) for r in first)
    second = {purpose_of(r)[1]: r for r in model.requests if purpose_of(r)[0] == 2}
    assert sorted(second) == [1, 2, 3]
    for agent, request in second.items():
        *start, own, shown = request.messages
        assert start == _messages(ITEM)
        # Its own previous answer is its own turn ...
        assert own.role == "assistant"
        assert json.loads(own.content) == {
            "reasoning": f"agent {agent} round 1 working",
            "answer": str(13 + agent),
        }
        # ... and the user turn holds the others' full answers, fenced, and the question.
        assert shown.role == "user"
        assert shown.content.startswith("These are the solutions to the question from the other")
        others = [a for a in (1, 2, 3) if a != agent]
        assert WORKING.findall(shown.content) == [(str(a), "1") for a in others]
        for a in others:
            assert f"agent {a} round 1 working\n\nAnswer: {13 + a}" in shown.content
        assert shown.content.count("<data solution ") == 2
        assert f"agent {agent} round 1" not in shown.content
        assert "The original question: What is 2+3*4?" in shown.content
        assert "give `answer`: a number only" in shown.content


def test_one_agent_is_asked_to_verify_its_answer(tmp_path):
    model = society(lambda agent, round_no: "15" if round_no == 1 else "14")
    result = asyncio.run(run_society(settings(model, tmp_path, agents=1, rounds=2), ITEM))
    assert result.answer == "14" and result.calls == 2
    last = model.requests[-1].messages[-1].content
    assert last.startswith("Can you verify that your answer is correct?")
    assert "<data" not in last


def test_the_majority_of_the_last_answers(tmp_path):
    # Round 1 was right everywhere; round 2's majority is wrong: the last round decides.
    last = {1: "15", 2: "The answer is 15.", 3: "14"}
    model = society(lambda agent, round_no: "14" if round_no == 1 else last[agent])
    result = asyncio.run(run_society(settings(model, tmp_path), ITEM))
    assert (result.normalized, result.correct) == ("15", False)
    assert result.answer == "15"
    assert result.detail["votes"] == {"15": 2, "14": 1}


def test_a_tie_goes_to_the_lowest_numbered_agent(tmp_path):
    last = {1: "15", 2: "14", 3: "14", 4: "15"}
    model = society(lambda agent, round_no: last[agent])
    result = asyncio.run(run_society(settings(model, tmp_path, agents=4, rounds=1), ITEM))
    assert result.answer == "15" and result.detail["votes"] == {"15": 2, "14": 2}
    assert "a tie goes to the lowest-numbered agent" in result.detail["answer_source"]
    # An unparsed answer does not vote: agent 1's "no idea" leaves 14 against 15, agent 2 first.
    last = {1: "no idea", 2: "14", 3: "15"}
    model = society(lambda agent, round_no: last[agent])
    result = asyncio.run(run_society(settings(model, tmp_path, agents=3, rounds=1), ITEM))
    assert result.answer == "14" and result.correct
    assert result.detail["votes"] == {"14": 1, "15": 1}


def test_a_failed_agent_drops_out_and_leaves_the_item_unanswered(tmp_path):
    """Teeth: in argue/eval/arms.py drop ``run_society``'s ``if failed:`` branch (score the
    majority of the agents left, as before issue 38): this test fails (the item is scored)."""

    def answer(agent, round_no):
        if agent == 2 and round_no == 1:
            return ModelUnavailableError("scripted", "agent 2 found no server")
        return "14"

    model = society(answer)
    result = asyncio.run(run_society(settings(model, tmp_path), ITEM))
    # Not the 3-agent majority asked for: unanswered (never scored), the rest's kept in detail.
    assert result.answer is None and not result.correct and result.unanswered
    assert result.error.startswith("1 call(s) failed (agent 2, round 1: ")
    assert result.detail["majority_of_the_rest"] == "14"
    # Agent 2 is not called in round 2; its failed call billed nothing (no answer to count).
    assert len(model.requests) == 5 and result.calls == 4
    failed = result.detail["failed_calls"]
    assert [(f["agent"], f["round"]) for f in failed] == [(2, 1)]
    assert "no server" in failed[0]["error"]
    assert result.detail["partial"] == (
        "1 of 3 agent(s) failed and dropped out; the majority is of the 2 agent(s) that "
        "answered round 2"
    )
    assert result.detail["answers_by_round"] == [["14", None, "14"], ["14", None, "14"]]
    # Round 2 shows each survivor the one other answer there is.
    for request in model.requests:
        if purpose_of(request)[0] == 2:
            assert request.messages[-1].content.count("<data solution ") == 1

    def all_fail(agent, round_no):
        if round_no == 2:
            return ModelUnavailableError("scripted", "no server")
        return "14"

    model = society(all_fail)
    result = asyncio.run(run_society(settings(model, tmp_path), ITEM))
    assert (result.answer, result.correct, result.calls, len(model.requests)) == (None, False, 3, 6)
    assert result.error.startswith("3 call(s) failed (agent 1, round 2: ")
    assert result.detail["partial"].endswith("every agent had failed by round 2")


def test_usage_and_cost_are_summed(tmp_path):
    recorded = []
    model = society(lambda agent, round_no: "14", prices=PRICES)
    arm = settings(model, tmp_path, record_usage=recorded.append)
    result = asyncio.run(run_society(arm, ITEM))
    assert result.calls == len(recorded) == 6
    assert result.tokens == sum(u.input_tokens + u.output_tokens for u in recorded) > 0
    assert result.cost_usd == pytest.approx(sum(u.cost_usd for u in recorded))
    assert result.cost_usd > 0
    assert result.unpriced_calls == 0
    assert sorted(u.purpose for u in recorded) == sorted(r.purpose for r in model.requests)


def test_a_finished_item_is_not_run_again(tmp_path):
    from argue.eval.datasets import EvalItem as Item

    items = [
        Item(id=f"i{k}", question=f"What is {k}+1*2?", answer=str(k + 2), kind="number")
        for k in (1, 2)
    ]
    folder = EvalFolder(tmp_path / "evals" / "e")
    folder.save_manifest({"key": "k", "dataset": "t", "provider": "p"})

    def go(model):
        arm = settings(model, tmp_path, record_usage=folder.append_usage)
        arm.debates_dir = folder.debates
        return asyncio.run(run_eval(items, ["single", "society"], arm, folder, concurrency=2))

    first = ScriptedModel(EvalScript(names={}))
    results = go(first)
    assert len(first.requests) == 2 * (1 + 6)
    assert all(r.correct for r in results.values())
    assert {r.calls for (_, arm), r in results.items() if arm == "society"} == {6}
    again = ScriptedModel(EvalScript(names={}))
    rerun = go(again)
    assert again.requests == [] and rerun.keys() == results.keys()
    lines = (folder.root / "items.jsonl").read_text().splitlines()
    assert sum(json.loads(x)["arm"] == "society" for x in lines) == 2


# ------------------------------------------------------------------ the CLI


@pytest.fixture
def scripted(monkeypatch, scripted_provider):
    models = []

    def build(wanted, ctx):
        models.append(ScriptedModel(EvalScript(names={})))
        return models[-1]

    scripted_provider(build)
    monkeypatch.setenv("ARGUE_PROVIDER", "scripted")
    return models


@pytest.fixture
def qa(tmp_path) -> Path:
    path = tmp_path / "qa.jsonl"
    rows = [{"id": "a", "question": "What is 2+3*4?", "answer": 14}]
    rows.append({"id": "b", "question": "What is 7*6-5?", "answer": 37})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def invoke(*args):
    return CliRunner().invoke(app, ["eval", *args])


def test_cli_flags_and_their_usage_errors(tmp_path, scripted, qa):
    base = (str(qa), "--debates-dir", str(tmp_path), "--json")
    done = invoke(
        *base, "--arms", "single,society", "--society-agents", "2", "--society-rounds", "3"
    )
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    society_row = report["arms"]["society"]
    assert (society_row["n"], society_row["mean_calls"], society_row["accuracy"]) == (2, 6.0, 1.0)
    manifest = json.loads(Path(report["folder"], "eval.json").read_text())
    assert (manifest["society_agents"], manifest["society_rounds"]) == (2, 3)
    # the report says which society ran, and compares it with one call item by item
    assert report["society"] == {"agents": 2, "rounds": 3}
    assert [c["arms"] for c in report["comparisons"]] == [["society", "single"]]
    assert sum(len(m.requests) for m in scripted) == 2 * (1 + 6)
    # The same command again resumes: no call.
    again = invoke(
        *base, "--arms", "single,society", "--society-agents", "2", "--society-rounds", "3"
    )
    assert again.exit_code == 0 and json.loads(again.stdout)["folder"] == report["folder"]
    assert sum(len(m.requests) for m in scripted) == 2 * (1 + 6)
    # Another N × R is another eval (like --rounds): the default's folder is not this one.
    default = invoke(*base, "--arms", "single")
    assert default.exit_code == 0, default.output
    assert json.loads(default.stdout)["folder"] != report["folder"]
    for flag, bad in (("--society-agents", "0"), ("--society-agents", "11")):
        refused = invoke(*base, "--arms", "society", flag, bad)
        assert refused.exit_code == 2
        assert len(refused.stderr.strip().splitlines()) == 1 and flag in refused.stderr
    for flag, bad in (("--society-rounds", "0"), ("--society-rounds", "11")):
        refused = invoke(*base, "--arms", "society", flag, bad)
        assert refused.exit_code == 2 and flag in refused.output


def test_a_folder_of_other_n_r_is_refused(tmp_path, scripted, qa):
    base = (str(qa), "--debates-dir", str(tmp_path), "--json", "--arms", "society")
    done = invoke(*base)
    assert done.exit_code == 0, done.output
    folder = Path(json.loads(done.stdout)["folder"])
    manifest = json.loads((folder / "eval.json").read_text())
    assert (manifest["society_agents"], manifest["society_rounds"]) == (3, 2)
    # A folder whose eval.json says another N × R (written by hand, or by another version).
    (folder / "eval.json").write_text(json.dumps({**manifest, "society_agents": 5}))
    refused = invoke(*base)
    assert refused.exit_code == 2
    assert "society arm runs 5 agents × 2 rounds, not 3 × 2" in refused.output
    assert len(refused.stderr.strip().splitlines()) == 1
