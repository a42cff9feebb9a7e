"""A state that ends the rounds is written behind the round's commit point.

A round's score (its commit point) is written by the sync thread once the round's records are
on the device; the runner goes on without waiting. A reader that trusts state.json (``argue
watch`` prints the termination line at the first state that is not running, ``argue status``
shows a completed debate) must find every round's score once it sees the ending, so
``save_state`` settles the pending commits before any state that is not "running" or whose
phase is "synthesis". Seen in CI: ``argue watch`` printed the termination line without
"Round 2 scored" because the completed state landed before round 2's score.

Teeth: drop the settle in ``DebateStore.save_state`` and the score is not on disk yet when
the ending is.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from argue.domain import DebateState, JudgeVerdictRecord, RoundScore
from argue.store import DebateStore


def _score() -> RoundScore:
    return RoundScore(
        round=1, personas={}, judge=JudgeVerdictRecord(), novel_claims=0, new_verified_evidence=0
    )


@pytest.mark.parametrize(
    "ending",
    [
        {"status": "completed", "phase": "synthesis"},
        {"status": "running", "phase": "synthesis"},
        {"status": "stopped", "phase": "scoring"},
        {"status": "failed", "phase": "rebuttal"},
    ],
)
def test_the_ending_is_written_only_once_the_pending_commit_points_are(
    tmp_path: Path, ending: dict[str, str]
) -> None:
    store = DebateStore(tmp_path / "argue_20260101_000000")
    store.paths.root.mkdir()
    store.paths.scoring_dir.mkdir()
    release = threading.Event()
    # The sync thread is busy with an earlier fsync when the round is committed.
    store._sync.then(lambda: release.wait(0.5) and None, store.paths.root)
    store.commit(store.paths.round_score(1), _score())
    store.save_state(DebateState(**ending))
    assert store.has(store.paths.round_score(1))
    loaded = store.load(store.paths.round_score(1), RoundScore)
    assert loaded is not None and loaded.round == 1
    release.set()


def test_a_running_state_does_not_wait_for_the_commit_points(tmp_path: Path) -> None:
    store = DebateStore(tmp_path / "argue_20260101_000000")
    store.paths.root.mkdir()
    store.paths.scoring_dir.mkdir()
    release = threading.Event()
    store._sync.then(lambda: release.wait(30) and None, store.paths.root)
    store.commit(store.paths.round_score(1), _score())
    # The next round starts while the score is still queued: that is the point of commits.
    store.save_state(DebateState(status="running", round=2, phase="research"))
    assert not store.has(store.paths.round_score(1))
    release.set()
    store.settle()
    assert store.has(store.paths.round_score(1))
