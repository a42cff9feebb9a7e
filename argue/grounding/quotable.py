"""What of a retrieved item is the source's own text, and so can be quoted as evidence.

Only the title and the body a source returned are quotable. Not argue's own words: a byline
argue writes in front of a snippet from the source's metadata ("Smith, Jones (2007): "), or a
placeholder argue writes when a source sent no text ("Cited by Perplexity as source [1]").
Not an item whose words are mostly the query it answered: a search page that repeats "Kurtz
2007 proved the Collatz conjecture decidable" verifies nothing of the sort. Such an item stays
a result, marked, and no quote in it counts. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from argue.domain import Evidence

ECHO_SHARE = 0.6
"""An item echoes its query when at least this share of its distinct content words are the
query's (and the query has at least :data:`ECHO_MIN_QUERY_WORDS` of them)."""
ECHO_MIN_QUERY_WORDS = 3

_CITED_ONLY = re.compile(r"^Cited by Perplexity as source \[\d+\]$")
"""Perplexity's citations-only placeholder, as records written before ``filler`` existed
have it."""


@dataclass(frozen=True)
class QuotableText:
    """One quotable field of an item: its text from ``offset`` on (what comes before it is
    argue's byline), so offsets located in it are ``offset`` + offsets in ``text``."""

    field: Literal["snippet", "title"]
    text: str
    offset: int = 0


def echoes_query(query: str, title: str, text: str) -> bool:
    """Whether most of an item's words are the query's (see the module docstring)."""
    from argue.text import content_words

    asked = set(content_words(query))
    if len(asked) < ECHO_MIN_QUERY_WORDS:
        return False
    own = set(content_words(f"{title} {text}"))
    if not own:
        return False
    return len(own & asked) / len(own) >= ECHO_SHARE


def is_filler(item: Evidence) -> bool:
    return item.filler or (item.source == "perplexity" and bool(_CITED_ONLY.match(item.snippet)))


def unquotable_reason(item: Evidence) -> str:
    """Why nothing of ``item`` is quotable ("" when something is)."""
    if not item.is_document:
        return f"{item.id} is a {item.provenance_words()}, not a document"
    if item.echoes_query:
        return f"{item.id} only repeats the query it answered: not the source's own evidence"
    return ""


def quotable_texts(item: Evidence) -> list[QuotableText]:
    """The item's quotable fields, snippet first: its body after any byline, then its title."""
    if unquotable_reason(item):
        return []
    fields: list[QuotableText] = []
    if not is_filler(item):
        offset = len(item.byline) if item.byline and item.snippet.startswith(item.byline) else 0
        fields.append(QuotableText("snippet", item.snippet[offset:], offset))
    if item.title:
        fields.append(QuotableText("title", item.title))
    return fields
