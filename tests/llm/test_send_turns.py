"""A wave's calls built and sent one at a time (``argue.concurrency.SendTurns``, issue 43 item 4).

Without turns, calls started together each ran their prompt and SDK work before any of them
wrote its request (the SDKs yield to the loop on the way to the socket), so the model sat idle
until the whole wave was built. A turn lasts until its call's request is on the wire (the
SDK's HTTP client tells, through httpcore's trace), or the call waits on anything else, ends,
or ``bound_s`` passes.

Teeth (each broken once by hand, the named test failed, then restored):
- ``SendTurns.turn`` without its lock (every call starts at once):
  ``test_the_next_call_waits_until_the_first_cedes`` (the wire test still passed: on a warm
  connection this SDK path wrote before its first yield);
- the providers' clients without the ``cede_on_the_wire`` hook: the wire test (only the bound
  or the end of a call released the turn: the barrier of all requests in flight timed out);
- ``turn`` without its already-inside check: ``test_a_turn_inside_a_turn_is_the_same_turn``
  (it waited for the bound);
- the bound timer not armed: ``test_a_call_that_never_cedes_holds_the_others_only_for_the_bound``;
- ``run_in_daemon_thread`` without its ``cede()``: ``test_a_call_waiting_on_a_thread_cedes``.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from argue.concurrency import SendTurns, after_this_turn, cede, run_in_daemon_thread
from argue.llm._openai_compat import OpenAICompatModel
from argue.llm._providers import OpenAICompatProvider
from argue.llm.base import Message
from tests.loopback import LoopbackServer, RecordedRequest, Reply

LONG = 30.0  # a bound no test waits for: only a real cede releases a turn


async def test_a_call_that_cedes_lets_the_next_start_while_it_waits():
    turns, events, held = SendTurns(bound_s=LONG), [], asyncio.Event()

    async def first() -> None:
        async with turns.turn():
            events.append("first starts")
            cede()
            await held.wait()
            events.append("first ends")

    async def second() -> None:
        async with turns.turn():
            events.append("second starts")
            held.set()

    await asyncio.wait_for(asyncio.gather(first(), second()), 5)
    assert events == ["first starts", "second starts", "first ends"]


async def test_the_next_call_waits_until_the_first_cedes():
    turns, events = SendTurns(bound_s=LONG), []

    async def first() -> None:
        async with turns.turn():
            events.append("first starts")
            for _ in range(5):  # the SDK's own yields on its way to the socket
                await asyncio.sleep(0)
            events.append("first sent")
            cede()
            await asyncio.sleep(0.01)

    async def second() -> None:
        async with turns.turn():
            events.append("second starts")

    await asyncio.wait_for(asyncio.gather(first(), second()), 5)
    assert events == ["first starts", "first sent", "second starts"]


async def test_a_call_that_never_cedes_holds_the_others_only_for_the_bound():
    turns, events, held = SendTurns(bound_s=0.02), [], asyncio.Event()

    async def stuck() -> None:
        async with turns.turn():
            await held.wait()  # waits on something that says nothing
            events.append("stuck ends")

    async def second() -> None:
        await asyncio.sleep(0)
        async with turns.turn():
            events.append("second starts")
            held.set()

    await asyncio.wait_for(asyncio.gather(stuck(), second()), 5)
    assert events == ["second starts", "stuck ends"]


async def test_a_turn_inside_a_turn_is_the_same_turn():
    turns = SendTurns(bound_s=LONG)

    async def nested() -> str:
        async with turns.turn(), turns.turn():
            return "done"

    assert await asyncio.wait_for(nested(), 1) == "done"


async def test_a_turn_is_given_back_when_its_call_fails():
    turns = SendTurns(bound_s=LONG)

    async def failing() -> None:
        async with turns.turn():
            raise RuntimeError("the call failed")

    with pytest.raises(RuntimeError):
        await failing()
    async with asyncio.timeout(1), turns.turn():
        pass


async def test_a_call_waiting_on_a_thread_cedes():
    turns, events, go = SendTurns(bound_s=LONG), [], threading.Event()

    async def threaded() -> None:
        async with turns.turn():
            await run_in_daemon_thread(go.wait, 5)
            events.append("thread done")

    async def second() -> None:
        await asyncio.sleep(0)
        async with turns.turn():
            events.append("second starts")
            go.set()

    await asyncio.wait_for(asyncio.gather(threaded(), second()), 5)
    assert events == ["second starts", "thread done"]


def test_cede_outside_a_turn_does_nothing():
    cede()


# ---------------------------------------------------------------- through the real SDK

CALLS = 4


def _reply() -> Reply:
    return Reply(
        json={
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "ok"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
        }
    )


@pytest.fixture
def all_in_flight():
    """A server that answers no request before all ``CALLS`` are in: the calls pass only if
    each gave its turn back once its request was on the wire (not when its answer came)."""
    barrier = threading.Barrier(CALLS, timeout=10)
    server = LoopbackServer().start()
    server.handler = lambda request: _reply()
    record = server._next_reply  # records, then answers (under the server's lock)

    def next_reply(request: RecordedRequest) -> Reply:
        reply = record(request)
        barrier.wait()  # outside the lock: the other requests get in
        return reply

    server._next_reply = next_reply  # type: ignore[method-assign]
    yield server
    server.stop()


async def test_through_the_openai_sdk_each_request_is_on_the_wire_before_the_next_call_starts(
    all_in_flight, monkeypatch
):
    events: list[tuple[str, str]] = []
    # The loop's socket transport, where a request's bytes leave this process.
    from asyncio.selector_events import _SelectorSocketTransport as transport_type

    write = transport_type.write

    def recording_write(self, data):  # type: ignore[no-untyped-def]
        task = asyncio.current_task()
        if task is not None and task.get_name().startswith("call"):
            events.append(("written", task.get_name()))
        return write(self, data)

    monkeypatch.setattr(transport_type, "write", recording_write)
    model = OpenAICompatModel(
        "m", provider=OpenAICompatProvider(name="openai", base_url=f"{all_in_flight.url}/v1")
    )
    turns = SendTurns(bound_s=LONG)

    async def call(number: int) -> None:
        async with turns.turn():
            events.append(("starts", f"call{number}"))
            _busy(0.003)  # a prompt being built
            await model.complete([Message(role="user", content=f"question {number}")])

    try:
        async with asyncio.timeout(20):
            # Warm: a connection of each is open (opening one cedes too: it waits on the
            # network), as from a debate's second wave on.
            await asyncio.gather(
                *(model.complete([Message(role="user", content="warm")]) for _ in range(CALLS))
            )
            events.clear()
            await asyncio.gather(
                *(asyncio.create_task(call(n), name=f"call{n}") for n in range(CALLS))
            )
    finally:
        await model.aclose()
    assert len(all_in_flight.requests) == 2 * CALLS
    first_write = {}
    for index, (what, name) in enumerate(events):
        if what == "written":
            first_write.setdefault(name, index)
    starts = [index for index, (what, _) in enumerate(events) if what == "starts"]
    order = [name for what, name in events if what == "starts"]
    for this, following in zip(order, starts[1:], strict=False):
        assert first_write[this] < following, events


def _busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


# ---------------------------------------------------------------- after_this_turn


async def test_after_this_turn_waits_for_the_turn_to_end():
    turns, events = SendTurns(bound_s=LONG), []

    async def call() -> None:
        async with turns.turn():
            after_this_turn(lambda: events.append("after"))
            events.append("still in the turn")
            cede()
            events.append("ceded")

    await asyncio.wait_for(call(), 5)
    assert events == ["still in the turn", "after", "ceded"]


async def test_after_this_turn_runs_at_once_outside_a_turn_or_once_it_ended():
    turns, events = SendTurns(bound_s=LONG), []
    after_this_turn(lambda: events.append("outside"))
    async with turns.turn():
        cede()
        after_this_turn(lambda: events.append("after the cede"))
        events.append("in the call")
    assert events == ["outside", "after the cede", "in the call"]


async def test_after_this_turn_runs_when_the_bound_ends_the_turn():
    turns, events, held = SendTurns(bound_s=0.02), [], asyncio.Event()

    async def stuck() -> None:
        async with turns.turn():
            after_this_turn(held.set)
            await held.wait()  # says nothing: only the bound ends the turn
            events.append("released by the bound")

    await asyncio.wait_for(stuck(), 5)
    assert events == ["released by the bound"]
