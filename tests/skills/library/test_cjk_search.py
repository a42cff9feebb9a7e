"""The library finds Chinese, Japanese and Korean words inside sentences; old databases migrate."""

# Teeth (checked once): FtsIndex(cjk=False) or no migration fails the CJK and version-1 tests.

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from argue.commands.library import library_app
from argue.skills._fts import FtsIndex, cjk_snippet, cjk_terms
from argue.skills.library import LibraryError, LibraryStore
from argue.skills.library.store import SCHEMA_VERSION

ZH = "我们需要脱碳技术来应对气候变化。政府正在讨论新的支持措施。"
JA = "東京で国際会議があります。再生可能エネルギーについて話し合います。"
KO = "서울에서 국제 회의가 있습니다. 재생 에너지에 대해 이야기합니다."
EN = "Zebras graze on the savanna while lions rest in the shade."


@pytest.fixture
def library(tmp_path: Path) -> Iterator[LibraryStore]:
    with LibraryStore(tmp_path / "library.sqlite3") as store:
        yield store


def add_text(library: LibraryStore, folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return library.add(path).doc_id


@pytest.mark.parametrize(
    ("query", "wanted"),
    [
        ("脱碳", "zh"),  # a two-character word inside a sentence
        ("气候变化", "zh"),  # a four-character word: its three bigrams
        ("碳", "zh"),  # a single character
        ("東京", "ja"),
        ("エネルギー", "ja"),
        ("서울", "ko"),  # Korean: the word carries a particle (서울에서)
        ("에너지", "ko"),
        ("savanna", "en"),
    ],
)
def test_cjk_words_are_found_inside_sentences(
    library: LibraryStore, tmp_path: Path, query: str, wanted: str
) -> None:
    ids = {
        "zh": add_text(library, tmp_path, "zh.txt", ZH),
        "ja": add_text(library, tmp_path, "ja.txt", JA),
        "ko": add_text(library, tmp_path, "ko.txt", KO),
        "en": add_text(library, tmp_path, "en.txt", EN),
    }
    hits = library.search(query)
    assert [hit.doc_id for hit in hits] == [ids[wanted]]
    assert hits[0].score == 1.0


def test_the_snippet_marks_the_cjk_word(library: LibraryStore, tmp_path: Path) -> None:
    add_text(library, tmp_path, "zh.txt", ZH)
    [hit] = library.search("脱碳")
    assert "**脱碳**" in hit.snippet
    assert cjk_snippet("abc脱碳def", ["脱碳"], 6) == "…bc**脱碳**de…"
    assert cjk_snippet("no match", ["脱碳"], 6) is None


def test_mixed_query_and_title_in_cjk(library: LibraryStore, tmp_path: Path) -> None:
    doc_id = add_text(library, tmp_path, "气候报告.txt", "CO2 emissions fell. " + ZH)
    assert [hit.doc_id for hit in library.search("CO2 脱碳")] == [doc_id]
    assert [hit.doc_id for hit in library.search("报告")] == [doc_id]  # from the title


def test_cjk_terms_are_bigrams_then_characters() -> None:
    assert cjk_terms("脱碳技术 and more") == "脱碳 碳技 技术 脱 碳 技 术"
    assert cjk_terms("ｶﾀｶﾅ") == "カタ タカ カナ カ タ カ ナ"  # half-width katakana: NFKC
    assert cjk_terms("no CJK at all") == ""


def test_library_search_command_finds_the_chinese_word(tmp_path: Path) -> None:
    path = tmp_path / "carbon.txt"
    path.write_text(ZH, encoding="utf-8")
    app = typer.Typer()
    app.add_typer(library_app, name="library")
    runner = CliRunner()
    assert runner.invoke(app, ["library", "add", str(path)]).exit_code == 0
    result = runner.invoke(app, ["library", "search", "脱碳"])
    assert result.exit_code == 0
    assert "carbon" in result.stdout and "**脱碳**" in result.stdout


# ------------------------------------------------------------------ migration from version 1

_VERSION_1 = """
CREATE TABLE documents (
    doc_id TEXT PRIMARY KEY, title TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,
    size_bytes INTEGER NOT NULL, chunk_count INTEGER NOT NULL, added_at TEXT NOT NULL
);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY, doc_id TEXT NOT NULL REFERENCES documents(doc_id),
    chunk_no INTEGER NOT NULL, locator TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
    UNIQUE (doc_id, chunk_no)
);
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    body, title, content='chunks', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, body, title) VALUES (new.id, new.body, new.title);
END;
CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, body, title)
    VALUES ('delete', old.id, old.body, old.title);
END;
INSERT INTO documents VALUES
    ('aaaa', 'Carbon notes', 'txt', '/gone/carbon.txt', 90, 2, '2026-01-01'),
    ('bbbb', 'Savanna', 'md', '/gone/savanna.md', 60, 1, '2026-01-02');
INSERT INTO chunks (doc_id, chunk_no, locator, title, body) VALUES
    ('aaaa', 1, 'line 1', 'Carbon notes', '我们需要脱碳技术来应对气候变化。'),
    ('aaaa', 2, 'line 3', 'Carbon notes', '政府正在讨论新的支持措施。'),
    ('bbbb', 1, '§ Herds', 'Savanna', 'Zebras graze on the savanna.');
PRAGMA user_version = 1;
"""


def version_1_library(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(_VERSION_1)
    conn.close()
    return path


def check_index(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
    conn.close()


def test_a_version_1_library_is_migrated_and_its_chunks_reindexed(tmp_path: Path) -> None:
    path = version_1_library(tmp_path / "old.sqlite3")
    with sqlite3.connect(path) as conn:  # the old index cannot find the word inside the sentence
        assert (
            conn.execute("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH '脱碳'").fetchall()
            == []
        )
    conn.close()

    with LibraryStore(path) as library:
        assert [hit.item_id for hit in library.search("脱碳")] == ["library:aaaa:1"]
        assert [hit.item_id for hit in library.search("支持")] == ["library:aaaa:2"]
        assert [hit.item_id for hit in library.search("zebra")] == ["library:bbbb:1"]
        assert [doc.encoding for doc in library.list_documents()] == [None, None]
        conn = library._connection()
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
        check_index(path)

        assert library.remove("aaaa")  # the delete trigger removes exactly what was indexed
        check_index(path)
        assert library.search("脱碳") == []
        new_id = add_text(library, tmp_path, "new.txt", "新的脱碳计划已经公布。")
        assert [hit.doc_id for hit in library.search("脱碳")] == [new_id]
        check_index(path)


def test_a_failed_migration_leaves_the_old_database_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = version_1_library(tmp_path / "old.sqlite3")

    def broken(self: FtsIndex, conn: sqlite3.Connection) -> None:
        conn.execute("DROP TABLE chunks_fts")
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(FtsIndex, "reindex", broken)
    with pytest.raises(LibraryError, match="disk I/O error"), LibraryStore(path) as library:
        library.list_documents()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == 3
    assert "encoding" not in {row[1] for row in conn.execute("PRAGMA table_info(documents)")}
    conn.close()
