"""YouTube Data API v3 video search. Needs ``YOUTUBE_API_KEY``; without it nothing is sent."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx

from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile.sources._http import (
    TITLE_CHARS,
    Fetched,
    clean_text,
    fetch,
    guarded,
    http_failure,
    parse_json,
    source_url,
    with_byline,
)
from argue.skills.dogpile.sources._shapes import YouTubeSearch, parse_shape

SOURCE = "youtube"
KEY_ENV = "YOUTUBE_API_KEY"  # without it nothing is sent
URL_ENV = "ARGUE_YOUTUBE_URL"  # overrides DEFAULT_URL (tests, mirrors)
DEFAULT_URL = "https://www.googleapis.com/youtube/v3"
MAX_RESULTS = 50  # the API's own cap on ``maxResults``


async def search(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
    api_key = os.environ.get(KEY_ENV, "").strip()
    if not api_key:
        return SkillResult.refused(SOURCE, query, f"{KEY_ENV} not set")

    async def run() -> list[SkillItem]:
        fetched = await fetch(
            client,
            SOURCE,
            "GET",
            source_url(URL_ENV, DEFAULT_URL) + "/search",
            params={
                "part": "snippet",
                "type": "video",
                "q": query,
                "maxResults": min(limit, MAX_RESULTS),
                "key": api_key,
            },
            headers={"Accept": "application/json"},
        )
        if not 200 <= fetched.status_code < 300:
            raise http_failure(SOURCE, fetched, _error_reason(fetched))
        return parse_videos(parse_json(SOURCE, fetched))[:limit]

    return await guarded(SOURCE, query, run)


def _error_reason(fetched: Fetched) -> str:
    """Google's error body names the cause (quotaExceeded, keyInvalid...): worth showing."""
    try:
        errors = json.loads(fetched.body)["error"]["errors"]
        return clean_text(errors[0]["reason"], 60)
    except (ValueError, KeyError, IndexError, TypeError):
        return ""


def parse_videos(payload: Any) -> list[SkillItem]:
    items: list[SkillItem] = []
    for video in parse_shape(SOURCE, YouTubeSearch, payload).items:
        video_id, snippet = video.id.videoId, video.snippet
        # The API sends titles and descriptions HTML-escaped ("&#39;", "&lt;").
        channel = clean_text(snippet.channelTitle, 80, html=True)
        published = snippet.publishedAt
        byline = " ".join(
            part
            for part in (channel, f"({published[:10]})" if published is not None else "")
            if part
        )
        text, written = with_byline(f"{byline}: " if byline else "", snippet.description, html=True)
        items.append(
            SkillItem(
                id=f"youtube:{video_id}",
                title=clean_text(snippet.title, TITLE_CHARS, html=True) or video_id,
                url=f"https://www.youtube.com/watch?v={video_id}",
                snippet=text,
                byline=written,
                source=SOURCE,
            )
        )
    return items
