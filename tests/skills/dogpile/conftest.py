from __future__ import annotations

import asyncio
import sys
import types
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile.sources import arxiv, brave, github
from tests.loopback import LoopbackServer, RecordedRequest, Reply
from tests.skills.dogpile.payloads import (
    ATOM_FEED,
    BRAVE_SEARCH,
    GITHUB_SEARCH,
    PERPLEXITY_COMPLETION,
    YOUTUBE_SEARCH,
)

# Port 9 (discard): nothing listens, so a source a test forgot to point at loopback fails fast.
NOWHERE = "http://127.0.0.1:9"
SOURCE_URL_VARS = (
    "ARGUE_ARXIV_URL",
    "ARGUE_GITHUB_URL",
    "ARGUE_BRAVE_URL",
    "ARGUE_PERPLEXITY_URL",
    "ARGUE_YOUTUBE_URL",
)


class FakeClock:
    """A monotonic clock that only moves when someone sleeps on it (or a test advances it)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


@pytest.fixture(scope="module")
def _module_loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def loopback(_module_loopback: LoopbackServer) -> LoopbackServer:
    """The shared fixture, reused per module: stopping a server costs a 0.5 s poll each time."""
    server = _module_loopback
    with server._lock:
        server.requests.clear()
        server.handler = None
        server._queue.clear()
    return server


@pytest.fixture(autouse=True)
def no_real_network(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SOURCE_URL_VARS:
        monkeypatch.setenv(name, NOWHERE)


@dataclass
class PaceClocks:
    """One fake clock per paced source, so each source's waits can be asserted on their own."""

    arxiv: FakeClock = field(default_factory=FakeClock)
    github: FakeClock = field(default_factory=FakeClock)
    brave: FakeClock = field(default_factory=FakeClock)


@pytest.fixture(autouse=True)
def pace_clocks(monkeypatch: pytest.MonkeyPatch) -> PaceClocks:
    """Fresh process-wide limiters on fake clocks: no real waiting, no pacing across tests."""
    clocks = PaceClocks()
    for module, name, clock in (
        (arxiv, "ARXIV_RATE_LIMITER", clocks.arxiv),
        (github, "GITHUB_RATE_LIMITER", clocks.github),
        (brave, "BRAVE_RATE_LIMITER", clocks.brave),
    ):
        limiter = getattr(module, name).with_clock(clock, clock.sleep)
        monkeypatch.setattr(module, name, limiter)
    return clocks


@pytest.fixture
def arxiv_clock(pace_clocks: PaceClocks) -> FakeClock:
    return pace_clocks.arxiv


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=5.0) as http_client:
        yield http_client


class FakeLibrary:
    """Stands in for ``skills.library`` (written by another engineer) in ``sys.modules``."""

    def __init__(self) -> None:
        self.items: list[SkillItem] = []
        self.error: Exception | None = None
        self.calls: list[tuple[str, int, Path | None]] = []

    async def search_library(
        self, query: str, k: int = 5, *, db_path: Path | None = None
    ) -> SkillResult:
        self.calls.append((query, k, db_path))
        if self.error is not None:
            raise self.error
        return SkillResult.from_items("library", query, self.items[:k])


@pytest.fixture
def fake_library(monkeypatch: pytest.MonkeyPatch) -> FakeLibrary:
    fake = FakeLibrary()
    module = types.ModuleType("argue.skills.library")
    module.search_library = fake.search_library  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "argue.skills.library", module)
    # The stand-in holds passages: the library is usable (its readiness check reads a store).
    from argue.skills.dogpile.sources import library as library_source

    monkeypatch.setattr(library_source, "unusable_reason", lambda env=None, db_path=None: None)
    return fake


def library_item(doc_id: int, chunk_no: int, title: str, page: int) -> SkillItem:
    return SkillItem(
        id=f"library:{doc_id}:{chunk_no}",
        title=title,
        locator=f"p. {page}",
        snippet=f"Chunk {chunk_no} of {title}.",
        source="library",
    )


class Routes:
    """One loopback server plays every API; a test swaps the reply of any one route."""

    def __init__(self) -> None:
        self.replies: dict[str, Reply] = {
            "/arxiv": Reply(body=ATOM_FEED, content_type="application/atom+xml"),
            "/github/search/repositories": Reply(json=GITHUB_SEARCH),
            "/brave": Reply(json=BRAVE_SEARCH),
            "/pplx/chat/completions": Reply(json=PERPLEXITY_COMPLETION),
            "/yt/search": Reply(json=YOUTUBE_SEARCH),
        }

    def __call__(self, request: RecordedRequest) -> Reply:
        return self.replies.get(request.path, Reply(status=404, body="no such route"))


@pytest.fixture
def routes(
    loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch, fake_library: FakeLibrary
) -> Routes:
    routes = Routes()
    loopback.handler = routes
    for var, path in {
        "ARGUE_ARXIV_URL": "/arxiv",
        "ARGUE_GITHUB_URL": "/github",
        "ARGUE_BRAVE_URL": "/brave",
        "ARGUE_PERPLEXITY_URL": "/pplx",
        "ARGUE_YOUTUBE_URL": "/yt",
    }.items():
        monkeypatch.setenv(var, loopback.url + path)
    monkeypatch.setenv("BRAVE_API_KEY", "b")
    monkeypatch.setenv("PERPLEXITY_API_KEY", "p")
    monkeypatch.setenv("YOUTUBE_API_KEY", "y")
    fake_library.items = [library_item(1, n, "On Debate", page=n + 1) for n in range(2)]
    return routes
