from __future__ import annotations

import httpx
import pytest

from skills.dogpile.sources import brave
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.payloads import BRAVE_SEARCH


@pytest.fixture
def brave_server(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    monkeypatch.setenv("ARGUE_BRAVE_URL", f"{loopback.url}/res/v1/web/search")
    monkeypatch.setenv("BRAVE_API_KEY", "brave-test-key")
    return loopback


async def test_missing_key_is_refused_without_a_request(
    loopback: LoopbackServer, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGUE_BRAVE_URL", loopback.url)
    loopback.enqueue(Reply(json=BRAVE_SEARCH))
    result = await brave.search("debate", client=client, limit=3)
    assert (result.status, result.note) == ("refused", "BRAVE_API_KEY not set")
    assert loopback.requests == []


async def test_parses_web_results(brave_server: LoopbackServer, client: httpx.AsyncClient) -> None:
    brave_server.enqueue(Reply(json=BRAVE_SEARCH))

    result = await brave.search("multiagent debate", client=client, limit=50)

    assert result.status == "ok", result.note
    assert [item.id for item in result.items] == [
        "brave:https://example.org/debate-explained",
        "brave:https://www.github.com/octo/debate-kit/",
    ]
    first = result.items[0]
    assert first.title == "Multi-agent debate explained"
    assert first.snippet == "How debate between models improves factuality."
    assert first.url == "https://example.org/debate-explained"
    request = brave_server.requests[0]
    assert request.path == "/res/v1/web/search"
    assert request.headers["x-subscription-token"] == "brave-test-key"
    assert request.query == {"q": ["multiagent debate"], "count": ["20"]}


async def test_no_web_section_is_empty(
    brave_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    brave_server.enqueue(Reply(json={"type": "search", "query": {"original": "zzzz"}}))
    result = await brave.search("zzzz", client=client, limit=3)
    assert result.status == "empty"


@pytest.mark.parametrize(
    "payload",
    [
        {"results": []},
        {"type": "search", "web": {"results": "x"}},
        {"type": "search", "web": {"results": [{"title": "no url"}]}},
        {"type": "search", "web": {"results": [{"url": "javascript:alert(1)"}]}},
    ],
)
async def test_wrong_shape_is_failed(
    brave_server: LoopbackServer, client: httpx.AsyncClient, payload: object
) -> None:
    brave_server.enqueue(Reply(json=payload))
    result = await brave.search("debate", client=client, limit=3)
    assert (result.status, result.note) == ("failed", "brave: unexpected response shape")


async def test_rate_limit_is_failed(
    brave_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    brave_server.enqueue(Reply(status=429, json={"type": "ErrorResponse"}))
    result = await brave.search("debate", client=client, limit=3)
    assert (result.status, result.note) == (
        "failed",
        "brave: HTTP 429 from 127.0.0.1 (rate limited)",
    )


async def test_rejected_key_is_failed(
    brave_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    brave_server.enqueue(Reply(status=401, json={"type": "ErrorResponse"}))
    result = await brave.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "brave: HTTP 401 from 127.0.0.1 (key rejected or not allowed)"
    assert "brave-test-key" not in result.note


async def test_oversized_response_is_rejected(
    brave_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    brave_server.enqueue(Reply(body=b"x" * (2 * 1024 * 1024 + 1), content_type="application/json"))
    result = await brave.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "brave: response from 127.0.0.1 larger than 2 MB, rejected"
