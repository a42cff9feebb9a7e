"""Memory recall finds CJK words inside sentences and tags; version-2 databases migrate."""

# Teeth (checked once): FtsIndex(cjk=False) fails all 3 tests; no migration, the version-2 one.

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from argue.commands.memory import memory_app
from argue.skills.memory import MemoryStore
from argue.skills.memory.store import SCHEMA_VERSION


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "memory.sqlite3") as store:
        yield store


def test_recall_finds_a_chinese_word_inside_a_sentence(memory: MemoryStore) -> None:
    zh = memory.learn("tomas", "我们需要脱碳技术来应对气候变化。")
    ja = memory.learn("tomas", "東京で国際会議があります。")
    memory.learn("tomas", "Zebras graze on the savanna.")
    tagged = memory.learn("tomas", "Carbon prices rose in 2025.", tags=["碳价格"])

    assert [item.id for item in memory.recall("脱碳", persona="tomas").items] == [zh]
    assert [item.id for item in memory.recall("東京", persona="tomas").items] == [ja]
    assert [item.id for item in memory.recall("价格", persona="tomas").items] == [tagged]
    assert memory.recall("脱碳", persona="embry").status == "empty"  # visibility still holds


def test_memory_recall_command_finds_it(tmp_path: Path) -> None:
    app = typer.Typer()
    app.add_typer(memory_app, name="memory")
    runner = CliRunner()
    learned = runner.invoke(
        app, ["memory", "learn", "政府正在讨论脱碳措施。", "--persona", "tomas"]
    )
    assert learned.exit_code == 0
    result = runner.invoke(app, ["memory", "recall", "脱碳", "--persona", "tomas"])
    assert result.exit_code == 0 and "政府正在讨论脱碳措施" in result.stdout


_VERSION_2 = """
CREATE TABLE memories (
    id INTEGER PRIMARY KEY AUTOINCREMENT, persona TEXT,
    scope TEXT NOT NULL CHECK (scope IN ('persona', 'shared')), kind TEXT NOT NULL,
    text TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '', debate_id TEXT, round_no INTEGER,
    created_at TEXT NOT NULL, origin TEXT NOT NULL DEFAULT 'model',
    CHECK (scope = 'shared' OR persona IS NOT NULL)
);
CREATE INDEX memories_by_persona ON memories (persona, scope);
CREATE VIRTUAL TABLE memories_fts USING fts5(
    text, tags, content='memories', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_after_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;
CREATE TRIGGER memories_after_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts(memories_fts, rowid, text, tags)
    VALUES ('delete', old.id, old.text, old.tags);
END;
INSERT INTO memories (persona, scope, kind, text, tags, created_at, origin) VALUES
    ('tomas', 'persona', 'claim', '我们需要脱碳技术来应对气候变化。', '能源', '2026-01-01',
     'operator'),
    (NULL, 'shared', 'debate', 'The archive holds an old conclusion on savanna herds.', '',
     '2026-01-02', 'model');
PRAGMA user_version = 2;
"""


def test_a_version_2_memory_is_migrated_and_reindexed(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(_VERSION_2)
    conn.close()

    with MemoryStore(path) as memory:
        assert [item.id for item in memory.recall("脱碳", persona="tomas").items] == ["mem:1"]
        assert [item.id for item in memory.recall("能源", persona="tomas").items] == ["mem:1"]
        assert [item.id for item in memory.recall("savanna").items] == ["mem:2"]
        assert memory.get("mem:1").origin == "operator"  # type: ignore[union-attr]
        conn = memory._connection()
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
        check = "INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)"
        conn.execute(check)
        assert memory.forget("mem:1")
        conn.execute(check)
        assert memory.recall("脱碳", persona="tomas").status == "empty"
        new_id = memory.learn("tomas", "新的脱碳计划。")
        assert [item.id for item in memory.recall("脱碳", persona="tomas").items] == [new_id]
