"""Issue 43 item 4: the store's fsyncs off the event loop, its guarantees kept.

A record is complete and in place when ``save`` returns (a kill -9 loses none, a resume reads it
whole); its fsync (file, then folder) runs on the store's one sync thread, in order; a round's
commit point is written by that thread once every record saved before it is on the device (the
next round's calls do not wait for it); a sync that
failed is a ``StoreWriteError`` naming its file at the next settle; and a run ends (the lock
released) with nothing left to sync.

Teeth (each broken on purpose once, the test named failed):
- ``commit`` writing at once (``self.save(path, value)``) instead of behind the syncs →
  ``test_a_commit_point_is_written_after_every_earlier_record_is_synced``;
- ``save_text`` calling ``write_text_atomic(..., durable=True)`` (fsync on the caller's thread)
  → ``test_a_save_is_in_place_at_once_and_synced_on_the_sync_thread``;
- ``release_lock`` without its settle → ``test_a_debate_ends_with_every_file_synced``.
"""

from __future__ import annotations

import errno
import json
import threading
import time

import pytest

from argue import files
from argue.store import StoreWriteError, debate_store
from tests.engine.script import DebateScript

NAMES = {"Embry": "A", "Horus": "B"}


def _record_syncs(monkeypatch) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(path, thread name) of every background sync, each slowed a little so order shows."""
    seen: list[tuple[str, str]] = []
    real = files._fsync_path

    def slow(path, folder):  # type: ignore[no-untyped-def]
        time.sleep(0.01)
        real(path, folder)
        seen.append((str(path), threading.current_thread().name))

    monkeypatch.setattr(files, "_fsync_path", slow)
    return seen


def test_a_save_is_in_place_at_once_and_synced_on_the_sync_thread(new_store, monkeypatch):
    store = new_store("sync")
    seen = _record_syncs(monkeypatch)
    callers: list[str] = []
    real_fsync = files.os.fsync

    def fsync(fd: int) -> None:
        callers.append(threading.current_thread().name)
        real_fsync(fd)

    monkeypatch.setattr(files.os, "fsync", fsync)
    path = store.paths.root / "scoring" / "note.json"
    store.save(path, {"a": 1})
    assert json.loads(path.read_text(encoding="utf-8")) == {"a": 1}  # in place at once
    store.settle()
    assert [p for p, _ in seen] == [str(path)]
    assert all(name.startswith("fsync") for _, name in seen)
    assert callers and all(name.startswith("fsync") for name in callers), callers


def test_a_commit_point_is_written_after_every_earlier_record_is_synced(new_store, monkeypatch):
    store = new_store("commit")
    seen = _record_syncs(monkeypatch)
    records = [store.paths.root / "arguments" / f"r{i}.json" for i in range(3)]
    for path in records:
        store.save(path, {"path": path.name})
    synced_before_commit: list[str] = []
    real_write = debate_store.write_text_atomic

    def write(path, text, **options):  # type: ignore[no-untyped-def]
        if path.name == "round_001.json":
            synced_before_commit.extend(p for p, _ in seen)
        real_write(path, text, **options)

    monkeypatch.setattr(debate_store, "write_text_atomic", write)
    store.commit(store.paths.round_score(1), {"round": 1})
    store.settle()
    assert set(map(str, records)) <= set(synced_before_commit), synced_before_commit
    assert json.loads(store.paths.round_score(1).read_text(encoding="utf-8")) == {"round": 1}


def test_a_failed_sync_is_a_store_write_error_naming_its_file(new_store, monkeypatch):
    store = new_store("failed")

    def broken(path, folder):  # type: ignore[no-untyped-def]
        raise OSError(errno.EIO, "Input/output error", str(path))

    monkeypatch.setattr(files, "_fsync_path", broken)
    path = store.paths.root / "arguments" / "x.json"
    store.save(path, {"x": 1})
    with pytest.raises(StoreWriteError, match=r"cannot write .*x\.json: Input/output error"):
        store.settle()
    store.settle()  # told once: nothing pending any more


def test_a_debate_ends_with_every_file_synced(run_debate, monkeypatch):
    seen = _record_syncs(monkeypatch)
    run = run_debate(rounds=2, script=DebateScript(names=NAMES))
    assert run.state.status == "completed"
    assert run.store._sync.pending() == 0
    synced = {p for p, _ in seen}
    root = run.store.paths.root
    written = {
        str(p)
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith(".") and p.suffix in (".json", ".jsonl", ".md")
    }
    # The commit points are written durably by the sync thread itself (``commit``).
    commits = {str(run.store.paths.round_score(n)) for n in (1, 2)}
    assert commits <= written
    assert written - commits <= synced, sorted(written - commits - synced)[:5]
