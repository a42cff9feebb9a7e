"""One URL normalisation for de-duplicating search results and matching cited URLs.

Kept free of heavy imports: the reference check (and so rendering) uses it without loading the
research sources.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

_TRACKING_PARAMS = ("utm_", "fbclid", "gclid", "ref_src")


def normalise_url(url: str) -> str:
    """Scheme, ``www.``, trailing slash, fragment and tracking parameters do not make a new page."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().removeprefix("www.")
    if parts.port and parts.port not in (80, 443):
        host = f"{host}:{parts.port}"
    path = parts.path.rstrip("/")
    query = urlencode(
        sorted(
            (key, value)
            for key, value in parse_qsl(parts.query, keep_blank_values=True)
            if not key.lower().startswith(_TRACKING_PARAMS)
        )
    )
    return f"{host}{path}" + (f"?{query}" if query else "")
