"""Keep credentials out of everything argue prints or writes: key values from the environment
and passwords written into URLs (``http://user:pw@host/v1``).

Light on purpose (stdlib only): the console uses it on every line it prints.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

SECRET_ENV_VARS: tuple[str, ...] = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "BRAVE_API_KEY",
    "PERPLEXITY_API_KEY",
    "YOUTUBE_API_KEY",
    "GITHUB_TOKEN",
)
# Variables that may carry a URL with a password in it.
URL_ENV_VARS: tuple[str, ...] = (
    "OPENAI_BASE_URL",
    "ANTHROPIC_BASE_URL",
    "OLLAMA_HOST",
    "ARGUE_ARXIV_URL",
    "ARGUE_GITHUB_URL",
    "ARGUE_BRAVE_URL",
    "ARGUE_PERPLEXITY_URL",
    "ARGUE_YOUTUBE_URL",
)
MASK = "***"
# Shorter values are too likely to collide with ordinary words to be replaced safely.
MIN_SECRET_LENGTH = 8
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")


def mask_userinfo(text: str) -> str:
    """``scheme://user:password@host`` → ``scheme://***@host``."""
    return _USERINFO.sub(lambda m: m.group(1) + MASK + "@", text)


def redact(
    text: str, *, env: Mapping[str, str] | None = None, extra: Iterable[str | None] = ()
) -> str:
    """Mask known credential values (and ``extra`` values) and URL passwords."""
    source = os.environ if env is None else env
    secrets = {source.get(name) or "" for name in SECRET_ENV_VARS}
    secrets.update(value or "" for value in extra)
    for name in URL_ENV_VARS:
        password = _password_in(source.get(name) or "")
        if password:
            secrets.add(password)
    # Longest first, so a key that contains another key is masked whole.
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= MIN_SECRET_LENGTH:
            text = text.replace(secret, MASK)
    return mask_userinfo(text)


def _password_in(url: str) -> str:
    match = re.match(r"(?i)[a-z][a-z0-9+.-]*://[^/\s@:]*:([^/\s@]+)@", url.strip())
    return match.group(1) if match else ""
