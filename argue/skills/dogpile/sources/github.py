"""GitHub repository search (REST). A token is optional; without one the rate limit is low.

Search allows 10 requests a minute without a token and 30 with one, so requests from every
dogpile in the process are spaced 6 s (or 2 s with ``GITHUB_TOKEN``) apart.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

import httpx

from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile.sources._http import (
    TITLE_CHARS,
    SourceError,
    clean_text,
    fetch,
    guarded,
    http_failure,
    parse_json,
    shape_error,
    source_url,
)
from argue.skills.dogpile.sources._pacing import RateLimiter

SOURCE = "github"
DEFAULT_URL = "https://api.github.com"
MIN_INTERVAL_S = 6.0  # search without a token: 10 requests a minute
MIN_INTERVAL_WITH_TOKEN_S = 2.0  # with a token: 30 a minute

GITHUB_RATE_LIMITER = RateLimiter(MIN_INTERVAL_S)


async def search(
    query: str,
    *,
    client: httpx.AsyncClient,
    limit: int,
    rate_limiter: RateLimiter | None = None,
) -> SkillResult:
    limiter = rate_limiter or GITHUB_RATE_LIMITER

    async def run() -> list[SkillItem]:
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }
        token = os.environ.get("GITHUB_TOKEN", "").strip()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        async with limiter.slot(MIN_INTERVAL_WITH_TOKEN_S if token else MIN_INTERVAL_S):
            fetched = await fetch(
                client,
                SOURCE,
                "GET",
                source_url("ARGUE_GITHUB_URL", DEFAULT_URL) + "/search/repositories",
                params={"q": query, "per_page": min(limit, 100)},
                headers=headers,
            )
        if fetched.status_code in (403, 429):
            limited_until = _rate_limit_reset(fetched.headers)
            if limited_until:
                raise SourceError(f"{SOURCE}: rate limited until {limited_until}")
        if not 200 <= fetched.status_code < 300:
            raise http_failure(SOURCE, fetched)
        return parse_repositories(parse_json(SOURCE, fetched))[:limit]

    return await guarded(SOURCE, query, run)


def _rate_limit_reset(headers: httpx.Headers) -> str | None:
    if headers.get("x-ratelimit-remaining", "").strip() != "0":
        return None
    reset = headers.get("x-ratelimit-reset", "").strip()
    if not reset.isdigit():
        return "the limit resets (reset time not given)"
    return datetime.fromtimestamp(int(reset), UTC).strftime("%H:%M UTC")


def parse_repositories(payload: Any) -> list[SkillItem]:
    if not isinstance(payload, dict) or not isinstance(payload.get("items"), list):
        raise shape_error(SOURCE)
    items: list[SkillItem] = []
    for repo in payload["items"]:
        if not isinstance(repo, dict):
            raise shape_error(SOURCE)
        full_name = repo.get("full_name")
        html_url = repo.get("html_url")
        if not isinstance(full_name, str) or "/" not in full_name or not isinstance(html_url, str):
            raise shape_error(SOURCE)
        items.append(
            SkillItem(
                id=f"github:{clean_text(full_name, TITLE_CHARS)}",
                title=clean_text(full_name, TITLE_CHARS),
                url=html_url,
                snippet=_snippet(repo),
                source=SOURCE,
            )
        )
    return items


def _snippet(repo: dict[str, Any]) -> str:
    facts = []
    stars = repo.get("stargazers_count")
    if isinstance(stars, int):
        facts.append(f"{stars} stars")
    language = repo.get("language")
    if isinstance(language, str) and language:
        facts.append(language)
    pushed = repo.get("pushed_at")
    if isinstance(pushed, str) and len(pushed) >= 10:
        facts.append(f"last push {pushed[:10]}")
    description = clean_text(repo.get("description"))
    tail = f" ({', '.join(facts)})" if facts else ""
    return clean_text(description + tail) if description or tail else ""
