from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx
import pytest

from argue.skills.dogpile.sources import arxiv
from tests.loopback import LoopbackServer, RecordedRequest, Reply
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
    # An abstract is plain text: its maths is kept, not mistaken for tags.
    assert first.snippet.endswith(
        "debate each other converge on more accurate answers: with a share $0<p<1$ of "
        "faulty agents, accuracy still rises after $n>2$ rounds."
    )
    [request] = arxiv_server.requests
    assert request.path == "/api/query"
    assert request.query["search_query"] == ["all:multiagent AND all:debate"]
    assert request.query["max_results"] == ["5"]


async def test_limit_caps_items(arxiv_server: LoopbackServer, client: httpx.AsyncClient) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_FEED, content_type=ATOM))
    result = await arxiv.search("debate", client=client, limit=1)
    assert [item.id for item in result.items] == ["arxiv:2101.00001v2"]


async def test_question_becomes_a_conjunction_of_informative_terms(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_FEED, content_type=ATOM))

    result = await arxiv.search(
        "Does remote work AND hybrid (C++) reduce productivity?", client=client, limit=3
    )

    assert result.status == "ok", result.note
    [request] = arxiv_server.requests
    assert request.query["search_query"] == [
        "all:remote AND all:work AND all:hybrid AND all:reduce AND all:productivity"
    ]


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        # The user's operators and field prefixes are words to drop, not syntax to obey.
        ('ti:"x" OR (au:Yilun) ANDNOT Debate', ["yilun", "debate"]),
        ("quantum NOT classical andnot or And", ["quantum", "classical"]),
        # Long questions keep their first six informative words, once each.
        (
            "Why do large language models that debate with other large language models "
            "become more truthful, calibrated and robust over many rounds?",
            ["large", "language", "models", "debate", "become", "truthful"],
        ),
        (
            "L'effet du télétravail sur la productivité des équipes",
            ["effet", "télétravail", "productivité", "équipes"],
        ),
        ("multi-agent_debate v2.0", ["multi", "agent", "debate", "v2"]),
        ("What is it, and why?", []),
    ],
)
def test_search_terms(question: str, terms: list[str]) -> None:
    assert arxiv.search_terms(question) == terms


async def test_only_stopwords_sends_nothing(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_FEED, content_type=ATOM))
    result = await arxiv.search("What is it, and why?", client=client, limit=3)
    assert result.status == "empty"
    assert arxiv_server.requests == []


async def test_nothing_strict_falls_back_once_to_any_term(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient, arxiv_clock: FakeClock
) -> None:
    arxiv_server.enqueue(
        Reply(body=ATOM_EMPTY_FEED, content_type=ATOM), Reply(body=ATOM_FEED, content_type=ATOM)
    )

    result = await arxiv.search('ti:"debate" OR (au:factuality)', client=client, limit=3)

    assert result.status == "ok", result.note
    assert [item.id for item in result.items] == ["arxiv:2101.00001v2", "arxiv:hep-th/9901001v1"]
    assert [r.query["search_query"] for r in arxiv_server.requests] == [
        ["all:debate AND all:factuality"],
        ["all:debate OR all:factuality"],
    ]
    # The second request respects arXiv's 3 s spacing like any other.
    assert arxiv_clock.sleeps == [pytest.approx(3.0)]


async def test_nothing_either_way_is_empty_after_two_requests(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_EMPTY_FEED, content_type=ATOM))
    result = await arxiv.search("zzzz qqqq", client=client, limit=3)
    assert result.status == "empty"
    assert len(arxiv_server.requests) == 2


async def test_single_term_has_no_fallback(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(body=ATOM_EMPTY_FEED, content_type=ATOM))
    result = await arxiv.search("zzzz?", client=client, limit=3)
    assert result.status == "empty"
    assert [r.query["search_query"] for r in arxiv_server.requests] == [["all:zzzz"]]


async def test_http_400_reports_the_error_feed_message(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    arxiv_server.enqueue(Reply(status=400, body=ATOM_ERROR_FEED, content_type=ATOM))
    result = await arxiv.search("debate factuality", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "arxiv: HTTP 400 from 127.0.0.1 (incorrect id format for 1234)"
    assert len(arxiv_server.requests) == 1  # an error is not "nothing found": no fallback


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


def slow_feed(clock: FakeClock, seconds: float, arrivals: list[float]) -> Callable[..., Reply]:
    """A handler that notes when each request arrives and takes ``seconds`` (fake) to answer."""

    def handler(request: RecordedRequest) -> Reply:
        arrivals.append(clock.now)
        clock.now += seconds
        return Reply(body=ATOM_FEED, content_type=ATOM)

    return handler


async def test_gap_is_measured_from_when_the_previous_request_finished(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient, arxiv_clock: FakeClock
) -> None:
    arrivals: list[float] = []
    arxiv_server.handler = slow_feed(arxiv_clock, 5.0, arrivals)

    await arxiv.search("one", client=client, limit=2)
    await arxiv.search("two", client=client, limit=2)

    # The first request took 5 s: the second still waits 3 s after it ended.
    assert arrivals == [1000.0, 1008.0]
    assert arxiv_clock.sleeps == [pytest.approx(3.0)]


async def test_concurrent_calls_never_overlap(
    arxiv_server: LoopbackServer, client: httpx.AsyncClient, arxiv_clock: FakeClock
) -> None:
    arrivals: list[float] = []
    arxiv_server.handler = slow_feed(arxiv_clock, 2.0, arrivals)

    results = await asyncio.gather(
        *(arxiv.search(f"q{n}", client=client, limit=1) for n in range(3))
    )

    assert [r.status for r in results] == ["ok", "ok", "ok"]
    # Each request starts 3 s after the previous one's 2 s answer: one connection at a time.
    assert arrivals == [1000.0, 1005.0, 1010.0]


async def test_a_failed_request_still_counts_for_spacing(
    arxiv_server: LoopbackServer,
    client: httpx.AsyncClient,
    arxiv_clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARGUE_ARXIV_URL", "http://127.0.0.1:9/api/query")
    first = await arxiv.search("debate", client=client, limit=2)
    assert first.status == "failed"

    monkeypatch.setenv("ARGUE_ARXIV_URL", f"{arxiv_server.url}/api/query")
    arxiv_server.enqueue(Reply(body=ATOM_FEED, content_type=ATOM))
    second = await arxiv.search("debate", client=client, limit=2)

    assert second.status == "ok", second.note
    assert arxiv_clock.sleeps == [pytest.approx(3.0)]
