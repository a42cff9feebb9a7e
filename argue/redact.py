"""Keep credentials out of everything argue prints or writes: key values from the environment
and passwords written into URLs (``http://user:pw@host/v1``).

Light on purpose (stdlib only): the console uses it on every line it prints.

Which variables hold keys is not written here: the provider table (``argue.llm._registry``) and
the research-source table (``argue.skills.dogpile``) own their variables and register them with
``register_secret_variables`` when they load. As a safety net for a line printed before either
table loaded, a variable named like a credential (``*_API_KEY``, ``*_TOKEN``) is masked too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import overload

_KEY_VARS: dict[str, None] = {}  # insertion-ordered sets
_URL_VARS: dict[str, None] = {}
CREDENTIAL_SUFFIXES: tuple[str, ...] = ("_API_KEY", "_TOKEN")


def register_secret_variables(*, keys: Iterable[str] = (), urls: Iterable[str] = ()) -> None:
    """Mask the values of ``keys`` and the passwords in the URLs of ``urls`` from now on."""
    _KEY_VARS.update(dict.fromkeys(name for name in keys if name))
    _URL_VARS.update(dict.fromkeys(name for name in urls if name))


def unregister_secret_variables(*, keys: Iterable[str] = (), urls: Iterable[str] = ()) -> None:
    """Undo ``register_secret_variables`` (a test's provider or source going away)."""
    for name in keys:
        _KEY_VARS.pop(name, None)
    for name in urls:
        _URL_VARS.pop(name, None)


class LiveNames(Sequence[str]):
    """A tuple-like view of names that follows a table as rows are registered: ``in``,
    iteration, ``len``, indexing and ``==`` with a tuple all read the table at that moment, so a
    module that imported the name at start-up still sees a provider registered later."""

    def __init__(self, read: Callable[[], tuple[str, ...]]) -> None:
        self._read = read

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        return self._read()[index]

    def __len__(self) -> int:
        return len(self._read())

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __contains__(self, name: object) -> bool:
        return name in self._read()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LiveNames):
            return self._read() == other._read()
        return isinstance(other, tuple | list) and self._read() == tuple(other)

    def __hash__(self) -> int:
        return hash(self._read())

    def __repr__(self) -> str:
        return repr(self._read())


def secret_variables() -> tuple[str, ...]:
    """Every variable whose value is a credential, as the tables registered them."""
    return tuple(_KEY_VARS)


def url_variables() -> tuple[str, ...]:
    """Every variable that may carry a URL with a password in it."""
    return tuple(_URL_VARS)


SECRET_ENV_VARS: Sequence[str] = LiveNames(secret_variables)
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
    names = set(_KEY_VARS)
    names.update(name for name in source if name.upper().endswith(CREDENTIAL_SUFFIXES))
    secrets = {source.get(name) or "" for name in names}
    secrets.update(value or "" for value in extra)
    for name in _URL_VARS:
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
