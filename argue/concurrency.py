"""Blocking work off the event loop without holding up interpreter or loop shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from functools import partial
from typing import Any, TypeVar

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

    cede()  # the call now waits on its thread: the next call may be built
    threading.Thread(target=target, daemon=True, name="argue-blocking").start()
    return await future


_CEDE: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "argue_cede", default=None
)


class _Turn:
    """One held turn: whether it ended, and what runs when it does."""

    __slots__ = ("after", "ended")

    def __init__(self) -> None:
        self.ended = False
        self.after: list[Callable[[], None]] = []


_TURN: contextvars.ContextVar[_Turn | None] = contextvars.ContextVar("argue_turn", default=None)


def after_this_turn(callback: Callable[[], None]) -> None:
    """Run ``callback`` once the running call's turn ends (its request on the wire, or any
    other end of a turn), or now outside a turn. The round's views wait for this: work that
    holds the GIL starts only when the wave's last request is out (issue 43 item 4)."""
    turn = _TURN.get()
    if turn is None or turn.ended:
        callback()
    else:
        turn.after.append(callback)


def cede() -> None:
    """Say that the running call now waits on something other than this process's CPU (its
    request is on the wire, a connection is opening, a slot, a retry or a thread is awaited):
    the next call's turn to be built and sent (see :class:`SendTurns`). No-op outside a turn."""
    callback = _CEDE.get()
    if callback is not None:
        callback()


class SendTurns:
    """Calls built and sent one at a time: a call's turn lasts from its start (its prompt
    built) until its request is on the wire (or it waits on anything else, or ends, or
    ``bound_s`` passed); then the next call starts.

    Why: the SDKs yield to the event loop many times on their way to the socket, so calls
    started together all did their CPU work (prompt and SDK, ~6 ms each here) before any of
    them wrote its request: five requests of a wave reached the server together 25-30 ms
    after the wave began, and the model sat idle meanwhile. In turn, the first request is on
    the wire after one call's work and the last when it was before (issue 43 item 4).

    ``bound_s`` keeps a call that never reaches a point that cedes from holding the others
    up for longer. A turn taken inside a turn is the same turn (no deadlock)."""

    def __init__(self, bound_s: float = 0.05) -> None:
        self.bound_s = bound_s
        self._lock: asyncio.Lock | None = None

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        if _CEDE.get() is not None:  # already inside a turn
            yield
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        lock = self._lock
        await lock.acquire()
        held = _Turn()

        def release() -> None:
            if not held.ended:
                held.ended = True
                lock.release()
                for callback in held.after:
                    callback()

        timer = asyncio.get_running_loop().call_later(self.bound_s, release)
        token, turn_token = _CEDE.set(release), _TURN.set(held)
        try:
            yield
        finally:
            _TURN.reset(turn_token)
            _CEDE.reset(token)
            timer.cancel()
            release()


# httpcore's trace events after which a request waits on the network, not on this process.
_WAITING_EVENTS = frozenset(
    {
        "connection.connect_tcp.started",
        "connection.connect_unix_socket.started",
        "http11.send_request_body.complete",
        "http2.send_request_body.complete",
    }
)


async def cede_on_the_wire(request: Any) -> None:
    """An httpx (or httpx2) ``request`` event hook: the call cedes its turn once its request
    body is written or a connection starts opening (httpcore's ``trace`` extension)."""
    callback = _CEDE.get()
    if callback is None:
        return
    previous = request.extensions.get("trace")

    async def trace(name: str, info: dict[str, Any]) -> None:
        if name in _WAITING_EVENTS:
            callback()
        if previous is not None:
            await previous(name, info)

    request.extensions = {**request.extensions, "trace": trace}


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
