"""The batch collector (argue/eval/batching.py) with real adapters against the loopback batch
fakes: the body batched is the body a direct call sends, a wave waits for every lane (and no
longer than the quiet window for a lane busy elsewhere), polling backs off, and a recorded batch
the provider no longer knows is submitted again.

Teeth checks (done once each): make ``BatchCollector._everyone_waiting`` return True:
``test_a_wave_waits_for_every_lane`` fails (three batches, not one). Make ``_collect`` skip the
quiet window (``continue`` on timeout instead of submitting):
``test_a_busy_lane_holds_the_others_no_longer_than_the_quiet_window`` fails. Replace
``wait * polling.factor`` by ``wait``: the backoff test fails.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from argue.eval.arms import ShortAnswer
from argue.eval.batching import BatchCollector, BatchPolling
from argue.eval.folder import EvalFolder
from argue.llm import AnthropicModel, AnthropicProvider, OpenAICompatModel, OpenAICompatProvider
from argue.llm._batch import wire_body
from argue.llm._batch_anthropic import AnthropicBatchClient
from argue.llm._batch_openai import OpenAIBatchClient
from argue.llm.base import Message
from tests.llm.batch_fakes import (
    AnthropicBatchFake,
    BatchFake,
    OpenAIBatchFake,
    anthropic_reply,
    openai_reply,
)
from tests.llm.wire import FAST_RETRY
from tests.loopback import LoopbackServer, RecordedRequest, Reply

FAST = BatchPolling(first_s=0.001, max_s=0.002, quiet_s=5.0)


def question(n: int) -> list[Message]:
    return [
        Message(role="system", content="You answer questions accurately."),
        Message(role="user", content=f"Question: What is {n}+1?\n\nGive `answer`."),
    ]


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


def adapter_at(provider: str, url: str) -> Any:
    if provider == "openai":
        return OpenAICompatModel(
            "gpt-4o-mini",
            provider=OpenAICompatProvider(
                name="openai", base_url=f"{url}/v1", api_key="sk-test-0000000000", key_env="K"
            ),
            retry=FAST_RETRY,
        )
    return AnthropicModel(
        "claude-haiku-4-5",
        provider=AnthropicProvider(api_key="sk-ant-test-0000000000", base_url=url),
        retry=FAST_RETRY,
    )


def collector_for(provider: str, adapter: Any, folder: EvalFolder, **kwargs: Any) -> BatchCollector:
    client = OpenAIBatchClient(adapter) if provider == "openai" else AnthropicBatchClient(adapter)
    return BatchCollector(client, folder, **kwargs)


def test_the_body_batched_is_the_body_a_direct_call_sends(provider, fake, tmp_path):
    direct = LoopbackServer()
    reply = openai_reply if provider == "openai" else anthropic_reply
    direct.handler = lambda request: Reply(json=reply(request.json()))
    direct.start()
    try:
        adapter = adapter_at(provider, direct.url)
        batched = adapter_at(provider, fake.url)

        async def both() -> tuple[Any, Any]:
            first = await adapter.complete(question(3), output=ShortAnswer, temperature=0.2)
            collector = collector_for(provider, batched, EvalFolder(tmp_path / "e"), polling=FAST)
            async with collector.collecting(), collector.lane(("q1", "single"), batched) as lane:
                second = await lane.complete(question(3), output=ShortAnswer, temperature=0.2)
            await adapter.aclose()
            return first, second

        first, second = asyncio.run(both())
    finally:
        direct.stop()
    sent_directly = direct.requests[0].json()
    (batch,) = fake.batches.values()
    ((_, sent_in_batch),) = batch.requests
    assert sent_in_batch == sent_directly
    assert sent_in_batch["temperature"] == 0.2  # Anthropic's extra_body merged in, as the SDK does
    assert first.value == second.value and second.value.answer == "4"
    assert first.usage.batch_calls == 0 and second.usage.batch_calls == 1
    assert second.usage.cost_usd == pytest.approx(first.usage.cost_usd / 2)


def test_wire_body_is_what_the_sdk_sends():
    request = {"model": "m", "timeout": 30.0, "extra_body": {"temperature": 0.5}, "messages": []}
    assert wire_body(request) == {"model": "m", "temperature": 0.5, "messages": []}


async def _lanes(collector: BatchCollector, adapter: Any, delays: dict[str, Any]) -> list[str]:
    """One lane per entry: it waits as told (a number of loop turns, or seconds), then asks."""
    order: list[str] = []

    async def lane(name: str, delay: Any) -> None:
        async with collector.lane((name, "single"), adapter) as model:
            if isinstance(delay, int):
                for _ in range(delay):
                    await asyncio.sleep(0)
            else:
                await asyncio.sleep(delay)
            result = await model.complete(question(len(name)), output=ShortAnswer)
            order.append(f"{name}={result.value.answer}")

    async with collector.collecting():
        await asyncio.gather(*(lane(name, delay) for name, delay in delays.items()))
    return order


def test_a_wave_waits_for_every_lane(provider, fake, tmp_path):
    adapter = adapter_at(provider, fake.url)
    collector = collector_for(provider, adapter, EvalFolder(tmp_path / "e"), polling=FAST)
    # Lanes reach their call at different times (one at once, one 50 loop turns later, one
    # after a short sleep); the first two wait meanwhile, so nothing is submitted early.
    order = asyncio.run(_lanes(collector, adapter, {"a": 0, "bb": 50, "ccc": 0.05}))
    assert sorted(order) == ["a=2", "bb=3", "ccc=4"]
    assert fake.creates == 1
    assert [len(b.requests) for b in fake.batches.values()] == [3]


def test_a_busy_lane_holds_the_others_no_longer_than_the_quiet_window(provider, fake, tmp_path):
    adapter = adapter_at(provider, fake.url)
    polling = BatchPolling(first_s=0.001, max_s=0.002, quiet_s=0.05)
    collector = collector_for(provider, adapter, EvalFolder(tmp_path / "e"), polling=polling)
    seen_while_busy: list[int] = []

    async def busy_then_done(model: Any) -> None:
        async with collector.lane(("busy", "single"), model):
            while not fake.creates:  # busy elsewhere (no call) until the others were submitted
                await asyncio.sleep(0.01)
            seen_while_busy.append(fake.creates)

    async def main() -> list[str]:
        async with collector.collecting():
            answers = asyncio.ensure_future(_lanes_inside(collector, adapter))
            await asyncio.wait_for(busy_then_done(adapter), 10)
            return await answers

    assert asyncio.run(main()) == ["a=2"]
    assert seen_while_busy == [1]


async def _lanes_inside(collector: BatchCollector, adapter: Any) -> list[str]:
    async with collector.lane(("a", "single"), adapter) as model:
        result = await model.complete(question(1), output=ShortAnswer)
    return [f"a={result.value.answer}"]


def test_polling_backs_off_and_reports_progress(tmp_path):
    fake = AnthropicBatchFake(polls_to_end=6)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await asyncio.sleep(0)

    try:
        adapter = adapter_at("anthropic", fake.url)
        lines: list[str] = []
        polling = BatchPolling(first_s=1.0, max_s=4.0, factor=2.0, quiet_s=5.0)
        collector = collector_for(
            "anthropic", adapter, EvalFolder(tmp_path / "e"), polling=polling, sleep=sleep
        )
        collector._report = lines.append
        asyncio.run(_lanes(collector, adapter, {"a": 0}))
    finally:
        fake.stop()
    assert waits == [1.0, 2.0, 4.0, 4.0, 4.0]
    assert [line.split(": ", 1)[1].split(",")[0] for line in lines if " done, " in line] == [
        "0/1 done",
        "1/1 done",
    ]


def test_a_recorded_batch_the_provider_no_longer_knows_is_submitted_again(provider, tmp_path):
    folder = EvalFolder(tmp_path / "e")
    first = OpenAIBatchFake() if provider == "openai" else AnthropicBatchFake()
    first.hold.clear()

    async def killed() -> None:
        adapter = adapter_at(provider, first.url)
        collector = collector_for(provider, adapter, folder, polling=FAST)
        task = asyncio.ensure_future(_lanes(collector, adapter, {"a": 0}))
        while first.polls < 2:
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    asyncio.run(killed())
    first.stop()
    (recorded,) = folder.batches()
    other = OpenAIBatchFake() if provider == "openai" else AnthropicBatchFake()
    try:  # another server (another account, or results past their retention): 404
        adapter = adapter_at(provider, other.url)
        lines: list[str] = []
        collector = collector_for(provider, adapter, folder, polling=FAST, report=lines.append)
        assert asyncio.run(_lanes(collector, adapter, {"a": 0})) == ["a=2"]
    finally:
        other.stop()
    assert other.creates == 1
    assert any(line.startswith(f"batch {recorded}: unknown to the ") for line in lines)
    assert any(line.endswith("its requests are submitted again") for line in lines)
    (new_id,) = other.batches
    assert set(folder.batches()) == {recorded, new_id}


def test_a_batch_that_cannot_be_created_fails_its_calls_with_the_reason(tmp_path):
    server = LoopbackServer()

    def refuse(request: RecordedRequest) -> Reply:
        message = {"type": "invalid_request_error", "message": "batches are not enabled"}
        return Reply(400, json={"type": "error", "error": message})

    server.handler = refuse
    server.start()
    try:
        adapter = adapter_at("anthropic", server.url)
        collector = collector_for("anthropic", adapter, EvalFolder(tmp_path / "e"), polling=FAST)

        async def main() -> str:
            async with collector.collecting(), collector.lane(("a", "single"), adapter) as model:
                try:
                    await model.complete(question(1), output=ShortAnswer)
                except Exception as error:
                    return f"{type(error).__name__}: {error}"
            return "answered"

        said = asyncio.run(main())
    finally:
        server.stop()
    assert said.startswith("ModelRequestError: anthropic: creating the message batch: HTTP 400")
    assert "batches are not enabled" in said
    # Only the intent was recorded (before asking): no batch, nothing to re-attach to.
    lines = [json.loads(x) for x in (tmp_path / "e" / "batches.jsonl").read_text().splitlines()]
    assert [(x["status"], x["batch_id"]) for x in lines] == [("intent", None)]


@pytest.mark.parametrize(
    "tampered",
    [
        {"batch_id": "../../v1/files"},  # not an id: never put into the provider's URL
        {"batch_id": "[link=https://example.org]msgbatch_1[/link]"},
        {"provider": "openai"},  # another provider's batch
    ],
)
def test_a_tampered_batch_record_is_not_re_attached(tmp_path, tampered):
    folder = EvalFolder(tmp_path / "e")
    first = AnthropicBatchFake()
    try:
        adapter = adapter_at("anthropic", first.url)
        asyncio.run(
            _lanes(collector_for("anthropic", adapter, folder, polling=FAST), adapter, {"a": 0})
        )
    finally:
        first.stop()
    path = folder.root / "batches.jsonl"
    created = json.loads(path.read_text().splitlines()[0])
    path.write_text(json.dumps({**created, **tampered}) + "\n")
    again = AnthropicBatchFake()
    try:
        adapter = adapter_at("anthropic", again.url)
        lines: list[str] = []
        collector = collector_for("anthropic", adapter, folder, polling=FAST, report=lines.append)
        assert asyncio.run(_lanes(collector, adapter, {"a": 0})) == ["a=2"]
    finally:
        again.stop()
    assert again.creates == 1 and not any("re-attached" in line for line in lines)
    assert not any(r.path.startswith("/v1/files") for r in again.server.requests)


def test_an_unreadable_answer_inside_a_batch_is_unavailable():
    from openai.types.chat import ChatCompletion

    from argue.llm._batch import BatchAnswer, answer_response
    from argue.llm.base import ModelUnavailableError

    adapter = adapter_at("openai", "http://127.0.0.1:9")
    empty = ChatCompletion.construct(id="x", object="chat.completion", choices=[])
    with pytest.raises(ModelUnavailableError) as raised:
        answer_response(adapter, "batch_7", BatchAnswer("argue-1", "succeeded", reply=empty))
    assert str(raised.value) == (
        "openai: failed inside batch batch_7: unreadable answer (HTTP 200, not a chat "
        "completion (no choices))"
    )
    with pytest.raises(ModelUnavailableError, match="the batch ended without an answer"):
        answer_response(adapter, "batch_7", None)
