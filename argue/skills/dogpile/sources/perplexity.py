"""Perplexity Sonar (OpenAI-compatible chat completions) over plain httpx.

The answer itself is one item; each search result (or, in older payloads, each cited URL)
is another, so the debate can cite the underlying pages rather than the summary.
"""

from __future__ import annotations

import hashlib
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
    shape_error,
    source_url,
)

SOURCE = "perplexity"
DEFAULT_URL = "https://api.perplexity.ai"
MODEL = "sonar"
ANSWER_CHARS = 1500  # the answer is a summary worth keeping whole-ish; page snippets stay short
SYSTEM_PROMPT = "Be precise and concise. Answer with facts from cited sources."


async def search(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
    api_key = os.environ.get("PERPLEXITY_API_KEY", "").strip()
    if not api_key:
        return SkillResult.refused(SOURCE, query, "PERPLEXITY_API_KEY not set")

    async def run() -> list[SkillItem]:
        fetched = await fetch(
            client,
            SOURCE,
            "POST",
            source_url("ARGUE_PERPLEXITY_URL", DEFAULT_URL) + "/chat/completions",
            headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
            json_body={
                "model": MODEL,
                "messages": [
                    {"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": query},
                ],
            },
        )
        expect_success(SOURCE, fetched)
        return parse_completion(query, parse_json(SOURCE, fetched))[:limit]

    return await guarded(SOURCE, query, run)


def parse_completion(query: str, payload: Any) -> list[SkillItem]:
    """Answer first, then its sources: ``limit`` keeps the answer and trims sources."""
    try:
        answer = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise shape_error(SOURCE) from exc
    if not isinstance(answer, str):
        raise shape_error(SOURCE)
    items: list[SkillItem] = []
    answer_text = clean_text(answer, ANSWER_CHARS)
    if answer_text:
        digest = hashlib.sha256(answer.encode()).hexdigest()[:12]
        items.append(
            SkillItem(
                id=f"perplexity:answer:{digest}",
                title=clean_text(f"Perplexity answer: {query}", TITLE_CHARS),
                snippet=answer_text,
                source=SOURCE,
                provenance="testimony",  # an answer engine's prose, not a document
            )
        )
    search_results = payload.get("search_results")
    citations = payload.get("citations")
    if search_results:
        items.extend(_from_search_results(search_results))
    elif citations:
        items.extend(_from_citations(citations))
    return items


def _from_search_results(results: Any) -> list[SkillItem]:
    if not isinstance(results, list):
        raise shape_error(SOURCE)
    items = []
    for result in results:
        url = result.get("url") if isinstance(result, dict) else None
        if not _is_web_url(url):
            raise shape_error(SOURCE)
        date = clean_text(result.get("date"), 20)
        snippet = clean_text(result.get("snippet"), html=True)
        items.append(
            SkillItem(
                id=f"perplexity:{url}",
                title=clean_text(result.get("title"), TITLE_CHARS, html=True) or url,
                url=url,
                snippet=clean_text(f"({date}) {snippet}") if date else snippet,
                source=SOURCE,
            )
        )
    return items


def _from_citations(citations: Any) -> list[SkillItem]:
    if not isinstance(citations, list) or not all(_is_web_url(url) for url in citations):
        raise shape_error(SOURCE)
    return [
        SkillItem(
            id=f"perplexity:{url}",
            title=url,
            url=url,
            snippet=f"Cited by Perplexity as source [{number}]",
            source=SOURCE,
        )
        for number, url in enumerate(citations, start=1)
    ]


def _is_web_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("http://", "https://"))
