"""SQLiteStore, the base of the library and memory stores."""

from __future__ import annotations

from pathlib import Path

import pytest

from argue.skills._fts import FtsIndex
from argue.skills._sqlite import BUSY_TIMEOUT_MS, SQLiteStore


class NotesError(Exception):
    pass


_INDEX = FtsIndex("notes", ("body",))
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL,"
    " body_cjk TEXT NOT NULL DEFAULT '');\n"
)


class NotesStore(
    SQLiteStore, schema=_SCHEMA + _INDEX.schema(), version=3, what="notes", error=NotesError
):
    def count(self) -> int:
        with self._using() as conn:
            return int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])


def test_opens_lazily_with_wal_busy_timeout_and_version(tmp_path: Path) -> None:
    db_path = tmp_path / "sub" / "notes.db"
    with NotesStore(db_path) as store:
        assert isinstance(store, NotesStore)
        assert not db_path.exists()
        assert store.count() == 0
        conn = store._connection()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
    assert store._conn is None


def test_sqlite_errors_become_the_store_error(tmp_path: Path) -> None:
    failed = r"^the notes database .*notes\.db failed: no such table"
    with NotesStore(tmp_path / "notes.db") as store:
        with pytest.raises(NotesError, match=failed), store._using() as conn:
            conn.execute("SELECT * FROM missing")
        assert store.count() == 0  # the connection is still usable


def test_transaction_commits_or_leaves_nothing(tmp_path: Path) -> None:
    with NotesStore(tmp_path / "notes.db") as store:
        with store._transaction() as conn:
            conn.execute("INSERT INTO notes (body) VALUES ('kept')")
        with pytest.raises(NotesError, match="NOT NULL"), store._transaction() as conn:
            conn.execute("INSERT INTO notes (body) VALUES ('dropped')")
            conn.execute("INSERT INTO notes (body) VALUES (NULL)")
        with pytest.raises(KeyError), store._transaction() as conn:
            conn.execute("INSERT INTO notes (body) VALUES ('dropped too')")
            raise KeyError("not a database error")
        assert store.count() == 1
        assert not store._connection().in_transaction


def test_fts_index_follows_inserts_and_deletes(tmp_path: Path) -> None:
    with NotesStore(tmp_path / "notes.db") as store:
        with store._transaction() as conn:
            conn.executemany(
                "INSERT INTO notes (body) VALUES (?)", [("zebras graze",), ("lions hunt zebras",)]
            )
            conn.execute("DELETE FROM notes WHERE body = 'zebras graze'")
        with store._using() as conn:
            matches = _INDEX.search(conn, "zebra", 5)
    assert [m.rowid for m in matches] == [2]
    assert matches[0].snippet == "lions hunt **zebras**"


def test_a_store_must_name_its_database() -> None:
    with pytest.raises(TypeError):

        class Nameless(SQLiteStore):  # type: ignore[call-arg]
            pass
