"""``argue serve`` bounded (issue 39 item 4; issue 41 item 6's server side): real sockets
against a real server, in a thread (small caps passed as :class:`Bounds`) or as ``argue serve``
in a subprocess (caps through ``ARGUE_SERVE_*``). Bounds, not timings: a wait asserted here is
a generous ceiling (< 5 s), the figures are bench/serve_bounds.py's."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from argue.app import UsageError, Workspace
from argue.cli import app as cli_app
from argue.store import DebateStore
from argue.web import create_app
from argue.web._server import BUSY, BoundedServer, Bounds, build_server

REPO = Path(__file__).resolve().parents[2]
CEILING_S = 5.0


@dataclass
class Bounded:
    base: str
    port: int
    token: str
    server: BoundedServer

    def url(self, path: str) -> str:
        joiner = "&" if "?" in path else "?"
        return f"{self.base}{path}{joiner}token={self.token}"

    def connections(self) -> int:
        return len(self.server.server_state.connections)


def _wait(condition: Callable[[], bool], what: str, within_s: float = CEILING_S) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.fixture
def bounded(tmp_path: Path) -> Iterator[Callable[..., Bounded]]:
    """``bounded(debates_dir, **bounds)``: a real server in a thread, stopped afterwards."""
    running: list[tuple[BoundedServer, threading.Thread, socket.socket]] = []

    def _start(debates_dir: Path | None = None, **caps: Any) -> Bounded:
        folder = debates_dir or tmp_path / "debates"
        folder.mkdir(exist_ok=True)
        bounds = Bounds(**caps)
        token = secrets.token_urlsafe(32)
        servers: list[BoundedServer] = []
        app = create_app(
            Workspace(folder),
            token,
            poll_interval=0.1,
            stopping=lambda: bool(servers) and servers[0].should_exit,
            bounds=bounds,
        )
        server = build_server(app, bounds)
        servers.append(server)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        port = sock.getsockname()[1]
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        _wait(lambda: server.started, "the server did not start", 20)
        running.append((server, thread, sock))
        return Bounded(f"http://127.0.0.1:{port}", port, token, server)

    yield _start
    for server, thread, sock in running:
        server.should_exit = True
        thread.join(10)
        sock.close()


def _idle_sockets(port: int, count: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]


def _closed_by_server(sock: socket.socket, within_s: float = CEILING_S) -> bool:
    """True when the server closes ``sock`` (EOF or reset) within ``within_s``."""
    sock.settimeout(within_s)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True  # reset: closed all the same
    return True


# ---------------------------------------------------------------- connections


def test_past_the_connection_cap_a_request_gets_a_503_then_is_served_once_they_close(bounded):
    """Teeth: drop the cap check in ``BoundedH11Protocol.connection_made`` (``_refusing``
    always False) and the request with the token gets a 200 here instead of the 503."""
    server = bounded(max_connections=4, header_timeout_s=30.0)
    idle = _idle_sockets(server.port, 4)
    try:
        _wait(lambda: server.connections() >= 4, "the idle sockets were not accepted")
        with httpx.Client(timeout=CEILING_S) as client:
            refused = client.get(server.url("/"))
        assert refused.status_code == 503
        assert refused.text == BUSY and "\n" not in refused.text.rstrip("\n")
        assert refused.headers["connection"] == "close"
    finally:
        for sock in idle:
            sock.close()
    _wait(lambda: server.connections() == 0, "the idle sockets stayed counted")
    with httpx.Client(timeout=CEILING_S) as client:
        assert client.get(server.url("/")).status_code == 200


def test_a_silent_or_half_sent_request_is_closed_at_the_header_deadline(bounded):
    """A socket that sends nothing, a request head cut short, a body that stops half-way:
    each closed by the server once ``header_timeout_s`` has passed. Teeth: make
    ``_on_deadline`` do nothing and ``_closed_by_server`` times out for all three."""
    server = bounded(header_timeout_s=0.3)
    silent, half_head, half_body = _idle_sockets(server.port, 3)
    half_head.sendall(b"GET /?token=" + server.token.encode() + b" HTTP/1.1\r\nHost: x\r\n")
    half_body.sendall(
        b'POST /debates/x/interject HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"no'
    )
    started = time.monotonic()
    try:
        assert _closed_by_server(silent)
        assert _closed_by_server(half_head)
        assert _closed_by_server(half_body)
    finally:
        for sock in (silent, half_head, half_body):
            sock.close()
    assert time.monotonic() - started < CEILING_S
    # A whole request is answered, and its connection kept for the next one (keep-alive).
    with httpx.Client(timeout=CEILING_S) as client:
        assert client.get(server.url("/")).status_code == 200
        time.sleep(0.5)  # past the header deadline, within keep-alive: still usable
        assert client.get(server.url("/")).status_code == 200


def test_an_idle_keep_alive_connection_is_closed(bounded):
    server = bounded(keep_alive_s=1)
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    request = f"GET /?token={server.token} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    sock.sendall(request)
    assert sock.recv(12) == b"HTTP/1.1 200"
    try:
        assert _closed_by_server(sock)
    finally:
        sock.close()


# ---------------------------------------------------------------- event streams


def _first_event(lines: Iterator[str]) -> str:
    for line in lines:
        if line.startswith("event:"):
            return line
    raise AssertionError("the stream ended before its first event")


def test_past_the_stream_cap_a_stream_is_a_503_and_pages_still_load(bounded, new_store):
    """Teeth: make ``StreamSlots.take`` always True and the third stream is a 200."""
    store = new_store("debates")
    server = bounded(max_streams=2)
    with httpx.Client(timeout=httpx.Timeout(CEILING_S)) as client:
        with (
            client.stream("GET", server.url("/stream")) as one,
            client.stream("GET", server.url(f"/debates/{store.debate_id}/stream")) as two,
        ):
            # Hold the line iterators: a dropped one closes its connection (httpcore).
            lines = [one.iter_lines(), two.iter_lines()]
            assert [_first_event(each) for each in lines] == ["event: update"] * 2
            third = client.get(server.url("/stream"))
            assert third.status_code == 503 and "too many live streams" in third.text
            assert client.get(server.url(f"/debates/{store.debate_id}/stream")).status_code == 503
            assert client.get(server.url("/")).status_code == 200  # pages still load
        # Both closed: their slots are free again.
        _wait(lambda: server.connections() <= 1, "the streams stayed open")
        with client.stream("GET", server.url("/stream")) as again:
            assert again.status_code == 200


# ---------------------------------------------------------------- argue serve, a process


def _serve(
    debates_dir: Path, env: dict[str, str] | None = None, nofile: int | None = None
) -> tuple[subprocess.Popen[str], str]:
    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    process = subprocess.Popen(
        [sys.executable, "-m", "argue", "serve", "--port", "0", "--debates-dir", str(debates_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        preexec_fn=limit,
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), (url, process.stderr and process.stderr.read())
    return process, url


def _port(url: str) -> int:
    match = re.match(r"http://127\.0\.0\.1:(\d+)/", url)
    assert match
    return int(match.group(1))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_server_promptly_whatever_is_open(tmp_path, new_store, sig):
    """Index and debate streams, idle sockets and half-sent requests open: the process is gone
    well within the ceiling (bench/serve_bounds.py: the figure), the streams end cleanly and
    nothing is a traceback. Teeth: ``_SlotStream`` / ``changes`` ignoring ``stopping`` leaves
    the streams to uvicorn's cancel after its grace (httpx then sees a cut chunked body)."""
    store = new_store("debates")
    process, url = _serve(tmp_path / "debates")
    port = _port(url)
    token = url.partition("token=")[2]
    streams: list[Any] = []
    ends: list[str] = []
    try:
        client = httpx.Client(timeout=httpx.Timeout(CEILING_S * 2))
        for path in ("/stream", f"/debates/{store.debate_id}/stream", "/stream"):
            reply = client.stream("GET", f"http://127.0.0.1:{port}{path}?token={token}")
            response = reply.__enter__()
            lines = response.iter_lines()
            assert _first_event(lines) == "event: update"
            streams.append((reply, lines))
        idle = _idle_sockets(port, 5)
        for sock in idle[:3]:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # half-sent
        started = time.monotonic()
        process.send_signal(sig)
        _, err = process.communicate(timeout=CEILING_S * 3)
        elapsed = time.monotonic() - started
        for reply, lines in streams:
            try:
                list(lines)
                ends.append("clean")
            except httpx.HTTPError as exc:
                ends.append(type(exc).__name__)
            reply.__exit__(None, None, None)
        for sock in idle:
            sock.close()
        client.close()
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert elapsed < CEILING_S, elapsed
    assert ends == ["clean"] * 3
    assert "Traceback" not in err, err[-2000:]
    assert process.returncode == (130 if sig == signal.SIGINT else -signal.SIGTERM)


def test_out_of_descriptors_is_one_log_line_and_the_server_serves_again(tmp_path):
    """Under a 64-descriptor limit, 300 sockets at once: accept() fails with EMFILE while the
    refused ones close; stderr has one line about it and no traceback, and once the sockets
    are closed a request with the token is served. Teeth: ``BoundedServer.serve`` without
    its exception handler prints asyncio's "socket.accept() out of system resource" with an
    ``OSError: [Errno 24]`` traceback."""
    (tmp_path / "debates").mkdir()
    process, url = _serve(tmp_path / "debates", nofile=64)
    port = _port(url)
    opened: list[socket.socket] = []
    try:
        for _ in range(300):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect(("127.0.0.1", port))
            opened.append(sock)
        time.sleep(2.5)  # the server meets its limit, refuses, waits, accepts again
        for sock in opened:
            sock.close()
        opened.clear()
        reply = None
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                reply = httpx.get(url, timeout=CEILING_S)
            except httpx.HTTPError:
                time.sleep(0.2)
                continue
            if reply.status_code == 200:
                break
            time.sleep(0.2)
        assert reply is not None and reply.status_code == 200
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=CEILING_S * 3)
    finally:
        for sock in opened:
            sock.close()
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert err.count("out of file descriptors") == 1, err[-3000:]
    assert "Traceback" not in err and "Errno 24" not in err, err[-3000:]


# ---------------------------------------------------------------- the index


def _broken_folders(root: Path, count: int) -> list[str]:
    """``count`` debate folders that cannot be read, each broken its own way."""
    names = []
    for i in range(count):
        folder = root / f"argue_20200101_{i:06d}"
        folder.mkdir()
        kind = i % 4
        if kind == 0:
            (folder / "config.json").write_text("{not json", encoding="utf-8")
        elif kind == 1:
            (folder / "config.json").write_text("[" * 50_000, encoding="utf-8")
        elif kind == 2:
            (folder / "config.json").write_text('["' + "x" * 1_000_000 + '"]', encoding="utf-8")
        else:
            (folder / "config.json").write_bytes(b"\xff\xfe" * 100)
        names.append(folder.name)
    return names


def test_broken_folders_are_parsed_once_and_named_on_their_page(
    bounded, new_store, monkeypatch, tmp_path
):
    """20 broken folders: five views, five ``/rows``, an index stream through three updates
    of a good debate: each broken folder is parsed once (the good one once per change).
    Teeth: in ``DebateIndex.rows`` read again when ``cached.row is None`` and each broken
    folder is parsed 13 times or more."""
    import argue.app

    good = new_store("debates")
    broken = _broken_folders(tmp_path / "debates", 20)
    parses: dict[str, int] = {}
    real = argue.app.live_row

    def counted(debate_id: str, **kwargs: Any) -> Any:
        parses[debate_id] = parses.get(debate_id, 0) + 1
        return real(debate_id, **kwargs)

    monkeypatch.setattr(argue.app, "live_row", counted)
    server = bounded(page_size=50)
    writer = DebateStore(good.paths.root)
    with httpx.Client(timeout=httpx.Timeout(CEILING_S * 2)) as client:
        for _ in range(5):
            page = client.get(server.url("/"))
            assert page.status_code == 200
            for name in broken:
                assert page.text.count(f"skipped {name}:") == 1
        for _ in range(5):
            assert client.get(server.url("/rows")).status_code == 200
        with client.stream("GET", server.url("/stream")) as stream:
            lines = stream.iter_lines()
            assert _first_event(lines) == "event: update"
            for phase in ("rebuttal", "reflection", "scoring"):
                writer.save_state(writer.state().model_copy(update={"phase": phase}))
                assert _first_event(lines) == "event: update"
    assert {name: parses.get(name) for name in broken} == {name: 1 for name in broken}
    assert 2 <= parses[good.debate_id] <= 5  # the first read, then once per change seen


def test_an_idle_index_stream_parses_nothing_again(bounded, new_store, monkeypatch, tmp_path):
    """Ten ticks of an idle index stream: no debate parsed again (the stream looks at a few
    files per debate shown and shares its look). Teeth: ``DebateIndex.fingerprint`` returning
    ``time.monotonic()`` makes every tick an update that reads the page again."""
    import argue.app

    for _ in range(3):
        new_store("debates")
    parses: list[str] = []
    real = argue.app.live_row
    monkeypatch.setattr(argue.app, "live_row", lambda i, **k: parses.append(i) or real(i, **k))
    server = bounded()
    with (
        httpx.Client(timeout=httpx.Timeout(CEILING_S)) as client,
        client.stream("GET", server.url("/stream")) as stream,
    ):
        lines = stream.iter_lines()
        assert _first_event(lines) == "event: update"
        read_once = len(parses)
        time.sleep(1.0)  # ten looks at 0.1 s
    assert read_once == 3 and len(parses) == 3


def test_the_index_is_paged_newest_first_with_links(bounded, new_store):
    ids = [new_store("debates").debate_id for i in range(7)]
    newest_first = sorted(ids, reverse=True)
    server = bounded(page_size=3)
    with httpx.Client(timeout=CEILING_S) as client:
        first = client.get(server.url("/")).text
        second = client.get(server.url("/?page=2")).text
        last = client.get(server.url("/?page=3")).text
        beyond = client.get(server.url("/?page=99")).text
        rows = client.get(server.url("/rows?page=2"), headers={}).text
        bad = [client.get(server.url(f"/?page={p}")) for p in ("abc", "0", "-1", "9" * 5000)]
    shown = [re.findall(r"(argue_[0-9_a-z]+)(?=</a>)", page) for page in (first, second, last)]
    assert shown == [newest_first[0:3], newest_first[3:6], newest_first[6:7]]
    assert "Page 1 of 3 (7 debates)" in first and 'rel="next"' in first
    assert 'rel="prev"' not in first
    assert "Page 2 of 3" in second and 'rel="prev"' in second and 'rel="next"' in second
    assert 'rel="next"' not in last and beyond == last  # past the end: the last page
    # The page's stream and fragment follow its page; the fragment carries the links.
    assert 'data-stream="/stream?page=2&amp;token=' in second
    assert 'data-fragment="/rows?page=2&amp;token=' in second
    assert re.findall(r"(argue_[0-9_a-z]+)(?=</a>)", rows) == newest_first[3:6]
    assert "Page 2 of 3" in rows
    for reply in bad:
        assert reply.status_code == 400 and reply.text.count("\n") == 1
        assert "not a page number" in reply.text and len(reply.text) < 100


def test_the_index_stream_of_a_page_sends_that_page(bounded, new_store):
    ids = sorted(new_store("debates").debate_id for _ in range(4))
    server = bounded(page_size=2)
    with (
        httpx.Client(timeout=httpx.Timeout(CEILING_S)) as client,
        client.stream("GET", server.url("/stream?page=2")) as stream,
    ):
        lines = stream.iter_lines()
        assert _first_event(lines) == "event: update"
        data = []
        for line in lines:
            if line == "":
                break  # the end of the first event
            data.append(line)
        data_text = "\n".join(data)
    assert ids[1] in data_text and ids[0] in data_text
    assert ids[3] not in data_text and ids[2] not in data_text


# ---------------------------------------------------------------- headers, favicon, settings


def test_the_favicon_needs_no_token_and_every_answer_has_a_csp_header(bounded, new_store):
    """Teeth: without the favicon route in ``TokenGate`` the icon is the bare 403."""
    store = new_store("debates")
    server = bounded()
    with httpx.Client(base_url=server.base, timeout=CEILING_S) as client:
        icon = client.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/png"
        assert icon.content.startswith(b"\x89PNG\r\n\x1a\n") and len(icon.content) < 200
        assert client.head("/favicon.ico").status_code == 200
        for reply in (
            client.get("/"),  # 403: no token
            client.get(server.url("/debates/nope")),  # 404
            client.get(server.url("/")),
            client.get(server.url(f"/debates/{store.debate_id}")),
        ):
            assert "frame-ancestors 'none'" in reply.headers["content-security-policy"]
            assert "default-src 'none'" in reply.headers["content-security-policy"]
            meta = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', reply.text)
            assert meta is None or "frame-ancestors" not in meta.group(1)


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("ARGUE_SERVE_MAX_CONNECTIONS", "1" + "0" * 5000, "not a whole number"),
        ("ARGUE_SERVE_MAX_CONNECTIONS", "1", "out of range"),
        ("ARGUE_SERVE_MAX_STREAMS", "2.5", "not a whole number"),
        ("ARGUE_SERVE_HEADER_TIMEOUT", "inf", "not a number of seconds"),
        ("ARGUE_SERVE_HEADER_TIMEOUT", "0", "out of range"),
        ("ARGUE_SERVE_PAGE_SIZE", "-3", "not a whole number"),
    ],
)
def test_a_bad_setting_is_one_line_and_exit_2(tmp_path, name, value, words):
    with pytest.raises(UsageError, match=words):
        Bounds.from_env({name: value})
    result = CliRunner().invoke(
        cli_app, ["serve", "--port", "0", "--debates-dir", str(tmp_path)], env={name: value}
    )
    assert result.exit_code == 2
    assert words in result.stderr and name in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_the_caps_stay_below_the_descriptor_limit(monkeypatch):
    import argue.web._server as served

    monkeypatch.setattr(served, "descriptor_limit", lambda: 40)
    bounds = Bounds.from_env({"ARGUE_SERVE_MAX_CONNECTIONS": "500"})
    assert bounds.max_connections == 20 and bounds.max_streams == 16
    small = Bounds.from_env({"ARGUE_SERVE_MAX_CONNECTIONS": "4", "ARGUE_SERVE_MAX_STREAMS": "9"})
    assert (small.max_connections, small.max_streams) == (4, 3)


def test_out_of_descriptors_while_answering_is_a_503_with_one_line(
    bounded, new_store, monkeypatch, caplog
):
    """A read that cannot open its file for want of descriptors: a 503 and one log line, not
    a 500 with a traceback. Teeth: ``_read`` in argue/web/_app.py re-raising every OSError
    gives starlette's 500 and the "Exception in ASGI application" traceback."""
    import errno

    import argue.app

    store = new_store("debates")

    def exhausted(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    monkeypatch.setattr(argue.app, "live_debate", exhausted)
    server = bounded()
    with httpx.Client(timeout=CEILING_S) as client:
        reply = client.get(server.url(f"/debates/{store.debate_id}"))
    assert reply.status_code == 503 and reply.text.count("\n") == 1, reply.text
    assert "out of file descriptors" in reply.text
    assert "Traceback" not in caplog.text and "Exception in ASGI" not in caplog.text
