from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import httpx
import pytest

from argue.skills.dogpile.sources import github
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.conftest import PaceClocks
from tests.skills.dogpile.payloads import GITHUB_SEARCH


@pytest.fixture
def github_server(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    monkeypatch.setenv("ARGUE_GITHUB_URL", loopback.url)
    return loopback


async def test_parses_repositories_without_token(
    github_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    github_server.enqueue(Reply(json=GITHUB_SEARCH))

    result = await github.search("multiagent debate", client=client, limit=5)

    assert result.status == "ok", result.note
    assert [item.id for item in result.items] == ["github:octo/debate-kit", "github:lab/argmin"]
    first = result.items[0]
    assert first.title == "octo/debate-kit"
    assert first.url == "https://github.com/octo/debate-kit"
    assert first.snippet == (
        "Tools for structured multi-agent debate (4210 stars, Python, last push 2024-04-30)"
    )
    assert result.items[1].snippet == "(12 stars, last push 2023-01-02)"
    request = github_server.requests[0]
    assert request.path == "/search/repositories"
    assert request.query == {"q": ["multiagent debate"], "per_page": ["5"]}
    assert "authorization" not in request.headers
    assert request.headers["accept"] == "application/vnd.github+json"


async def test_token_is_sent_as_bearer(
    github_server: LoopbackServer, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
    github_server.enqueue(Reply(json=GITHUB_SEARCH))
    result = await github.search("debate", client=client, limit=1)
    assert [item.id for item in result.items] == ["github:octo/debate-kit"]
    assert github_server.requests[0].headers["authorization"] == "Bearer ghp_test"


async def test_exhausted_rate_limit_names_reset_time(
    github_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    reset = int(datetime(2024, 5, 1, 12, 3, 30, tzinfo=UTC).timestamp())
    github_server.enqueue(
        Reply(
            status=403,
            json={"message": "API rate limit exceeded"},
            headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)},
        )
    )
    result = await github.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "github: rate limited until 12:03 UTC"


async def test_secondary_rate_limit_429_with_retry_after(
    github_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    github_server.enqueue(
        Reply(status=429, json={"message": "slow down"}, headers={"retry-after": "30"})
    )
    result = await github.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "github: HTTP 429 from 127.0.0.1 (rate limited, retry after 30 s)"


async def test_server_error_is_failed(
    github_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    github_server.enqueue(Reply(status=500, json={"message": "boom"}))
    result = await github.search("debate", client=client, limit=3)
    assert (result.status, result.note) == ("failed", "github: HTTP 500 from 127.0.0.1")


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        ({"items": "nope"}, "items: Input should be a valid list"),
        ({"total_count": 0}, "items: Field required"),
        (
            {"items": [{"full_name": "no-url"}]},
            "items.0.full_name: expected owner/name (and 1 more)",
        ),
        ([1, 2], "response: expected a JSON object, got array"),
        (
            {"items": [{"full_name": "a/b", "html_url": 7}]},
            "items.0.html_url: Input should be a valid string",
        ),
        (
            {"items": [{"full_name": "a/b", "html_url": "https://github.com/a/b"}, "x"]},
            "items.1: expected a JSON object, got string",
        ),
    ],
)
async def test_wrong_shape_is_failed(
    github_server: LoopbackServer,
    client: httpx.AsyncClient,
    payload: object,
    detail: str,
) -> None:
    github_server.enqueue(Reply(json=payload))
    result = await github.search("debate", client=client, limit=3)
    assert (result.status, result.note) == (
        "failed",
        f"github: unexpected response shape: {detail}",
    )


async def test_invalid_json_is_failed(
    github_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    github_server.enqueue(Reply(body='{"items": [', content_type="application/json"))
    result = await github.search("debate", client=client, limit=3)
    assert (result.status, result.note) == (
        "failed",
        "github: response from 127.0.0.1 is not valid JSON",
    )


async def test_no_results_is_empty(
    github_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    github_server.enqueue(Reply(json={"total_count": 0, "incomplete_results": False, "items": []}))
    result = await github.search("zzzz", client=client, limit=3)
    assert (result.status, result.items) == ("empty", [])


async def test_slow_server_times_out(github_server: LoopbackServer) -> None:
    github_server.enqueue(Reply(json=GITHUB_SEARCH, delay_s=0.5))
    async with httpx.AsyncClient(timeout=httpx.Timeout(0.05)) as impatient:
        result = await github.search("debate", client=impatient, limit=3)
    assert result.status == "failed"
    assert result.note == "github: timed out waiting for 127.0.0.1 (read timeout)"


async def test_unreachable_server_is_failed(client: httpx.AsyncClient) -> None:
    # The autouse fixture points every source at port 9, where nothing listens.
    result = await github.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note.startswith("github: could not connect to 127.0.0.1")


async def test_description_is_plain_text_kept_whole(
    github_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    repo = {
        **GITHUB_SEARCH["items"][1],
        "description": "Generic debate engine: Arena<Agent>, map<K, V> & 0<p<1 sampling",
    }
    github_server.enqueue(Reply(json={"total_count": 1, "items": [repo]}))
    result = await github.search("debate", client=client, limit=3)
    assert result.items[0].snippet == (
        "Generic debate engine: Arena<Agent>, map<K, V> & 0<p<1 sampling "
        "(12 stars, last push 2023-01-02)"
    )


async def test_requests_without_token_are_spaced_six_seconds(
    github_server: LoopbackServer, client: httpx.AsyncClient, pace_clocks: PaceClocks
) -> None:
    github_server.enqueue(Reply(json=GITHUB_SEARCH))

    results = await asyncio.gather(
        *(github.search(f"q{n}", client=client, limit=1) for n in range(3))
    )

    assert [r.status for r in results] == ["ok", "ok", "ok"]
    assert pace_clocks.github.sleeps == [pytest.approx(6.0), pytest.approx(6.0)]


async def test_requests_with_token_are_spaced_two_seconds(
    github_server: LoopbackServer,
    client: httpx.AsyncClient,
    pace_clocks: PaceClocks,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_test")
    github_server.enqueue(Reply(json=GITHUB_SEARCH))

    await github.search("one", client=client, limit=1)
    await github.search("two", client=client, limit=1)

    assert pace_clocks.github.sleeps == [pytest.approx(2.0)]
