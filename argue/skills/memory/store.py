"""Persona memories and the shared episodic archive, in SQLite with an FTS5 index.

Visibility: a persona sees its own memories and, unless told otherwise, the shared scope
(the archive of finished debates and anything stored with ``scope="shared"``). It never sees
another persona's memories. ``persona=None`` stands for no persona: shared memories only.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from argue.skills._fts import FtsIndex, query_terms
from argue.skills._sqlite import SQLiteStore
from argue.skills.base import SkillItem, SkillResult

MemoryScope = Literal["persona", "shared"]
SCOPES: tuple[MemoryScope, ...] = ("persona", "shared")
SKILL = "memory"
SCHEMA_VERSION = 3
"""1: the first. 2: ``origin``. 3: the CJK companion columns of the index (``text_cjk``,
``tags_cjk``; see ``argue.skills._fts``), filled for existing memories, which are re-indexed."""
MemoryOrigin = Literal["model", "operator"]
"""Who wrote a memory: a model (a persona's claim, a debate's conclusion: never checked) or the
operator (``argue memory learn``). Either way a recalled memory is never a document."""
MAX_MEMORY_CHARS = 20_000
SNIPPET_CHARS = 600
BM25_WEIGHTS = (1.0, 0.5)
_INDEX = FtsIndex("memories", ("text", "tags"), BM25_WEIGHTS)
_MEMORY_ID = re.compile(r"^(?:mem:)?(\d+)$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    persona    TEXT,
    scope      TEXT NOT NULL CHECK (scope IN ('persona', 'shared')),
    kind       TEXT NOT NULL,
    text       TEXT NOT NULL,
    tags       TEXT NOT NULL DEFAULT '',
    debate_id  TEXT,
    round_no   INTEGER,
    created_at TEXT NOT NULL,
    origin     TEXT NOT NULL DEFAULT 'model',
    text_cjk   TEXT NOT NULL DEFAULT '',
    tags_cjk   TEXT NOT NULL DEFAULT '',
    CHECK (scope = 'shared' OR persona IS NOT NULL)
);
CREATE INDEX IF NOT EXISTS memories_by_persona ON memories (persona, scope);
""" + _INDEX.schema()


def _migrate(conn: sqlite3.Connection, found: int) -> None:
    """Versions 1 and 2 → 3: every memory indexed again with its CJK terms (``origin``, new in
    version 2, is added by ``MemoryStore._connection``)."""
    _INDEX.reindex(conn)


class MemoryStoreError(Exception):
    """Bad input (empty text, persona-scoped memory without a persona) or an unusable database."""


class MemoryRecord(BaseModel):
    id: str = Field(description="mem:<n>")
    persona: str | None
    scope: MemoryScope
    kind: str
    text: str
    tags: list[str] = Field(default_factory=list)
    debate_id: str | None = None
    round_no: int | None = None
    created_at: str
    origin: MemoryOrigin = "model"

    def origin_words(self) -> str:
        return "model-written" if self.origin == "model" else "noted by the operator"

    def owner(self) -> str:
        return "shared" if self.scope == "shared" else str(self.persona)

    def locator(self) -> str | None:
        if self.debate_id and self.round_no is not None:
            return f"debate {self.debate_id}, round {self.round_no}"
        if self.debate_id:
            return f"debate {self.debate_id}"
        return None


def normalise_persona(persona: str | None) -> str | None:
    if persona is None:
        return None
    name = persona.strip().lower()
    return name or None


def parse_memory_id(memory_id: str) -> int | None:
    match = _MEMORY_ID.match(memory_id.strip())
    return int(match.group(1)) if match else None


class MemoryStore(
    SQLiteStore,
    schema=_SCHEMA,
    version=SCHEMA_VERSION,
    what="memory",
    error=MemoryStoreError,
    migrate=_migrate,
):
    def __init__(self, db_path: Path | None = None) -> None:
        if db_path is None:
            from argue.paths import memory_db_path

            db_path = memory_db_path()
        super().__init__(db_path)

    def _connection(self) -> sqlite3.Connection:
        conn = super()._connection()
        # Version-1 databases predate ``origin``: everything in them was written by the engine
        # (model text) or by `memory learn`, which we can no longer tell apart: call it model.
        columns = {row[1] for row in conn.execute("PRAGMA table_info(memories)")}
        if "origin" not in columns:
            conn.execute("ALTER TABLE memories ADD COLUMN origin TEXT NOT NULL DEFAULT 'model'")
        return conn

    # ------------------------------------------------------------- public API

    def learn(
        self,
        persona: str | None,
        text: str,
        *,
        kind: str = "note",
        debate_id: str | None = None,
        round_no: int | None = None,
        tags: Sequence[str] = (),
        scope: MemoryScope = "persona",
        origin: MemoryOrigin = "model",
    ) -> str:
        """Store one memory and return its id ``mem:<n>`` (ids are never reused)."""
        owner = normalise_persona(persona)
        body = text.strip()
        if scope not in SCOPES:
            raise MemoryStoreError(f"unknown memory scope {scope!r} (use persona or shared)")
        if owner is None and scope == "persona":
            raise MemoryStoreError("a persona memory needs a persona name (or use scope shared)")
        if not body:
            raise MemoryStoreError("cannot store an empty memory")
        if len(body) > MAX_MEMORY_CHARS:
            raise MemoryStoreError(
                f"memory text is {len(body)} characters; the limit is {MAX_MEMORY_CHARS}"
            )
        if origin not in ("model", "operator"):
            raise MemoryStoreError(f"unknown memory origin {origin!r} (use model or operator)")
        if round_no is not None and round_no < 0:
            raise MemoryStoreError(f"round number must not be negative (got {round_no})")
        clean_tags = [" ".join(tag.split()) for tag in tags if tag.strip()]
        tag_text = "\n".join(clean_tags)
        with self._using() as conn:
            cursor = conn.execute(
                "INSERT INTO memories (persona, scope, kind, text, tags, debate_id, round_no,"
                " created_at, origin, text_cjk, tags_cjk)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    owner,
                    scope,
                    kind.strip() or "note",
                    body,
                    tag_text,
                    debate_id,
                    round_no,
                    datetime.now(UTC).isoformat(timespec="seconds"),
                    origin,
                    *_INDEX.cjk_values(body, tag_text),
                ),
            )
        return f"mem:{cursor.lastrowid}"

    def recall(
        self,
        query: str,
        persona: str | None = None,
        k: int = 5,
        min_score: float = 0.0,
        include_shared: bool = True,
    ) -> SkillResult:
        """Memories visible to ``persona`` that match ``query``, best first, as a SkillResult.

        Each item's score (0..1) is coverage × relative bm25 (see skills._fts); items
        under ``min_score`` are dropped, and the note says so.
        """
        started = time.perf_counter()
        owner = normalise_persona(persona)

        def result(status: str, note: str, items: list[SkillItem] | None = None) -> SkillResult:
            return SkillResult.model_validate(
                {
                    "skill": SKILL,
                    "query": query,
                    "status": status,
                    "note": note,
                    "items": items or [],
                    "elapsed_s": round(time.perf_counter() - started, 4),
                }
            )

        if k < 1:
            return result("refused", f"k must be at least 1 (got {k})")
        if not 0.0 <= min_score <= 1.0:
            return result("refused", f"min_score must be between 0 and 1 (got {min_score})")
        if owner is None and not include_shared:
            return result("refused", "nothing to search: no persona given and shared excluded")
        if not query_terms(query):
            return result("refused", f"query {query!r} has no searchable words")

        if owner is None:
            filter_sql = "rowid IN (SELECT id FROM memories WHERE scope = 'shared')"
            params: tuple[object, ...] = ()
        elif include_shared:
            filter_sql = (
                "rowid IN (SELECT id FROM memories WHERE scope = 'shared'"
                " OR (scope = 'persona' AND persona = ?))"
            )
            params = (owner,)
        else:
            filter_sql = (
                "rowid IN (SELECT id FROM memories WHERE scope = 'persona' AND persona = ?)"
            )
            params = (owner,)

        try:
            with self._using() as conn:
                matches = _INDEX.search(
                    conn, query, k, snippet_tokens=64, filter_sql=filter_sql, filter_params=params
                )
                records = self._records(conn, [m.rowid for m in matches])
        except MemoryStoreError as exc:
            return result("failed", str(exc))

        whose = self._whose(owner, include_shared)
        kept = [m for m in matches if m.score >= min_score and m.rowid in records]
        if not kept:
            note = f"no memories of {whose} match {query!r}"
            if matches:
                best = max(m.score for m in matches)
                note += f" with score ≥ {min_score:.2f} (best was {best:.2f})"
            return result("empty", note)
        items = [_skill_item(records[m.rowid], m.score, m.snippet) for m in kept]
        return result("ok", f"{len(items)} memory item(s) of {whose}", items)

    @staticmethod
    def _whose(owner: str | None, include_shared: bool) -> str:
        if owner is None:
            return "the shared archive"
        return f"{owner} or the shared archive" if include_shared else owner

    def get(self, memory_id: str) -> MemoryRecord | None:
        number = parse_memory_id(memory_id)
        if number is None:
            return None
        with self._using() as conn:
            return self._records(conn, [number]).get(number)

    def forget(self, memory_id: str) -> bool:
        number = parse_memory_id(memory_id)
        if number is None:
            return False
        with self._using() as conn:
            return conn.execute("DELETE FROM memories WHERE id = ?", (number,)).rowcount > 0

    def list(self, persona: str | None = None, limit: int = 50) -> list[MemoryRecord]:
        """Newest first. ``persona=None`` lists every memory (the operator's view)."""
        owner = normalise_persona(persona)
        where, params = ("", ()) if owner is None else ("WHERE persona = ?", (owner,))
        with self._using() as conn:
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM memories {where} ORDER BY id DESC LIMIT ?",
                (*params, max(limit, 0)),
            ).fetchall()
        return [_record(row) for row in rows]

    @staticmethod
    def _records(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, MemoryRecord]:
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE id IN ({marks})", tuple(ids)
        ).fetchall()
        return {int(row[0]): _record(row) for row in rows}


_FIELDS = (
    "id", "persona", "scope", "kind", "text", "tags", "debate_id", "round_no", "created_at",
    "origin",
)  # fmt: skip
_COLUMNS = ", ".join(_FIELDS)


def _record(row: tuple[object, ...]) -> MemoryRecord:
    values = dict(zip(_FIELDS, row, strict=True))
    values["id"] = f"mem:{values['id']}"
    values["tags"] = [tag for tag in str(values["tags"] or "").split("\n") if tag]
    return MemoryRecord.model_validate(values)


def _skill_item(record: MemoryRecord, score: float, fts_snippet: str) -> SkillItem:
    """Short memories are shown whole; long ones by their FTS5 snippet around the match."""
    title = f"{record.kind} ({record.owner()}; {record.origin_words()})"
    if record.tags:
        title += f" [{', '.join(record.tags)}]"
    return SkillItem(
        id=record.id,
        title=title,
        locator=record.locator(),
        snippet=" ".join(
            (record.text if len(record.text) <= SNIPPET_CHARS else fts_snippet).split()
        ),
        source="memory",
        score=round(score, 4),
        provenance="recall",
    )
