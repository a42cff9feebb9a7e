"""A record that appears while it is being read is missing or whole, never "unreadable".

``argue status`` (or an MCP client) reads a running debate's folder while the run writes it;
a round's commit point is written by the sync thread. Before the fix, ``load`` told a missing
file apart from a ``null`` one by asking ``has(path)`` after the read: a file written between
the read (nothing there) and that second look was validated as ``null`` and the status call
failed with "scoring/round_001.json: unreadable record (ValidationError)" (seen once in CI).

Teeth: ``load`` back to ``if data is None and not self.has(path)`` fails this test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argue.domain import JudgeVerdictRecord, RoundScore
from argue.store import DebateStore
from argue.store import debate_store as module


def test_a_record_written_between_the_read_and_a_second_look_is_missing_not_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DebateStore(tmp_path / "argue_20260101_000000")
    store.paths.root.mkdir()
    path = store.paths.round_score(1)
    score = RoundScore(
        round=1, personas={}, judge=JudgeVerdictRecord(), novel_claims=0, new_verified_evidence=0
    )
    reads = []

    def read_then_the_writer_lands(root: Path, target: Path, **options: object) -> str | None:
        reads.append(target)
        store.save(path, score)  # the commit lands just after this read found nothing
        return None

    monkeypatch.setattr(module, "read_text_inside", read_then_the_writer_lands)
    assert store.load(path, RoundScore) is None  # missing at the read: missing
    assert store.load_list(path, RoundScore) == []
    monkeypatch.undo()
    assert store.load(path, RoundScore) == score  # the next look finds it whole
    assert reads == [path, path]
