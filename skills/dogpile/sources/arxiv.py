"""arXiv via its Atom export API, at most one call every 3 s (arXiv's own request)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from xml.etree.ElementTree import Element

import httpx
from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException

from skills.base import SkillItem, SkillResult
from skills.dogpile.sources._http import (
    TITLE_CHARS,
    SourceError,
    clean_text,
    expect_success,
    fetch,
    guarded,
    source_url,
)

SOURCE = "arxiv"
DEFAULT_URL = "https://export.arxiv.org/api/query"
MIN_INTERVAL_S = 3.0

_ATOM = "{http://www.w3.org/2005/Atom}"
_QUERY_SYNTAX = re.compile(r"[\"():\[\]{}^~*?\\]")


class RateLimiter:
    """Spaces call starts at least ``min_interval_s`` apart, across every caller in the process."""

    def __init__(
        self,
        min_interval_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.min_interval_s = min_interval_s
        self.clock = clock
        self.sleep = sleep
        self._last_start: float | None = None
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None

    def _loop_lock(self) -> asyncio.Lock:
        # An asyncio.Lock belongs to one event loop; each asyncio.run() gets a fresh one.
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock = asyncio.Lock()
            self._lock_loop = loop
        return self._lock

    async def wait_turn(self) -> None:
        async with self._loop_lock():
            if self._last_start is not None:
                wait_s = self._last_start + self.min_interval_s - self.clock()
                if wait_s > 0:
                    await self.sleep(wait_s)
            self._last_start = self.clock()


ARXIV_RATE_LIMITER = RateLimiter(MIN_INTERVAL_S)


async def search(
    query: str,
    *,
    client: httpx.AsyncClient,
    limit: int,
    rate_limiter: RateLimiter | None = None,
) -> SkillResult:
    limiter = rate_limiter or ARXIV_RATE_LIMITER

    async def run() -> list[SkillItem]:
        terms = " ".join(_QUERY_SYNTAX.sub(" ", query).split())
        if not terms:
            return []
        await limiter.wait_turn()
        fetched = await fetch(
            client,
            SOURCE,
            "GET",
            source_url("ARGUE_ARXIV_URL", DEFAULT_URL),
            params={
                "search_query": f"all:{terms}",
                "max_results": limit,
                "sortBy": "relevance",
            },
        )
        expect_success(SOURCE, fetched)
        return parse_feed(fetched.body)[:limit]

    return await guarded(SOURCE, query, run)


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
        items.append(
            SkillItem(
                id=f"arxiv:{paper_id}",
                title=title,
                url=_abs_link(entry) or f"https://arxiv.org/abs/{paper_id}",
                snippet=_snippet(entry),
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


def _snippet(entry: Element) -> str:
    authors = [clean_text(_text(author, "name"), 80) for author in entry.findall(f"{_ATOM}author")]
    byline = ", ".join(authors[:3]) + (" et al." if len(authors) > 3 else "")
    year = _text(entry, "published")[:4]
    prefix = f"{byline} ({year}): " if byline and year.isdigit() else ""
    return clean_text(prefix + _text(entry, "summary"))
