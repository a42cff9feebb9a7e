"""A headless Chromium for the browser tests, driven over the DevTools protocol through a pipe
(no websocket library, no port): ``--remote-debugging-pipe`` reads NUL-terminated JSON commands
on fd 3 and writes replies and events on fd 4.

``Chromium`` is the browser (one throwaway profile); ``Chromium.open`` gives a ``Page`` (a tab):
evaluate JavaScript after layout, emulate a width, a phone or ``prefers-color-scheme``, print to
PDF, take a screenshot. ``Browser`` is a browser with one page, for tests that follow one page.
Tests that need it are marked ``needs_chromium`` and skip, saying so, where it is absent.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import struct
import subprocess
import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="chromium is not on PATH; install it (apt-get install -y chromium) to check the pages "
    "in a real browser",
)
ANSWER_S = 60.0
"""How long a DevTools command may go unanswered: a bound on a wait, not a timing."""


class Chromium:
    """One headless Chromium with a throwaway profile."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_pipes() -> None:  # in the child, before exec: fd 3 in, fd 4 out
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=wire_pipes,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._replies: dict[int, dict[str, Any]] = {}
        self._events: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        while True:
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                os.close(self._from_browser)
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._arrived:
                    if "id" in message:
                        self._replies[message["id"]] = message
                    else:
                        self._events.append(message)
                    self._arrived.notify_all()

    def call(self, method: str, *, session: str | None = None, **params: Any) -> dict[str, Any]:
        with self._arrived:
            self._next_id += 1
            ident = self._next_id
        message: dict[str, Any] = {"id": ident, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        with self._arrived:
            if not self._arrived.wait_for(lambda: ident in self._replies, timeout=ANSWER_S):
                raise AssertionError(f"Chromium did not answer {method}")
            reply = self._replies.pop(ident)
        if "error" in reply:
            raise AssertionError(f"{method}: {reply['error']}")
        return dict(reply.get("result", {}))

    def wait_event(self, method: str, session: str) -> dict[str, Any]:
        """The next ``method`` event of ``session`` (kept if it came first)."""

        def take() -> dict[str, Any] | None:
            for i, event in enumerate(self._events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self._events.pop(i)
            return None

        with self._arrived:
            found: dict[str, Any] | None = None

            def arrived() -> bool:
                nonlocal found
                found = take()
                return found is not None

            if not self._arrived.wait_for(arrived, timeout=ANSWER_S):
                raise AssertionError(f"Chromium sent no {method}")
            assert found is not None
            return found

    def new_page(
        self, width: int = 1280, height: int = 1400, *, mobile: bool | None = None
    ) -> Page:
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(self, session)
        page.call("Page.enable")
        page.resize(width, height, mobile=mobile)
        return page

    def open(self, url: str, width: int, *, dark: bool = False, mobile: bool = False) -> Page:
        """A new page at ``width`` (900 px high), in the light or dark colour scheme, once
        ``url`` has loaded."""
        page = self.new_page(width, 900, mobile=mobile)
        page.color_scheme("dark" if dark else "light")
        page.goto(url, wait=True)
        return page

    def close(self) -> None:
        with contextlib.suppress(AssertionError, OSError):
            self.call("Browser.close")
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        os.close(self._to_browser)


class Page:
    """One tab of a ``Chromium``."""

    def __init__(self, browser: Chromium, session: str) -> None:
        self.browser, self.session = browser, session

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        return self.browser.call(method, session=self.session, **params)

    def resize(self, width: int, height: int, *, mobile: bool | None = None) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=width < 600 if mobile is None else mobile,
        )

    def color_scheme(self, scheme: str) -> None:
        self.call(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": scheme}],
        )

    def media(self, media: str) -> None:
        """Emulate a CSS media type (``print``, or ``""`` for the screen)."""
        self.call("Emulation.setEmulatedMedia", media=media)

    def goto(self, url: str, *, wait: bool = False) -> None:
        self.call("Page.navigate", url=url)
        if wait:
            self.browser.wait_event("Page.loadEventFired", self.session)

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    js = evaluate

    def wait_for(self, expression: str, *, within_s: float = 30.0) -> Any:
        """Evaluate ``expression`` until it is truthy (a bound on the wait, not a timing)."""
        deadline = time.monotonic() + within_s
        while True:
            try:
                value = self.evaluate(expression)
            except AssertionError:
                value = None  # the page is between documents
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"still false after {within_s} s: {expression}")
            time.sleep(0.1)

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def pdf(self) -> bytes:
        return base64.b64decode(self.call("Page.printToPDF", preferCSSPageSize=True)["data"])


class Browser:
    """A ``Chromium`` with one page, for a test that follows one page (the live view)."""

    def __init__(self, profile: Path, *, width: int = 1280, height: int = 1400) -> None:
        self.chromium = Chromium(profile)
        self.page = self.chromium.new_page(width, height)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.page, name)

    def close(self) -> None:
        self.chromium.close()


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGB(A) rows of an 8-bit, non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert header is not None
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows
