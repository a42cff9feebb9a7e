"""Opening an argue SQLite database: WAL mode, a busy timeout, a versioned schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

BUSY_TIMEOUT_MS = 5000


def open_database(
    path: Path, schema: str, version: int, what: str, error: type[Exception]
) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` in autocommit mode.

    The schema is applied once, inside a transaction, and recorded in ``PRAGMA user_version``;
    opening an up-to-date database writes nothing. Failures raise ``error`` with a one-line
    message naming the database (``what``: "library", "memory").
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise error(f"cannot open the {what} database {path}: {exc}") from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        found = conn.execute("PRAGMA user_version").fetchone()[0]
        if found > version:
            raise error(
                f"the {what} database {path} has schema version {found}; "
                f"this version of argue reads up to {version}"
            )
        if found < version:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                _run_script(conn, schema)
                conn.execute(f"PRAGMA user_version = {version}")
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
    except sqlite3.Error as exc:
        conn.close()
        raise error(f"the {what} database {path} is unreadable: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the open transaction first; run statement by statement instead.
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""
