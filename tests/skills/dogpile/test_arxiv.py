from __future__ import annotations

import asyncio

import httpx
import pytest

from skills.dogpile.sources import arxiv
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.conftest import FakeClock
from tests.skills.dogpile.payloads import ATOM_EMPTY_FEED, ATOM_ERROR_FEED, ATOM_FEED

ATOM = "application/atom+xml; charset=utf-8"


@pytest.fixture
def arxiv_server(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    monkeypatch.setenv("ARGUE_ARXIV_URL", f"{loopback.url}/api/query")
    return loopback


async def test_parses_atom_entries_into_items(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_FEED, content_type=ATOM))

    result = await arxiv.search("multiagent debate", client=client, limit=5)

    assert result.status == "ok", result.note
    assert result.skill == "arxiv"
    assert [item.id for item in result.items] == ["arxiv:2101.00001v2", "arxiv:hep-th/9901001v1"]
    first = result.items[0]
    assert first.title == "Improving Factuality through Multiagent Debate"
    assert first.url == "https://arxiv.org/abs/2101.00001v2"
    assert first.source == "arxiv"
    assert first.snippet.startswith("Yilun Du, Shuang Li, Antonio Torralba et al. (2021): ")
    assert "<b>" not in first.snippet and "debate each other converge" in first.snippet
    request = arxiv_server.requests[0]
    assert request.path == "/api/query"
    assert request.query["search_query"] == ["all:multiagent debate"]
    assert request.query["max_results"] == ["5"]


async def test_limit_caps_items(arxiv_server: LoopbackServer, client: httpx.AsyncClient) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_FEED, content_type=ATOM))
    result = await arxiv.search("debate", client=client, limit=1)
    assert [item.id for item in result.items] == ["arxiv:2101.00001v2"]


async def test_query_syntax_is_neutralised(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_EMPTY_FEED, content_type=ATOM))
    result = await arxiv.search('ti:"x" OR (au:y)', client=client, limit=3)
    assert result.status == "empty"
    assert arxiv_server.requests[0].query["search_query"] == ["all:ti x OR au y"]


async def test_http_503_is_failed_with_host(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(status=503, body="Service Unavailable"))
    result = await arxiv.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "arxiv: HTTP 503 from 127.0.0.1"
    assert result.items == []


async def test_invalid_xml_is_failed(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body="<feed><entry>unclosed", content_type=ATOM))
    result = await arxiv.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert "not a valid Atom feed" in result.note


async def test_html_instead_of_atom_is_failed(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body="<html><body>maintenance</body></html>"))
    result = await arxiv.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "arxiv: unexpected response shape (not an Atom feed)"


async def test_entity_expansion_is_refused_by_the_parser(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;">]>'
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>&lol2;</title></feed>'
    )
    arxiv_server.enqueue(Reply(body=bomb, content_type=ATOM))
    result = await arxiv.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert "not a valid Atom feed" in result.note


async def test_api_error_entry_is_failed(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_ERROR_FEED, content_type=ATOM))
    result = await arxiv.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "arxiv: API error: incorrect id format for 1234"


async def test_consecutive_calls_are_spaced_three_seconds(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient, arxiv_clock: FakeClock
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_FEED, content_type=ATOM))

    await arxiv.search("one", client=client, limit=2)
    assert arxiv_clock.sleeps == []
    arxiv_clock.now += 1.0  # the next call comes 1 s later: it must wait 2 s more
    await arxiv.search("two", client=client, limit=2)
    assert arxiv_clock.sleeps == [pytest.approx(2.0)]
    arxiv_clock.now += 10.0  # long after: no wait
    await arxiv.search("three", client=client, limit=2)
    assert arxiv_clock.sleeps == [pytest.approx(2.0)]
    assert len(arxiv_server.requests) == 3


async def test_concurrent_calls_queue_behind_each_other(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient, arxiv_clock: FakeClock
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_FEED, content_type=ATOM))
    starts: list[float] = []
    original_wait = arxiv.ARXIV_RATE_LIMITER.wait_turn

    async def recording_wait() -> None:
        await original_wait()
        starts.append(arxiv_clock())

    arxiv.ARXIV_RATE_LIMITER.wait_turn = recording_wait  # type: ignore[method-assign]

    results = await asyncio.gather(
        *(arxiv.search(f"q{n}", client=client, limit=1) for n in range(3))
    )

    assert [r.status for r in results] == ["ok", "ok", "ok"]
    assert starts == [1000.0, 1003.0, 1006.0]


async def test_rate_limiter_works_across_event_loops() -> None:
    clock = FakeClock()
    limiter = arxiv.RateLimiter(3.0, clock=clock, sleep=clock.sleep)

    def in_new_loop() -> None:
        asyncio.run(limiter.wait_turn())

    await asyncio.to_thread(in_new_loop)
    await limiter.wait_turn()
    assert clock.sleeps == [pytest.approx(3.0)]
