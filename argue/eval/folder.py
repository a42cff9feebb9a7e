"""The eval folder, ``<debates>/evals/<name>/``: ``eval.json`` (what was asked, and the vote
matching once fixed), ``items.jsonl`` (one line per finished item and arm, fsynced as it
lands), ``usage.jsonl`` (every single/vote call) and ``debates/<item>/`` (the debate arm's
debates, ordinary debate folders); with ``--batch``, ``batches.jsonl`` (each provider batch the
eval created, written the moment it exists, then its end: so that a killed run that runs again
re-attaches to the same batches instead of submitting them again). Re-running the same command
finds it and resumes.

It is a boundary with the debate folder's rules (``argue.files.guard``): no symbolic
link is followed (the folder itself, ``debates/`` or any file in it), only regular files are
read, reads are capped. One eval runs per folder: :meth:`EvalFolder.running` takes an flock on
``.lock`` and a second run says so at once (:class:`EvalFolderLocked`). Each record is
appended with one ``os.write`` on an ``O_APPEND`` descriptor, so two writers never interleave
inside a line. Every refusal is an :class:`EvalFolderError`, one line naming the file.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from argue.domain import Usage
from argue.eval.arms import ItemResult
from argue.files import (
    MAX_LOG_BYTES,
    MAX_SETTINGS_BYTES,
    guard,
    loads_json,
    open_append,
    read_text_inside,
    refuse_hard_links,
    write_json_atomic,
)
from argue.files import FolderError as StoreError

MANIFEST = "eval.json"
RESULTS = "items.jsonl"
USAGE = "usage.jsonl"
BATCHES = "batches.jsonl"
LOCK = ".lock"
WHAT = "eval folder"


BATCH_ID = r"^[A-Za-z0-9_-]{1,200}$"
INTENT = "intent"


class BatchRecord(BaseModel):
    """One line of batches.jsonl: the intent to create a batch (``status`` "intent", no
    ``batch_id`` yet: ``intent`` its client token, ``wave``, ``calls``), written before the
    provider is asked; the batch once created (``status`` "submitted", ``batch_id``, ``calls``,
    ``intent``); or later news of it (its end: ``status`` the provider's word, ``counts``, and
    ``failed``: the custom_ids it did not answer, which the next run submits again).
    ``calls`` maps each request's custom_id to the call it stands for (item/arm/purpose)."""

    provider: str
    engine: str
    # Both providers' ids are letters, digits, _ and -; anything else in a shared or edited
    # folder is not sent to the provider's URL (the line is named and skipped).
    batch_id: str | None = Field(default=None, pattern=BATCH_ID)
    status: str
    intent: str | None = Field(default=None, pattern=r"^[0-9a-f]{32}$")
    wave: int | None = None
    submitted_at: float | None = None
    calls: dict[str, str] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    failed: list[str] = Field(default_factory=list)
    at: float = Field(description="Unix time of this line")


def _named_batch_id(line: bytes) -> str | None:
    """The ``batch_id`` a line that failed to load names, when it is a string (else None)."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    said = data.get("batch_id") if isinstance(data, dict) else None
    if not isinstance(said, str):
        return None
    return None if re.fullmatch(BATCH_ID, said) else said


class EvalFolderError(ValueError):
    """An eval folder that cannot be used as it is (a link, a special file, unwritable); the
    message is one line naming the file. ``argue.app`` turns it into a usage error (exit 2)."""


class EvalFolderLocked(EvalFolderError):
    """Another eval is running on this folder."""


class EvalFolder:
    def __init__(self, root: Path, *, within: Path | None = None) -> None:
        """``within``: the folder argue owns above ``root`` (the debates folder, for
        ``<debates>/evals/<name>``): the folders between them (``evals/``) are checked like the
        eval folder itself, so a symlinked ``evals/`` is refused, never written through."""
        self.root = root
        self.within = within
        self.debates = root / "debates"
        self._lock_fd: int | None = None

    # -- the boundary

    def _guard(self, path: Path, *, folder: bool = False) -> bool:
        try:
            self._guard_between()
            return guard(self.root, path, folder=folder, what=WHAT)
        except StoreError as exc:
            raise EvalFolderError(str(exc)) from None

    def _guard_between(self) -> None:
        if self.within is None:
            return
        try:
            between = self.root.parent.relative_to(self.within).parts
        except ValueError:
            raise StoreError(f"{self.root}: outside {self.within}: refused") from None
        current = self.within
        for part in between:
            current = current / part
            try:
                info = os.lstat(current)
            except FileNotFoundError:
                return
            except OSError as exc:
                raise StoreError(f"{current}: unreadable ({exc.strerror or exc})") from None
            if stat.S_ISLNK(info.st_mode):
                raise StoreError(f"{current}: a symbolic link above an {WHAT}: refused")
            if not stat.S_ISDIR(info.st_mode):
                raise StoreError(f"{current}: not a folder: refused")

    def _make_root(self) -> None:
        if not self._guard(self.root, folder=True):
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise EvalFolderError(
                    f"{self.root}: cannot create the eval folder ({exc.strerror or exc})"
                ) from None
            self._guard(self.root, folder=True)

    # -- one eval per folder

    @contextmanager
    def running(self) -> Iterator[EvalFolder]:
        """Hold the folder's lock while the body runs; a second holder is refused at once."""
        self.lock()
        try:
            yield self
        finally:
            self.unlock()

    def lock(self) -> None:
        self._make_root()
        path = self.root / LOCK
        self._guard(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            raise EvalFolderError(f"{path}: cannot open ({exc.strerror or exc})") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise EvalFolderError(f"{path}: not a regular file: refused")
            try:
                # The pid is written into it: never through a hard link to a file outside.
                refuse_hard_links(path, info.st_nlink, WHAT)
            except StoreError as exc:
                raise EvalFolderError(str(exc)) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                by = f" (process {holder})" if holder.isdigit() else ""
                raise EvalFolderLocked(
                    f"{self.root}: another eval is running on this folder{by}; wait for it "
                    "to finish or stop it, then run the same command again to resume"
                ) from None
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            self._guard(self.debates, folder=True)  # the debate arm writes there: no link
        except BaseException:
            os.close(fd)
            raise
        self._lock_fd = fd

    def unlock(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- manifest

    def manifest(self) -> dict[str, Any]:
        """eval.json; a damaged one counts as missing (the run writes it again)."""
        path = self.root / MANIFEST
        try:
            text = (
                read_text_inside(self.root, path, cap=MAX_SETTINGS_BYTES)
                if self._guard(path)
                else None
            )
        except StoreError as exc:
            raise EvalFolderError(str(exc)) from None
        if text is None:
            return {}
        try:
            data = loads_json(text, path)
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def save_manifest(self, data: dict[str, Any]) -> None:
        self._make_root()
        path = self.root / MANIFEST
        self._guard(path)
        try:
            write_json_atomic(path, data)
        except OSError as exc:
            raise EvalFolderError(f"cannot write {path}: {exc.strerror or exc}") from None

    # -- results

    def results(self) -> dict[tuple[str, str], ItemResult]:
        """The latest record of each (item, arm): an unanswered one is run again by the next
        run, whose record comes after it; a torn or foreign line is skipped (re-run, not
        trusted)."""
        found: dict[tuple[str, str], ItemResult] = {}
        for record in self.result_lines():
            known = found.get((record.item, record.arm))
            if known is None or known.unanswered:  # an answer is never replaced
                found[(record.item, record.arm)] = record
        return found

    def result_lines(self) -> list[ItemResult]:
        """Every record in items.jsonl, earlier unanswered attempts included (they spent)."""
        found: list[ItemResult] = []
        for line in self._lines(RESULTS):
            try:
                found.append(ItemResult.model_validate_json(line))
            except (ValidationError, ValueError):
                continue
        return found

    def _lines(self, name: str) -> Iterator[bytes]:
        path = self.root / name
        if not self._guard(path):
            return
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise EvalFolderError(f"{path}: unreadable ({exc.strerror or exc})") from None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise EvalFolderError(f"{path}: not a regular file: refused")
            if info.st_size > MAX_LOG_BYTES:
                raise EvalFolderError(f"{path}: over the limit of {MAX_LOG_BYTES} bytes: refused")
            yield from handle

    def append_result(self, result: ItemResult) -> None:
        """One item's record; credentials masked in every form (an answer may quote one)."""
        from argue.redact import redact

        self._append(RESULTS, redact(result.model_dump_json()))

    def batches(self) -> dict[str, BatchRecord]:
        """Every batch recorded, by id: its creation line (its calls) with the latest status,
        counts and failed ids of later lines; a torn or foreign line is skipped."""
        return self.batch_lines()[0]

    def batch_lines(self) -> tuple[dict[str, BatchRecord], list[BatchRecord], list[str]]:
        """The batches (``batches``), the intents recorded (in order), and one line naming
        each line that was skipped because its batch id is malformed (never sent anywhere)."""
        found: dict[str, BatchRecord] = {}
        intents: list[BatchRecord] = []
        problems: list[str] = []
        for number, line in enumerate(self._lines(BATCHES), 1):
            try:
                record = BatchRecord.model_validate_json(line)
            except (ValidationError, ValueError):
                said = _named_batch_id(line)
                if said is not None:
                    problems.append(
                        f"{self.root / BATCHES} line {number}: {said[:80]!r} is not a batch id "
                        "(letters, digits, _ and - only): line skipped, nothing sent for it"
                    )
                continue
            if record.batch_id is None:
                if record.status == INTENT and record.intent is not None:
                    intents.append(record)
                continue
            known = found.get(record.batch_id)
            if known is None:
                found[record.batch_id] = record
            else:
                found[record.batch_id] = known.model_copy(
                    update={
                        "status": record.status,
                        "counts": record.counts or known.counts,
                        "calls": known.calls or record.calls,
                        "intent": known.intent or record.intent,
                        "failed": record.failed or known.failed,
                        "at": record.at,
                    }
                )
        return found, intents, problems

    def append_batch(self, record: BatchRecord) -> None:
        self._append(BATCHES, record.model_dump_json())

    def append_usage(self, usage: Usage) -> None:
        self._append(USAGE, usage.model_dump_json())

    def _append(self, name: str, line: str) -> None:
        """One record, one ``os.write`` on an O_APPEND descriptor, fsynced. A last line torn
        by a crash is closed first (it stays a line of its own, which ``results`` skips). No raw
        control or bidi character is stored (``json_safe``: each is a ``\\uXXXX`` escape, the same
        text to a reader of the JSON, inert to a person who opens the file)."""
        from argue.text.controls import json_safe

        line = json_safe(line)
        self._make_root()
        path = self.root / name
        self._guard(path)
        try:
            # Never through a hard link: a multiply-linked file is first replaced by its copy.
            fd = open_append(self.root, path, what=WHAT)
        except StoreError as exc:
            raise EvalFolderError(str(exc)) from None
        except OSError as exc:
            raise EvalFolderError(f"cannot write {path}: {exc.strerror or exc}") from None
        try:
            info = os.fstat(fd)
            torn = info.st_size > 0 and os.pread(fd, 1, info.st_size - 1) != b"\n"
            data = (("\n" if torn else "") + line + "\n").encode("utf-8")
            written = os.write(fd, data)
            if written != len(data):
                raise EvalFolderError(f"cannot write {path}: short write (disk full?)")
            os.fsync(fd)
        except OSError as exc:
            raise EvalFolderError(f"cannot write {path}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)
