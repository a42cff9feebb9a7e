from __future__ import annotations

import asyncio

import httpx
import pytest

from argue.skills.dogpile.sources import brave
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.conftest import PaceClocks
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
    ("payload", "detail"),
    [
        ({"results": []}, "web: Field required (and 'type' is not \"search\")"),
        ({"type": "search", "web": {"results": "x"}}, "web.results: Input should be a valid list"),
        (
            {"type": "search", "web": {"results": [{"title": "no url"}]}},
            "web.results.0.url: Field required",
        ),
        (
            {"type": "search", "web": {"results": [{"url": "javascript:alert(1)"}]}},
            "web.results.0.url: not an http(s) URL",
        ),
        (
            {"type": "search", "web": {"results": [{"url": ["https://x"]}]}},
            "web.results.0.url: Input should be a valid string",
        ),
    ],
)
async def test_wrong_shape_is_failed(
    brave_server: LoopbackServer,
    client: httpx.AsyncClient,
    payload: object,
    detail: str,
) -> None:
    brave_server.enqueue(Reply(json=payload))
    result = await brave.search("debate", client=client, limit=3)
    assert (result.status, result.note) == ("failed", f"brave: unexpected response shape: {detail}")


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


async def test_highlight_tags_go_but_text_in_angle_brackets_stays(
    brave_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    result_json = {
        "type": "search",
        "web": {
            "results": [
                {
                    "title": "<strong>Bounds</strong> for 0<p<1 &amp; q>2",
                    "url": "https://example.org/bounds",
                    "description": (
                        "For 0<p<1 the <strong>bound</strong> holds, and for q>2 it fails; "
                        "see std::vector&lt;int&gt;."
                    ),
                }
            ]
        },
    }
    brave_server.enqueue(Reply(json=result_json))
    result = await brave.search("bounds", client=client, limit=3)
    [item] = result.items
    assert item.title == "Bounds for 0<p<1 & q>2"
    assert item.snippet == (
        "For 0<p<1 the bound holds, and for q>2 it fails; see std::vector<int>."
    )


async def test_requests_are_spaced_one_second_apart_process_wide(
    brave_server: LoopbackServer, client: httpx.AsyncClient, pace_clocks: PaceClocks
) -> None:
    brave_server.enqueue(Reply(json=BRAVE_SEARCH))

    results = await asyncio.gather(
        *(brave.search(f"q{n}", client=client, limit=1) for n in range(3))
    )

    assert [r.status for r in results] == ["ok", "ok", "ok"]
    assert pace_clocks.brave.sleeps == [pytest.approx(1.0), pytest.approx(1.0)]
    assert len(brave_server.requests) == 3
    pace_clocks.brave.now += 5.0  # long after: no wait
    await brave.search("later", client=client, limit=1)
    assert len(pace_clocks.brave.sleeps) == 2


async def test_refused_search_takes_no_turn(
    loopback: LoopbackServer, client: httpx.AsyncClient, pace_clocks: PaceClocks
) -> None:
    for _ in range(3):
        result = await brave.search("debate", client=client, limit=3)
        assert result.status == "refused"
    assert pace_clocks.brave.sleeps == []
