from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from argue.skills.dogpile.sources._http import SourceError, clean_text, fetch


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  a <b>bold</b>\n\n\tclaim  ", "a <b>bold</b> claim"),
        (
            "for 0<p<1 the bound holds, and for q>2 it fails",
            "for 0<p<1 the bound holds, and for q>2 it fails",
        ),
        ("std::vector<int> and map<K, V>", "std::vector<int> and map<K, V>"),
        ("fish &amp; chips", "fish &amp; chips"),
        ("right\u202eto-left\x00 trick", "right to-left trick"),
        (None, ""),
        (42, ""),
    ],
)
def test_plain_text_keeps_every_character(raw: object, expected: str) -> None:
    assert clean_text(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Multi-agent <strong>debate</strong>\n\n explained", "Multi-agent debate explained"),
        ('<a href="https://x.org/a?b=1&amp;c=2">link</a><br/><img src=x>end', "link end"),
        (
            "for 0<p<1 the bound holds, and for q>2 it fails",
            "for 0<p<1 the bound holds, and for q>2 it fails",
        ),
        ("std::vector&lt;int&gt; and map&lt;K, V&gt;", "std::vector<int> and map<K, V>"),
        # Escaped markup is text the page shows: decoded, never then stripped as a tag.
        ("&lt;script&gt;alert(1)&lt;/script&gt;ok", "<script>alert(1)</script>ok"),
        ("fish &amp; chips &#39;n&#39; peas", "fish & chips 'n' peas"),
        ("a &lt;b&gt; c", "a <b> c"),
        ("right\u202eto-left\x00 trick", "right to-left trick"),
        (None, ""),
    ],
)
def test_html_fields_lose_real_tags_then_decode_entities(raw: object, expected: str) -> None:
    assert clean_text(raw, html=True) == expected


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
