"""An argue SQLite database: WAL mode, a busy timeout, a versioned schema; a store on one."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self

BUSY_TIMEOUT_MS = 5000
Migration = Callable[[sqlite3.Connection, int], None]
"""Brings a database of an older schema version (the int) up to date, inside the transaction
that applies the schema (after it): ``ALTER TABLE`` for new columns, re-indexing old rows."""


def open_database(
    path: Path,
    schema: str,
    version: int,
    what: str,
    error: type[Exception],
    migrate: Migration | None = None,
) -> sqlite3.Connection:
    """Open (creating if needed) the database at ``path`` in autocommit mode.

    The schema is applied once, inside a transaction, and recorded in ``PRAGMA user_version``;
    opening an up-to-date database writes nothing. A database of an older version is passed to
    ``migrate`` in the same transaction, so a failed migration leaves it as it was; the version
    is read again under the write lock, so two processes opening it at once migrate it once.
    Failures raise ``error`` with a one-line message naming the database (``what``: "library",
    "memory").
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
            _set_wal(conn)
            conn.execute("BEGIN IMMEDIATE")
            try:
                found = conn.execute("PRAGMA user_version").fetchone()[0]
                if found < version:
                    _run_script(conn, schema)
                    if migrate is not None and found > 0:
                        migrate(conn, found)
                    conn.execute(f"PRAGMA user_version = {version}")
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
    except sqlite3.Error as exc:
        conn.close()
        if _disk_full(exc):
            raise error(_full_message(what, path, exc)) from exc
        raise error(f"the {what} database {path} is unreadable: {exc}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _disk_full(exc: BaseException) -> bool:
    """sqlite's SQLITE_FULL ("database or disk is full"), or ENOSPC under it."""
    return (
        getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL"
        or "disk is full" in str(exc)
        or "No space left" in str(exc)
    )


def _full_message(what: str, path: Path, exc: BaseException) -> str:
    return (
        f"the {what} database {path} cannot be written: the disk is full ({exc}); "
        f"free some space on the disk holding {path.parent}"
    )


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back what is open. sqlite may already have rolled back on its own (a full disk
    does): then "cannot rollback" would hide the error that mattered, so it is not raised."""
    if conn.in_transaction:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _set_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL; changing the journal mode does not wait on the busy timeout, so while
    another connection creates the same new database it is retried until that timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the open transaction first; run statement by statement instead.
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""


class SQLiteStore:
    """A store on one argue database, opened on first use and closed by ``close`` or ``with``.

    A subclass names its database when it is defined::

        class LibraryStore(SQLiteStore, schema=..., version=1, what="library", error=LibraryError)

    ``schema`` and ``version`` are applied by ``open_database`` (with ``migrate=`` for databases
    of an older version); ``what`` names the database in
    messages; every failure (opening it, or a ``sqlite3.Error`` later) is raised as ``error``.
    """

    _schema: ClassVar[str]
    _version: ClassVar[int]
    _what: ClassVar[str]
    _error: ClassVar[type[Exception]]
    _migrate: ClassVar[Migration | None]

    def __init_subclass__(
        cls,
        *,
        schema: str,
        version: int,
        what: str,
        error: type[Exception],
        migrate: Migration | None = None,
        **kwargs: object,
    ) -> None:
        super().__init_subclass__(**kwargs)
        cls._schema, cls._version, cls._what, cls._error = schema, version, what, error
        cls._migrate = staticmethod(migrate) if migrate is not None else None

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._conn: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = open_database(
                self.db_path,
                self._schema,
                self._version,
                self._what,
                self._error,
                type(self)._migrate,  # the class's staticmethod, unbound
            )
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def _using(self) -> Iterator[sqlite3.Connection]:
        """The connection (autocommit); a ``sqlite3.Error`` inside is raised as ``error``."""
        conn = self._connection()
        try:
            yield conn
        except sqlite3.Error as exc:
            if _disk_full(exc):
                raise self._error(_full_message(self._what, self.db_path, exc)) from exc
            raise self._error(f"the {self._what} database {self.db_path} failed: {exc}") from exc

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """``_using`` inside ``BEGIN IMMEDIATE``: committed at the end, rolled back on any error."""
        with self._using() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                _rollback(conn)
                raise
            conn.execute("COMMIT")
