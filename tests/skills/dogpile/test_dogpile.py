from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

import httpx
import pytest

from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile import RANK_ORDER, SOURCE_NAMES, dogpile, merge_items, normalise_url
from argue.skills.dogpile.sources import arxiv, github, youtube
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.conftest import FakeLibrary, PaceClocks, Routes, library_item

ALL_OK_NOTE = (
    "arxiv ok (2), github ok (2), brave ok (2), perplexity ok (3), youtube ok (2), library ok (2)"
)


async def test_merges_every_source_round_robin_and_dedupes(
    routes: Routes, loopback: LoopbackServer
) -> None:
    result = await dogpile("multiagent debate")

    assert result.skill == "dogpile"
    assert result.status == "ok"
    assert result.note == ALL_OK_NOTE
    assert [(s.source, s.status, s.count) for s in result.sources] == [
        ("arxiv", "ok", 2),
        ("github", "ok", 2),
        ("brave", "ok", 2),
        ("perplexity", "ok", 3),
        ("youtube", "ok", 2),
        ("library", "ok", 2),
    ]
    ids = [item.id for item in result.items]
    assert ids[:6] == [
        "library:1:0",
        "arxiv:2101.00001v2",
        "github:octo/debate-kit",
        ids[3],
        "brave:https://example.org/debate-explained",
        "youtube:dQw4w9WgXcQ",
    ]
    assert ids[3].startswith("perplexity:answer:")
    # Perplexity's copy of the Brave page and Brave's www./trailing-slash copy of the GitHub
    # repository are duplicates: the first one met in ranked order stays.
    assert ids[6:] == [
        "library:1:1",
        "arxiv:hep-th/9901001v1",
        "github:lab/argmin",
        "youtube:abcDEF12345",
        "perplexity:https://news.example.com/ai-debate",
    ]
    assert len(loopback.requests) == 5
    assert all(r.headers["user-agent"].startswith("argue/") for r in loopback.requests)


async def test_max_items_caps_the_merge(routes: Routes) -> None:
    result = await dogpile("debate", max_items=4)
    assert [item.source for item in result.items] == ["library", "arxiv", "github", "perplexity"]


async def test_limit_per_source_reaches_every_adapter(
    routes: Routes, loopback: LoopbackServer, fake_library: FakeLibrary
) -> None:
    result = await dogpile("debate", limit_per_source=1)
    assert [s.count for s in result.sources] == [1, 1, 1, 1, 1, 1]
    assert fake_library.calls == [("debate", 1, None)]
    github_request = next(r for r in loopback.requests if r.path.startswith("/github"))
    assert github_request.query["per_page"] == ["1"]


async def test_missing_keys_are_refused_while_others_answer(
    routes: Routes, loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("BRAVE_API_KEY", "PERPLEXITY_API_KEY", "YOUTUBE_API_KEY"):
        monkeypatch.delenv(key)

    result = await dogpile("debate")

    assert result.status == "ok"
    assert result.note == (
        "arxiv ok (2), github ok (2), brave refused: BRAVE_API_KEY not set, "
        "perplexity refused: PERPLEXITY_API_KEY not set, "
        "youtube refused: YOUTUBE_API_KEY not set, library ok (2)"
    )
    assert {item.source for item in result.items} == {"library", "arxiv", "github"}
    assert sorted(r.path for r in loopback.requests) == ["/arxiv", "/github/search/repositories"]


async def test_server_error_in_one_source_is_reported_in_plain_words(routes: Routes) -> None:
    routes.replies["/github/search/repositories"] = Reply(status=503, body="unavailable")

    result = await dogpile("debate")

    github_status = next(s for s in result.sources if s.source == "github")
    assert (github_status.status, github_status.note) == ("failed", "HTTP 503 from 127.0.0.1")
    assert "github failed: HTTP 503 from 127.0.0.1" in result.note
    assert result.status == "ok"
    assert not any(item.source == "github" for item in result.items)


async def test_one_source_timing_out_does_not_sink_the_others(
    routes: Routes, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def never_answers(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    monkeypatch.setattr(youtube, "search", never_answers)

    result = await dogpile("debate", timeout_s=0.2)

    youtube_status = next(s for s in result.sources if s.source == "youtube")
    assert (youtube_status.status, youtube_status.note) == ("failed", "timed out after 0.2 s")
    assert "youtube failed: timed out after 0.2 s" in result.note
    assert [s.status for s in result.sources if s.source != "youtube"] == ["ok"] * 5
    assert result.status == "ok"


async def test_sources_run_concurrently(routes: Routes, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each adapter waits for the other: only a concurrent fan-out lets both finish.
    barrier = asyncio.Barrier(2)

    def meeting(source: str) -> Callable[..., object]:
        async def search(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
            await barrier.wait()
            item = SkillItem(id=f"{source}:x", title=f"{source} x", source=source)
            return SkillResult.from_items(source, query, [item])

        return search

    monkeypatch.setattr(arxiv, "search", meeting("arxiv"))
    monkeypatch.setattr(github, "search", meeting("github"))

    result = await dogpile("debate", sources=["arxiv", "github"], timeout_s=5)

    assert [s.status for s in result.sources] == ["ok", "ok"]


async def test_concurrent_dogpiles_share_one_pace_per_source(
    routes: Routes, loopback: LoopbackServer, pace_clocks: PaceClocks
) -> None:
    # Two personas researching at once: each paced source spaces its requests process-wide.
    first, second = await asyncio.gather(dogpile("debate one"), dogpile("debate two"))

    assert first.note == second.note == ALL_OK_NOTE
    assert pace_clocks.arxiv.sleeps == [pytest.approx(3.0)]
    assert pace_clocks.github.sleeps == [pytest.approx(6.0)]
    assert pace_clocks.brave.sleeps == [pytest.approx(1.0)]
    assert len(loopback.requests) == 10


async def test_crashing_adapter_is_reported_not_raised(
    routes: Routes, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
        raise KeyError("snippet")

    monkeypatch.setattr(github, "search", broken)
    result = await dogpile("debate", sources=["github", "arxiv"])
    assert result.sources[0].status == "failed"
    assert result.sources[0].note == "crashed (KeyError: 'snippet')"
    assert result.status == "ok"


async def test_every_source_failed_or_refused_is_failed(routes: Routes, monkeypatch) -> None:
    monkeypatch.delenv("BRAVE_API_KEY")
    routes.replies["/github/search/repositories"] = Reply(status=500, body="boom")

    result = await dogpile("debate", sources=["brave", "github"])

    assert result.status == "failed"
    assert result.items == []
    assert result.note == (
        "no results; brave refused: BRAVE_API_KEY not set; github failed: HTTP 500 from 127.0.0.1"
    )


# Teeth check for the tests below: make `aggregate_status` in skills/dogpile/__init__.py return
# "empty" when no item came back (the old behaviour) and they fail.
async def test_a_failed_source_with_the_rest_empty_is_failed_not_empty(
    routes: Routes, fake_library: FakeLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argue.skills.dogpile as dogpile_module

    async def never_answers(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    monkeypatch.setattr(arxiv, "search", never_answers)
    monkeypatch.setattr(dogpile_module, "PACING_ALLOWANCE_S", 0.0)
    routes.replies["/github/search/repositories"] = Reply(json={"total_count": 0, "items": []})
    fake_library.items = []

    result = await dogpile("collatz", sources=["arxiv", "github", "library"], timeout_s=0.2)

    # "No results" would claim every source looked and found nothing; arxiv never answered.
    assert result.status == "failed"
    assert result.items == []
    assert result.note == (
        "no results; arxiv failed: timed out after 0.2 s (including its wait for a rate-limit "
        "turn); github empty; library empty"
    )
    assert [(s.source, s.status) for s in result.sources] == [
        ("arxiv", "failed"),
        ("github", "empty"),
        ("library", "empty"),
    ]


async def test_failed_refused_and_empty_without_items_is_failed(
    routes: Routes, fake_library: FakeLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRAVE_API_KEY")
    routes.replies["/github/search/repositories"] = Reply(status=503, body="down")
    fake_library.items = []

    result = await dogpile("zzzz", sources=["github", "brave", "library"])

    assert (result.status, result.note) == (
        "failed",
        "no results; github failed: HTTP 503 from 127.0.0.1; brave refused: BRAVE_API_KEY not "
        "set; library empty",
    )


async def test_every_source_refused_is_refused_nothing_was_sent(
    routes: Routes, loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRAVE_API_KEY")
    monkeypatch.delenv("YOUTUBE_API_KEY")

    result = await dogpile("debate", sources=["brave", "youtube"])

    assert (result.status, result.note) == (
        "refused",
        "nothing sent; brave refused: BRAVE_API_KEY not set; youtube refused: "
        "YOUTUBE_API_KEY not set",
    )
    assert loopback.requests == []


async def test_items_from_one_source_keep_the_call_ok_and_name_the_failed_one(
    routes: Routes, fake_library: FakeLibrary
) -> None:
    routes.replies["/github/search/repositories"] = Reply(status=500, body="boom")

    result = await dogpile("debate", sources=["github", "library"])

    assert result.status == "ok"
    assert result.note == "github failed: HTTP 500 from 127.0.0.1, library ok (2)"
    assert [(s.source, s.status, s.note) for s in result.sources] == [
        ("github", "failed", "HTTP 500 from 127.0.0.1"),
        ("library", "ok", "2 result(s)"),
    ]


async def test_nothing_found_anywhere_is_empty(routes: Routes, fake_library: FakeLibrary) -> None:
    routes.replies["/github/search/repositories"] = Reply(json={"total_count": 0, "items": []})
    fake_library.items = []

    result = await dogpile("zzzz", sources=["github", "library"])

    assert (result.status, result.note) == ("empty", "github empty, library empty")


async def test_empty_and_refused_without_items_is_empty(routes: Routes, monkeypatch) -> None:
    monkeypatch.delenv("BRAVE_API_KEY")
    routes.replies["/github/search/repositories"] = Reply(json={"total_count": 0, "items": []})
    result = await dogpile("zzzz", sources=["github", "brave"])
    assert result.status == "empty"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sources": ["arxiv", "google"]}, "unknown source(s): google"),
        ({"sources": "arxiv"}, "not one string"),
        ({"sources": []}, "no source selected"),
        ({"limit_per_source": 0}, "at least 1"),
        ({"max_items": 0}, "at least 1"),
        ({"timeout_s": 0}, "positive"),
        ({"query": "  "}, "the query is empty"),
    ],
)
async def test_caller_mistakes_raise_value_error(kwargs: dict, message: str) -> None:
    arguments = {"query": "debate", **kwargs}
    with pytest.raises(ValueError, match=re.escape(message)):
        await dogpile(**arguments)


async def test_duplicate_source_names_ask_once(routes: Routes, loopback: LoopbackServer) -> None:
    result = await dogpile("debate", sources=["github", "github"])
    assert [s.source for s in result.sources] == ["github"]
    assert len(loopback.requests) == 1


def _item(source: str, n: int, url: str | None = None, title: str | None = None) -> SkillItem:
    return SkillItem(id=f"{source}:{n}", title=title or f"{source} {n}", url=url, source=source)


def test_merge_interleaves_in_rank_order_whatever_the_input_order() -> None:
    merged = merge_items(
        {
            "youtube": [_item("youtube", 0), _item("youtube", 1), _item("youtube", 2)],
            "arxiv": [_item("arxiv", 0)],
            "library": [_item("library", 0), _item("library", 1)],
        },
        max_items=10,
    )
    assert [item.id for item in merged] == [
        "library:0",
        "arxiv:0",
        "youtube:0",
        "library:1",
        "youtube:1",
        "youtube:2",
    ]


def test_merge_dedupes_by_url_then_by_title() -> None:
    merged = merge_items(
        {
            "arxiv": [_item("arxiv", 0, url="https://arxiv.org/abs/1?utm_source=x")],
            "brave": [
                _item("brave", 0, url="http://www.arxiv.org/abs/1/#top"),
                _item("brave", 1, title="A Paper"),
            ],
            "perplexity": [_item("perplexity", 0, title="a paper  ")],
        },
        max_items=10,
    )
    # brave:0 repeats arxiv's page; brave:1 repeats perplexity's title (met earlier, position 0).
    assert [item.id for item in merged] == ["arxiv:0", "perplexity:0"]


def test_merge_keeps_library_chunks_that_share_a_title() -> None:
    chunks = [library_item(3, n, "Same Book", page=n) for n in range(3)]
    assert len(merge_items({"library": chunks}, max_items=10)) == 3


@pytest.mark.parametrize(
    ("url", "normalised"),
    [
        ("https://www.Example.org/a/", "example.org/a"),
        ("http://example.org/a#frag", "example.org/a"),
        ("https://example.org/a?b=2&a=1&utm_medium=x&fbclid=y", "example.org/a?a=1&b=2"),
        ("https://example.org:8443/a", "example.org:8443/a"),
    ],
)
def test_normalise_url(url: str, normalised: str) -> None:
    assert normalise_url(url) == normalised


def test_exported_names() -> None:
    assert SOURCE_NAMES == ("arxiv", "github", "brave", "perplexity", "youtube", "library")
    assert set(RANK_ORDER) == set(SOURCE_NAMES)
    assert RANK_ORDER[:2] == ("library", "arxiv")


def test_passages_of_one_document_are_not_merged():
    from argue.skills.base import SkillItem
    from argue.skills.dogpile import merge_items

    passages = [
        SkillItem(
            id=f"library:d:{n}",
            title="Book",
            url="file:///book.md",
            locator=f"p. {n}",
            snippet="s",
            source="library",
        )
        for n in (1, 2)
    ]
    assert len(merge_items({"library": passages}, max_items=10)) == 2
