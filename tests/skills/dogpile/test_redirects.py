"""Credentials go only to the origin they belong to; redirects are few and http(s) only.

Teeth: let ``_http.fetch`` keep ``headers`` across origins (or follow redirects inside httpx)
and the first test fails.
"""

from __future__ import annotations

import httpx
import pytest

from argue.skills.dogpile.sources import brave
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.payloads import BRAVE_SEARCH


@pytest.fixture
def elsewhere() -> LoopbackServer:
    server = LoopbackServer().start()
    yield server
    server.stop()


async def test_a_redirect_to_another_origin_drops_the_key(
    loopback: LoopbackServer,
    elsewhere: LoopbackServer,
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARGUE_BRAVE_URL", f"{loopback.url}/res/v1/web/search")
    monkeypatch.setenv("BRAVE_API_KEY", "brave-canary-key-123")
    loopback.enqueue(Reply(status=302, headers={"Location": f"{elsewhere.url}/moved"}))
    elsewhere.enqueue(Reply(json=BRAVE_SEARCH))
    result = await brave.search("debate", client=client, limit=3)
    assert result.status == "ok", result.note
    assert loopback.requests[0].headers["x-subscription-token"] == "brave-canary-key-123"
    [moved] = elsewhere.requests
    assert "x-subscription-token" not in moved.headers
    assert "brave-canary-key-123" not in str(moved.headers)


async def test_a_same_origin_redirect_keeps_the_key(
    loopback: LoopbackServer, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGUE_BRAVE_URL", f"{loopback.url}/res/v1/web/search")
    monkeypatch.setenv("BRAVE_API_KEY", "brave-canary-key-123")
    loopback.enqueue(
        Reply(status=301, headers={"Location": "/res/v2/web/search?q=debate"}),
        Reply(json=BRAVE_SEARCH),
    )
    result = await brave.search("debate", client=client, limit=3)
    assert result.status == "ok", result.note
    assert [r.path for r in loopback.requests] == ["/res/v1/web/search", "/res/v2/web/search"]
    assert loopback.requests[1].headers["x-subscription-token"] == "brave-canary-key-123"


@pytest.mark.parametrize(
    ("location", "note"),
    [
        ("file:///etc/passwd", "redirected to an unusable location"),
        (None, "more than 3 redirects"),
    ],
)
async def test_bad_or_endless_redirects_fail_in_plain_words(
    loopback: LoopbackServer,
    client: httpx.AsyncClient,
    monkeypatch: pytest.MonkeyPatch,
    location: str | None,
    note: str,
) -> None:
    monkeypatch.setenv("ARGUE_BRAVE_URL", f"{loopback.url}/loop")
    monkeypatch.setenv("BRAVE_API_KEY", "brave-canary-key-123")
    loopback.enqueue(Reply(status=302, headers={"Location": location or f"{loopback.url}/loop"}))
    result = await brave.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert note in result.note
    assert len(loopback.requests) <= 4


async def test_private_and_metadata_addresses_are_refused_without_a_request(
    loopback: LoopbackServer, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARGUE_ALLOW_PRIVATE_ADDRESSES", raising=False)
    monkeypatch.setenv("BRAVE_API_KEY", "brave-canary-key-123")
    loopback.enqueue(Reply(json=BRAVE_SEARCH))
    for url in (
        f"{loopback.url}/search",
        "http://169.254.169.254/latest/meta-data",
        "http://10.1.2.3/x",
    ):
        monkeypatch.setenv("ARGUE_BRAVE_URL", url)
        result = await brave.search("debate", client=client, limit=3)
        assert result.status == "failed", url
        assert "a private or local address" in result.note, result.note
    assert loopback.requests == []


async def test_a_redirect_to_another_host_is_refused(
    loopback: LoopbackServer, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGUE_BRAVE_URL", f"{loopback.url}/search")
    monkeypatch.setenv("BRAVE_API_KEY", "brave-canary-key-123")
    port = loopback.url.rsplit(":", 1)[1]
    loopback.enqueue(Reply(status=302, headers={"Location": f"http://localhost:{port}/elsewhere"}))
    result = await brave.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert "refused a redirect to localhost (only 127.0.0.1 is configured)" in result.note
    assert [r.path for r in loopback.requests] == ["/search"]
