"""The HTTP server under ``argue serve``: uvicorn's h11 protocol with bounds a live view needs.

uvicorn alone lets an idle socket stay open for ever (its keep-alive timer starts only after a
first response), counts a half-sent request as busy, answers ``limit_concurrency`` only once a
request head has arrived (so idle sockets past the cap still hold their descriptors) and logs
every ``accept()`` that fails for want of a descriptor as a traceback. Here:

* **a cap on connections**: past ``max_connections`` a new connection gets one short 503 (to
  the request it sends within ``REFUSE_WAIT_S``, or none) and is closed at once; the cap never
  exceeds half the process's descriptor limit, so the server keeps descriptors for its own
  files;
* **a header deadline**: a request must arrive whole (head and body) within
  ``header_timeout_s`` of its first byte, or of the connection's opening; otherwise the socket
  is closed. Idle keep-alive connections close after ``keep_alive_s`` (uvicorn's timer);
* **descriptor exhaustion** (EMFILE and its kin, when sockets arrive faster than refused ones
  close): one log line a minute at most, no traceback; asyncio stops accepting for a second and
  tries again, so the server serves once descriptors free up;
* **shutdown**: uvicorn's graceful shutdown closes idle and half-sent connections at once,
  waits ``SHUTDOWN_GRACE_S`` for responses under way (the event streams end on their own when
  the server stops), then cancels what is left; the pages' reads run in daemon threads, so no
  read of a large file keeps the process alive (``argue.web._feed.read_in_thread``).

The numbers come from :class:`Bounds` (defaults, or ``ARGUE_SERVE_*`` variables, which the
tests use to make the caps small).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import re
import resource
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from argue.app import UsageError

logger = logging.getLogger("uvicorn.error")

REFUSE_WAIT_S = 1.0
"""How long a connection past the cap may take to send the request its 503 answers."""
SHUTDOWN_GRACE_S = 1
"""uvicorn's graceful shutdown: responses under way get this long before they are cancelled
(whole seconds: uvicorn's setting is an int); with its own 0.1 s the server is gone in < 2 s."""
OUT_OF_DESCRIPTORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})

BUSY = "argue serve is busy: too many open connections; try again in a moment\n"
BUSY_RESPONSE = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: " + str(len(BUSY.encode("utf-8"))).encode("ascii") + b"\r\n"
    b"retry-after: 2\r\n"
    b"cache-control: no-store\r\n"
    b"connection: close\r\n\r\n" + BUSY.encode("utf-8")
)


@dataclass(frozen=True)
class Bound:
    """One setting: its environment variable, default, range and whether it is whole."""

    env: str
    default: float
    low: float
    high: float
    whole: bool = True


BOUNDS: dict[str, Bound] = {
    "max_connections": Bound("ARGUE_SERVE_MAX_CONNECTIONS", 64, 2, 10_000),
    "max_streams": Bound("ARGUE_SERVE_MAX_STREAMS", 16, 1, 10_000),
    "header_timeout_s": Bound("ARGUE_SERVE_HEADER_TIMEOUT", 5.0, 0.1, 300.0, whole=False),
    "keep_alive_s": Bound("ARGUE_SERVE_KEEP_ALIVE", 5, 1, 300),
    "page_size": Bound("ARGUE_SERVE_PAGE_SIZE", 50, 1, 1_000),
}
_NUMBER = re.compile(r"[0-9]{1,6}(\.[0-9]{1,3})?")


def _read_bound(name: str, bound: Bound, env: Mapping[str, str]) -> float:
    raw = env.get(bound.env, "").strip()
    if not raw:
        return bound.default
    # Digits are counted before conversion: a 5,000-digit value is refused, never converted.
    if not _NUMBER.fullmatch(raw) or (bound.whole and "." in raw):
        kind = "a whole number" if bound.whole else "a number of seconds"
        raise UsageError(
            f"{bound.env}={raw[:40]!r}: not {kind} (from {bound.low:g} to {bound.high:g})"
        )
    value = float(raw)
    if not bound.low <= value <= bound.high:
        raise UsageError(f"{bound.env}={raw}: out of range (from {bound.low:g} to {bound.high:g})")
    return value


def descriptor_limit() -> int:
    """The process's soft limit on open descriptors (a large number when unlimited)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1 << 20 if soft == resource.RLIM_INFINITY else int(soft)


@dataclass(frozen=True)
class Bounds:
    """What ``argue serve`` holds open at most, and for how long."""

    max_connections: int = 64
    max_streams: int = 16
    header_timeout_s: float = 5.0
    keep_alive_s: int = 5
    page_size: int = 50
    max_head_bytes: int = 16 * 1024

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Bounds:
        """The defaults, or the ``ARGUE_SERVE_*`` variables (UsageError naming a bad one).

        The connection cap is lowered to half the descriptor limit, and the stream cap kept
        below the connection cap (pages must still load while streams are open)."""
        source = os.environ if env is None else env
        values = {name: _read_bound(name, bound, source) for name, bound in BOUNDS.items()}
        connections = min(int(values["max_connections"]), max(4, descriptor_limit() // 2))
        return cls(
            max_connections=connections,
            max_streams=max(1, min(int(values["max_streams"]), connections - 1)),
            header_timeout_s=values["header_timeout_s"],
            keep_alive_s=int(values["keep_alive_s"]),
            page_size=int(values["page_size"]),
        )


class DescriptorWatch:
    """The event loop's exception handler: ``accept()`` out of descriptors is one log line
    (then silence for ``quiet_s``, however many times it happens meanwhile: asyncio pauses
    accepting for a second and tries again by itself); anything else is left to asyncio's own
    handler."""

    def __init__(self, quiet_s: float = 60.0) -> None:
        self.quiet_s = quiet_s
        self.times = 0
        self._last_line: float | None = None

    def handle(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in OUT_OF_DESCRIPTORS:
            self.times += 1
            now = loop.time()
            if self._last_line is None or now - self._last_line >= self.quiet_s:
                self._last_line = now
                logger.warning(
                    "argue serve: out of file descriptors (%s); new connections wait until "
                    "some close",
                    os.strerror(exc.errno),
                )
            return
        loop.default_exception_handler(context)


class BoundedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the connection cap and the header deadline (see the module
    docstring). ``bounds`` is set on the per-server subclass :func:`protocol_class` makes."""

    bounds: ClassVar[Bounds] = Bounds()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._refusing = len(self.connections) > self.bounds.max_connections
        if self._refusing:
            self._deadline = self.loop.call_later(REFUSE_WAIT_S, self._close)
        else:
            self._arm()

    def data_received(self, data: bytes) -> None:
        if self._refusing:
            self._refuse()
            return
        if self._deadline is None:
            self._arm()  # the first byte of a request: the rest must follow within the bound
        super().data_received(data)

    def on_response_complete(self) -> None:
        if not (self.cycle is not None and self.cycle.more_body):
            self._disarm()  # idle now: uvicorn's keep-alive timer takes over
        # else answered before its body was all in (a 403, a 400): the deadline still holds
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    # -- the bounds

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.bounds.header_timeout_s, self._on_deadline)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _receiving(self) -> bool:
        """Still waiting for (part of) a request: none yet, or its body is not all in."""
        cycle = self.cycle
        return cycle is None or cycle.response_complete or cycle.more_body

    def _on_deadline(self) -> None:
        self._deadline = None
        if self._receiving():
            self._close()

    def _refuse(self) -> None:
        self._disarm()
        self._refusing = False  # answered once; whatever else comes is not read
        if not self.transport.is_closing():
            self.transport.write(BUSY_RESPONSE)
        self._close()

    def _close(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            # Mid-response or already closed: the transport closes all the same.
            with contextlib.suppress(h11.LocalProtocolError):
                self.conn.send(h11.ConnectionClosed())
            self.transport.close()


def protocol_class(bounds: Bounds) -> type[BoundedH11Protocol]:
    return type("ServeProtocol", (BoundedH11Protocol,), {"bounds": bounds})


class ServeLoop(asyncio.SelectorEventLoop):
    """asyncio's loop, with one guard: out of descriptors, ``accept()`` schedules a retry for
    each connection waiting in the backlog; one that fires after the server has stopped (its
    socket closed) would be a ``ValueError`` traceback each. It does nothing instead."""

    def _start_serving(self, protocol_factory: Any, sock: Any, *args: Any, **kwargs: Any) -> None:
        if sock.fileno() < 0:
            return
        super()._start_serving(protocol_factory, sock, *args, **kwargs)  # type: ignore[misc]


class BoundedServer(uvicorn.Server):
    """uvicorn's server with :class:`DescriptorWatch` as its event loop's exception handler."""

    def __init__(self, config: uvicorn.Config, watch: DescriptorWatch) -> None:
        super().__init__(config)
        self.watch = watch

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(self.watch.handle)
        await super().serve(sockets)


def build_server(app: Callable[..., Any], bounds: Bounds) -> BoundedServer:
    """The server for ``app`` within ``bounds`` (h11 on the asyncio loop, no access log: the
    URLs carry the token)."""
    watch = DescriptorWatch()
    config = uvicorn.Config(
        app,
        http=protocol_class(bounds),
        loop=f"{__name__}:ServeLoop",  # a loop factory, by its import path
        ws="none",
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_keep_alive=bounds.keep_alive_s,
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        h11_max_incomplete_event_size=bounds.max_head_bytes,
    )
    return BoundedServer(config, watch)
