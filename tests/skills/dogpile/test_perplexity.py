from __future__ import annotations

import hashlib

import httpx
import pytest

from argue.skills.dogpile.sources import perplexity
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.payloads import PERPLEXITY_CITATIONS_ONLY, PERPLEXITY_COMPLETION

ANSWER = PERPLEXITY_COMPLETION["choices"][0]["message"]["content"]


@pytest.fixture
def perplexity_server(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    monkeypatch.setenv("ARGUE_PERPLEXITY_URL", loopback.url)
    monkeypatch.setenv("PERPLEXITY_API_KEY", "pplx-test")
    return loopback


async def test_missing_key_is_refused_without_a_request(
    loopback: LoopbackServer, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGUE_PERPLEXITY_URL", loopback.url)
    result = await perplexity.search("debate", client=client, limit=3)
    assert (result.status, result.note) == ("refused", "PERPLEXITY_API_KEY not set")
    assert loopback.requests == []


async def test_answer_then_search_results(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    perplexity_server.enqueue(Reply(json=PERPLEXITY_COMPLETION))

    result = await perplexity.search("does debate help?", client=client, limit=5)

    assert result.status == "ok", result.note
    digest = hashlib.sha256(ANSWER.encode()).hexdigest()[:12]
    assert [item.id for item in result.items] == [
        f"perplexity:answer:{digest}",
        "perplexity:https://example.org/debate-explained",
        "perplexity:https://news.example.com/ai-debate",
    ]
    answer = result.items[0]
    assert answer.snippet == ANSWER
    assert answer.url is None
    assert answer.title == "Perplexity answer: does debate help?"
    assert result.items[1].title == "Multi-agent debate explained"
    assert result.items[1].snippet == "(2024-04-28) Debate between models improves factuality."
    assert result.items[2].snippet == "(2024-04-29)"

    request = perplexity_server.requests[0]
    assert (request.method, request.path) == ("POST", "/chat/completions")
    assert request.headers["authorization"] == "Bearer pplx-test"
    body = request.json()
    assert body["model"] == "sonar"
    assert body["messages"][-1] == {"role": "user", "content": "does debate help?"}


async def test_citations_used_when_search_results_absent(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    perplexity_server.enqueue(Reply(json=PERPLEXITY_CITATIONS_ONLY))
    result = await perplexity.search("q", client=client, limit=5)
    assert [item.id for item in result.items][1:] == [
        "perplexity:https://a.example.com/one",
        "perplexity:https://b.example.com/two",
    ]
    assert result.items[2].url == "https://b.example.com/two"
    assert result.items[2].snippet == "Cited by Perplexity as source [2]"


async def test_limit_keeps_the_answer_first(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    perplexity_server.enqueue(Reply(json=PERPLEXITY_COMPLETION))
    result = await perplexity.search("q", client=client, limit=2)
    assert [item.id.split(":")[1] for item in result.items] == ["answer", "https"]


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        ({"error": {"message": "bad"}}, "choices: Field required"),
        ({"choices": []}, "choices: List should have at least 1 item after validation, not 0"),
        (
            {"choices": [{"message": {"content": None}}]},
            "choices.0.message.content: Input should be a valid string",
        ),
        (
            {"choices": [{"message": {"content": "ok"}}], "citations": "https://x"},
            "citations: Input should be a valid list",
        ),
        (
            {"choices": [{"message": {"content": "ok"}}], "citations": ["https://x", "ftp://y"]},
            "citations.1: not an http(s) URL",
        ),
        (
            {"choices": [{"message": {"content": "ok"}}], "search_results": [{"title": "no url"}]},
            "search_results.0.url: Field required",
        ),
    ],
)
async def test_wrong_shape_is_failed(
    perplexity_server: LoopbackServer,
    client: httpx.AsyncClient,
    payload: object,
    detail: str,
) -> None:
    perplexity_server.enqueue(Reply(json=payload))
    result = await perplexity.search("q", client=client, limit=3)
    assert (result.status, result.note) == (
        "failed",
        f"perplexity: unexpected response shape: {detail}",
    )


async def test_rejected_key_is_failed(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    perplexity_server.enqueue(Reply(status=401, json={"error": {"message": "Invalid key"}}))
    result = await perplexity.search("q", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "perplexity: HTTP 401 from 127.0.0.1 (key rejected or not allowed)"


async def test_server_error_is_failed(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    perplexity_server.enqueue(Reply(status=502, body="Bad Gateway"))
    result = await perplexity.search("q", client=client, limit=3)
    assert (result.status, result.note) == ("failed", "perplexity: HTTP 502 from 127.0.0.1")


async def test_page_snippets_lose_tags_but_the_answer_keeps_its_text(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    payload = {
        "choices": [{"message": {"content": "Use std::vector<int> when 0<p<1 [1]."}}],
        "search_results": [
            {
                "title": "Vectors &amp; maps",
                "url": "https://example.org/v",
                "snippet": "A <b>std::vector&lt;int&gt;</b> grows; for q>2 it reallocates.",
            }
        ],
    }
    perplexity_server.enqueue(Reply(json=payload))
    result = await perplexity.search("vectors", client=client, limit=3)
    answer, page = result.items
    assert answer.snippet == "Use std::vector<int> when 0<p<1 [1]."
    assert page.title == "Vectors & maps"
    assert page.snippet == "A std::vector<int> grows; for q>2 it reallocates."
