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
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import anyio
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
from argue.app._limits import NOTE_MAX_CHARS
from argue.text.controls import one_line
from argue.web._feed import (
    KEEPALIVE,
    POLL_INTERVAL_S,
    Fingerprint,
    SafeJSONResponse,
    changes,
    debate_fingerprint,
    index_fingerprint,
    never,
    sse_event,
)
from argue.web._pages import Pages

if TYPE_CHECKING:
    from argue.app import LiveDebate, LiveRow, Workspace

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
}


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
        given = self._given(scope)
        allowed = given is not None and hmac.compare_digest(given, self.token)
        if allowed and scope.get("method") == "POST":
            allowed = _post_allowed(scope, self.token)
        if not allowed:
            response = PlainTextResponse(FORBIDDEN, status_code=403, headers=SECURITY_HEADERS)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


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


@dataclass
class LiveReads:
    """What the routes read, through the application layer, and the fingerprints that say
    when to read again. ``rows``: the index's rows by id, each with the fingerprint of its
    folder when read (a row is read again only when its own folder changed)."""

    workspace: Workspace
    command: str = "argue"
    rows: dict[str, tuple[Fingerprint, LiveRow]] = field(default_factory=dict)

    # -- reads (in a worker thread: they touch the disk)

    def index_rows(self) -> tuple[list[LiveRow], list[str]]:
        from argue.store import DebateStore

        rows: list[LiveRow] = []
        skipped: list[str] = []
        ids = argue_app.debate_ids(workspace=self.workspace)
        for debate_id in ids:
            store = DebateStore(self.workspace.root / debate_id)
            mark = debate_fingerprint(store.paths.root, store.is_locked)
            cached = self.rows.get(debate_id)
            if cached is not None and cached[0] == mark:
                rows.append(cached[1])
                continue
            try:
                row = argue_app.live_row(debate_id, workspace=self.workspace)
            except argue_app.ArgueError as exc:
                skipped.append(f"skipped {debate_id}: {exc.message}")
                continue
            self.rows[debate_id] = (mark, row)
            rows.append(row)
        for gone in set(self.rows) - set(ids):
            self.rows.pop(gone, None)  # two streams may read at once: each drops it once
        rows.sort(key=lambda row: row.status.id, reverse=True)  # ids are timestamps: newest first
        return rows, skipped

    def index_fingerprint(self) -> Fingerprint:
        from argue.store import DebateStore

        folders = index_fingerprint(self.workspace.root)
        # A runner that dies changes no file, but its debate then reads as interrupted.
        locks = tuple(
            DebateStore(self.workspace.root / name).is_locked()
            for name, files in folders
            if any(f[0] == "state.json" for f in files)
        )
        return (folders, locks)

    def debate(self, debate_id: str) -> LiveDebate:
        return argue_app.live_debate(debate_id, workspace=self.workspace, command=self.command)

    def debate_fingerprint(self, debate_id: str) -> Fingerprint:
        from argue.store import DebateStore

        store = DebateStore(self.workspace.root / debate_id)
        return debate_fingerprint(store.paths.root, store.is_locked)


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


_REPORT_CSP = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def create_app(
    workspace: Workspace,
    token: str,
    *,
    command: str = "argue",
    poll_interval: float = POLL_INTERVAL_S,
    stopping: Callable[[], bool] = never,
) -> ASGIApp:
    """The whole server as an ASGI app: starlette routes behind :class:`TokenGate`.

    ``stopping``: True once the server shuts down (uvicorn's ``should_exit``); the event
    streams then end cleanly rather than being cut mid-response."""
    pages = Pages(token)

    def event_stream(events: AsyncIterator[str]) -> StreamingResponse:
        headers = {**SECURITY_HEADERS, "X-Accel-Buffering": "no"}
        return StreamingResponse(events, media_type="text/event-stream", headers=headers)

    reads = LiveReads(workspace, command=command)

    async def index(request: Request) -> Response:
        rows, skipped = await run_in_threadpool(reads.index_rows)
        return _html(pages.index(rows, skipped, str(workspace.root)), pages.csp)

    async def index_rows(request: Request) -> Response:
        rows, skipped = await run_in_threadpool(reads.index_rows)
        return _html(pages.index_rows(rows, skipped), pages.csp)

    async def index_stream(request: Request) -> Response:
        async def events() -> AsyncIterator[str]:
            looks = changes(reads.index_fingerprint, interval=poll_interval, stopping=stopping)
            async for changed in looks:
                if not changed:
                    yield KEEPALIVE
                    continue
                rows, skipped = await anyio.to_thread.run_sync(reads.index_rows)
                yield sse_event("update", pages.index_rows(rows, skipped))

        return event_stream(events())

    # -- one debate

    async def debate_page(request: Request) -> Response:
        try:
            debate = await run_in_threadpool(reads.debate, _debate_id(request))
        except argue_app.ArgueError as exc:
            return _text_error(exc)
        return _html(pages.debate(debate, NOTE_MAX_CHARS), pages.csp)

    async def debate_live(request: Request) -> Response:
        try:
            debate = await run_in_threadpool(reads.debate, _debate_id(request))
        except argue_app.ArgueError as exc:
            return _text_error(exc)
        return _html(pages.debate_live(debate), pages.csp)

    async def debate_stream(request: Request) -> Response:
        try:
            debate_id = _debate_id(request)
            await run_in_threadpool(argue_app.live_row, debate_id, workspace=workspace)
        except argue_app.ArgueError as exc:
            return _text_error(exc)

        async def events() -> AsyncIterator[str]:
            def look() -> Fingerprint:
                return reads.debate_fingerprint(debate_id)

            async for changed in changes(look, interval=poll_interval, stopping=stopping):
                if not changed:
                    yield KEEPALIVE
                    continue
                try:
                    debate = await anyio.to_thread.run_sync(reads.debate, debate_id)
                except argue_app.ArgueError as exc:
                    yield sse_event("trouble", exc.message)
                    continue
                yield sse_event("update", pages.debate_live(debate))

        return event_stream(events())

    async def debate_report(request: Request) -> Response:
        try:
            html = await run_in_threadpool(
                argue_app.report_html, _debate_id(request), workspace=workspace
            )
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
