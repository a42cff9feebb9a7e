"""The only writer of debates/<id>/: config, state, phase records, usage log, lock, stop flag,
inbox."""

from __future__ import annotations

import fcntl
import json
import os
import re
import stat
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from argue.domain import DebateConfig, DebateState, Persona, Usage, utc_now
from argue.files import (
    MAX_LOG_BYTES,
    BackgroundSync,
    BoundedReadError,
    FolderError,
    guard,
    is_regular,
    loads_json,
    open_append,
    read_text_inside,
    refuse_hard_links,
    to_jsonable,
    write_text_atomic,
)
from argue.store.layout import DebatePaths

M = TypeVar("M", bound=BaseModel)

StoreError = FolderError
"""A debate folder is missing, unreadable, unsafe or owned by another runner: the store's name
for :class:`argue.files.FolderError`, so that every refusal at the folder's boundary (a link,
a special file, a cap) is a store error to its callers."""


class DebateLocked(StoreError):
    """Another process runs this debate (it holds the folder's lock)."""


class StoreWriteError(StoreError):
    """A record could not be written (disk full, read-only folder…): nothing else is written
    after it, and what was committed before stays intact and resumable."""

    def __init__(self, path: Path, error: OSError) -> None:
        cause = error.strerror or str(error) or type(error).__name__
        super().__init__(
            f"cannot write {path}: {cause}; committed rounds are intact (resume "
            "once the problem is fixed)"
        )
        self.path = path


# The ids :func:`new_debate_id` gives: argue_YYYYMMDD_HHMMSS, then _2, _3… on a collision.
DEBATE_ID_PATTERN = re.compile(r"argue_[0-9]{8}_[0-9]{6}(?:_[0-9]{1,6})?")


MISSING = object()  # what ``DebateStore._read_json`` returns for a file that does not exist


def new_debate_id(debates_dir: Path, now: datetime | None = None) -> str:
    stamp = (now or datetime.now()).strftime("argue_%Y%m%d_%H%M%S")
    candidate, n = stamp, 1
    while (debates_dir / candidate).exists():
        n += 1
        candidate = f"{stamp}_{n}"
    return candidate


class DebateStore:
    def __init__(self, root: Path) -> None:
        self.paths = DebatePaths(root)
        self._lock_handle: int | None = None
        # Records are in place when save returns (a kill -9 loses none); their fsyncs run in
        # the background and are settled before a commit point and when the lock is released.
        self._sync = BackgroundSync()

    @property
    def debate_id(self) -> str:
        return self.paths.debate_id

    # -- creation and lookup

    @classmethod
    def create(
        cls, debates_dir: Path, config: DebateConfig, personas: Mapping[str, Persona]
    ) -> DebateStore:
        """The whole layout of a new debate: config, state, and per persona its folders, a
        snapshot of its card (resume never depends on the catalog) and empty ledgers."""
        root = debates_dir / config.id
        root.mkdir(parents=True, exist_ok=False)
        store = cls(root)
        store.save(store.paths.config, config)
        store.save_state(DebateState(status="running", pid=os.getpid()))
        for letter, persona in personas.items():
            persona_dir = store.paths.persona_dir(letter)
            for sub in ("research", "colleague_consults", "arguments"):
                (persona_dir / sub).mkdir(parents=True, exist_ok=True)
            store.save(store.paths.persona_snapshot(letter), persona)
            store.save(store.paths.concessions(letter), [])
            store.save(store.paths.confidence(letter), [])
        store.paths.scoring_dir.mkdir(exist_ok=True)
        return store

    def has(self, path: Path) -> bool:
        """A regular file inside the folder; a link or special file there is refused."""
        return guard(self.paths.root, path)

    def discard(self, path: Path) -> None:
        if guard(self.paths.root, path):
            path.unlink(missing_ok=True)

    @classmethod
    def open(cls, debates_dir: Path, debate_id: str) -> DebateStore:
        if not debate_id or "/" in debate_id or "\\" in debate_id or debate_id.startswith("."):
            raise StoreError(f"not a debate id: {debate_id!r}")
        root = debates_dir / debate_id
        if root.is_symlink():
            raise StoreError(f"{root}: a debate folder that is a symbolic link: refused")
        if not is_regular(root, root / "config.json"):
            if os.path.lexists(root / "config.json"):
                guard(root, root / "config.json")  # says why
            raise StoreError(f"no debate {debate_id!r} in {debates_dir}")
        return cls(root)

    # -- typed records

    def _read_json(self, path: Path) -> object:
        """The parsed record, ``MISSING`` when there is no file; over the depth bound is a
        StoreError naming the file (``argue.files``: checked before the parser runs).

        Missing is told by this one read, never by asking again: a record that appears between
        a read that found nothing and a second look (a round's commit point, written by the
        sync thread while ``argue status`` reads) would otherwise be validated as ``null``."""
        text = read_text_inside(self.paths.root, path)
        if text is None:
            return MISSING
        try:
            return loads_json(text, path)
        except BoundedReadError as exc:
            raise StoreError(f"{path}: unreadable record ({exc.reason})") from None

    def load(self, path: Path, model: type[M]) -> M | None:
        try:
            data = self._read_json(path)
            if data is MISSING:
                return None
            return model.model_validate(data)
        except (ValueError, ValidationError, TypeError, OSError, RecursionError) as exc:
            raise StoreError(f"{path}: unreadable record ({type(exc).__name__})") from exc

    def load_if_readable(self, path: Path, model: type[M]) -> M | None:
        """Like ``load``, but a half-written or damaged record counts as missing."""
        try:
            return self.load(path, model)
        except StoreError:
            return None

    def load_list(self, path: Path, model: type[M]) -> list[M]:
        try:
            data = self._read_json(path)
            if data is MISSING:
                return []
            if not isinstance(data, list):
                raise TypeError("not a list")
            return [model.model_validate(item) for item in data]
        except (ValueError, ValidationError, OSError, TypeError, RecursionError) as exc:
            raise StoreError(f"{path}: unreadable record ({type(exc).__name__})") from exc

    def save(self, path: Path, value: object) -> None:
        self.save_text(path, json.dumps(to_jsonable(value), indent=2, ensure_ascii=False) + "\n")

    def save_text(self, path: Path, text: str) -> None:
        """Write ``text`` atomically, credentials masked in every form (``argue.redact``): a
        model's answer that quotes a key is data, and the folder may be shared."""
        from argue.redact import redact

        guard(self.paths.root, path)  # never through a link, never outside the folder
        try:
            write_text_atomic(path, redact(text), durable=False)
        except OSError as exc:
            raise StoreWriteError(path, exc) from exc
        self._sync.later(path)

    def commit(self, path: Path, value: object) -> None:
        """Save a commit point (a round's score) behind every record saved before it: the sync
        thread writes it (durably) once their fsyncs have run, so a power cut never leaves a
        committed round with a record missing, and the next round's calls need not wait for
        the disk (issue 43 item 4). A kill -9 before it is written leaves the round to be
        scored again on resume, from its records (no model call repeated); a write that failed
        is a StoreWriteError at the next settle, before any later commit."""
        from argue.redact import redact

        guard(self.paths.root, path)
        text = redact(json.dumps(to_jsonable(value), indent=2, ensure_ascii=False) + "\n")

        def write() -> None:
            write_text_atomic(path, text)

        self._sync.then(write, path)

    def settle(self) -> None:
        """Wait for the background fsyncs of everything saved so far (a failed one is a
        StoreWriteError naming its file, as a failed write would be)."""
        try:
            self._sync.settle()
        except OSError as exc:
            raise StoreWriteError(Path(exc.filename or self.paths.root), exc) from exc

    def config(self) -> DebateConfig:
        config = self.load(self.paths.config, DebateConfig)
        if config is None:
            raise StoreError(f"{self.paths.config} is missing")
        if config.id != self.debate_id:
            # A renamed or hand-edited folder: its id could not be opened by the name listed.
            raise StoreError(
                f"{self.paths.config}: says id {config.id[:80]!r} but the folder is named "
                f"{self.debate_id!r}: refused"
            )
        return config

    def save_config(self, config: DebateConfig) -> None:
        self.save(self.paths.config, config)

    def state(self) -> DebateState:
        """The runner's state; a missing or damaged state.json is rebuilt from the committed
        rounds (the scoring files are the record of what was finished)."""
        why = "missing"
        try:
            state = self.load(self.paths.state, DebateState)
        except StoreError as exc:
            state, why = None, str(exc).removeprefix(f"{self.paths.state}: ")
        if state is not None:
            return state
        rounds = self.committed_rounds()
        _notice(
            self.paths.state,
            f"warning: {self.paths.state} {why}; rebuilt from the committed rounds "
            f"({max(rounds, default=0)} committed)",
        )
        return DebateState(
            status="interrupted",
            round=max(rounds, default=0),
            phase="scoring" if rounds else "framing",
            error=f"{self.paths.state.name} was missing or unreadable; "
            "rebuilt from the committed rounds",
        )

    def save_state(self, state: DebateState) -> None:
        """Write state.json. A state that ends the rounds (synthesis, or any status but
        running) waits for the pending commit points first: a reader that sees it (``argue
        watch``, ``status``) then finds every round's score on disk, as it did before commit
        points were written in the background."""
        failed: StoreWriteError | None = None
        if state.status != "running" or state.phase == "synthesis":
            try:
                self.settle()
            except StoreWriteError as exc:
                if state.status == "running":
                    raise
                failed = exc  # how the run ended is still written, then the failure raised
        state.updated_at = utc_now()
        self.save(self.paths.state, state)
        if failed is not None:
            raise failed

    def update_state(self, **changes: object) -> DebateState:
        state = self.state().model_copy(update=changes)
        self.save_state(state)
        return state

    def committed_rounds(self) -> list[int]:
        if not guard(self.paths.root, self.paths.scoring_dir, folder=True):
            return []
        rounds = []
        for path in self.paths.scoring_dir.glob("round_*.json"):
            match = re.fullmatch(r"round_(\d{3})\.json", path.name)
            if match:
                rounds.append(int(match.group(1)))
        return sorted(rounds)

    # -- usage: one record per model answer, appended and fsynced as it happens

    def append_usage(self, usage: Usage) -> None:
        """Append one answer's Usage to usage.jsonl; it is in the file when this returns (a
        kill -9 loses none), on the device once its background fsync ran (settled before each
        round's commit point).

        A folder from before usage.jsonl existed has its usage.json records copied in first,
        so nothing is lost or counted twice. A last line torn by a crash is closed first (it
        stays a line of its own, which ``load_usage`` skips)."""
        path = self.paths.usage_log
        try:
            self._append_usage(path, usage)
        except OSError as exc:
            raise StoreWriteError(path, exc) from exc

    def _append_usage(self, path: Path, usage: Usage) -> None:
        if not guard(self.paths.root, path):
            legacy = self.load_list(self.paths.usage, Usage)
            write_text_atomic(path, "".join(r.model_dump_json() + "\n" for r in legacy))
        # Never through a hard link: a multiply-linked file is first replaced by its own copy.
        fd = open_append(self.paths.root, path)
        try:
            size = os.fstat(fd).st_size
            torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
            line = ("\n" if torn else "") + usage.model_dump_json() + "\n"
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
        self._sync.later(path, folder=False)

    def load_usage(self) -> list[Usage]:
        """Every recorded answer: usage.jsonl, or usage.json in a folder from before it.

        A line that does not parse (the last one, torn by a crash) is skipped, not fatal."""
        path = self.paths.usage_log
        if not guard(self.paths.root, path):
            return self.load_list(self.paths.usage, Usage)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError as exc:
            raise StoreError(f"{path}: unreadable record ({type(exc).__name__})") from exc
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise StoreError(f"{path}: not a regular file")
            if info.st_size > MAX_LOG_BYTES:
                raise StoreError(f"{path}: over the limit of {MAX_LOG_BYTES} bytes: refused")
            data = handle.read(MAX_LOG_BYTES)
        records = []
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            try:
                records.append(Usage.model_validate_json(line))
            except ValidationError:
                continue
        return records

    # -- ownership

    def acquire_lock(self) -> None:
        """Take the runner lock (flock; released by the OS if the process dies)."""
        guard(self.paths.root, self.paths.lock)
        try:
            fd = os.open(self.paths.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise StoreError(f"{self.paths.lock}: cannot open ({exc.strerror or exc})") from exc
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise StoreError(f"{self.paths.lock}: not a regular file: refused")
        try:
            # The pid is written into it: never through a hard link to a file outside.
            refuse_hard_links(self.paths.lock, info.st_nlink)
        except StoreError:
            os.close(fd)
            raise
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise DebateLocked(f"debate {self.debate_id} is being run by another process") from exc
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_handle = fd
        self._sweep_temp_files()

    def _sweep_temp_files(self) -> None:
        """Temp files of writes a crash interrupted (``.name.XXXX.tmp``): never records, so the
        lock holder removes them. Links are not followed; nothing outside is touched."""
        for folder, dirs, files in os.walk(self.paths.root, followlinks=False):
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
            for name in files:
                path = Path(folder) / name
                if name.startswith(".") and name.endswith(".tmp") and not path.is_symlink():
                    path.unlink(missing_ok=True)

    def release_lock(self) -> None:
        """Release the runner lock, once every pending fsync ran (the next holder finds the
        records on the device, not only in place)."""
        try:
            self.settle()
        finally:
            self._release()

    def _release(self) -> None:
        if self._lock_handle is not None:
            fcntl.flock(self._lock_handle, fcntl.LOCK_UN)
            os.close(self._lock_handle)
            self._lock_handle = None

    def is_locked(self) -> bool:
        """True when some live process holds the runner lock."""
        if not is_regular(self.paths.root, self.paths.lock):
            return False
        try:
            fd = os.open(self.paths.lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        finally:
            os.close(fd)

    # -- stop flag and moderator inbox

    def request_stop(self) -> None:
        self.save_text(self.paths.stop_flag, utc_now() + "\n")

    def stop_requested(self) -> bool:
        return os.path.lexists(self.paths.stop_flag)

    def clear_stop(self) -> None:
        if os.path.lexists(self.paths.stop_flag):
            self.discard(self.paths.stop_flag)

    def post_note(self, text: str) -> Path:
        guard(self.paths.root, self.paths.inbox, folder=True)
        self.paths.inbox.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d%H%M%S%f")
        path = self.paths.inbox / f"{stamp}.txt"
        self.save_text(path, text)
        return path

    def round_started(self, round_no: int) -> bool:
        """Whether a prompt that reads moderator notes (research plan, argument) may already
        have been answered in ``round_no``: any of its plan, research or argument is on disk."""
        for letter in self.config().personas:
            for path in (
                self.paths.research_plan(letter, round_no),
                self.paths.research(letter, round_no),
                self.paths.argument(letter, round_no),
            ):
                if os.path.lexists(path):
                    return True
        return False

    def first_round_for_a_new_note(self) -> tuple[int | None, str]:
        """The first round whose prompts will see a note posted now, and why, in plain words.

        Mirrors :meth:`drain_inbox`: a running round has already read the inbox, so a note
        posted during it binds the next round; a stopped debate resumes at its first uncommitted
        round, which reads the note unless it had already started. ``None``: no round will.
        """
        last = self.config().max_rounds
        state = self.state()
        if state.status in ("completed", "failed"):
            return None, f"the debate is {state.status}"
        if state.phase == "synthesis" and state.termination not in (None, "stopped"):
            return None, f"the debate has ended ({state.termination}) and is writing its synthesis"
        if state.status == "running" and self.is_locked():
            if state.round < 1 or state.phase == "framing":
                return 1, "round 1 has not started yet"
            if state.round >= last:
                return None, f"round {state.round} is the last and is already under way"
            return state.round + 1, f"round {state.round} is already under way"
        resume_at = max(self.committed_rounds(), default=0) + 1
        if resume_at > last:
            return None, f"all {last} rounds are done"
        if not self.round_started(resume_at):
            return resume_at, f"round {resume_at} has not started yet"
        if resume_at >= last:
            return None, f"round {resume_at} is the last and had already started"
        return resume_at + 1, f"round {resume_at} had already started"

    def moderator_notes(self) -> list[dict[str, object]]:
        path = self.paths.moderator_notes
        try:
            notes = self._read_json(path)
        except (ValueError, OSError, RecursionError) as exc:
            raise StoreError(f"{path}: unreadable record ({type(exc).__name__})") from exc
        if notes is MISSING or notes is None:
            return []
        if not isinstance(notes, list) or not all(
            isinstance(n, dict) and "text" in n for n in notes
        ):
            raise StoreError(f"{path}: unreadable record (not a list of notes)")
        return notes

    def drain_inbox(self, round_no: int, *, debate_ends: bool = False) -> list[dict[str, object]]:
        """Move inbox notes into moderator_notes.json, called as round ``round_no`` starts.

        Each note records ``from_round``: the first round whose prompts really see it. That is
        ``round_no`` unless the round had already started (a resumed round: some of its prompts
        were already sent without the note), then the next round. With no such round (the
        last round, or ``debate_ends`` after it), ``from_round`` is None and ``read_by`` says
        in plain words that no round read it.
        """
        notes = self.moderator_notes()
        if not guard(self.paths.root, self.paths.inbox, folder=True):
            return notes
        new = sorted(self.paths.inbox.glob("*.txt"))
        if not new:
            return notes
        last = self.config().max_rounds
        started = debate_ends or self.round_started(round_no)
        first: int | None = round_no + 1 if started else round_no
        if debate_ends or round_no + int(started) > last:
            first = None
        for path in new:
            note: dict[str, object] = {
                "from_round": first,
                "text": (read_text_inside(self.paths.root, path) or "").strip(),
            }
            if started:
                note["read_by"] = (
                    f"posted after round {round_no} had started; first read in round {first}"
                    if first is not None
                    else f"posted after round {round_no} had started and the debate ended "
                    "with that round: no round read it"
                )
            notes.append(note)
        self.save(self.paths.moderator_notes, notes)
        for path in new:
            self.discard(path)
        return notes


NoticeHandler = Callable[[str], None]


class ArgueWarning(UserWarning):
    """A one-line notice from argue to a Python caller (a state.json rebuilt from the
    rounds…): the library prints nothing itself; filter or record these with ``warnings``."""


def _warn_notice(line: str) -> None:
    warnings.warn(line, ArgueWarning, stacklevel=2)


def stderr_notice(line: str) -> None:
    """The CLI's handler: the notice as a plain line on stderr."""
    print(line, file=sys.stderr, flush=True)


_notice_handler: NoticeHandler = _warn_notice
_noticed: set[str] = set()


def set_notice_handler(handler: NoticeHandler | None) -> NoticeHandler:
    """Where the store's one-line notices go (a state.json rebuilt from the rounds…): an
    ``ArgueWarning`` through ``warnings`` unless a caller routes them (the CLI: stderr;
    ``None`` restores the warning). Returns the previous handler."""
    global _notice_handler
    previous = _notice_handler
    _notice_handler = handler or _warn_notice
    return previous


def _notice(path: Path, line: str) -> None:
    """Say ``line`` once per file and process (the state is rebuilt on every read)."""
    key = str(path)
    if key in _noticed:
        return
    _noticed.add(key)
    _notice_handler(" ".join(line.split()))


def iter_debates(debates_dir: Path) -> Iterator[DebateStore]:
    if not debates_dir.is_dir():
        return
    for root in sorted(debates_dir.iterdir()):
        # A linked folder is not followed; `status` reports the others.
        if not root.is_symlink() and root.is_dir() and os.path.lexists(root / "config.json"):
            yield DebateStore(root)
