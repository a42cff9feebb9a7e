"""The starlette application behind ``argue serve``: pages, event streams, stop and interject.

Every route sits behind the token printed when the server starts (``?token=`` in the URL, or
the ``X-Argue-Token`` header), compared in constant time; without it the answer is a bare 403
that says nothing about any debate. A POST needs the token in the header (a form on another
site cannot set one, and a cross-origin fetch that sets it needs a preflight this server never
grants) and, when the browser says where it comes from, this same origin.

Reading is the application layer's (``argue.app.live_row`` / ``live_debate`` /
``report_html``), steering too (``argue.app.stop`` / ``interject``, what the CLI and the MCP
server call): this module only routes, renders and streams.
"""

from __future__ import annotations

import hmac
import logging
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from argue import app as argue_app
from argue.app import NOTE_MAX_CHARS
from argue.text.controls import one_line
from argue.web._feed import (
    KEEPALIVE,
    POLL_INTERVAL_S,
    Fingerprint,
    SafeJSONResponse,
    changes,
    debate_fingerprint,
    never,
    read_in_thread,
    sse_event,
)
from argue.web._index import DebateIndex, ServedPages, page_number
from argue.web._server import OUT_OF_DESCRIPTORS, Bounds

if TYPE_CHECKING:
    from argue.app import LiveDebate, Workspace

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_HEADER = "x-argue-token"
MAX_POST_BYTES = 64 * 1024
DEBATE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")
FORBIDDEN = "forbidden: open the URL argue serve printed (it carries the token)\n"
SECURITY_HEADERS = {
    "Referrer-Policy": "no-referrer",  # the token is in the URL: never sent to another site
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    # Every answer; a page replaces it with its own policy (inline script and style by hash).
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
}
STREAMS_BUSY = "argue serve is busy: too many live streams open; this page checks every 2 s\n"
OUT_OF_FILES = "argue serve is busy: out of file descriptors; try again in a moment\n"
logger = logging.getLogger("uvicorn.error")
T = TypeVar("T")


def _favicon() -> bytes:
    """A 16 × 16 PNG of one colour, made here (no file to ship): browsers ask for
    ``/favicon.ico`` without the token, and a 403 there is an error on every page load."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0)  # 8-bit RGB
    pixels = b"".join(b"\x00" + b"\x2b\x57\x9a" * 16 for _ in range(16))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels, 9))
        + chunk(b"IEND", b"")
    )


FAVICON = _favicon()


class TokenGate:
    """ASGI middleware: a request without the right token gets a bare 403, whatever its path."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode("utf-8")

    def _given(self, scope: Scope) -> bytes | None:
        for name, value in scope.get("headers", []):
            if name == TOKEN_HEADER.encode("ascii"):
                return bytes(value)
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        values = query.get("token")
        return values[0].encode("utf-8") if values else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope.get("path") == "/favicon.ico" and scope.get("method") in ("GET", "HEAD"):
            icon = Response(
                FAVICON,
                media_type="image/png",
                headers={**SECURITY_HEADERS, "Cache-Control": "max-age=86400"},
            )
            await icon(scope, receive, send)  # the same for everyone: it says nothing
            return
        given = self._given(scope)
        allowed = given is not None and hmac.compare_digest(given, self.token)
        if allowed and scope.get("method") == "POST":
            allowed = _post_allowed(scope, self.token)
        if not allowed:
            response = PlainTextResponse(FORBIDDEN, status_code=403, headers=SECURITY_HEADERS)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


class Busy(argue_app.ArgueError):
    """The server cannot answer now (out of descriptors): a 503, said in one line."""


async def _read(func: Callable[..., T], *args: Any) -> T:
    """``read_in_thread``, with running out of descriptors (a read that cannot open its file)
    turned into :class:`Busy` and one log line, never a 500 with a traceback."""
    try:
        return await read_in_thread(func, *args)
    except OSError as exc:
        if exc.errno not in OUT_OF_DESCRIPTORS:
            raise
        logger.warning("argue serve: out of file descriptors while answering a request")
        raise Busy(OUT_OF_FILES.strip()) from None


def _post_allowed(scope: Scope, token: bytes) -> bool:
    """The token in the header (not only in the URL), and no sign of another origin."""
    headers = {bytes(k).decode("latin-1"): bytes(v).decode("latin-1") for k, v in scope["headers"]}
    header = headers.get(TOKEN_HEADER, "").encode("utf-8")
    if not hmac.compare_digest(header, token):
        return False
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = headers.get("origin")
    if origin is not None:
        scheme = scope.get("scheme", "http")
        return origin == f"{scheme}://{headers.get('host', '')}"
    return True


class LiveReads:
    """What the routes read, through the application layer, and the fingerprints that say
    when to read again: the index's (:class:`DebateIndex`, paged and cached per folder) and
    each debate's, shared for ``share_s`` by the streams that follow the same debate."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        command: str = "argue",
        page_size: int = 50,
        share_s: float = 0.2,
    ) -> None:
        self.workspace = workspace
        self.command = command
        self.index = DebateIndex(workspace, page_size, share_s=share_s)
        self.share_s = share_s
        self._lock = threading.Lock()
        self._marks: dict[str, tuple[float, Fingerprint]] = {}

    def debate(self, debate_id: str) -> LiveDebate:
        return argue_app.live_debate(debate_id, workspace=self.workspace, command=self.command)

    def debate_fingerprint(self, debate_id: str) -> Fingerprint:
        from argue.app import DebateStore

        now = time.monotonic()
        with self._lock:
            recent = self._marks.get(debate_id)
            if recent is not None and now - recent[0] < self.share_s:
                return recent[1]
        store = DebateStore(self.workspace.root / debate_id)
        mark = debate_fingerprint(store.paths.root, store.is_locked)
        with self._lock:
            if len(self._marks) > 256:
                self._marks.clear()
            self._marks[debate_id] = (time.monotonic(), mark)
        return mark


class StreamSlots:
    """The cap on open event streams: a stream past it is a 503 (the page then polls)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open = 0

    def take(self) -> bool:
        if self.open >= self.limit:
            return False
        self.open += 1
        return True

    def give_back(self) -> None:
        self.open = max(0, self.open - 1)


class _SlotStream(StreamingResponse):
    """An event stream that gives its slot back however it ends (done, cut, cancelled)."""

    def __init__(self, events: AsyncIterator[str], slots: StreamSlots) -> None:
        headers = {**SECURITY_HEADERS, "X-Accel-Buffering": "no"}
        super().__init__(events, media_type="text/event-stream", headers=headers)
        self.slots = slots

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.slots.give_back()


def _html(text: str, csp: str, status_code: int = 200) -> HTMLResponse:
    return HTMLResponse(
        text,
        status_code=status_code,
        headers={**SECURITY_HEADERS, "Content-Security-Policy": csp},
    )


def _http_status(exc: argue_app.ArgueError) -> int:
    """No such debate: 404; a request that cannot be carried out: 400; failed work: 500."""
    if isinstance(exc, argue_app.NotFoundError):
        return 404
    if isinstance(exc, Busy):
        return 503
    return 400 if isinstance(exc, argue_app.UsageError) else 500


def _error(exc: argue_app.ArgueError) -> JSONResponse:
    """For the page's script (stop, interject): ``{"error": <the CLI's one line>}``."""
    return SafeJSONResponse(
        {"error": exc.message}, status_code=_http_status(exc), headers=SECURITY_HEADERS
    )


def _text_error(exc: argue_app.ArgueError) -> PlainTextResponse:
    return PlainTextResponse(
        one_line(exc.message) + "\n", status_code=_http_status(exc), headers=SECURITY_HEADERS
    )


def _debate_id(request: Request) -> str:
    debate_id = str(request.path_params["debate_id"])
    if not DEBATE_ID.fullmatch(debate_id):
        raise argue_app.NotFoundError(f"not a debate id: {debate_id[:40]!r}")
    return debate_id


def _live_row(debate_id: str, workspace: Workspace) -> object:
    return argue_app.live_row(debate_id, workspace=workspace)


def _report_html(debate_id: str, workspace: Workspace) -> str:
    return argue_app.report_html(debate_id, workspace=workspace)


_REPORT_CSP = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def create_app(
    workspace: Workspace,
    token: str,
    *,
    command: str = "argue",
    poll_interval: float = POLL_INTERVAL_S,
    stopping: Callable[[], bool] = never,
    bounds: Bounds | None = None,
) -> ASGIApp:
    """The whole server as an ASGI app: starlette routes behind :class:`TokenGate`.

    ``stopping``: True once the server shuts down (uvicorn's ``should_exit``); the event
    streams then end cleanly rather than being cut mid-response. ``bounds``: the stream cap
    and the index's page size (the connection bounds are the server's, ``_server``)."""
    bounds = bounds or Bounds()
    pages = ServedPages(token)
    reads = LiveReads(
        workspace, command=command, page_size=bounds.page_size, share_s=poll_interval * 0.4
    )
    slots = StreamSlots(bounds.max_streams)

    def event_stream(events: Callable[[], AsyncIterator[str]]) -> Response:
        if stopping() or not slots.take():
            return PlainTextResponse(STREAMS_BUSY, status_code=503, headers=SECURITY_HEADERS)
        return _SlotStream(events(), slots)

    # -- the index, one page at a time

    async def index(request: Request) -> Response:
        try:
            wanted = page_number(request.query_params.get("page"))
            rows, skipped, page = await _read(reads.index.rows, wanted)
        except argue_app.ArgueError as exc:
            return _text_error(exc)
        html = pages.paged_index(rows, skipped, str(workspace.root), page)
        return _html(html, pages.header_csp)

    async def index_rows(request: Request) -> Response:
        try:
            wanted = page_number(request.query_params.get("page"))
            rows, skipped, page = await _read(reads.index.rows, wanted)
        except argue_app.ArgueError as exc:
            return _text_error(exc)
        return _html(pages.paged_rows(rows, skipped, page), pages.header_csp)

    async def index_stream(request: Request) -> Response:
        try:
            wanted = page_number(request.query_params.get("page"))
        except argue_app.ArgueError as exc:
            return _text_error(exc)

        def look() -> Fingerprint:
            return reads.index.fingerprint(wanted)

        async def events() -> AsyncIterator[str]:
            async for changed in changes(look, interval=poll_interval, stopping=stopping):
                if not changed:
                    yield KEEPALIVE
                    continue
                try:
                    rows, skipped, page = await _read(reads.index.rows, wanted)
                except argue_app.ArgueError as exc:
                    yield sse_event("trouble", exc.message)
                    continue
                yield sse_event("update", pages.paged_rows(rows, skipped, page))

        return event_stream(events)

    # -- one debate

    async def debate_page(request: Request) -> Response:
        try:
            debate = await _read(reads.debate, _debate_id(request))
        except argue_app.ArgueError as exc:
            return _text_error(exc)
        return _html(pages.debate(debate, NOTE_MAX_CHARS), pages.header_csp)

    async def debate_live(request: Request) -> Response:
        try:
            debate = await _read(reads.debate, _debate_id(request))
        except argue_app.ArgueError as exc:
            return _text_error(exc)
        return _html(pages.debate_live(debate), pages.header_csp)

    async def debate_stream(request: Request) -> Response:
        try:
            debate_id = _debate_id(request)
            await _read(_live_row, debate_id, workspace)
        except argue_app.ArgueError as exc:
            return _text_error(exc)

        def look() -> Fingerprint:
            return reads.debate_fingerprint(debate_id)

        async def events() -> AsyncIterator[str]:
            async for changed in changes(look, interval=poll_interval, stopping=stopping):
                if not changed:
                    yield KEEPALIVE
                    continue
                try:
                    debate = await _read(reads.debate, debate_id)
                except argue_app.ArgueError as exc:
                    yield sse_event("trouble", exc.message)
                    continue
                yield sse_event("update", pages.debate_live(debate))

        return event_stream(events)

    async def debate_report(request: Request) -> Response:
        try:
            html = await _read(_report_html, _debate_id(request), workspace)
        except argue_app.ArgueError as exc:
            return _text_error(exc)
        # The report's own policy (stylesheet by hash, nothing else), repeated as a header.
        found = _REPORT_CSP.search(html)
        policy = (found.group(1) if found else "default-src 'none'") + "; frame-ancestors 'none'"
        return _html(html, policy)

    async def _json_body(request: Request) -> dict[str, Any]:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_POST_BYTES:
                raise argue_app.UsageError(f"the request is over {MAX_POST_BYTES:,} bytes")
        return argue_app.json_object_body(body, max_bytes=MAX_POST_BYTES)

    async def stop(request: Request) -> Response:
        try:
            debate_id = _debate_id(request)
            await _json_body(request)
            (result,) = await run_in_threadpool(argue_app.stop, debate_id, workspace=workspace)
        except argue_app.ArgueError as exc:
            return _error(exc)
        return SafeJSONResponse(result.model_dump(), headers=SECURITY_HEADERS)

    async def interject(request: Request) -> Response:
        try:
            debate_id = _debate_id(request)
            note = (await _json_body(request)).get("note")
            if not isinstance(note, str):
                raise argue_app.UsageError("the note is missing")
            result = await run_in_threadpool(
                argue_app.interject, debate_id, note, workspace=workspace
            )
        except argue_app.ArgueError as exc:
            return _error(exc)
        return SafeJSONResponse(result.model_dump(), headers=SECURITY_HEADERS)

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/rows", index_rows, methods=["GET"]),
        Route("/stream", index_stream, methods=["GET"]),
        Route("/debates/{debate_id}", debate_page, methods=["GET"]),
        Route("/debates/{debate_id}/live", debate_live, methods=["GET"]),
        Route("/debates/{debate_id}/stream", debate_stream, methods=["GET"]),
        Route("/debates/{debate_id}/report", debate_report, methods=["GET"]),
        Route("/debates/{debate_id}/stop", stop, methods=["POST"]),
        Route("/debates/{debate_id}/interject", interject, methods=["POST"]),
    ]
    return TokenGate(Starlette(routes=routes), token)


def launcher_name() -> str:
    """How the user runs argue, for the resume hint (``./run.sh`` in a clone)."""
    return os.environ.get("ARGUE_LAUNCHER") or "argue"
