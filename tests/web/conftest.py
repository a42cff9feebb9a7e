"""A real ``argue serve`` app on 127.0.0.1 in a thread (uvicorn), over scripted debates."""

from __future__ import annotations

import secrets
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from argue.app import Workspace
from tests.engine.conftest import new_store, personas, run_debate

__all__ = ["LiveServer", "live_server", "new_store", "personas", "run_debate", "serve_folder"]

POLL_S = 0.1


@dataclass
class LiveServer:
    base: str
    token: str
    debates_dir: Path
    server: Any  # the uvicorn.Server: ``should_exit = True`` shuts it down as Ctrl-C does

    def url(self, path: str) -> str:
        joiner = "&" if "?" in path else "?"
        return f"{self.base}{path}{joiner}token={self.token}"

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=10.0)


def _serve(
    debates_dir: Path,
    poll_s: float = POLL_S,
    streams_down: threading.Event | None = None,
    port: int = 0,
) -> Iterator[LiveServer]:
    """``streams_down``: while set, open event streams end and new ones get a 503 (the rest
    of the server answers as usual): a stream that drops, for the polling fallback.
    ``port``: listen there (a restart on the same address), any free port by default."""
    import uvicorn
    from starlette.responses import PlainTextResponse

    from argue.web import create_app

    token = secrets.token_urlsafe(32)
    servers: list[uvicorn.Server] = []
    down = streams_down or threading.Event()
    live = create_app(
        Workspace(debates_dir),
        token,
        poll_interval=poll_s,
        stopping=lambda: down.is_set() or (bool(servers) and servers[0].should_exit),
    )

    async def app(scope, receive, send) -> None:
        if scope["type"] == "http" and down.is_set() and scope["path"].endswith("/stream"):
            await PlainTextResponse("streams are down", status_code=503)(scope, receive, send)
            return
        await live(scope, receive, send)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as argue serve binds
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    servers.append(server)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield LiveServer(f"http://127.0.0.1:{port}", token, debates_dir, server)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture
def serve_folder():
    """``serve_folder(path)`` starts a server on that debates folder (stopped after the test)."""
    started: list[Iterator[LiveServer]] = []

    def _start(debates_dir: Path, streams_down: threading.Event | None = None) -> LiveServer:
        generator = _serve(debates_dir, streams_down=streams_down)
        started.append(generator)
        return next(generator)

    yield _start
    for generator in started:
        next(generator, None)


@pytest.fixture
def live_server(serve_folder, tmp_path: Path) -> LiveServer:
    (tmp_path / "debates").mkdir(exist_ok=True)
    return serve_folder(tmp_path / "debates")
