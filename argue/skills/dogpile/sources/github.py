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
    source_url,
)
from argue.skills.dogpile.sources._pacing import RateLimiter
from argue.skills.dogpile.sources._shapes import GitHubRepo, GitHubSearch, parse_shape

SOURCE = "github"
KEY_ENV: str | None = None
OPTIONAL_KEY_ENV: str | None = "GITHUB_TOKEN"  # optional: a faster pace with it
URL_ENV = "ARGUE_GITHUB_URL"  # overrides DEFAULT_URL (tests, mirrors)
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
        token = os.environ.get(OPTIONAL_KEY_ENV or "", "").strip()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        async with limiter.slot(MIN_INTERVAL_WITH_TOKEN_S if token else MIN_INTERVAL_S):
            fetched = await fetch(
                client,
                SOURCE,
                "GET",
                source_url(URL_ENV, DEFAULT_URL) + "/search/repositories",
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
    return [
        SkillItem(
            id=f"github:{clean_text(repo.full_name, TITLE_CHARS)}",
            title=clean_text(repo.full_name, TITLE_CHARS),
            url=repo.html_url,
            snippet=_snippet(repo),
            source=SOURCE,
        )
        for repo in parse_shape(SOURCE, GitHubSearch, payload).items
    ]


def _snippet(repo: GitHubRepo) -> str:
    facts = []
    if repo.stargazers_count is not None:
        facts.append(f"{repo.stargazers_count} stars")
    if repo.language:
        facts.append(repo.language)
    if repo.pushed_at and len(repo.pushed_at) >= 10:
        facts.append(f"last push {repo.pushed_at[:10]}")
    description = clean_text(repo.description)
    tail = f" ({', '.join(facts)})" if facts else ""
    return clean_text(description + tail) if description or tail else ""
