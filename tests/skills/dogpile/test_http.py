from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from skills.dogpile.sources._http import SourceError, clean_text, fetch


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  a <b>bold</b>\n\n\tclaim  ", "a bold claim"),
        ("&lt;script&gt;alert(1)&lt;/script&gt;ok", "alert(1) ok"),
        ("fish &amp; chips &#39;n&#39; peas", "fish & chips 'n' peas"),
        ("right\u202eto-left\x00 trick", "right to-left trick"),
        (None, ""),
        (42, ""),
    ],
)
def test_clean_text_treats_fetched_text_as_plain_data(raw: object, expected: str) -> None:
    assert clean_text(raw) == expected


def test_clean_text_truncates_with_an_ellipsis() -> None:
    cleaned = clean_text("word " * 300)
    assert len(cleaned) == 500
    assert cleaned.endswith("…")


async def test_streamed_body_without_length_is_capped() -> None:
    async def endless() -> AsyncIterator[bytes]:
        for _ in range(100):
            yield b"x" * 1024

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=endless())

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        with pytest.raises(SourceError, match="larger than 10000 bytes, rejected"):
            await fetch(client, "brave", "GET", "https://api.example.com/x", max_bytes=10_000)
        fetched = await fetch(client, "brave", "GET", "https://api.example.com/x")
    assert len(fetched.body) == 100 * 1024
    assert fetched.host == "api.example.com"
