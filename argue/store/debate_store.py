"""The only writer of debates/<id>/: config, state, phase records, lock, stop flag, inbox."""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from argue.domain import DebateConfig, DebateState, Persona, utc_now
from argue.store._atomic import read_json, write_json_atomic, write_text_atomic
from argue.store.layout import DebatePaths

M = TypeVar("M", bound=BaseModel)
DEBATE_ID_PATTERN = re.compile(r"^argue_\d{8}_\d{6}(_\d+)?$")


class StoreError(Exception):
    """A debate folder is missing, unreadable or owned by another runner."""


class DebateLocked(StoreError):
    pass


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
        write_json_atomic(store.paths.config, config)
        store.save_state(DebateState(status="running", pid=os.getpid()))
        for letter, persona in personas.items():
            persona_dir = store.paths.persona_dir(letter)
            for sub in ("research", "colleague_consults", "arguments"):
                (persona_dir / sub).mkdir(parents=True, exist_ok=True)
            write_json_atomic(store.paths.persona_snapshot(letter), persona)
            write_json_atomic(store.paths.concessions(letter), [])
            write_json_atomic(store.paths.confidence(letter), [])
        store.paths.scoring_dir.mkdir(exist_ok=True)
        return store

    def has(self, path: Path) -> bool:
        return path.is_file()

    def discard(self, path: Path) -> None:
        path.unlink(missing_ok=True)

    @classmethod
    def open(cls, debates_dir: Path, debate_id: str) -> DebateStore:
        if not debate_id or "/" in debate_id or "\\" in debate_id or debate_id.startswith("."):
            raise StoreError(f"not a debate id: {debate_id!r}")
        root = debates_dir / debate_id
        if not (root / "config.json").is_file():
            raise StoreError(f"no debate {debate_id!r} in {debates_dir}")
        return cls(root)

    # -- typed records

    def load(self, path: Path, model: type[M]) -> M | None:
        if not path.is_file():
            return None
        try:
            return model.model_validate(read_json(path))
        except (json.JSONDecodeError, ValidationError, OSError) as exc:
            raise StoreError(f"{path}: unreadable record ({type(exc).__name__})") from exc

    def load_if_readable(self, path: Path, model: type[M]) -> M | None:
        """Like ``load``, but a half-written or damaged record counts as missing."""
        try:
            return self.load(path, model)
        except StoreError:
            return None

    def load_list(self, path: Path, model: type[M]) -> list[M]:
        if not path.is_file():
            return []
        try:
            return [model.model_validate(item) for item in read_json(path)]
        except (json.JSONDecodeError, ValidationError, OSError, TypeError) as exc:
            raise StoreError(f"{path}: unreadable record ({type(exc).__name__})") from exc

    def save(self, path: Path, value: object) -> None:
        write_json_atomic(path, value)

    def save_text(self, path: Path, text: str) -> None:
        write_text_atomic(path, text)

    def config(self) -> DebateConfig:
        config = self.load(self.paths.config, DebateConfig)
        if config is None:
            raise StoreError(f"{self.paths.config} is missing")
        return config

    def save_config(self, config: DebateConfig) -> None:
        write_json_atomic(self.paths.config, config)

    def state(self) -> DebateState:
        """The runner's state; a missing or damaged state.json is rebuilt from the committed
        rounds (the scoring files are the record of what was finished)."""
        try:
            state = self.load(self.paths.state, DebateState)
        except StoreError:
            state = None
        if state is not None:
            return state
        rounds = self.committed_rounds()
        return DebateState(
            status="interrupted",
            round=max(rounds, default=0),
            phase="scoring" if rounds else "framing",
            error=f"{self.paths.state.name} was missing or unreadable; "
            "rebuilt from the committed rounds",
        )

    def save_state(self, state: DebateState) -> None:
        state.updated_at = utc_now()
        write_json_atomic(self.paths.state, state)

    def update_state(self, **changes: object) -> DebateState:
        state = self.state().model_copy(update=changes)
        self.save_state(state)
        return state

    def committed_rounds(self) -> list[int]:
        if not self.paths.scoring_dir.is_dir():
            return []
        rounds = []
        for path in self.paths.scoring_dir.glob("round_*.json"):
            match = re.fullmatch(r"round_(\d{3})\.json", path.name)
            if match:
                rounds.append(int(match.group(1)))
        return sorted(rounds)

    # -- ownership

    def acquire_lock(self) -> None:
        """Take the runner lock (flock; released by the OS if the process dies)."""
        fd = os.open(self.paths.lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(fd)
            raise DebateLocked(f"debate {self.debate_id} is being run by another process") from exc
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_handle = fd

    def release_lock(self) -> None:
        if self._lock_handle is not None:
            fcntl.flock(self._lock_handle, fcntl.LOCK_UN)
            os.close(self._lock_handle)
            self._lock_handle = None

    def is_locked(self) -> bool:
        """True when some live process holds the runner lock."""
        if not self.paths.lock.exists():
            return False
        fd = os.open(self.paths.lock, os.O_RDONLY)
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
        write_text_atomic(self.paths.stop_flag, utc_now() + "\n")

    def stop_requested(self) -> bool:
        return self.paths.stop_flag.exists()

    def clear_stop(self) -> None:
        self.paths.stop_flag.unlink(missing_ok=True)

    def post_note(self, text: str) -> Path:
        self.paths.inbox.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d%H%M%S%f")
        path = self.paths.inbox / f"{stamp}.txt"
        write_text_atomic(path, text)
        return path

    def moderator_notes(self) -> list[dict[str, object]]:
        path = self.paths.moderator_notes
        if not path.is_file():
            return []
        try:
            notes = read_json(path)
        except (json.JSONDecodeError, OSError, UnicodeDecodeError) as exc:
            raise StoreError(f"{path}: unreadable record ({type(exc).__name__})") from exc
        if not isinstance(notes, list) or not all(
            isinstance(n, dict) and "text" in n for n in notes
        ):
            raise StoreError(f"{path}: unreadable record (not a list of notes)")
        return notes

    def drain_inbox(self, round_no: int) -> list[dict[str, object]]:
        """Move inbox notes into moderator_notes.json; they bind from ``round_no`` on."""
        notes = self.moderator_notes()
        if not self.paths.inbox.is_dir():
            return notes
        new = sorted(self.paths.inbox.glob("*.txt"))
        if not new:
            return notes
        for path in new:
            notes.append({"from_round": round_no, "text": path.read_text(encoding="utf-8").strip()})
        write_json_atomic(self.paths.moderator_notes, notes)
        for path in new:
            path.unlink(missing_ok=True)
        return notes


def iter_debates(debates_dir: Path) -> Iterator[DebateStore]:
    if not debates_dir.is_dir():
        return
    for root in sorted(debates_dir.iterdir()):
        if root.is_dir() and (root / "config.json").is_file():
            yield DebateStore(root)
