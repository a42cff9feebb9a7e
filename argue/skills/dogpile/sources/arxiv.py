"""arXiv via its Atom export API: one request at a time, 3 s after the previous one ended.

arXiv's search is Lucene-like: a user's question sent as is turns its words into operators
(``AND``, ``OR``, ``ANDNOT``) and field prefixes, and ANDs every word together so a long question
matches nothing. The question is reduced to a few informative terms instead: all of them must
match, and if nothing does, any of them (one more request, paced like the first).
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

import httpx
from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException

from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile.sources._http import (
    TITLE_CHARS,
    SourceError,
    clean_text,
    fetch,
    guarded,
    http_failure,
    source_url,
    with_byline,
)
from argue.skills.dogpile.sources._pacing import RateLimiter
from argue.text import STOPWORDS, words

SOURCE = "arxiv"
KEY_ENV: str | None = None
URL_ENV = "ARGUE_ARXIV_URL"  # overrides DEFAULT_URL (tests, mirrors)
DEFAULT_URL = "https://export.arxiv.org/api/query"
MIN_INTERVAL_S = 3.0  # arXiv asks for 3 s between requests, one connection at a time
MAX_TERMS = 6

_ATOM = "{http://www.w3.org/2005/Atom}"
_OPERATORS = frozenset({"and", "or", "not", "andnot"})
_FIELD_PREFIX = re.compile(r"\b(?:ti|au|abs|co|jr|cat|rn|id|all):", re.IGNORECASE)
_ENGLISH_STOPWORDS = """
    a about above after again against all also am an any are as at be because been before
    being below between both but by can could did do does doing done down during each either
    few for from further had has have having he her here hers him his how however if in into
    is it its itself just may me might more most much must my neither no nor of off on once
    only other our ours out over own same shall she should so some such than that the their
    theirs them then there these they this those through to too under until up upon very
    vs was we were what when where whether which while who whom whose why will with within
    without would yet you your
"""
_FRENCH_STOPWORDS = """
    au aux avec ce ces cet cette dans de des du elle elles en est et eux il ils je la le les
    leur leurs lui mais ne nous on ou par pas plus pour qu que quel quelle qui sa se ses son
    sont sur un une vos votre vous
"""
# These search-specific lists plus the shared function words of every language argue knows.
_STOPWORDS = (
    frozenset(_ENGLISH_STOPWORDS.split()) | frozenset(_FRENCH_STOPWORDS.split()) | STOPWORDS
)

ARXIV_RATE_LIMITER = RateLimiter(MIN_INTERVAL_S, exclusive=True)


def search_terms(query: str) -> list[str]:
    """At most ``MAX_TERMS`` distinct informative words, casefolded, in the question's order.

    Words come from the shared tokenizer (``argue.text.words``, any script); a word keeping an
    apostrophe ("don't") is cut there, so a term is letters and digits only: anything else
    (quotes, colons, brackets, "+", "-", "*") is query syntax.
    """
    terms: list[str] = []
    pieces = (p for w in words(_FIELD_PREFIX.sub(" ", query)) for p in w.split("'"))
    for term in pieces:
        if len(term) < 2 or term in _STOPWORDS or term in _OPERATORS or term in terms:
            continue
        terms.append(term)
        if len(terms) == MAX_TERMS:
            break
    return terms


def strict_query(terms: list[str]) -> str:
    return " AND ".join(f"all:{term}" for term in terms)


def loose_query(terms: list[str]) -> str:
    return " OR ".join(f"all:{term}" for term in terms)


async def search(
    query: str,
    *,
    client: httpx.AsyncClient,
    limit: int,
    rate_limiter: RateLimiter | None = None,
) -> SkillResult:
    limiter = rate_limiter or ARXIV_RATE_LIMITER

    async def run() -> list[SkillItem]:
        terms = search_terms(query)
        if not terms:
            return []
        items = await _ask(client, limiter, strict_query(terms), limit)
        if not items and len(terms) > 1:
            items = await _ask(client, limiter, loose_query(terms), limit)
        return items

    return await guarded(SOURCE, query, run)


async def _ask(
    client: httpx.AsyncClient, limiter: RateLimiter, search_query: str, limit: int
) -> list[SkillItem]:
    async with limiter.slot():
        fetched = await fetch(
            client,
            SOURCE,
            "GET",
            source_url(URL_ENV, DEFAULT_URL),
            params={"search_query": search_query, "max_results": limit, "sortBy": "relevance"},
        )
    if not 200 <= fetched.status_code < 300:
        # A rejected query comes back as HTTP 400 with an Atom error entry saying why.
        raise http_failure(SOURCE, fetched, _error_message(fetched.body))
    return parse_feed(fetched.body)[:limit]


def _error_message(body: bytes) -> str:
    try:
        root = ElementTree.fromstring(body, forbid_dtd=True)
    except (ElementTree.ParseError, DefusedXmlException, ValueError):
        return ""
    for entry in root.findall(f"{_ATOM}entry"):
        if "/api/errors" in _text(entry, "id"):
            return clean_text(_text(entry, "summary"), 200)
    return ""


def parse_feed(body: bytes) -> list[SkillItem]:
    try:
        root = ElementTree.fromstring(body, forbid_dtd=True)
    except (ElementTree.ParseError, DefusedXmlException, ValueError) as exc:
        raise SourceError(f"{SOURCE}: response is not a valid Atom feed ({exc})") from exc
    if root.tag != f"{_ATOM}feed":
        raise SourceError(f"{SOURCE}: unexpected response shape (not an Atom feed)")
    items: list[SkillItem] = []
    for entry in root.findall(f"{_ATOM}entry"):
        entry_id = _text(entry, "id")
        if "/api/errors" in entry_id:
            raise SourceError(f"{SOURCE}: API error: {clean_text(_text(entry, 'summary'), 200)}")
        paper_id = entry_id.rsplit("/abs/", 1)[-1] if "/abs/" in entry_id else ""
        title = clean_text(_text(entry, "title"), TITLE_CHARS)
        if not paper_id or not title:
            raise SourceError(f"{SOURCE}: unexpected response shape (entry without id or title)")
        snippet, byline = _snippet(entry)
        items.append(
            SkillItem(
                id=f"arxiv:{paper_id}",
                title=title,
                url=_abs_link(entry) or f"https://arxiv.org/abs/{paper_id}",
                snippet=snippet,
                byline=byline,
                source=SOURCE,
            )
        )
    return items


def _text(element: Element, tag: str) -> str:
    child = element.find(f"{_ATOM}{tag}")
    return (child.text or "") if child is not None else ""


def _abs_link(entry: Element) -> str | None:
    for link in entry.findall(f"{_ATOM}link"):
        href = link.get("href", "")
        if link.get("rel") == "alternate" and href.startswith(("http://", "https://")):
            return href.replace("http://", "https://", 1)
    return None


def _snippet(entry: Element) -> tuple[str, str]:
    """The abstract after a byline argue writes ("Smith, Jones (2007): "), and that byline."""
    authors = [clean_text(_text(author, "name"), 80) for author in entry.findall(f"{_ATOM}author")]
    byline = ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "")
    year = _text(entry, "published")[:4]
    prefix = f"{byline} ({year}): " if byline and year.isdigit() else ""
    return with_byline(prefix, _text(entry, "summary"))
