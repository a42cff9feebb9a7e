"""Keep credentials out of every message argue prints or stores."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TypeVar

from argue.llm.base import ModelError

E = TypeVar("E", bound=ModelError)

SECRET_ENV_VARS: tuple[str, ...] = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "BRAVE_API_KEY",
    "PERPLEXITY_API_KEY",
    "YOUTUBE_API_KEY",
    "GITHUB_TOKEN",
)
MASK = "***"
# Shorter values are too likely to collide with ordinary words to be replaced safely.
MIN_SECRET_LENGTH = 8


def mask_secrets(
    text: str, *, env: Mapping[str, str] | None = None, extra: Iterable[str | None] = ()
) -> str:
    """Replace the values of the known credential variables (and ``extra`` values) with ``***``."""
    source = os.environ if env is None else env
    secrets = {source.get(name) or "" for name in SECRET_ENV_VARS}
    secrets.update(value or "" for value in extra)
    # Longest first, so a key that contains another key is masked whole.
    for secret in sorted(secrets, key=len, reverse=True):
        if len(secret) >= MIN_SECRET_LENGTH:
            text = text.replace(secret, MASK)
    return text


def masked_error(
    error_type: type[E],
    provider: str,
    message: str,
    *,
    status_code: int | None = None,
    secrets: Iterable[str | None] = (),
) -> E:
    """Build a ModelError whose message has passed through ``mask_secrets``."""
    return error_type(provider, mask_secrets(message, extra=secrets), status_code=status_code)
