"""A heartbeat for slow calls: while a call runs, say every so often that it is still working
(issue 23 item 3: minutes of silence from a slow local model read as a hang).

    async with still_working(lambda s: say("t_still_working", ..., seconds=f"{s:.0f}")):
        outcome = await produce(letter)

The callback gets the seconds elapsed so far, once every ``every_s`` seconds while the body
runs (nothing for a body shorter than that). When the body ends (returns, raises, or is
cancelled) the ticker is cancelled and awaited before the ``async with`` exits: no line after
it, no task left behind, and the body's exception (``CancelledError`` too) propagates unchanged.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

# Seconds between two "still working" lines; 0 turns them off. Read at each call, so a test
# (or a caller) can set it on the module.
HEARTBEAT_S = 20.0

Tick = Callable[[float], object]
Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[object]]


@asynccontextmanager
async def still_working(
    tick: Tick,
    every_s: float | None = None,
    *,
    clock: Clock = time.monotonic,
    sleep: Sleep = asyncio.sleep,
) -> AsyncIterator[None]:
    """Call ``tick(elapsed_s)`` every ``every_s`` seconds (default ``HEARTBEAT_S``) while the
    body runs. Ticks fall at whole multiples of ``every_s`` from the start (a late wake-up skips
    the ticks it missed rather than bunching them). A tick that raises ends the heartbeat; its
    error is raised when the body has finished without one of its own."""
    interval = HEARTBEAT_S if every_s is None else every_s
    if interval <= 0:
        yield
        return
    started = clock()
    body_done = False

    async def beat() -> None:
        beats = 0
        while True:
            elapsed = clock() - started
            beats = max(beats + 1, math.floor(elapsed / interval) + 1)
            await sleep(max(0.0, started + beats * interval - clock()))
            if body_done:  # cancellation lands at the sleep; this is belt and braces
                return
            tick(clock() - started)

    ticker = asyncio.get_running_loop().create_task(beat(), name="argue-heartbeat")
    try:
        yield
    finally:
        body_done = True
        ticker.cancel()
        # wait() never raises the ticker's outcome; a cancellation of our own still propagates.
        await asyncio.wait({ticker})
        failed = None if ticker.cancelled() else ticker.exception()  # retrieved either way
    if failed is not None:
        raise failed
