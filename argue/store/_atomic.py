"""Atomic file writes: temp file in the same folder, fsync, os.replace (and the folder's fsync).

``write_text_atomic(..., durable=False)`` leaves the two fsyncs to a :class:`BackgroundSync`:
the file is complete and in place when it returns (another process, or a resume after kill -9,
reads it whole), and on the device once the sync ran. The debate store uses it so that no
fsync waits on the event loop between two model waves (issue 43 item 4), and settles every
pending sync before a round's commit point is written (durably) and before the run ends.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """``durable=False``: no fsync here (the caller has a :class:`BackgroundSync` do them)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(path.parent)


class BackgroundSync:
    """fsyncs done in order by one worker thread, off the caller's path; ``settle()`` waits for
    every one submitted so far and raises the first that failed (an ``OSError`` naming its
    file). Pending syncs still run at interpreter exit (the worker is joined then)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[tuple[Path, Future[None]]] = []
        self._worker: ThreadPoolExecutor | None = None

    def later(self, path: Path, *, folder: bool = True) -> None:
        """fsync ``path`` (its content as it is when the sync runs), then its folder."""
        with self._lock:
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fsync")
            self._pending.append((path, self._worker.submit(_fsync_path, path, folder)))

    def then(self, job: Callable[[], None], path: Path) -> None:
        """Run ``job`` (a write of ``path``) once every sync submitted before it has run."""
        with self._lock:
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fsync")
            self._pending.append((path, self._worker.submit(job)))

    def settle(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        failed: tuple[Path, OSError] | None = None
        for path, future in pending:
            error = future.exception()
            if isinstance(error, OSError) and failed is None:
                failed = (path, error)
        if failed is not None:
            raise failed[1]

    def pending(self) -> int:
        with self._lock:
            return sum(1 for _, future in self._pending if not future.done())


def _fsync_path(path: Path, folder: bool) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:  # discarded since: the folder's sync records that
        if folder:
            _fsync_dir(path.parent)
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    finally:
        os.close(fd)
    if folder:
        _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def to_jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def write_json_atomic(path: Path, value: Any) -> None:
    write_text_atomic(path, json.dumps(to_jsonable(value), indent=2, ensure_ascii=False) + "\n")


def read_json(path: Path) -> Any:
    """A JSON file read within the bounds of ``argue.store._bounded`` (size, depth, a regular
    file); FileNotFoundError when it is missing, BoundedReadError (a ValueError) when refused."""
    from argue.store._bounded import MAX_SETTINGS_BYTES, loads_json, read_text

    text = read_text(path, cap=MAX_SETTINGS_BYTES)
    if text is None:
        raise FileNotFoundError(2, "No such file or directory", str(path))
    return loads_json(text, path)
