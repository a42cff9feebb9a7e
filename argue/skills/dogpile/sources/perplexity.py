"""Perplexity Sonar (OpenAI-compatible chat completions) over plain httpx.

The answer itself is one item; each search result (or, in older payloads, each cited URL)
is another, so the debate can cite the underlying pages rather than the summary.

Sonar is a model and bills per token and per request, so every answer it sends (and every
request that reached it and got no answer: it timed out after it was sent, or the connection
was closed or reset after sending; possibly billed) comes back in ``SkillResult.usage`` as one
Usage (provider ``perplexity``), which the debate records in usage.jsonl. Its cost is
the one the reply states (``usage.cost.total_cost``) when it states one, else the price table's
(``argue.llm.pricing``: tokens and the per-request fee); a reply without token counts is
unpriced.
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import Any

import httpx

from argue.domain import Usage
from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile.sources._http import (
    TITLE_CHARS,
    SourceError,
    clean_text,
    expect_success,
    fetch,
    guarded,
    parse_json,
    source_url,
    with_byline,
)
from argue.skills.dogpile.sources._shapes import (
    PerplexityCompletion,
    PerplexitySearchResult,
    parse_shape,
)

SOURCE = "perplexity"
KEY_ENV = "PERPLEXITY_API_KEY"  # without it nothing is sent
URL_ENV = "ARGUE_PERPLEXITY_URL"  # overrides DEFAULT_URL (tests, mirrors)
DEFAULT_URL = "https://api.perplexity.ai"
MODEL = "sonar"
ANSWER_CHARS = 1500  # the answer is a summary worth keeping whole-ish; page snippets stay short
SYSTEM_PROMPT = "Be precise and concise. Answer with facts from cited sources."


async def search(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
    api_key = os.environ.get(KEY_ENV, "").strip()
    if not api_key:
        return SkillResult.refused(SOURCE, query, f"{KEY_ENV} not set")

    billed: list[Usage] = []

    async def run() -> list[SkillItem]:
        started = time.monotonic()
        try:
            fetched = await fetch(
                client,
                SOURCE,
                "POST",
                source_url(URL_ENV, DEFAULT_URL) + "/chat/completions",
                headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
                json_body={
                    "model": MODEL,
                    "messages": [
                        {"role": "system", "content": SYSTEM_PROMPT},
                        {"role": "user", "content": query},
                    ],
                },
            )
        except SourceError as error:
            if _sent_then_unanswered(error):
                billed.append(unanswered_usage(time.monotonic() - started))
            raise
        expect_success(SOURCE, fetched)
        payload = parse_json(SOURCE, fetched)
        billed.append(answer_usage(payload, time.monotonic() - started))
        return parse_completion(query, payload)[:limit]

    result = await guarded(SOURCE, query, run)
    return result.model_copy(update={"usage": billed}) if billed else result


def answer_usage(payload: Any, latency_s: float) -> Usage:
    """What one Sonar answer cost: its ``usage`` tokens, priced as the reply states
    (``usage.cost.total_cost``) or by the price table; unpriced without token counts."""
    from argue.llm.pricing import load_price_table

    reported = payload.get("usage") if isinstance(payload, dict) else None
    reported = reported if isinstance(reported, dict) else {}
    model = payload.get("model") if isinstance(payload, dict) else None
    model = model if isinstance(model, str) and 0 < len(model) <= 80 else MODEL
    prompt, completion = (
        _count(reported.get("prompt_tokens")),
        _count(reported.get("completion_tokens")),
    )
    usage = Usage(
        provider=SOURCE,
        model=model,
        input_tokens=prompt or 0,
        output_tokens=completion or 0,
        latency_s=latency_s,
        purpose="dogpile/perplexity",
    )
    cost = reported.get("cost")
    stated = cost.get("total_cost") if isinstance(cost, dict) else None
    if isinstance(stated, int | float) and not isinstance(stated, bool) and 0 <= stated < 100:
        return usage.model_copy(update={"cost_usd": float(stated), "unpriced_calls": 0})
    known = prompt is not None and completion is not None
    return load_price_table().price(usage, tokens_known=known)


def unanswered_usage(waited_s: float) -> Usage:
    """A request sent whose answer never came: possibly billed, at a cost nobody can read."""
    return Usage(
        provider=SOURCE,
        model=MODEL,
        latency_s=waited_s,
        possibly_billed_calls=1,
        purpose="dogpile/perplexity",
    )


def _sent_then_unanswered(error: SourceError) -> bool:
    """The request was sent and the answer never came: a read timeout, or the connection closed
    (RemoteProtocolError) or reset (ReadError) after sending. Connecting, waiting for a pooled
    connection or writing the request sends nothing Sonar could bill."""
    return isinstance(
        error.__cause__, httpx.ReadTimeout | httpx.ReadError | httpx.RemoteProtocolError
    )


def _count(value: object) -> int | None:
    """A token count from an untrusted reply, or None."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**9:
        return value
    return None


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
        snippet, byline = with_byline(f"({date}) " if date else "", result.snippet, html=True)
        items.append(
            SkillItem(
                id=f"perplexity:{result.url}",
                title=clean_text(result.title, TITLE_CHARS, html=True) or result.url,
                url=result.url,
                snippet=snippet,
                byline=byline,
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
            filler=True,  # argue's words: Perplexity sent the URL only
            source=SOURCE,
        )
        for number, url in enumerate(citations, start=1)
    ]
