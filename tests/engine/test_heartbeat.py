"""The heartbeat of slow calls (issue 23 item 3): a line every so often while a call runs.

Teeth: drop the ``ticker.cancel()`` in ``still_working`` and the call waits for the next tick
to end (the first test fails); drop both it and the ``body_done`` check and a tick comes after
the body; replace ``await asyncio.wait({ticker})`` by nothing and tasks are left behind; tick
``every_s`` after each wake-up instead of at multiples from the start and the late-wake-up
test fails.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time

import pytest

from argue.engine import heartbeat
from argue.engine.heartbeat import still_working
from argue.records.labels import label, label_of

pytestmark = pytest.mark.timeout(30)  # a ticker left running shows as a hang: fail it fast


class VirtualTime:
    """A clock and a sleep on virtual time: ``advance`` wakes sleepers in deadline order."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self.slept: list[float] = []  # the durations asked for, in order

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.now + max(seconds, 0.0), next(self._seq), future))
        await future

    async def settle(self) -> None:
        """Let every ready task run until it waits again."""
        for _ in range(20):
            await asyncio.sleep(0)

    async def advance(self, until: float) -> None:
        """Move the clock to ``until``, waking each sleeper at its own deadline."""
        await self.settle()
        while self._sleepers and self._sleepers[0][0] <= until:
            deadline = self._sleepers[0][0]
            self.now = max(self.now, deadline)
            # Sleepers due at the same moment wake together (as asyncio's timers do).
            while self._sleepers and self._sleepers[0][0] == deadline:
                future = heapq.heappop(self._sleepers)[2]
                if not future.done():
                    future.set_result(None)
            await self.settle()
        self.now = max(self.now, until)
        await self.settle()


def _others() -> set[asyncio.Task]:
    current = asyncio.current_task()
    return {t for t in asyncio.all_tasks() if t is not current}


def test_ticks_fall_every_interval_with_the_seconds_so_far():
    async def main() -> tuple[list[float], list[float]]:
        vt = VirtualTime()
        ticks: list[float] = []
        at_exit: list[float] = []

        async def call() -> str:
            async with still_working(ticks.append, 20.0, clock=vt.clock, sleep=vt.sleep):
                await vt.sleep(65.0)  # the slow model call
            at_exit.extend(ticks)
            return "reply"

        task = asyncio.create_task(call())
        await vt.advance(19.0)
        assert ticks == []  # nothing before the first interval
        await vt.advance(65.0)
        assert task.done()  # the call ends when its body does, not at the next tick
        assert await task == "reply"
        return ticks, at_exit

    ticks, at_exit = asyncio.run(main())
    assert ticks == [20.0, 40.0, 60.0]
    assert at_exit == ticks


def test_a_short_body_says_nothing_and_leaves_no_task():
    async def main() -> tuple[list[float], set[asyncio.Task]]:
        ticks: list[float] = []
        async with still_working(ticks.append, 20.0):
            await asyncio.sleep(0)
        return ticks, _others()

    started = time.monotonic()
    ticks, left = asyncio.run(main())
    assert time.monotonic() - started < 5.0  # the exit does not wait for the next tick
    assert ticks == []
    assert left == set()


def test_nothing_after_the_body_ends_even_at_a_tick_deadline():
    """The body ends at the very moment a tick is due: the tick does not come after it."""

    async def main() -> tuple[list[float], list[float], set[asyncio.Task]]:
        vt = VirtualTime()
        ticks: list[float] = []
        at_exit: list[float] = []

        async def call() -> None:
            async with still_working(ticks.append, 10.0, clock=vt.clock, sleep=vt.sleep):
                await vt.sleep(30.0)  # same deadline as the third tick, registered first
            at_exit.extend(ticks)

        task = asyncio.create_task(call())
        await vt.advance(1000.0)
        assert task.done()  # fail here rather than hang
        await task
        left = _others()
        return ticks, at_exit, left

    ticks, at_exit, left = asyncio.run(main())
    assert ticks == at_exit  # nothing came after the body
    assert ticks == [10.0, 20.0]
    assert left == set()


def test_a_late_wake_up_skips_the_missed_ticks():
    """A sleep that oversleeps (a suspended laptop) does not bunch the missed ticks."""

    async def main() -> list[float]:
        vt = VirtualTime()
        ticks: list[float] = []

        async def late_sleep(seconds: float) -> None:
            await vt.sleep(seconds)
            if not ticks:
                vt.now += 45.0  # the first wake-up comes 45 s late

        async def call() -> None:
            async with still_working(ticks.append, 10.0, clock=vt.clock, sleep=late_sleep):
                await vt.sleep(100.0)

        task = asyncio.create_task(call())
        await vt.advance(1000.0)
        assert task.done()  # fail here rather than hang
        await task
        return ticks

    ticks = asyncio.run(main())
    assert ticks[0] == 55.0  # the late wake-up: one tick, with the true elapsed time
    assert ticks[1:] == [60.0, 70.0, 80.0, 90.0]  # back on the multiples of 10


def test_an_exception_from_the_body_propagates_unchanged():
    class Boom(Exception):
        pass

    error = Boom("model server gone")

    async def main() -> tuple[BaseException, list[float], set[asyncio.Task]]:
        vt = VirtualTime()
        ticks: list[float] = []

        async def call() -> None:
            async with still_working(ticks.append, 5.0, clock=vt.clock, sleep=vt.sleep):
                await vt.sleep(12.0)
                raise error

        task = asyncio.create_task(call())
        await vt.advance(50.0)
        assert task.done()  # fail here rather than hang
        with pytest.raises(Boom) as caught:
            await task
        return caught.value, ticks, _others()

    raised, ticks, left = asyncio.run(main())
    assert raised is error
    assert ticks == [5.0, 10.0]
    assert left == set()


def test_cancelling_the_call_propagates_and_stops_the_ticks():
    async def main() -> tuple[list[float], int, set[asyncio.Task]]:
        vt = VirtualTime()
        ticks: list[float] = []
        cancelled_inside = 0

        async def call() -> None:
            nonlocal cancelled_inside
            async with still_working(ticks.append, 5.0, clock=vt.clock, sleep=vt.sleep):
                try:
                    await vt.sleep(1000.0)
                except asyncio.CancelledError:
                    cancelled_inside += 1
                    raise

        task = asyncio.create_task(call())
        await vt.advance(11.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert task.cancelled()
        await vt.advance(100.0)  # time goes on: a stray ticker would tick now
        return ticks, cancelled_inside, _others()

    ticks, cancelled_inside, left = asyncio.run(main())
    assert cancelled_inside == 1
    assert ticks == [5.0, 10.0]
    assert left == set()


def test_a_cancellation_raised_by_the_body_itself_propagates():
    async def main() -> set[asyncio.Task]:
        with pytest.raises(asyncio.CancelledError):
            async with still_working(lambda s: None, 5.0):
                raise asyncio.CancelledError
        return _others()

    assert asyncio.run(main()) == set()


def test_a_tick_that_raises_surfaces_after_the_body():
    class ReporterBroke(Exception):
        pass

    def tick(seconds: float) -> None:
        raise ReporterBroke(f"at {seconds}")

    async def main() -> tuple[list[str], set[asyncio.Task]]:
        vt = VirtualTime()
        done: list[str] = []

        async def call() -> None:
            async with still_working(tick, 5.0, clock=vt.clock, sleep=vt.sleep):
                await vt.sleep(20.0)
                done.append("body")

        task = asyncio.create_task(call())
        await vt.advance(100.0)
        assert task.done()  # fail here rather than hang
        with pytest.raises(ReporterBroke, match=r"at 5\.0"):
            await task
        return done, _others()

    done, left = asyncio.run(main())
    assert done == ["body"]  # the body ran to its end: the tick's error does not cut it short
    assert left == set()


def test_the_interval_defaults_to_the_module_constant(monkeypatch):
    """``HEARTBEAT_S`` is read at each call (a test sets it small); 0 turns the heartbeat off."""

    async def run(seconds: float) -> list[float]:
        vt = VirtualTime()
        ticks: list[float] = []

        async def call() -> None:
            async with still_working(ticks.append, clock=vt.clock, sleep=vt.sleep):
                await vt.sleep(seconds)

        task = asyncio.create_task(call())
        await vt.advance(seconds + 1)
        assert task.done()  # fail here rather than hang
        await task
        return ticks

    assert heartbeat.HEARTBEAT_S == 20.0
    assert asyncio.run(run(50.0)) == [20.0, 40.0]
    monkeypatch.setattr(heartbeat, "HEARTBEAT_S", 7.0)
    assert asyncio.run(run(22.0)) == [7.0, 14.0, 21.0]
    monkeypatch.setattr(heartbeat, "HEARTBEAT_S", 0.0)
    assert asyncio.run(run(50.0)) == []


def test_real_time_with_a_tiny_interval():
    async def main() -> tuple[list[float], set[asyncio.Task]]:
        ticks: list[float] = []
        async with still_working(ticks.append, 0.02):
            await asyncio.sleep(0.15)
        after = len(ticks)
        await asyncio.sleep(0.06)  # a stray ticker would tick now
        assert len(ticks) == after
        return ticks, _others()

    ticks, left = asyncio.run(main())
    assert len(ticks) >= 2
    assert ticks == sorted(ticks)
    assert all(t >= 0.02 for t in ticks)
    assert left == set()


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "  [Embry] argument: still in progress (40 s)"),
        ("fr", "  [Embry] argument\u00a0: toujours en cours (40 s)"),
    ],
)
def test_the_still_working_line_in_both_languages(lang: str, line: str):
    phase = label_of("phase", "argument", lang)
    assert label("t_still_working", lang, name="Embry", phase=phase, seconds="40") == line


def test_the_still_working_line_reads_like_the_phase_done_line():
    """Same prefix as the line that ends the call: a reader sees which call it is about."""
    for lang in ("en", "fr"):
        phase = label_of("phase", "rebuttal", lang)
        working = label("t_still_working", lang, name="Horus", phase=phase, seconds="20")
        done = label("t_phase_done", lang, name="Horus", phase=phase, summary="x", seconds="61")
        assert working.split(phase)[0] == done.split(phase)[0]
        assert working.endswith("(20 s)")
    assert "toujours en cours" in label(
        "t_still_working",
        "fr",
        name="Horus",
        phase=label_of("phase", "rebuttal", "fr"),
        seconds="20",
    )
