"""Process-wide request pacing, one limiter per source, shared by every dogpile in the process.

A debate runs several dogpiles at once (two personas, several calls each), so pacing has to
live above any one call: each paced source keeps a module-level ``RateLimiter``. The limiter
works from any event loop in any thread (each ``asyncio.run`` makes a new loop, and an
``asyncio.Lock`` belongs to one loop), and takes an injectable clock and sleep so tests stay fast.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager


class ProcessLock:
    """A FIFO lock that any event loop in any thread can wait on without blocking its thread."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._held = False
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    @property
    def locked(self) -> bool:
        return self._held

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def acquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._mutex:
            if not self._held:
                self._held = True
                return
            waiter = (loop, loop.create_future())
            self._waiters.append(waiter)
        try:
            await waiter[1]
        except BaseException:
            with self._mutex:
                try:
                    self._waiters.remove(waiter)
                    handed_over = False
                except ValueError:  # release() already passed the lock to us: pass it on
                    handed_over = True
            if handed_over:
                self.release()
            raise

    def release(self) -> None:
        with self._mutex:
            while self._waiters:
                loop, future = self._waiters.popleft()
                try:
                    loop.call_soon_threadsafe(_wake, future)
                except RuntimeError:  # that waiter's loop is closed: nobody is left to wake
                    continue
                return  # the lock stays held: ownership passes straight to the woken waiter
            self._held = False


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class RateLimiter:
    """Keeps requests to one service at least ``min_interval_s`` apart, process-wide.

    By default the gap is measured between request starts and requests may overlap. With
    ``exclusive=True`` (arXiv: one connection at a time) the slot is held for the whole request
    and the gap is measured from when the previous request finished, whatever its outcome.
    """

    def __init__(
        self,
        min_interval_s: float,
        *,
        exclusive: bool = False,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.min_interval_s = min_interval_s
        self.exclusive = exclusive
        self.clock = clock
        self.sleep = sleep
        self._lock = ProcessLock()
        self._last: float | None = None

    def with_clock(
        self, clock: Callable[[], float], sleep: Callable[[float], Awaitable[None]]
    ) -> RateLimiter:
        """A fresh limiter with the same settings and no history (for tests)."""
        return RateLimiter(self.min_interval_s, exclusive=self.exclusive, clock=clock, sleep=sleep)

    def reset(self) -> None:
        """Forget the previous request, so the next one goes at once."""
        self._last = None

    @asynccontextmanager
    async def slot(self, min_interval_s: float | None = None) -> AsyncIterator[None]:
        """Wait for this source's turn; send the request inside the ``async with`` block.

        ``min_interval_s`` overrides the limiter's gap for this request (GitHub's depends on
        whether a token is sent).
        """
        interval = self.min_interval_s if min_interval_s is None else min_interval_s
        await self._lock.acquire()
        try:
            if self._last is not None:
                wait_s = self._last + interval - self.clock()
                if wait_s > 0:
                    await self.sleep(wait_s)
            if not self.exclusive:
                self._last = self.clock()
        except BaseException:
            self._lock.release()
            raise
        if not self.exclusive:
            self._lock.release()
            yield
            return
        try:
            yield
        finally:
            self._last = self.clock()
            self._lock.release()
