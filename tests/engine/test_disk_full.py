"""Disk full mid-round: one clear error naming the path, nothing more written, committed rounds
intact and resumable once space is back (issue 13 item 5).

Teeth: remove the ``except OSError`` in ``DebateStore.save_text`` and the message test fails (a bare
OSError escapes instead).
"""

from __future__ import annotations

import asyncio
import errno
import json

import pytest

import argue.store.debate_store as debate_store
from argue.engine import DebateRunner
from argue.llm import ScriptedModel
from argue.store import StoreWriteError
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)


def test_a_full_disk_stops_the_debate_with_one_clear_error(new_store, monkeypatch):
    store = new_store("full", rounds=3)
    real_write = debate_store.write_text_atomic

    def full_after_round_one(path, text, **options):
        if path.name == "round_002.json" and path.parent.name == "arguments":
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, text, **options)

    monkeypatch.setattr(debate_store, "write_text_atomic", full_after_round_one)
    runner = DebateRunner(
        store, ScriptedModel(DebateScript(names=NAMES, confidence=_swinging)), ScriptedToolkit()
    )
    with pytest.raises(StoreWriteError) as raised:
        asyncio.run(runner.run())
    message = str(raised.value)
    assert "round_002" in message and "No space left on device" in message
    assert "\n" not in message
    assert store.paths.round_score(1).is_file()
    json.loads(store.paths.round_score(1).read_text())  # round 1 is whole

    monkeypatch.setattr(debate_store, "write_text_atomic", real_write)  # space is back
    resumed = DebateRunner(
        store, ScriptedModel(DebateScript(names=NAMES, confidence=_swinging)), ScriptedToolkit()
    )
    state = asyncio.run(resumed.run())
    assert state.status == "completed"
    assert state.termination == "max_rounds"


def test_a_memory_that_cannot_be_written_is_told_on_the_terminal(new_store):
    store = new_store("no-memory", rounds=1)
    events: list[str] = []

    async def broken_memory(*args, **kwargs) -> str:
        raise OSError(errno.EROFS, "Read-only file system")

    runner = DebateRunner(
        store,
        ScriptedModel(DebateScript(names=NAMES)),
        ScriptedToolkit(),
        reporter=events.append,
        memory_writer=broken_memory,
    )
    state = asyncio.run(runner.run())
    assert state.status == "completed"
    told = [e for e in events if "Read-only file system" in e]
    assert any("episodic archive (shared memory) write: failed" in e for e in told), events
    assert any("memory write of" in e for e in told), events
    synthesis = store.paths.synthesis.read_text()
    assert "episodic archive (shared memory) write" in synthesis
