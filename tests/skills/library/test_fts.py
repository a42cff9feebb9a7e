from __future__ import annotations

import sqlite3

import pytest

from argue.skills._fts import (
    MAX_QUERY_TERMS,
    TOKENIZER,
    match_all,
    match_any,
    query_terms,
    ranked_search,
)


def test_query_terms_are_plain_words() -> None:
    assert query_terms('NEAR("zebra" mig*, 2) -lion title:x') == [
        "zebra",
        "mig",
        "2",
        "lion",
        "title",
        "x",
    ]
    assert query_terms("state-of-the-art don't") == ["state-of-the-art", "don't"]
    assert query_terms("Zebra zebra ZEBRA") == ["Zebra"]
    assert query_terms("zebra OR lion AND NOT tiger") == ["zebra", "lion", "tiger"]
    assert query_terms("or and not") == ["or", "and", "not"]  # lower case: ordinary words
    assert query_terms("NOT") == ["NOT"]  # only operators: searched as words
    assert query_terms("*** () -- :") == []
    assert len(query_terms(" ".join(f"w{n}" for n in range(100)))) == MAX_QUERY_TERMS


def test_match_expressions_quote_every_term() -> None:
    assert match_all(["zebra", "state-of-the-art"]) == '"zebra" AND "state-of-the-art"'
    assert match_any(["a", 'x"y']) == '"a" OR "x""y"'


@pytest.fixture
def conn() -> sqlite3.Connection:
    connection = sqlite3.connect(":memory:")
    connection.execute(f"CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='{TOKENIZER}')")
    connection.executemany(
        "INSERT INTO docs(rowid, body) VALUES (?, ?)",
        [
            (1, "zebras graze on the savanna"),
            (2, "lions hunt zebras at night"),
            (3, "the state-of-the-art model"),
            (4, "art of the state"),
        ],
    )
    return connection


def test_ranked_search_scores_by_coverage(conn: sqlite3.Connection) -> None:
    matches = ranked_search(conn, table="docs", query="lion zebra", limit=5)
    assert [m.rowid for m in matches] == [2, 1]
    assert matches[0].coverage == 1.0 and matches[0].score == 1.0
    assert matches[1].coverage == 0.5 and 0.0 < matches[1].score <= 0.5
    assert "**lions**" in matches[0].snippet  # porter stemming: lion matches lions


def test_hyphenated_term_is_a_phrase(conn: sqlite3.Connection) -> None:
    matches = ranked_search(conn, table="docs", query="state-of-the-art", limit=5)
    assert [m.rowid for m in matches] == [3]


def test_filter_and_limit(conn: sqlite3.Connection) -> None:
    matches = ranked_search(
        conn, table="docs", query="zebra", limit=1, filter_sql="rowid > ?", filter_params=(1,)
    )
    assert [m.rowid for m in matches] == [2]
    assert ranked_search(conn, table="docs", query="zebra", limit=0) == []
    assert ranked_search(conn, table="docs", query='"', limit=3) == []
