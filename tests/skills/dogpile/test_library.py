from __future__ import annotations

import sys

import pytest

from argue.skills.dogpile.sources import library
from tests.skills.dogpile.conftest import FakeLibrary, library_item


async def test_passes_library_items_through(fake_library: FakeLibrary) -> None:
    fake_library.items = [library_item(7, n, "On Debate", page=n + 1) for n in range(4)]

    result = await library.search("debate", limit=2)

    assert result.status == "ok"
    assert result.skill == "library"
    assert [item.id for item in result.items] == ["library:7:0", "library:7:1"]
    assert result.items[0].locator == "p. 1"
    assert fake_library.calls == [("debate", 2, None)]


async def test_client_is_accepted_and_ignored(fake_library: FakeLibrary) -> None:
    result = await library.search("debate", client=None, limit=3)
    assert result.status == "empty"


async def test_crash_in_library_is_failed(fake_library: FakeLibrary) -> None:
    fake_library.error = RuntimeError("database is locked")
    result = await library.search("debate", limit=3)
    assert result.status == "failed"
    assert result.note == "library: search failed (RuntimeError: database is locked)"


async def test_missing_library_skill_is_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "argue.skills.library", None)  # makes the import raise
    result = await library.search("debate", limit=3)
    assert result.status == "failed"
    assert result.note.startswith("library: library skill unavailable (")


async def test_empty_real_library_is_empty(tmp_path) -> None:
    result = await library.search("debate", limit=3, db_path=tmp_path / "library.sqlite3")
    assert result.status == "empty", result.note
    assert result.items == []
