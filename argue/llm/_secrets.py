"""Keep credentials out of every message argue prints or stores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from argue.domain import FailureCause
from argue.llm.base import ModelError
from argue.redact import MASK, MIN_SECRET_LENGTH, SECRET_ENV_VARS, redact, strip_credential_text

__all__ = ["MASK", "MIN_SECRET_LENGTH", "SECRET_ENV_VARS", "mask_secrets", "masked_error"]

E = TypeVar("E", bound=ModelError)


def mask_secrets(
    text: str, *, env: Mapping[str, str] | None = None, extra: Iterable[str | None] = ()
) -> str:
    """Replace credential values (and ``extra`` values) with ``***``; URL passwords too."""
    return redact(text, env=env, extra=extra)


def masked_error(
    error_type: type[E],
    provider: str,
    message: str,
    *,
    status_code: int | None = None,
    secrets: Iterable[str | None] = (),
    cause: FailureCause | None = None,
) -> E:
    """Build a ModelError whose message has passed through ``mask_secrets``, the values of any
    credential headers it quotes (a server's echo of its request) masked first."""
    masked = mask_secrets(strip_credential_text(message), extra=secrets)
    return error_type(provider, masked, status_code=status_code, cause=cause)
