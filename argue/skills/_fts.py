"""Safe, ranked full-text search over an FTS5 table (shared by the library and memory stores).

User and model text never reaches FTS5 as syntax: it is cut into word tokens (``query_terms``,
with the shared Unicode tokenizer ``argue.text.words``) and each token is
sent as a double-quoted string, so ``NEAR``, ``*``, ``-``, ``:``, quotes and parentheses are plain
text. Candidates come from an AND query (every term) and an OR query (any term); each candidate
gets a ``coverage`` (share of the query terms it contains) and a relevance score in 0..1:

    score = coverage × bm25(hit) / bm25(best hit)

The top hit's score is its coverage, so ``min_score`` keeps its meaning on any corpus size
(bm25's IDF collapses to ~0 on tiny corpora, which rules out absolute bm25 thresholds).

Chinese, Japanese and Korean are written without spaces, so ``unicode61`` indexes a whole CJK
clause as one token and a word inside it ("脱碳" in "我们需要脱碳技术") can never match. Each
indexed column therefore has a companion column ``<column>_cjk`` holding the CJK character
bigrams and single characters of its text (``cjk_terms``, from the shared tokenizer), which
the same ``unicode61`` index holds as ordinary space-separated tokens; a CJK query is cut into
the same bigrams by ``query_terms``. Chosen over FTS5's ``trigram`` tokenizer because most
Chinese and Japanese words are two characters long and a trigram index cannot match a query
shorter than three characters (SQLite falls back to a full scan for those, without bm25); the
bigrams keep one index, one ranking (bm25 with coverage) and one query path for every script,
and add nothing for text without CJK characters. A single-character query matches the
single-character terms.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

from argue.text import words
from argue.text.words import is_cjk

HIGHLIGHT = "**"
"""How a search snippet marks the matched terms (for people; research strips it)."""


def without_highlights(snippet: str) -> str:
    """A search snippet in the document's own words: the highlight marks argue added removed."""
    return " ".join(snippet.replace(HIGHLIGHT, "").split())


MAX_QUERY_TERMS = 24
# Upper-case FTS5 operators a user may type meaning the operator ("zebra OR lion"): they are not
# terms (they would count against coverage). A query made only of them searches them as words.
_OPERATOR_WORDS = frozenset({"AND", "OR", "NOT", "NEAR"})
TOKENIZER = "porter unicode61 remove_diacritics 2"
CJK_SUFFIX = "_cjk"
_REINDEX_BATCH = 500


@dataclass(frozen=True)
class FtsMatch:
    rowid: int
    bm25: float  # FTS5 bm25(): lower (more negative) is better
    coverage: float
    score: float
    snippet: str


def query_terms(text: str) -> list[str]:
    """Distinct word tokens of ``text``, in order, at most MAX_QUERY_TERMS.

    Words come from the shared tokenizer (``argue.text.words``) in any script, as written (FTS5
    folds case and diacritics itself) and joined by hyphens ("state-of-the-art": inside double
    quotes FTS5 reads it as a phrase); an elided article goes ("l'orbite" → "orbite"). Chinese,
    Japanese and Korean runs give their character bigrams (NFKC-normalised, as ``cjk_terms``
    indexes them).
    """
    tokens = [
        unicodedata.normalize("NFKC", token) if is_cjk(token) else token
        for token in words(text, fold=False, join_hyphens=True)
    ]
    plain = [token for token in tokens if token not in _OPERATOR_WORDS]
    seen: set[str] = set()
    terms: list[str] = []
    for token in plain or tokens:
        key = token.casefold()
        if key in seen:
            continue
        seen.add(key)
        terms.append(token)
        if len(terms) == MAX_QUERY_TERMS:
            break
    return terms


def cjk_terms(text: str) -> str:
    """The CJK search terms of ``text``, space-separated: "" when it has no CJK characters.

    Every character bigram of each Chinese/Japanese/Korean run (``脱碳技术`` → ``脱碳 碳技 技术``,
    from ``argue.text.words``) and then every CJK character alone, NFKC-normalised (half-width
    katakana become full-width). Stored in a ``<column>_cjk`` column that ``unicode61``
    tokenises on the spaces.
    """
    normal = unicodedata.normalize("NFKC", text)
    runs = [word for word in words(normal, fold=False) if is_cjk(word)]
    if not runs:
        return ""
    characters = set("".join(runs))
    bigrams = [word for word in runs if len(word) > 1]
    return " ".join([*bigrams, *(char for char in normal if char in characters)])


def quote_term(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def match_all(terms: Sequence[str]) -> str:
    return " AND ".join(quote_term(t) for t in terms)


def match_any(terms: Sequence[str]) -> str:
    return " OR ".join(quote_term(t) for t in terms)


def ranked_search(
    conn: sqlite3.Connection,
    *,
    table: str,
    query: str,
    limit: int,
    snippet_column: int = 0,
    snippet_tokens: int = 24,
    bm25_weights: Sequence[float] = (),
    filter_sql: str = "",
    filter_params: Sequence[object] = (),
) -> list[FtsMatch]:
    """Best ``limit`` rows of ``table`` for ``query``, best first.

    ``filter_sql`` is an extra SQL condition on ``{table}.rowid`` (e.g. ``rowid IN (SELECT ...)``).
    ``table`` and ``filter_sql`` come from code, never from users; ``query`` may be anything.
    """
    terms = query_terms(query)
    if not terms or limit < 1:
        return []
    pool = max(limit * 4, 40)
    weights = "".join(f", {w}" for w in bm25_weights)
    extra = f" AND ({filter_sql})" if filter_sql else ""
    sql = (
        f"SELECT rowid, bm25({table}{weights}), "
        f"snippet({table}, {snippet_column}, '{HIGHLIGHT}', '{HIGHLIGHT}', '…', {snippet_tokens}) "
        f"FROM {table} WHERE {table} MATCH ?{extra} ORDER BY bm25({table}{weights}) LIMIT ?"
    )
    rows_all = conn.execute(sql, (match_all(terms), *filter_params, pool)).fetchall()
    rows_any = (
        conn.execute(sql, (match_any(terms), *filter_params, pool)).fetchall()
        if len(terms) > 1
        else []
    )

    candidates: dict[int, tuple[float, str]] = {}
    coverage: dict[int, float] = {}
    for rowid, rank, snippet in rows_all:
        candidates[rowid] = (rank, snippet)
        coverage[rowid] = 1.0
    for rowid, rank, snippet in rows_any:
        if rowid not in candidates:
            candidates[rowid] = (rank, snippet)
    partial = [rowid for rowid in candidates if rowid not in coverage]
    if partial:
        coverage.update(_coverage(conn, table, terms, partial))
    if not candidates:
        return []

    best = min(rank for rank, _ in candidates.values())
    matches: list[FtsMatch] = []
    for rowid, (rank, snippet) in candidates.items():
        relative = rank / best if best < 0 else 1.0
        cov = coverage.get(rowid, 0.0)
        score = max(0.0, min(1.0, cov * relative))
        matches.append(FtsMatch(rowid, rank, cov, score, snippet))
    matches.sort(key=lambda m: (-m.score, m.bm25, m.rowid))
    best_matches = matches[:limit]
    cjk = [term for term in terms if is_cjk(term)]
    if cjk:
        width = snippet_tokens * 3  # CJK is dense: about three characters per snippet word
        best_matches = [
            _with_cjk_snippet(conn, table, match, cjk, snippet_column, width)
            for match in best_matches
        ]
    return best_matches


def _with_cjk_snippet(
    conn: sqlite3.Connection,
    table: str,
    match: FtsMatch,
    terms: Sequence[str],
    column: int,
    width: int,
) -> FtsMatch:
    """FTS5 cannot highlight a CJK term found through the ``_cjk`` column: cut the snippet
    around the first occurrence in the text itself and mark the terms there."""
    if "**" in match.snippet:
        return match
    row = conn.execute(f"SELECT * FROM {table} WHERE rowid = ?", (match.rowid,)).fetchone()
    if row is None or not isinstance(row[column], str):
        return match
    snippet = cjk_snippet(row[column], terms, width)
    return match if snippet is None else replace(match, snippet=snippet)


def cjk_snippet(text: str, terms: Sequence[str], width: int) -> str | None:
    """About ``width`` characters of ``text`` around the first of ``terms``, each marked
    ``**…**`` (None when no term occurs)."""
    normal = unicodedata.normalize("NFKC", text)
    marked = [False] * len(normal)
    first: int | None = None
    for term in terms:
        start = normal.find(term)
        while start != -1:
            marked[start : start + len(term)] = [True] * len(term)
            first = start if first is None else min(first, start)
            start = normal.find(term, start + 1)
    if first is None:
        return None
    begin = max(0, first - width // 3)
    end = min(len(normal), begin + width)
    pieces = ["…"] if begin > 0 else []
    inside = False
    for index in range(begin, end):
        if marked[index] != inside:
            pieces.append("**")
            inside = marked[index]
        pieces.append(normal[index])
    if inside:
        pieces.append("**")
    if end < len(normal):
        pieces.append("…")
    return "".join(pieces)


def _coverage(
    conn: sqlite3.Connection, table: str, terms: Sequence[str], rowids: Sequence[int]
) -> dict[int, float]:
    hits = dict.fromkeys(rowids, 0)
    marks = ", ".join("?" for _ in rowids)
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid IN ({marks})"
    for term in terms:
        for (rowid,) in conn.execute(sql, (quote_term(term), *rowids)):
            hits[rowid] += 1
    return {rowid: count / len(terms) for rowid, count in hits.items()}


@dataclass(frozen=True)
class FtsIndex:
    """``<table>_fts``: an FTS5 index over ``columns`` of ``table`` (whose rowid is ``id``).

    The index holds no copy of the text (external content): triggers keep it in step with
    inserts and deletes on ``table``, which is never updated in place. ``bm25_weights`` weigh
    ``columns`` in order; snippets come from the first column.

    With ``cjk`` (the default) every column has a companion ``<column>_cjk`` in ``table``
    (``TEXT NOT NULL DEFAULT ''``), indexed beside it with the same weight: whoever inserts a
    row fills it with ``cjk_values`` (see the module docstring for why).
    """

    table: str
    columns: tuple[str, ...]
    bm25_weights: tuple[float, ...] = ()
    cjk: bool = True

    @property
    def name(self) -> str:
        return f"{self.table}_fts"

    @property
    def cjk_columns(self) -> tuple[str, ...]:
        return tuple(f"{column}{CJK_SUFFIX}" for column in self.columns) if self.cjk else ()

    @property
    def indexed_columns(self) -> tuple[str, ...]:
        return (*self.columns, *self.cjk_columns)

    @property
    def weights(self) -> tuple[float, ...]:
        if not self.bm25_weights or not self.cjk:
            return self.bm25_weights
        return (*self.bm25_weights, *self.bm25_weights)

    def cjk_values(self, *texts: str) -> tuple[str, ...]:
        """The companion column values for a row whose ``columns`` hold ``texts``."""
        return tuple(cjk_terms(text) for text in texts) if self.cjk else ()

    def _statements(self) -> list[str]:
        table, index, names = self.table, self.name, ", ".join(self.indexed_columns)
        new = ", ".join(f"new.{column}" for column in ("id", *self.indexed_columns))
        old = ", ".join(f"old.{column}" for column in ("id", *self.indexed_columns))
        return [
            f"""CREATE VIRTUAL TABLE IF NOT EXISTS {index} USING fts5(
    {names}, content='{table}', content_rowid='id', tokenize='{TOKENIZER}'
);
""",
            f"""CREATE TRIGGER IF NOT EXISTS {table}_after_insert AFTER INSERT ON {table} BEGIN
    INSERT INTO {index}(rowid, {names}) VALUES ({new});
END;
""",
            f"""CREATE TRIGGER IF NOT EXISTS {table}_after_delete AFTER DELETE ON {table} BEGIN
    INSERT INTO {index}({index}, rowid, {names})
    VALUES ('delete', {old});
END;
""",
        ]

    def schema(self) -> str:
        """SQL creating the index and its triggers (for ``open_database``)."""
        return "".join(self._statements())

    def reindex(self, conn: sqlite3.Connection) -> None:
        """Rebuild the index of an existing ``table`` (a schema migration, in its transaction).

        Adds the companion columns a table made before them lacks, replaces the index and its
        triggers with the current ones, fills the companion columns of every row and indexes
        every row again.
        """
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({self.table})")}
        for column in self.cjk_columns:
            if column not in present:
                conn.execute(
                    f"ALTER TABLE {self.table} ADD COLUMN {column} TEXT NOT NULL DEFAULT ''"
                )
        conn.execute(f"DROP TRIGGER IF EXISTS {self.table}_after_insert")
        conn.execute(f"DROP TRIGGER IF EXISTS {self.table}_after_delete")
        conn.execute(f"DROP TABLE IF EXISTS {self.name}")
        for statement in self._statements():
            conn.execute(statement)
        if self.cjk:
            self._fill_cjk_columns(conn)
        conn.execute(f"INSERT INTO {self.name}({self.name}) VALUES ('rebuild')")

    def _fill_cjk_columns(self, conn: sqlite3.Connection) -> None:
        source = ", ".join(self.columns)
        assign = ", ".join(f"{column} = ?" for column in self.cjk_columns)
        last_id = -1
        while True:
            rows = conn.execute(
                f"SELECT id, {source} FROM {self.table} WHERE id > ? ORDER BY id LIMIT ?",
                (last_id, _REINDEX_BATCH),
            ).fetchall()
            if not rows:
                return
            last_id = rows[-1][0]
            updates = []
            for row_id, *texts in rows:
                values = self.cjk_values(*(str(text or "") for text in texts))
                if any(values):
                    updates.append((*values, row_id))
            conn.executemany(f"UPDATE {self.table} SET {assign} WHERE id = ?", updates)

    def search(
        self,
        conn: sqlite3.Connection,
        query: str,
        limit: int,
        *,
        snippet_tokens: int = 24,
        filter_sql: str = "",
        filter_params: Sequence[object] = (),
    ) -> list[FtsMatch]:
        """``ranked_search`` on this index with its column weights."""
        return ranked_search(
            conn,
            table=self.name,
            query=query,
            limit=limit,
            snippet_tokens=snippet_tokens,
            bm25_weights=self.weights,
            filter_sql=filter_sql,
            filter_params=filter_params,
        )
