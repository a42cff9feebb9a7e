from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest

from argue.skills.dogpile.sources._pacing import RateLimiter
from tests.skills.dogpile.conftest import FakeClock


def limiter_on(clock: FakeClock, interval: float = 3.0, *, exclusive: bool) -> RateLimiter:
    return RateLimiter(interval, exclusive=exclusive, clock=clock, sleep=clock.sleep)


async def until(condition: Callable[[], bool], rounds: int = 1000) -> None:
    """Let other tasks run until ``condition()`` holds (bounded by rounds, not by time)."""
    for _ in range(rounds):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("condition never held")


@pytest.mark.parametrize("exclusive", [False, True])
async def test_works_from_one_event_loop_after_another(exclusive: bool) -> None:
    clock = FakeClock()
    limiter = limiter_on(clock, exclusive=exclusive)

    async def one_request() -> None:
        async with limiter.slot():
            pass

    # Each asyncio.run() makes a new loop: the limiter must not be tied to the first one.
    await asyncio.to_thread(asyncio.run, one_request())
    await one_request()
    assert clock.sleeps == [pytest.approx(3.0)]


async def test_exclusive_slot_holds_off_another_loop_in_another_thread() -> None:
    clock = FakeClock()
    limiter = limiter_on(clock, exclusive=True)
    inside, leave = threading.Event(), threading.Event()

    def other_thread() -> None:
        async def hold() -> None:
            async with limiter.slot():
                inside.set()
                await asyncio.to_thread(leave.wait, 10)

        asyncio.run(hold())

    thread = asyncio.create_task(asyncio.to_thread(other_thread))
    assert await asyncio.to_thread(inside.wait, 10)
    entered = asyncio.Event()

    async def ours() -> None:
        async with limiter.slot():
            entered.set()

    task = asyncio.create_task(ours())
    await until(lambda: limiter._lock.waiting == 1)
    assert not entered.is_set()

    leave.set()
    await asyncio.wait_for(task, 10)
    await thread
    assert entered.is_set()
    assert clock.sleeps == [pytest.approx(3.0)]
    assert not limiter._lock.locked


async def test_start_spacing_lets_requests_overlap() -> None:
    clock = FakeClock()
    limiter = limiter_on(clock, 1.0, exclusive=False)
    first_inside, release_first = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with limiter.slot():
            first_inside.set()
            await release_first.wait()

    slow = asyncio.create_task(first())
    await first_inside.wait()
    async with limiter.slot():  # starts while the first request is still in flight
        pass
    assert clock.sleeps == [pytest.approx(1.0)]
    release_first.set()
    await slow


async def test_a_cancelled_waiter_does_not_wedge_the_queue() -> None:
    clock = FakeClock()
    limiter = limiter_on(clock, exclusive=True)
    holding, release = asyncio.Event(), asyncio.Event()

    async def holder() -> None:
        async with limiter.slot():
            holding.set()
            await release.wait()

    async def waiter() -> None:
        async with limiter.slot():
            pass

    first = asyncio.create_task(holder())
    await holding.wait()
    doomed = asyncio.create_task(waiter())  # as when dogpile's per-source timeout fires
    patient = asyncio.create_task(waiter())
    await until(lambda: limiter._lock.waiting == 2)
    doomed.cancel()
    release.set()

    await asyncio.wait_for(patient, 10)
    await first
    assert doomed.cancelled()
    assert not limiter._lock.locked


async def test_cancelled_during_the_gap_gives_the_turn_back() -> None:
    clock = FakeClock()
    sleeping, never = asyncio.Event(), asyncio.Event()

    async def stuck_sleep(seconds: float) -> None:
        sleeping.set()
        await never.wait()

    limiter = RateLimiter(3.0, exclusive=True, clock=clock, sleep=stuck_sleep)
    async with limiter.slot():
        pass

    async def second_request() -> None:
        async with limiter.slot():
            raise AssertionError("the cancelled request must not run")

    waiting = asyncio.create_task(second_request())
    await sleeping.wait()
    assert limiter._lock.locked
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not limiter._lock.locked

    limiter.reset()  # no history: the next request goes at once, without sleeping
    async with limiter.slot():
        assert limiter._lock.locked


async def test_per_request_interval_overrides_the_default() -> None:
    clock = FakeClock()
    limiter = limiter_on(clock, 6.0, exclusive=False)
    async with limiter.slot(2.0):
        pass
    async with limiter.slot(2.0):
        pass
    async with limiter.slot():
        pass
    assert clock.sleeps == [pytest.approx(2.0), pytest.approx(6.0)]


def test_with_clock_copies_settings_not_history() -> None:
    clock = FakeClock()
    original = RateLimiter(3.0, exclusive=True)
    copy = original.with_clock(clock, clock.sleep)
    assert (copy.min_interval_s, copy.exclusive, copy.clock) == (3.0, True, clock)
    assert copy is not original
