from __future__ import annotations

import httpx
import pytest

from argue.skills.dogpile.sources import youtube
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.payloads import YOUTUBE_QUOTA_ERROR, YOUTUBE_SEARCH


@pytest.fixture
def youtube_server(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    monkeypatch.setenv("ARGUE_YOUTUBE_URL", f"{loopback.url}/youtube/v3")
    monkeypatch.setenv("YOUTUBE_API_KEY", "yt-secret")
    return loopback


async def test_missing_key_is_refused_without_a_request(
    loopback: LoopbackServer, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGUE_YOUTUBE_URL", loopback.url)
    result = await youtube.search("debate", client=client, limit=3)
    assert (result.status, result.note) == ("refused", "YOUTUBE_API_KEY not set")
    assert loopback.requests == []


async def test_parses_videos(youtube_server: LoopbackServer, client: httpx.AsyncClient) -> None:
    youtube_server.enqueue(Reply(json=YOUTUBE_SEARCH))

    result = await youtube.search("ai debate", client=client, limit=4)

    assert result.status == "ok", result.note
    assert [item.id for item in result.items] == ["youtube:dQw4w9WgXcQ", "youtube:abcDEF12345"]
    first = result.items[0]
    assert first.url == "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    assert first.title == "Why AI debate works & when it doesn't"
    assert first.snippet == (
        "Lecture Hall (2023-06-01): A lecture on debate as an alignment technique."
    )
    assert result.items[1].snippet == "Conf (2024-01-10):"
    request = youtube_server.requests[0]
    assert request.path == "/youtube/v3/search"
    assert request.query == {
        "part": ["snippet"],
        "type": ["video"],
        "q": ["ai debate"],
        "maxResults": ["4"],
        "key": ["yt-secret"],
    }


async def test_quota_error_names_the_reason(
    youtube_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    youtube_server.enqueue(Reply(status=403, json=YOUTUBE_QUOTA_ERROR))
    result = await youtube.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note == "youtube: HTTP 403 from 127.0.0.1 (quotaExceeded)"
    assert "yt-secret" not in result.note


@pytest.mark.parametrize(
    ("payload", "detail"),
    [
        ({"kind": "youtube#searchListResponse"}, "items: Field required"),
        (
            {"items": [{"id": {"kind": "youtube#channel", "channelId": "UC1"}, "snippet": {}}]},
            "items.0.id.videoId: Field required",
        ),
        (
            {"items": [{"id": {"videoId": "../../evil"}, "snippet": {"title": "x"}}]},
            "items.0.id.videoId: not a YouTube video id",
        ),
        (
            {"items": [{"id": {"videoId": "dQw4w9WgXcQ"}, "snippet": None}]},
            "items.0.snippet: expected a JSON object, got null",
        ),
    ],
)
async def test_wrong_shape_is_failed(
    youtube_server: LoopbackServer,
    client: httpx.AsyncClient,
    payload: object,
    detail: str,
) -> None:
    youtube_server.enqueue(Reply(json=payload))
    result = await youtube.search("debate", client=client, limit=3)
    assert (result.status, result.note) == (
        "failed",
        f"youtube: unexpected response shape: {detail}",
    )


async def test_connection_failure_does_not_leak_the_key(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YOUTUBE_API_KEY", "yt-secret")
    result = await youtube.search("debate", client=client, limit=3)
    assert result.status == "failed"
    assert result.note.startswith("youtube: could not connect to 127.0.0.1")
    assert "yt-secret" not in result.note


async def test_escaped_angle_brackets_are_text_not_tags(
    youtube_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    video = YOUTUBE_SEARCH["items"][0]
    escaped = {
        "items": [
            {
                **video,
                "snippet": {
                    **video["snippet"],
                    "title": "std::vector&lt;int&gt; vs map&lt;K, V&gt; in C++",
                    "description": "Why 0&lt;p&lt;1 matters &amp; when q&gt;2 fails.",
                },
            }
        ]
    }
    youtube_server.enqueue(Reply(json=escaped))
    result = await youtube.search("c++ templates", client=client, limit=3)
    [item] = result.items
    assert item.title == "std::vector<int> vs map<K, V> in C++"
    assert item.snippet == "Lecture Hall (2023-06-01): Why 0<p<1 matters & when q>2 fails."
