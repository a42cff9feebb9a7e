"""``argue eval --batch`` end to end against loopback fakes of OpenAI's Batch API and
Anthropic's Message Batches (tests/llm/batch_fakes.py): a whole eval of single + vote + society
goes one batch per wave with no direct model call (100 items too; the debate arm a phase per
wave, across items), progress is reported, batch ids land in the
eval folder, a killed run re-attaches to its batch without resubmitting, a request failed
inside a batch is that item's failure, an expired batch fails only what it left unanswered,
calls cost half the list price, and a provider without batches runs direct calls, said so.

Teeth checks (done once each): in argue/eval/batching.py make ``_submit_queue`` ignore the
recorded batches (``groups.setdefault(None, [])``, always submit): the kill test fails (the
first wave is created a second time). Remove ``* BATCH_PRICE_FACTOR`` in argue/llm/pricing.py:
the cost test fails. (That a wave waits for every lane, and no longer than the quiet window,
has its teeth in test_batch_collector.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from argue.app import EvalRequest, Workspace, prepare_eval, run_eval
from argue.domain import Usage
from argue.eval.arms import ArmSettings
from argue.eval.batching import BatchCollector
from argue.eval.runner import run_eval as run_items
from argue.llm import ScriptedModel
from argue.llm.pricing import PriceTable
from tests.llm.batch_fakes import AnthropicBatchFake, BatchFake, OpenAIBatchFake
from tests.loopback import Reply

PROGRESS = re.compile(r"^batch (\S+): (\d+)/(\d+) done, \d+ s \(")
MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-haiku-4-5"}
CHAT_PATHS = ("/v1/chat/completions", "/v1/messages")


@pytest.fixture(params=["openai", "anthropic"])
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def fake(provider: str) -> Iterator[BatchFake]:
    server: BatchFake = OpenAIBatchFake() if provider == "openai" else AnthropicBatchFake()
    try:
        yield server
    finally:
        server.stop()


def env_for(provider: str, fake: BatchFake) -> dict[str, str]:
    import os

    env = {"ARGUE_HOME": os.environ["ARGUE_HOME"], "OLLAMA_HOST": "127.0.0.1:9"}
    env["ARGUE_BATCH_POLL_S"] = "0.01"
    if provider == "openai":
        assert isinstance(fake, OpenAIBatchFake)
        env.update(
            OPENAI_API_KEY="sk-test-batch-0000000000000000",
            OPENAI_BASE_URL=fake.base_url,
            ARGUE_BATCH_AT_BASE_URL="1",  # the loopback fake stands in for api.openai.com
        )
    else:
        env.update(
            ANTHROPIC_API_KEY="sk-ant-test-batch-0000000000000000", ANTHROPIC_BASE_URL=fake.url
        )
    return env


def request_for(provider: str, **fields: Any) -> EvalRequest:
    defaults: dict[str, Any] = {
        "dataset": "mixed-arithmetic",
        "n": 3,
        "arms": ["single", "vote", "society"],
        "samples": 2,
        "provider": provider,
        "model": MODELS[provider],
        "batch": True,
    }
    return EvalRequest(**{**defaults, **fields})


def run(
    provider: str, fake: BatchFake, tmp_path: Path, **fields: Any
) -> tuple[Any, list[str], Path]:
    lines: list[str] = []
    workspace = Workspace(debates_dir=tmp_path / "debates", env=env_for(provider, fake))
    plan = prepare_eval(request_for(provider, **fields), workspace)
    outcome = run_eval(plan, reporter=lines.append)
    return outcome, lines, plan.folder.root


def batch_lines(root: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (root / "batches.jsonl").read_text().splitlines()]


def chat_calls(fake: BatchFake) -> int:
    return sum(1 for r in fake.server.requests if r.method == "POST" and r.path in CHAT_PATHS)


def test_a_whole_eval_goes_one_batch_per_wave(provider, fake, tmp_path):
    outcome, lines, root = run(provider, fake, tmp_path)
    assert outcome.exit_code == 0, lines
    arms = outcome.report["arms"]
    assert {arm: s["accuracy"] for arm, s in arms.items()} == {
        "single": 1.0,
        "vote": 1.0,
        "society": 1.0,
    }
    # Three waves across the 3 items: single + society round 1 (3 + 9), society round 2 (9),
    # then the vote (3 × 2 samples). Nothing went to the chat endpoint.
    assert fake.creates == 3
    assert [len(b.requests) for b in fake.batches.values()] == [12, 9, 6]
    assert chat_calls(fake) == 0
    # Progress while polling, in the brief's words: "batch <id>: 6/12 done, 0 s".
    progress = [m.groups() for line in lines if (m := PROGRESS.match(line))]
    assert {batch_id for batch_id, *_ in progress} == set(fake.batches)
    assert any(int(done) < int(total) for _, done, total in progress)
    # Each batch recorded when created (its calls by custom_id), then its end.
    records = batch_lines(root)
    created = [r for r in records if r["status"] == "submitted"]
    assert [r["batch_id"] for r in created] == list(fake.batches)
    for record in created:
        sent = dict(fake.batches[record["batch_id"]].requests)
        assert set(record["calls"]) == set(sent)
        assert all(re.fullmatch(r"argue-[0-9a-f]{40}", cid) for cid in record["calls"])
    names = {name for r in created for name in r["calls"].values()}
    # A call's name: item/arm/purpose (the purpose names the item, arm, round and agent).
    assert any(re.fullmatch(r"([^/]+)/society/eval/\1/society/r2/a3", name) for name in names)
    ended = [r for r in records if r["status"] not in ("submitted", "intent")]
    assert len(ended) == 3
    for record in ended:
        assert record["counts"] == {"succeeded": len(fake.batches[record["batch_id"]].requests)}
    # The report says which calls were batched and at what price.
    batch = outcome.report["batch"]
    assert batch["requests"] == batch["answered"] == 27
    assert batch["price"] == "50% of list price"
    assert batch["this_run"]["created"] == list(fake.batches)


def test_batched_calls_cost_half_the_list_price(provider, fake, tmp_path):
    outcome, _, root = run(provider, fake, tmp_path, arms=["single"])
    assert outcome.exit_code == 0
    usage = [Usage.model_validate_json(x) for x in (root / "usage.jsonl").read_text().splitlines()]
    assert len(usage) == 3 and all(u.batch_calls == 1 for u in usage)
    table = PriceTable()
    for answer in usage:
        listed = table.cost(answer.model_copy(update={"batch_calls": 0}))
        assert listed > 0
        assert answer.cost_usd == pytest.approx(listed / 2)
    assert outcome.report["arms"]["single"]["mean_cost_usd"] == pytest.approx(
        table.cost(usage[0].model_copy(update={"batch_calls": 0})) / 2
    )


def test_a_killed_run_re_attaches_to_its_batch_without_resubmitting(provider, fake, tmp_path):
    fake.hold.clear()  # the first batch stays in progress: killed between submission and results
    workspace = Workspace(debates_dir=tmp_path / "debates", env=env_for(provider, fake))
    plan = prepare_eval(request_for(provider), workspace)
    plan.folder.save_manifest({"key": "k", "dataset": "t", "provider": provider})
    settings = ArmSettings(
        model=plan.chat_model,
        debates_dir=plan.folder.debates,
        personas=plan.lineup,
        mode=plan.mode,
        rounds=1,
        record_usage=plan.folder.append_usage,
    )
    assert plan.batch_client is not None and plan.batch_polling is not None
    collector = BatchCollector(plan.batch_client, plan.folder, polling=plan.batch_polling)

    async def killed() -> None:
        task = asyncio.ensure_future(
            run_items(
                plan.items,
                plan.arms,
                settings,
                plan.folder,
                concurrency=plan.concurrency,
                samples=2,
                batching=collector,
            )
        )
        while fake.polls < 3:  # created, recorded, polled: still in progress
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(killed())
    assert fake.creates == 1 and (plan.folder.root / "batches.jsonl").exists()
    assert not (plan.folder.root / "items.jsonl").exists()
    first = next(iter(fake.batches))

    fake.hold.set()
    outcome, lines, _ = run(provider, fake, tmp_path)
    assert outcome.exit_code == 0, lines
    assert (
        f"batch {first}: re-attached to 12 request(s) an earlier run submitted (not sent again)"
        in lines
    )
    # Waves 2 and 3 are new; wave 1 was not sent again: 27 requests in all, as in one run.
    assert fake.creates == 3 and fake.requests_in == 27
    assert outcome.report["batch"]["this_run"]["reattached"] == [first]
    assert outcome.report["arms"]["single"]["accuracy"] == 1.0
    assert chat_calls(fake) == 0


def test_a_request_that_failed_inside_a_batch_is_that_items_failure(provider, fake, tmp_path):
    workspace = Workspace(debates_dir=tmp_path / "debates", env=env_for(provider, fake))
    items = prepare_eval(request_for(provider), workspace).items
    doomed = items[1]

    def fail(custom_id: str, body: dict[str, Any]) -> str | None:
        return "prompt is too long" if doomed.prompt() in json.dumps(body) else None

    fake.fail = fail
    outcome, lines, root = run(provider, fake, tmp_path, arms=["single"])
    # Every item ran; one has no answer: partial, exit 1, left out of the accuracy.
    assert (outcome.status, outcome.exit_code) == ("partial", 1)
    single = outcome.report["arms"]["single"]
    assert (single["answered"], single["items"], single["accuracy"]) == (2, 3, 1.0)
    results = {
        json.loads(x)["item"]: json.loads(x)
        for x in (root / "items.jsonl").read_text().splitlines()
    }
    failed = results[doomed.id]
    batch_id = next(iter(fake.batches))
    assert failed["answer"] is None
    assert f"failed inside batch {batch_id}: HTTP 400: " in failed["error"]
    assert "prompt is too long" in failed["error"]
    assert all(r["correct"] for key, r in results.items() if key != doomed.id)
    assert batch_lines(root)[-1]["counts"] == {"succeeded": 2, "errored": 1}
    assert any(line.endswith("2 answered, 1 errored") for line in lines)
    # A re-run asks exactly that one again (it succeeds now), and nothing else.
    fake.fail = lambda custom_id, body: None
    sent = fake.requests_in
    outcome, lines, root = run(provider, fake, tmp_path, arms=["single"])
    assert (outcome.status, outcome.exit_code) == ("completed", 0), lines
    assert fake.requests_in == sent + 1
    assert outcome.report["arms"]["single"]["accuracy"] == 1.0


def test_an_expired_batch_fails_what_it_left_unanswered(provider, fake, tmp_path):
    fake.expire_after = 2
    outcome, _, root = run(provider, fake, tmp_path, arms=["single"], n=4)
    assert (outcome.status, outcome.exit_code) == ("partial", 1)  # the eval goes on, reports
    results = [json.loads(x) for x in (root / "items.jsonl").read_text().splitlines()]
    expired = [r for r in results if r["error"]]
    assert len(expired) == 2 and sum(r["correct"] for r in results) == 2
    assert all("the batch expired" in r["error"] and "not billed" in r["error"] for r in expired)
    assert batch_lines(root)[-1]["counts"] == {"succeeded": 2, "expired": 2}
    assert batch_lines(root)[-1]["status"] == ("expired" if provider == "openai" else "ended")
    single = outcome.report["arms"]["single"]
    assert (single["n"], single["answered"], single["items"]) == (2, 2, 4)
    assert single["unanswered_because"] == {"expired": 2}


def test_a_provider_without_batches_runs_direct_calls_and_says_so(tmp_path, scripted_provider):
    answer = {"reasoning": "I computed it.", "answer": "4"}
    scripted = ScriptedModel(lambda messages, output: answer, provider="scripted")
    scripted_provider(scripted)
    lines: list[str] = []
    request = EvalRequest(
        dataset="mixed-arithmetic", n=2, arms=["single"], provider="scripted", batch=True
    )
    plan = prepare_eval(request, Workspace(debates_dir=tmp_path / "debates"))
    assert plan.batch_client is None
    outcome = run_eval(plan, reporter=lines.append)
    note = (
        "`batch`: the batch engine is not available for provider scripted (only OpenAI's "
        "Batch API and Anthropic's Message Batches are): direct calls are used"
    )
    assert note in lines
    assert len(scripted.requests) == 2  # the eval ran as without --batch
    assert outcome.report["batch"] == {"engine": None, "note": note}
    assert not (plan.folder.root / "batches.jsonl").exists()


def test_an_openai_compatible_server_is_not_taken_for_the_batch_api(tmp_path):
    from argue.llm._batch_engines import batch_client_for

    workspace = Workspace(
        debates_dir=tmp_path / "debates",
        env={"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "ARGUE_HOME": str(tmp_path)},
    )
    model = workspace.resolve("openai", "qwen")
    said = batch_client_for(model, workspace.env)
    assert isinstance(said, str)
    assert said.startswith("the batch engine is not available for provider openai")
    assert "http://127.0.0.1:8080/v1, not api.openai.com" in said
    assert said.endswith("direct calls are used")


def test_the_batch_flag_through_the_cli(tmp_path, monkeypatch):
    from argue.cli import app

    fake = AnthropicBatchFake()
    try:
        for name, value in env_for("anthropic", fake).items():
            monkeypatch.setenv(name, value)
        base = [
            "eval",
            "--dataset",
            "mixed-arithmetic",
            "--n",
            "2",
            "--arms",
            "single",
            "--provider",
            "anthropic",
            "--model",
            "claude-haiku-4-5",
            "--debates-dir",
            str(tmp_path / "debates"),
        ]
        result = CliRunner().invoke(app, [*base, "--batch", "--json"])
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["batch"]["engine"] == "Anthropic Message Batches"
        assert report["batch"]["answered"] == 2 and fake.creates == 1
        assert chat_calls(fake) == 0
        # Run again without --json: everything is done, nothing is submitted, the table says so.
        again = CliRunner().invoke(app, [*base, "--batch"])
        assert again.exit_code == 0, again.output
        assert fake.creates == 1
        assert (
            "batch: this run sent 0 request(s) in 0 new batch(es) and re-attached 0 to 0 "
            "earlier one(s) on the Anthropic Message Batches; 0 of its 0 request(s) answered, "
            "priced at 50% of list price"
        ) in " ".join(again.stdout.split())
    finally:
        fake.stop()


def test_a_re_ask_joins_the_next_wave(provider, fake, tmp_path):
    reply = fake.answer

    def invalid_first(body: dict[str, Any]) -> dict[str, Any]:
        answered = reply(body)
        if not any(m["role"] == "assistant" for m in body["messages"]):  # not the re-ask
            text = json.dumps({"reasoning": "I forgot the answer."})
            if provider == "openai":
                answered["choices"][0]["message"]["content"] = text
            else:
                answered["content"][0]["text"] = text
        return answered

    fake.answer = invalid_first
    outcome, _, root = run(provider, fake, tmp_path, arms=["single"], n=2)
    assert outcome.exit_code == 0
    assert outcome.report["arms"]["single"]["accuracy"] == 1.0
    # The first answers (invalid) in one batch, the two re-asks in the next.
    assert [len(b.requests) for b in fake.batches.values()] == [2, 2]
    usage = [Usage.model_validate_json(x) for x in (root / "usage.jsonl").read_text().splitlines()]
    assert len(usage) == 4 and all(u.batch_calls == 1 for u in usage)
    assert chat_calls(fake) == 0


def test_a_rejected_key_stops_the_eval_with_the_reason(tmp_path, loopback):
    from argue.app import OperationError

    loopback.handler = lambda request: Reply(
        401, json={"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
    )
    env = {
        "ARGUE_HOME": str(tmp_path),
        "ANTHROPIC_API_KEY": "sk-ant-test-rejected-000000000",
        "ANTHROPIC_BASE_URL": loopback.url,
    }
    plan = prepare_eval(
        request_for("anthropic", arms=["single"]), Workspace(debates_dir=tmp_path / "d", env=env)
    )
    with pytest.raises(OperationError, match="credentials rejected") as raised:
        run_eval(plan)
    assert str(raised.value).endswith(
        "credentials rejected (check ANTHROPIC_API_KEY): bad key — check the provider's API key"
    )
    assert [r.path for r in loopback.requests] == ["/v1/messages/batches"]  # once: not retried


def test_a_hundred_items_make_one_batch_per_wave(tmp_path):
    fake = AnthropicBatchFake()
    try:
        outcome, _, _ = run("anthropic", fake, tmp_path, n=100, samples=1)
    finally:
        fake.stop()
    assert outcome.exit_code == 0
    # single + society round 1, society round 2, the vote: three batches, nothing direct.
    assert [len(b.requests) for b in fake.batches.values()] == [100 + 300, 300, 100]
    assert chat_calls(fake) == 0
    assert all(s["accuracy"] == 1.0 for s in outcome.report["arms"].values())


@pytest.fixture
def debating_fake(provider: str) -> Iterator[BatchFake]:
    """A batch fake whose answers come from the e2e FakeLLM's script (debates included)."""
    from argue.eval.arms import ShortAnswer
    from argue.llm._structured import tool_name_for
    from tests.e2e import fake_llm
    from tests.e2e.fake_llm import FakeLLM
    from tests.eval.script import EvalScript

    name = tool_name_for(ShortAnswer)
    fake_llm.SCHEMAS[name] = ShortAnswer
    llm = FakeLLM(EvalScript(names={}))
    server: BatchFake = (
        OpenAIBatchFake(answer=lambda body: llm._openai(body).json)
        if provider == "openai"
        else AnthropicBatchFake(answer=lambda body: llm._anthropic(body).json)
    )
    try:
        yield server
    finally:
        server.stop()
        del fake_llm.SCHEMAS[name]


def test_the_debate_arm_goes_a_phase_at_a_time_across_items(provider, debating_fake, tmp_path):
    fake = debating_fake
    outcome, _, root = run(
        provider, fake, tmp_path, arms=["debate", "single"], n=2, rounds=1, samples=None
    )
    assert outcome.exit_code == 0
    assert outcome.report["arms"]["debate"]["accuracy"] == 1.0
    assert chat_calls(fake) == 0
    # Every batch holds both items' calls of that wave (a debate phase, with the single calls
    # in the first): the items go in lockstep, not one after the other.
    ids = {json.loads(x)["item"] for x in (root / "items.jsonl").read_text().splitlines()}
    for record in batch_lines(root):
        if record["status"] == "submitted":
            assert {name.split("/")[0] for name in record["calls"].values()} == ids
    debate_calls = outcome.report["arms"]["debate"]["mean_calls"]
    assert fake.requests_in == 2 * debate_calls + 2
