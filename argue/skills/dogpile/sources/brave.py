"""Brave Search web results. Needs ``BRAVE_API_KEY``; without it nothing is sent.

The free plan allows one request a second, so requests from every dogpile in the process are
spaced at least ``MIN_INTERVAL_S`` apart.
"""

from __future__ import annotations

import os
from typing import Any

import httpx

from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile.sources._http import (
    TITLE_CHARS,
    clean_text,
    expect_success,
    fetch,
    guarded,
    parse_json,
    source_url,
)
from argue.skills.dogpile.sources._pacing import RateLimiter
from argue.skills.dogpile.sources._shapes import BraveSearch, parse_shape, shape_error

SOURCE = "brave"
KEY_ENV = "BRAVE_API_KEY"  # without it nothing is sent
URL_ENV = "ARGUE_BRAVE_URL"  # overrides DEFAULT_URL (tests, mirrors)
DEFAULT_URL = "https://api.search.brave.com/res/v1/web/search"
MAX_COUNT = 20  # Brave's own cap on ``count``
MIN_INTERVAL_S = 1.0  # free plan: 1 request per second

BRAVE_RATE_LIMITER = RateLimiter(MIN_INTERVAL_S)


async def search(
    query: str,
    *,
    client: httpx.AsyncClient,
    limit: int,
    rate_limiter: RateLimiter | None = None,
) -> SkillResult:
    limiter = rate_limiter or BRAVE_RATE_LIMITER
    api_key = os.environ.get(KEY_ENV, "").strip()
    if not api_key:
        return SkillResult.refused(SOURCE, query, f"{KEY_ENV} not set")

    async def run() -> list[SkillItem]:
        async with limiter.slot():
            fetched = await fetch(
                client,
                SOURCE,
                "GET",
                source_url(URL_ENV, DEFAULT_URL),
                params={"q": query, "count": min(limit, MAX_COUNT)},
                headers={"Accept": "application/json", "X-Subscription-Token": api_key},
            )
        expect_success(SOURCE, fetched)
        return parse_web_results(parse_json(SOURCE, fetched))[:limit]

    return await guarded(SOURCE, query, run)


def parse_web_results(payload: Any) -> list[SkillItem]:
    shape = parse_shape(SOURCE, BraveSearch, payload)
    if shape.web is None:
        # Brave leaves out the "web" section when nothing matched.
        if shape.type == "search":
            return []
        raise shape_error(SOURCE, "web: Field required (and 'type' is not \"search\")")
    return [
        SkillItem(
            id=f"brave:{result.url}",
            title=clean_text(result.title, TITLE_CHARS, html=True) or result.url,
            url=result.url,
            snippet=clean_text(result.description, html=True),
            source=SOURCE,
        )
        for result in shape.web.results
    ]
