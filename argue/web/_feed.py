"""What drives the live page's updates: a cheap fingerprint of a debate folder, taken every
``POLL_INTERVAL_S``; when it differs from the last one, the page's view is read again and sent.

The fingerprint is the name, size and modification time of every regular file in the folder
(two levels of persona sub-folders included) and whether a runner holds the lock — a runner
that dies changes no file, but the debate then reads as interrupted. No inotify: a stat walk of
a debate's few hundred files every half second costs little, works on every filesystem (a
synced or network folder too) and needs no dependency. Links and special files are skipped,
never followed: the folder is a boundary.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

from starlette.responses import JSONResponse

from argue.text.controls import dumps, one_line, strip_controls

POLL_INTERVAL_S = 0.5
MAX_ENTRIES = 20_000
"""A folder with more entries than this is fingerprinted by its first ones (a debate has a few
hundred files; a folder this large was not written by argue)."""
MAX_DEPTH = 4

Fingerprint = tuple[object, ...]
FileMark = tuple[str, int, int]
"""A file's name or path, size and modification time (ns)."""
IndexMark = tuple[tuple[str, tuple[FileMark, ...]], ...]


def _walk(folder: Path, depth: int, found: list[tuple[str, int, int]]) -> None:
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if len(found) >= MAX_ENTRIES:
                    return
                try:
                    if entry.is_symlink():
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if depth < MAX_DEPTH:
                            _walk(Path(entry.path), depth + 1, found)
                        continue
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue  # replaced between the listing and the look: the next look sees it
                found.append((entry.path, info.st_size, info.st_mtime_ns))
    except OSError:
        return


def folder_fingerprint(root: Path) -> Fingerprint:
    """Every regular file's (path, size, mtime) under ``root``, sorted; empty when it is gone."""
    found: list[tuple[str, int, int]] = []
    if root.is_dir() and not root.is_symlink():
        _walk(root, 0, found)
    return tuple(sorted(found))


def debate_fingerprint(root: Path, is_locked: Callable[[], bool]) -> Fingerprint:
    """The folder's files and whether a runner holds the debate's lock (a shared, non-blocking
    look that lets go at once: the runner's own lock is never taken or waited for)."""
    return (folder_fingerprint(root), is_locked())


def index_fingerprint(debates_dir: Path) -> IndexMark:
    """The debate folders present and each one's state.json, usage files and failures.json:
    what the index shows (status, round, phase, cost) changes with one of them."""
    watched = ("config.json", "state.json", "usage.jsonl", "usage.json", "failures.json")
    rows: list[tuple[str, tuple[FileMark, ...]]] = []
    try:
        with os.scandir(debates_dir) as entries:
            folders = sorted(
                (e.name, Path(e.path))
                for e in entries
                if not e.is_symlink() and e.is_dir(follow_symlinks=False)
            )[:MAX_ENTRIES]
    except OSError:
        return ()
    for name, folder in folders:
        files = []
        for file_name in watched:
            try:
                info = (folder / file_name).lstat()
            except OSError:
                continue
            files.append((file_name, info.st_size, info.st_mtime_ns))
        rows.append((name, tuple(files)))
    return tuple(rows)


T = TypeVar("T")
MAX_READS = 8
"""Reads of the debates folder under way at once; the others wait their turn."""
_reads: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return  # the request was cancelled (a shutdown, a closed tab): nobody wants it
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


async def read_in_thread(func: Callable[..., T], *args: Any) -> T:
    """``func(*args)`` in a daemon thread, at most ``MAX_READS`` at once per event loop.

    For reads only: a cancelled await (the server shutting down) abandons the thread, and a
    daemon thread never keeps the process alive, so a slow read of a large or hostile file
    cannot hold up a shutdown (anyio's and starlette's worker threads wait for it)."""
    loop = asyncio.get_running_loop()
    gate = _reads.get(loop) or _reads.setdefault(loop, asyncio.Semaphore(MAX_READS))
    async with gate:
        future: asyncio.Future[T] = loop.create_future()

        def run() -> None:
            result: Any = None
            error: BaseException | None = None
            try:
                result = func(*args)
            except BaseException as exc:  # handed to the awaiting task, raised there
                error = exc
            with contextlib.suppress(RuntimeError):  # a closed loop: the server is gone
                loop.call_soon_threadsafe(_settle, future, result, error)

        threading.Thread(target=run, name="argue-serve-read", daemon=True).start()
        return await future


def never() -> bool:
    return False


def sse_event(name: str, data: str) -> str:
    """One server-sent event: ``event:`` then each line of ``data`` as a ``data:`` line (the
    browser joins them with newlines), ended by a blank line; no control or bidi character."""
    lines = [strip_controls(line) for line in data.splitlines()] or [""]
    return f"event: {one_line(name)}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


class SafeJSONResponse(JSONResponse):
    """A JSON answer whose control and bidi characters are ``\\uXXXX`` escapes (``dumps``)."""

    def render(self, content: Any) -> bytes:
        return dumps(content, separators=(",", ":")).encode("utf-8")


KEEPALIVE = ": still here\n\n"
"""A comment line: keeps proxies and the browser from closing a quiet stream."""


async def changes(
    fingerprint: Callable[[], Fingerprint],
    *,
    interval: float = POLL_INTERVAL_S,
    stopping: Callable[[], bool] = never,
    keepalive_every: int = 30,
) -> AsyncIterator[bool]:
    """Yield True at once, then each time ``fingerprint()`` differs from the last look, and
    False after ``keepalive_every`` looks without a change; return once ``stopping()`` (the
    server is shutting down: the stream then ends cleanly instead of being cut). The
    fingerprint is taken in a worker thread: the event loop never waits on the disk."""
    last = await read_in_thread(fingerprint)
    yield True
    quiet_looks = 0
    while not stopping():
        await asyncio.sleep(interval)
        if stopping():
            return
        now = await read_in_thread(fingerprint)
        if now != last:
            last, quiet_looks = now, 0
            yield True
        elif (quiet_looks := quiet_looks + 1) >= keepalive_every:
            quiet_looks = 0
            yield False
