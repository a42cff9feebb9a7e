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
    source_url,
)
from argue.skills.dogpile.sources._shapes import (
    PerplexityCompletion,
    PerplexitySearchResult,
    parse_shape,
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
    shape = parse_shape(SOURCE, PerplexityCompletion, payload)
    answer = shape.choices[0].message.content
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
    if shape.search_results:
        items.extend(_from_search_results(shape.search_results))
    elif shape.citations:
        items.extend(_from_citations(shape.citations))
    return items


def _from_search_results(results: list[PerplexitySearchResult]) -> list[SkillItem]:
    items = []
    for result in results:
        date = clean_text(result.date, 20)
        snippet = clean_text(result.snippet, html=True)
        items.append(
            SkillItem(
                id=f"perplexity:{result.url}",
                title=clean_text(result.title, TITLE_CHARS, html=True) or result.url,
                url=result.url,
                snippet=clean_text(f"({date}) {snippet}") if date else snippet,
                source=SOURCE,
            )
        )
    return items


def _from_citations(citations: list[str]) -> list[SkillItem]:
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
