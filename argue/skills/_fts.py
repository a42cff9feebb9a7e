"""Safe, ranked full-text search over an FTS5 table (shared by the library and memory stores).

User and model text never reaches FTS5 as syntax: it is cut into word tokens (``query_terms``,
with the shared Unicode tokenizer ``argue.text.words``) and each token is
sent as a double-quoted string, so ``NEAR``, ``*``, ``-``, ``:``, quotes and parentheses are plain
text. Candidates come from an AND query (every term) and an OR query (any term); each candidate
gets a ``coverage`` (share of the query terms it contains) and a relevance score in 0..1:

    score = coverage × bm25(hit) / bm25(best hit)

The top hit's score is its coverage, so ``min_score`` keeps its meaning on any corpus size
(bm25's IDF collapses to ~0 on tiny corpora, which rules out absolute bm25 thresholds).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from argue.text import words

MAX_QUERY_TERMS = 24
# Upper-case FTS5 operators a user may type meaning the operator ("zebra OR lion"): they are not
# terms (they would count against coverage). A query made only of them searches them as words.
_OPERATOR_WORDS = frozenset({"AND", "OR", "NOT", "NEAR"})
TOKENIZER = "porter unicode61 remove_diacritics 2"


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
    Japanese and Korean runs give their character bigrams.
    """
    tokens = words(text, fold=False, join_hyphens=True)
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
        f"snippet({table}, {snippet_column}, '**', '**', '…', {snippet_tokens}) "
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
    return matches[:limit]


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
    """

    table: str
    columns: tuple[str, ...]
    bm25_weights: tuple[float, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.table}_fts"

    def schema(self) -> str:
        """SQL creating the index and its triggers (for ``open_database``)."""
        table, index, names = self.table, self.name, ", ".join(self.columns)
        new = ", ".join(f"new.{column}" for column in ("id", *self.columns))
        old = ", ".join(f"old.{column}" for column in ("id", *self.columns))
        return f"""CREATE VIRTUAL TABLE IF NOT EXISTS {index} USING fts5(
    {names}, content='{table}', content_rowid='id', tokenize='{TOKENIZER}'
);
CREATE TRIGGER IF NOT EXISTS {table}_after_insert AFTER INSERT ON {table} BEGIN
    INSERT INTO {index}(rowid, {names}) VALUES ({new});
END;
CREATE TRIGGER IF NOT EXISTS {table}_after_delete AFTER DELETE ON {table} BEGIN
    INSERT INTO {index}({index}, rowid, {names})
    VALUES ('delete', {old});
END;
"""

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
            bm25_weights=self.bm25_weights,
            filter_sql=filter_sql,
            filter_params=filter_params,
        )
