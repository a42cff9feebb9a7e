"""Blocking work off the event loop without holding up interpreter or loop shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Mapping
from functools import partial
from typing import TypeVar

R = TypeVar("R")


async def run_in_daemon_thread(fn: Callable[..., R], *args: object) -> R:
    """Run a blocking call off the event loop in a daemon thread.

    Unlike ``asyncio.to_thread`` this never blocks ``asyncio.run``'s executor shutdown: a
    cancelled debate (second Ctrl-C) exits at once instead of waiting for the call (a llama.cpp
    completion, a prompt waiting on stdin) to finish.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[R] = loop.create_future()

    def deliver(setter: Callable[[], None]) -> None:
        if not future.done():
            setter()

    def target() -> None:
        try:
            result = fn(*args)
        except BaseException as exc:  # handed to the awaiting coroutine
            outcome = partial(deliver, partial(future.set_exception, exc))
        else:
            outcome = partial(deliver, partial(future.set_result, result))
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody is waiting
            loop.call_soon_threadsafe(outcome)

    threading.Thread(target=target, daemon=True, name="argue-blocking").start()
    return await future


def parse_max_concurrency(env: Mapping[str, str], default: int) -> int:
    """``ARGUE_MAX_CONCURRENCY``: ``default`` when unset or empty, else a positive integer; any
    other value is a ValueError whose message names the variable."""
    raw = env.get("ARGUE_MAX_CONCURRENCY")
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"ARGUE_MAX_CONCURRENCY must be a positive integer, got {raw!r}")
    return value
