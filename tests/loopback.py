"""A real HTTP server on 127.0.0.1 in a thread, for testing adapters without the network.

Both SDKs ride on httpx2, so respx/pytest-httpx cannot intercept them; a loopback server can.
Queue replies with ``enqueue`` (served in order, the last one repeats) or install a ``handler``
that builds a reply from the recorded request. Every request is kept in ``requests``. A reply
may be no reply at all (``hang_up``: the connection closed or reset once the request is read).
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    status: int = 200
    json: Any = None
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    content_type: str | None = None
    # No reply at all, once the whole request is read: "close" closes the connection without a
    # word (httpx: RemoteProtocolError), "reset" aborts it (a TCP reset; httpx: ReadError).
    hang_up: Literal["close", "reset"] | None = None

    def encoded(self) -> tuple[bytes, str]:
        if self.json is not None:
            return json.dumps(self.json).encode(), self.content_type or "application/json"
        body = self.body.encode() if isinstance(self.body, str) else self.body
        return body, self.content_type or "text/plain; charset=utf-8"


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.body or b"null")


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 makes the 6th of many clients connecting at once wait ~1 s
    # for a TCP retry.
    request_queue_size = 64

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        # A client that went away (killed on purpose by the crash soak) is no server error.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class LoopbackServer:
    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.handler: Callable[[RecordedRequest], Reply] | None = None
        self._queue: list[Reply] = []
        self._lock = threading.Lock()
        self.in_flight = 0  # requests received whose reply is not fully sent yet
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                recorded = RecordedRequest(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                    at=time.monotonic(),
                )
                with server._lock:
                    server.in_flight += 1
                try:
                    reply = server._next_reply(recorded)
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
                    if reply.hang_up is not None:
                        self._hang_up(reply.hang_up)
                        return
                    payload, content_type = reply.encoded()
                    try:
                        self.send_response(reply.status)
                        self.send_header("Content-Type", content_type)
                        self.send_header("Content-Length", str(len(payload)))
                        for key, value in reply.headers.items():
                            self.send_header(key, value)
                        self.end_headers()
                        self.wfile.write(payload)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _hang_up(self, how: str) -> None:
                self.close_connection = True  # and the server closes it: a FIN, no reply
                if how == "reset":  # closed now with a zero linger: a RST instead
                    linger = struct.pack("ii", 1, 0)
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                    self.rfile.close()  # the socket closes once no file holds it
                    self.connection.close()

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.handler is not None:
                return self.handler(request)
            if not self._queue:
                return Reply(status=500, json={"error": "loopback server: no reply queued"})
            return self._queue.pop(0) if len(self._queue) > 1 else self._queue[0]

    def reset(self) -> None:
        """Forget recorded requests, queued replies and the handler (for a shared server)."""
        with self._lock:
            self.requests.clear()
            self._queue.clear()
            self.handler = None

    def enqueue(self, *replies: Reply) -> None:
        with self._lock:
            self._queue.extend(replies)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class DyingServer:
    """A server process that dies while answering, on 127.0.0.1: it answers each request with
    ``answer(request)`` until ``dies_on(request)`` is true, then stops listening and drops that
    connection without a word (a dying process's listener closes first: the kernel closes its
    files in order). ``restart`` listens again on the same port, answering every request."""

    def __init__(
        self,
        answer: Callable[[RecordedRequest], Reply],
        dies_on: Callable[[RecordedRequest], bool] = lambda request: True,
    ) -> None:
        self.answer = answer
        self.dies_on: Callable[[RecordedRequest], bool] | None = dies_on
        self.requests: list[RecordedRequest] = []
        self._listener = self._listen(0)
        self.port: int = self._listener.getsockname()[1]
        threading.Thread(target=self._serve, args=(self._listener,), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @staticmethod
    def _listen(port: int) -> socket.socket:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
        return listener

    def restart(self) -> None:
        self.dies_on = None
        self._listener = self._listen(self.port)
        threading.Thread(target=self._serve, args=(self._listener,), daemon=True).start()

    def _serve(self, listener: socket.socket) -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                request = self._read(connection)
                if request is None:
                    continue
                self.requests.append(request)
                if self.dies_on is not None and self.dies_on(request):
                    listener.close()  # nothing listens any more
                    return  # and the connection closes unanswered
                payload, content_type = (reply := self.answer(request)).encoded()
                head = (
                    f"HTTP/1.1 {reply.status} X\r\nContent-Type: {content_type}\r\n"
                    f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n"
                )
                with contextlib.suppress(OSError):
                    connection.sendall(head.encode() + payload)

    @staticmethod
    def _read(connection: socket.socket) -> RecordedRequest | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])
        }
        while len(body) < int(headers.get("content-length") or 0):
            body += connection.recv(65536)
        parts = urlsplit(target)
        return RecordedRequest(
            method, parts.path, parse_qs(parts.query), headers, body, time.monotonic()
        )

    def stop(self) -> None:
        self._listener.close()
