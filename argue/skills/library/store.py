"""The library: documents and their chunks in SQLite, searched through an FTS5 index."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from argue.skills._fts import FtsIndex, cjk_terms
from argue.skills._sqlite import SQLiteStore
from argue.skills.library.ingest import parse_content, read_file
from argue.skills.library.limits import IngestLimits
from argue.skills.library.models import AddResult, DocumentInfo, LibraryError, LibraryHit

SCHEMA_VERSION = 2
"""1: the first. 2: ``documents.encoding`` (the charset a text file was decoded from; NULL for
documents added before it was recorded, and for PDF and EPUB) and the CJK companion columns of
the index (``chunks.body_cjk``, ``chunks.title_cjk``; see ``argue.skills._fts``)."""
# bm25 column weights: chunk text counts fully, the (repeated) document title a little.
BM25_WEIGHTS = (1.0, 0.3)
_INDEX = FtsIndex("chunks", ("body", "title"), BM25_WEIGHTS)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id      TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    path        TEXT NOT NULL,
    size_bytes  INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    added_at    TEXT NOT NULL,
    encoding    TEXT
);
CREATE TABLE IF NOT EXISTS chunks (
    id       INTEGER PRIMARY KEY,
    doc_id   TEXT NOT NULL REFERENCES documents(doc_id),
    chunk_no INTEGER NOT NULL,
    locator  TEXT NOT NULL,
    title    TEXT NOT NULL,
    body     TEXT NOT NULL,
    body_cjk  TEXT NOT NULL DEFAULT '',
    title_cjk TEXT NOT NULL DEFAULT '',
    UNIQUE (doc_id, chunk_no)
);
""" + _INDEX.schema()


def _migrate(conn: sqlite3.Connection, found: int) -> None:
    """Version 1 → 2: the ``encoding`` column, and every chunk indexed again with its CJK terms."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(documents)")}
    if "encoding" not in columns:
        conn.execute("ALTER TABLE documents ADD COLUMN encoding TEXT")
    _INDEX.reindex(conn)


class LibraryStore(
    SQLiteStore,
    schema=_SCHEMA,
    version=SCHEMA_VERSION,
    what="library",
    error=LibraryError,
    migrate=_migrate,
):
    """Documents added with ``add`` and searched with ``search``.

    Adding parses the whole file first and then writes it in one transaction: a file that
    cannot be read, or is over a limit, leaves the library exactly as it was.
    """

    def __init__(self, db_path: Path | None = None) -> None:
        if db_path is None:
            from argue.paths import library_db_path

            db_path = library_db_path()
        super().__init__(db_path)

    # ------------------------------------------------------------- public API

    def add(self, path: Path, limits: IngestLimits | None = None) -> AddResult:
        """Add one file (refused if over ``limits``, by default ``IngestLimits.from_env()``)."""
        limits = IngestLimits.from_env() if limits is None else limits
        content = read_file(path, limits)
        doc_id = content.doc_id
        if self.db_path.exists():
            existing = self.get(doc_id)
            if existing is not None:
                return self._mark_duplicate(existing, path)
        parsed = parse_content(content)
        stored_path = str(path.resolve())
        with self._transaction() as conn:
            row = conn.execute("SELECT 1 FROM documents WHERE doc_id = ?", (doc_id,)).fetchone()
            if row is None:
                conn.execute(
                    "INSERT INTO documents (doc_id, title, kind, path, size_bytes, chunk_count,"
                    " added_at, encoding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        doc_id,
                        parsed.title,
                        parsed.kind,
                        stored_path,
                        content.size_bytes,
                        len(parsed.chunks),
                        datetime.now(UTC).isoformat(timespec="seconds"),
                        parsed.encoding,
                    ),
                )
                title_cjk = _cjk_terms(parsed.title)  # the companion of the repeated title
                conn.executemany(
                    "INSERT INTO chunks (doc_id, chunk_no, locator, title, body, body_cjk,"
                    " title_cjk) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        (
                            doc_id,
                            chunk_no,
                            chunk.locator,
                            parsed.title,
                            chunk.text,
                            _cjk_terms(chunk.text),
                            title_cjk,
                        )
                        for chunk_no, chunk in enumerate(parsed.chunks, 1)
                    ),
                )
        if row is not None:  # added by another process between our check and our transaction
            existing = self.get(doc_id)
            if existing is not None:
                return self._mark_duplicate(existing, path)
        return AddResult(
            doc_id=doc_id,
            title=parsed.title,
            kind=parsed.kind,
            chunk_count=len(parsed.chunks),
            duplicate=False,
            path=stored_path,
            encoding=parsed.encoding,
        )

    def _mark_duplicate(self, existing: DocumentInfo, path: Path) -> AddResult:
        """Same content again: nothing is added; if the known copy has gone, follow the new one."""
        known_path = existing.path
        if not Path(known_path).exists():
            known_path = str(path.resolve())
            with self._transaction() as conn:
                conn.execute(
                    "UPDATE documents SET path = ? WHERE doc_id = ?", (known_path, existing.doc_id)
                )
        return AddResult(
            doc_id=existing.doc_id,
            title=existing.title,
            kind=existing.kind,
            chunk_count=existing.chunk_count,
            duplicate=True,
            path=known_path,
            encoding=existing.encoding,
        )

    def get(self, doc_id: str) -> DocumentInfo | None:
        with self._using() as conn:
            row = conn.execute(
                f"SELECT {_DOC_COLUMNS} FROM documents WHERE doc_id = ?", (doc_id,)
            ).fetchone()
        return _document(row) if row else None

    def resolve(self, id_or_prefix: str) -> str:
        """The one document id starting with ``id_or_prefix``; ``library:<id>:<n>`` works too."""
        wanted = id_or_prefix.strip()
        if wanted.startswith("library:"):
            wanted = wanted.split(":")[1]
        if not wanted:
            raise LibraryError("empty document id")
        with self._using() as conn:
            rows = conn.execute(
                "SELECT doc_id FROM documents WHERE substr(doc_id, 1, ?) = ? LIMIT 2",
                (len(wanted), wanted.lower()),
            ).fetchall()
        if not rows:
            raise LibraryError(f"no document with id {id_or_prefix} in the library")
        if len(rows) > 1:
            raise LibraryError(f"document id {id_or_prefix} is ambiguous; give more characters")
        return str(rows[0][0])

    def list_documents(self) -> list[DocumentInfo]:
        with self._using() as conn:
            rows = conn.execute(
                f"SELECT {_DOC_COLUMNS} FROM documents ORDER BY added_at, title"
            ).fetchall()
        return [_document(row) for row in rows]

    def chunk_total(self) -> int:
        with self._using() as conn:
            return int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def remove(self, doc_id: str) -> bool:
        with self._transaction() as conn:
            conn.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
            deleted = conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,)).rowcount
        return deleted > 0

    def search(self, query: str, k: int = 5) -> list[LibraryHit]:
        if k < 1:
            raise ValueError("k must be at least 1")
        with self._using() as conn:
            matches = _INDEX.search(conn, query, k)
            if not matches:
                return []
            marks = ", ".join("?" for _ in matches)
            rows = conn.execute(
                "SELECT c.id, c.doc_id, c.chunk_no, c.locator, d.title, d.kind, d.path"
                f" FROM chunks c JOIN documents d ON d.doc_id = c.doc_id WHERE c.id IN ({marks})",
                [m.rowid for m in matches],
            ).fetchall()
        by_rowid = {row[0]: row for row in rows}
        hits: list[LibraryHit] = []
        for match in matches:
            row = by_rowid.get(match.rowid)
            if row is None:
                continue
            _, doc_id, chunk_no, locator, title, kind, path = row
            hits.append(
                LibraryHit(
                    item_id=f"library:{doc_id}:{chunk_no}",
                    doc_id=doc_id,
                    chunk_no=chunk_no,
                    title=title,
                    kind=kind,
                    locator=locator,
                    path=path,
                    snippet=" ".join(match.snippet.split()),
                    score=match.score,
                    bm25=match.bm25,
                )
            )
        return hits


# The Unicode blocks of every Chinese, Japanese and Korean character, and of every character
# NFKC turns into one (half-width katakana, compatibility and enclosed ideographs…): checked
# against all code points for ``cjk_terms``; curly quotes, dashes and emoji are outside them.
_MAY_HAVE_CJK = re.compile(
    "[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff"
    "\uff00-\uffef\U00016fe0-\U00016fff\U0001aff0-\U0001b16f\U0001f200-\U0001f2ff"
    "\U00020000-\U0003ffff]"
)


def _cjk_terms(text: str) -> str:
    """``cjk_terms``, without tokenising text that has none (most text): fast."""
    if _MAY_HAVE_CJK.search(text) is None:
        return ""
    return cjk_terms(text)


_DOC_FIELDS = (
    "doc_id", "title", "kind", "path", "chunk_count", "size_bytes", "added_at", "encoding",
)  # fmt: skip
_DOC_COLUMNS = ", ".join(_DOC_FIELDS)


def _document(row: tuple[object, ...]) -> DocumentInfo:
    return DocumentInfo.model_validate(dict(zip(_DOC_FIELDS, row, strict=True)))
