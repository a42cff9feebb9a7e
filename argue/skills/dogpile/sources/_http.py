"""Shared by every web source: bounded fetches, plain-words failure notes, text cleaning.

Adapters raise ``SourceError`` internally; their public ``search`` turns it into a ``failed``
SkillResult, so an expected failure never escapes as an exception.
"""

from __future__ import annotations

import html as html_lib
import json
import os
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from argue.skills.base import SkillItem, SkillResult
from argue.text.controls import UNSAFE

MAX_RESPONSE_BYTES = 2 * 1024 * 1024
SNIPPET_CHARS = 500
TITLE_CHARS = 300

# A real tag only: a letter right after ``<`` (or ``</``), attributes after whitespace, no nested
# angle brackets. "0<p<1", "q>2" or "map<K, V>" are text and survive.
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]{0,2000})?/?>")
_WHITESPACE = re.compile(r"\s+")
# C0/C1 control characters and every bidi control: never useful in a snippet, sometimes hostile
# (argue.text.controls: the one character policy of every output).
_CONTROL = UNSAFE


class SourceError(Exception):
    """An expected failure of one source; the message is the note shown to the user."""


@dataclass(frozen=True)
class Fetched:
    status_code: int
    headers: httpx.Headers
    body: bytes
    host: str
    url: str = ""


def source_url(env_var: str, default: str) -> str:
    return (os.environ.get(env_var) or default).rstrip("/")


def host_of(url: str) -> str:
    return urlsplit(url).hostname or url


def clean_text(text: object, limit: int = SNIPPET_CHARS, *, html: bool = False) -> str:
    """Fetched text is data: collapse whitespace, drop control characters, cap the length.

    ``html=True`` is for fields a service sends as HTML (Brave's ``<strong>`` highlights,
    YouTube's escaped titles, Perplexity's page snippets): real tags are dropped first, then
    entities decoded, so an escaped ``&lt;int&gt;`` comes out as the text ``<int>``. Plain-text
    fields (arXiv abstracts, GitHub descriptions, model answers) keep every character.
    """
    if not isinstance(text, str):
        return ""
    plain = html_lib.unescape(_TAG.sub(" ", text)) if html else text
    plain = _WHITESPACE.sub(" ", _CONTROL.sub(" ", plain)).strip()
    if len(plain) > limit:
        plain = plain[: limit - 1].rstrip() + "…"
    return plain


def with_byline(byline: str, text: object, *, html: bool = False) -> tuple[str, str]:
    """A snippet that starts with a byline argue builds from the source's metadata ("Smith,
    Jones (2007): …"), and that byline as it stands in the snippet: it is shown, and never
    quotable as the source's words."""
    body = clean_text(text, html=html)
    snippet = clean_text(f"{byline}{body}" if byline else body)
    written = clean_text(byline)
    if not written:
        return snippet, ""
    return snippet, written if snippet.startswith(written) else snippet


async def fetch(
    client: httpx.AsyncClient,
    source: str,
    method: str,
    url: str,
    *,
    params: dict[str, str | int] | None = None,
    headers: dict[str, str] | None = None,
    json_body: Any = None,
    max_bytes: int = MAX_RESPONSE_BYTES,
) -> Fetched:
    """One request, body read up to ``max_bytes``. Transport problems become ``SourceError``.

    Redirects are followed here, at most ``MAX_REDIRECTS``, http(s) only; a redirect to another
    origin is followed without the request's own headers, so a key (Brave's
    ``X-Subscription-Token``…) is only ever sent to the origin it belongs to.
    """
    origin = _origin(url)
    home = (urlsplit(url).hostname or "").lower()  # the configured host of this source
    for _ in range(MAX_REDIRECTS + 1):
        await check_destination(source, url, home)
        fetched = await _fetch_once(
            client, source, method, url, params, headers, json_body, max_bytes
        )
        if fetched.status_code not in (301, 302, 303, 307, 308):
            return fetched
        location = fetched.headers.get("location", "")
        target = urljoin(str(fetched.url), location)
        if not location or urlsplit(target).scheme not in ("http", "https"):
            raise SourceError(f"{source}: {fetched.host} redirected to an unusable location")
        if _origin(target) != origin:
            headers = None  # never carry credentials to another origin
            origin = _origin(target)
        if fetched.status_code == 303 or (fetched.status_code in (301, 302) and method != "GET"):
            method, json_body = "GET", None
        url, params = target, None  # the location carries its own query
    raise SourceError(f"{source}: more than {MAX_REDIRECTS} redirects from {host_of(url)}")


MAX_REDIRECTS = 3
ALLOW_PRIVATE_ENV = "ARGUE_ALLOW_PRIVATE_ADDRESSES"
_METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata"})


async def check_destination(source: str, url: str, home: str) -> None:
    """Fetch only http(s) URLs on the source's configured host, and never a private, loopback,
    link-local (cloud metadata) or reserved address, unless ARGUE_ALLOW_PRIVATE_ADDRESSES=1
    (a source the user points at a server on their own network, or the test suite)."""
    import asyncio
    import ipaddress

    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        raise SourceError(f"{source}: refused {parts.scheme or 'a'} URL (http or https only)")
    if host != home:
        raise SourceError(f"{source}: refused a redirect to {host} (only {home} is configured)")
    if os.environ.get(ALLOW_PRIVATE_ENV) == "1":
        return
    if host in _METADATA_HOSTS:
        raise SourceError(f"{source}: refused {host}: a cloud metadata address")
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, parts.port or 443)
        except OSError:
            return  # the connection attempt reports the lookup failure in its own words
        # An IP family's sockaddr starts with the address text (the stubs allow an int: AF_CAN…).
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    for address in addresses:
        if (
            address.is_private
            or address.is_loopback
            or address.is_link_local
            or address.is_reserved
            or address.is_multicast
            or address.is_unspecified
        ):
            raise SourceError(
                f"{source}: refused {host} ({address}): a private or local address "
                f"(set {ALLOW_PRIVATE_ENV}=1 to allow servers on your own network)"
            )


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return (parts.scheme, (parts.hostname or "").lower(), parts.port)


async def _fetch_once(
    client: httpx.AsyncClient,
    source: str,
    method: str,
    url: str,
    params: dict[str, str | int] | None,
    headers: dict[str, str] | None,
    json_body: Any,
    max_bytes: int,
) -> Fetched:
    host = host_of(url)
    try:
        async with client.stream(
            method,
            url,
            params=params,
            headers=headers,
            json=json_body,
            follow_redirects=False,
        ) as response:
            if response.is_redirect:
                return Fetched(response.status_code, response.headers, b"", host, str(response.url))
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise SourceError(too_large(source, host, max_bytes))
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > max_bytes:
                    raise SourceError(too_large(source, host, max_bytes))
            return Fetched(
                response.status_code, response.headers, bytes(body), host, str(response.url)
            )
    except httpx.TimeoutException as exc:
        raise SourceError(f"{source}: timed out waiting for {host} ({_kind(exc)})") from exc
    except httpx.ConnectError as exc:
        reason = _reason(exc)
        if _NAME_LOOKUP.search(reason):
            raise SourceError(f"{source}: {NAME_LOOKUP_FAILED} {host} ({reason})") from exc
        raise SourceError(f"{source}: could not connect to {host} ({reason})") from exc
    except httpx.HTTPError as exc:
        raise SourceError(f"{source}: request to {host} failed ({_reason(exc)})") from exc


def too_large(source: str, host: str, max_bytes: int) -> str:
    megabytes, rest = divmod(max_bytes, 1024 * 1024)
    size = f"{megabytes} MB" if megabytes and not rest else f"{max_bytes} bytes"
    return f"{source}: response from {host} larger than {size}, rejected"


def _kind(exc: httpx.TimeoutException) -> str:
    return {
        httpx.ConnectTimeout: "connect timeout",
        httpx.ReadTimeout: "read timeout",
        httpx.WriteTimeout: "write timeout",
        httpx.PoolTimeout: "pool timeout",
    }.get(type(exc), "timeout")


NAME_LOOKUP_FAILED = "could not look up"
"""How a source's note begins when its host name could not be resolved (offline, most often)."""
_NAME_LOOKUP = re.compile(
    r"Name or service not known|Temporary failure in name resolution|nodename nor servname|"
    r"getaddrinfo failed|No address associated with hostname|Name does not resolve|"
    r"\[Errno -[235]\]",
    re.IGNORECASE,
)


def _reason(exc: Exception) -> str:
    text = clean_text(str(exc), 160)
    return text or type(exc).__name__


def http_failure(source: str, fetched: Fetched, detail: str = "") -> SourceError:
    note = f"{source}: HTTP {fetched.status_code} from {fetched.host}"
    extras = []
    if fetched.status_code == 429:
        extras.append("rate limited")
    retry_after = fetched.headers.get("retry-after", "").strip()
    if retry_after.isdigit():
        extras.append(f"retry after {retry_after} s")
    if fetched.status_code in (401, 403) and not detail:
        extras.append("key rejected or not allowed")
    if detail:
        extras.append(detail)
    if extras:
        note += f" ({', '.join(extras)})"
    return SourceError(note)


def expect_success(source: str, fetched: Fetched) -> None:
    if not 200 <= fetched.status_code < 300:
        raise http_failure(source, fetched)


def parse_json(source: str, fetched: Fetched) -> Any:
    try:
        return json.loads(fetched.body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise SourceError(f"{source}: response from {fetched.host} is not valid JSON") from exc


async def guarded(
    source: str, query: str, search: Callable[[], Awaitable[list[SkillItem]]]
) -> SkillResult:
    """Run one source's search; ``SourceError`` becomes ``failed`` with its note."""
    started = time.monotonic()
    try:
        items = await search()
    except SourceError as exc:
        return SkillResult.failed(source, query, str(exc), elapsed_s=time.monotonic() - started)
    return SkillResult.from_items(source, query, items, elapsed_s=time.monotonic() - started)
