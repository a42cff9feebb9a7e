"""Keep credentials out of everything argue prints or writes: key values from the environment
and passwords written into URLs (``http://user:pw@host/v1``).

Light on purpose (stdlib only): the console uses it on every line it prints.

Which variables hold keys is not written here: the provider table (``argue.llm._registry``) and
the research-source table (``argue.skills.dogpile``) own their variables and register them with
``register_secret_variables`` when they load. As a safety net for a line printed before either
table loaded, a variable named like a credential (``*_API_KEY``, ``*_TOKEN``) is masked too.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import overload
from urllib.parse import quote, quote_plus, unquote

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
_URL_SAFE_CHARS = ":/@!$&'()*+,;="  # what RFC 3986 lets a path or userinfo keep unencoded
_PERCENT_HEX = re.compile(r"%[0-9A-F]{2}")
_URLSAFE = str.maketrans("+/", "-_")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")


def mask_userinfo(text: str) -> str:
    """``scheme://user:password@host`` → ``scheme://***@host``."""
    return _USERINFO.sub(lambda m: m.group(1) + MASK + "@", text)


def redact(
    text: str, *, env: Mapping[str, str] | None = None, extra: Iterable[str | None] = ()
) -> str:
    """Mask known credential values (and ``extra`` values) and URL passwords, in each form a
    server or a library may write them (``secret_forms``), and ``scheme://user:pw@`` userinfo.
    """
    pattern = _secrets_pattern(_secret_values(os.environ if env is None else env, extra))
    if pattern is not None:
        text = pattern.sub(MASK, text)
    return mask_userinfo(text)


def _secret_values(source: Mapping[str, str], extra: Iterable[str | None]) -> frozenset[str]:
    """The values to mask: key variables' values, ``extra``, and for each URL variable its
    password and its ``user:password`` pair (as written and percent-decoded; Basic auth
    carries the pair)."""
    names = set(_KEY_VARS)
    names.update(name for name in source if name.upper().endswith(CREDENTIAL_SUFFIXES))
    secrets = {source.get(name) or "" for name in names}
    secrets.update(value or "" for value in extra)
    for name in _URL_VARS:
        user, password = _userinfo_in(source.get(name) or "")
        if password:
            secrets.update((password, unquote(password)))
            secrets.update((f"{user}:{password}", f"{unquote(user)}:{unquote(password)}"))
    return frozenset(secret for secret in secrets if len(secret) >= MIN_SECRET_LENGTH)


def secret_forms(secret: str) -> set[str]:
    """``secret`` as it may be written: literal; JSON-escaped (with and without ``\\u``
    escapes, ``/`` as ``\\/``); HTML-escaped; percent-encoded (every reserved set, ``+`` for
    spaces, upper- and lower-case hex); base64 standard and URL-safe, with and without padding,
    whole (``Basic <b64(user:pass)>``) and as the run of characters it fixes at each of the
    three alignments inside a longer base64 text (``b64(prefix + secret + suffix)``)."""
    forms = {secret, html.escape(secret)}
    for ensure_ascii in (True, False):
        escaped = json.dumps(secret, ensure_ascii=ensure_ascii)[1:-1]
        forms.update((escaped, escaped.replace("/", "\\/")))
    for safe in ("", "/", _URL_SAFE_CHARS):
        forms.add(quote(secret, safe=safe))
        forms.add(quote_plus(secret, safe=safe))
    forms.update({_PERCENT_HEX.sub(lambda m: m.group().lower(), form) for form in forms})
    raw = secret.encode()
    for shift in range(3):
        # Characters [start, end) of b64(shift bytes + raw + …) depend on ``raw`` alone.
        encoded = base64.b64encode(b"\0" * shift + raw).decode()
        start, end = -(-8 * shift // 6), 8 * (shift + len(raw)) // 6
        core = encoded[start:end]
        if len(core) >= MIN_SECRET_LENGTH:
            forms.update((core, core.translate(_URLSAFE)))
        if shift == 0:
            forms.update((encoded, encoded.rstrip("=")))
            forms.update((encoded.translate(_URLSAFE), encoded.translate(_URLSAFE).rstrip("=")))
    return {form for form in forms if form}


@functools.lru_cache(maxsize=64)
def _secrets_pattern(secrets: frozenset[str]) -> re.Pattern[str] | None:
    """One regex matching every form of every secret, longest first at each position (a trie,
    so a position costs one character test per level, not one per form). Cached per set of
    secret values: built once for an environment.

    Two tries: the secrets themselves with each character in any of its escapes
    (``char_escapes``: any subset of the characters escaped, in any mix of escapes), tried
    first; then the other forms of ``secret_forms`` (base64…) character for character."""
    forms: set[str] = set()
    for secret in secrets:
        forms |= secret_forms(secret)
    if not forms:
        return None
    escaped = _trie_pattern(secrets, char_pattern=_char_pattern)
    return re.compile(f"{escaped}|{_trie_pattern(forms)}")


# A JSON/JS/Go escape may itself be escaped once more (a JSON string inside a JSON string).
_BACKSLASH = r"\\+"
_NAMED_ENTITIES = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos", " ": "nbsp"}
_JSON_SHORT = {'"': '"', "\\": "\\", "/": "/", "\n": "n", "\r": "r", "\t": "t", "\b": "b"}
_JSON_SHORT["\f"] = "f"


def char_escapes(char: str) -> list[str]:
    """The regexes for ``char`` as text may write it: ``\\uXXXX`` (JSON, JS, Go's
    ``\\u0026``; a surrogate pair past U+FFFF), ``\\u{…}`` and ``\\xHH`` (JS), their short
    JSON form (``\\"``), each also with its backslash escaped again; numeric and hex HTML
    entities (``&#38;``, ``&#x26;``, leading zeros, with or without ``;``) and named ones
    (``&amp;``); percent-encoded UTF-8 (``+`` for a space); literally. Hex digits in either
    case."""
    code = ord(char)

    def hex_digits(value: int, width: int) -> str:
        return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{value:0{width}x}")

    forms = []
    if code > 0xFFFF:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(f"{_BACKSLASH}u{hex_digits(high, 4)}{_BACKSLASH}u{hex_digits(low, 4)}")
    else:
        forms.append(f"{_BACKSLASH}u{hex_digits(code, 4)}")
    forms.append(f"{_BACKSLASH}u\\{{0*{hex_digits(code, 1)}\\}}")
    if code < 0x100:
        forms.append(f"{_BACKSLASH}[xX]{hex_digits(code, 2)}")
    if code >= 0x80:  # Python's bytes: its UTF-8 bytes, each ``\\xHH``
        forms.append("".join(f"{_BACKSLASH}[xX]{hex_digits(b, 2)}" for b in char.encode()))
    if char in _JSON_SHORT:
        forms.append(_BACKSLASH + re.escape(_JSON_SHORT[char]))
    forms.append(f"&#0*{code};?")
    forms.append(f"&#[xX]0*{hex_digits(code, 1)};?")
    if char in _NAMED_ENTITIES:
        name = _NAMED_ENTITIES[char]
        forms.append(f"&(?:{name}|{name.upper()});?")
    forms.append("".join(f"%{hex_digits(byte, 2)}" for byte in char.encode()))
    if char == " ":
        forms.append(r"\+")
    # The literal last: at a secret's end the first alternative that matches wins, and ``&``
    # must not stop short of ``&#38;`` (nor ``\\`` of ``\\u005c``).
    forms.append(re.escape(char))
    return forms


@functools.lru_cache(maxsize=1024)
def _char_pattern(char: str) -> str:
    return "(?:" + "|".join(char_escapes(char)) + ")"


def _trie_pattern(words: Iterable[str], char_pattern: Callable[[str], str] = re.escape) -> str:
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}
    return _node_pattern(trie, char_pattern)


def _node_pattern(node: dict[str, dict], char_pattern: Callable[[str], str] = re.escape) -> str:
    run = ""  # a chain of single children is one literal: nesting only where forms part
    while len(node) == 1 and "" not in node:
        char, node = next(iter(node.items()))
        run += char_pattern(char)
    branches = [
        char_pattern(char) + _node_pattern(child, char_pattern)
        for char, child in node.items()
        if char
    ]
    if not branches:
        return run
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if "" in node:  # a shorter form ends here: the longer ones are tried first (greedy ``?``)
        body = f"(?:{body})?"
    return run + body


def _userinfo_in(url: str) -> tuple[str, str]:
    match = re.match(r"(?i)[a-z][a-z0-9+.-]*://([^/\s@:]*):([^/\s@]+)@", url.strip())
    return (match.group(1), match.group(2)) if match else ("", "")


# Request headers that carry a credential, as a server echoing its request may name them.
CREDENTIAL_HEADERS: tuple[str, ...] = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "x-auth-token",
    "cookie",
    "set-cookie",
)
_HEADER_KEYS = frozenset(name.replace("-", "_") for name in CREDENTIAL_HEADERS)
# ``Authorization: Basic …`` (a header line), ``"x-api-key": "…"`` (JSON, also escaped inside a
# JSON string), ``'cookie': '…'`` (a Python dict), ``api_key=…``: the name, its quotes and
# separator are kept, the value (to its closing quote or the end of the line) becomes ``***``;
# a value already ``***`` is left as it is (a second pass, on text flattened to one line, would
# otherwise take the rest of the line for the value).
_HEADER_TEXT = re.compile(
    r"(?i)(?<![\w-])((?>(?:\\*[\"'])?(?:proxy-)?(?:authorization|x-goog-api-key|x-api-key|api[-_]key"
    r"|x-auth-token|set-cookie|cookie)(?:\\*[\"'])?[ \t]*[:=][ \t]*(?:\\*[\"'])?))"
    r"(?!\*\*\*)[^\"'\r\n\\]*(?:\\(?!\\*[\"'])[^\"'\r\n\\]*)*"
)


def strip_credential_text(text: str) -> str:
    """``text`` with the value of each credential header it quotes masked (``***``)."""
    return _HEADER_TEXT.sub(lambda m: m.group(1) + MASK, text)


def strip_credential_headers(body: object) -> object:
    """``body`` (a server's error body: text, bytes or parsed JSON) without the values of
    credential-bearing headers (``CREDENTIAL_HEADERS``, any case): such JSON fields are dropped,
    such lines or ``name: value`` pairs in text keep their name with the value masked."""
    if isinstance(body, bytes):
        body = body.decode(errors="replace")
    if isinstance(body, str):
        return strip_credential_text(body)
    if isinstance(body, Mapping):
        return {
            key: strip_credential_headers(value)
            for key, value in body.items()
            if not (isinstance(key, str) and key.lower().replace("-", "_") in _HEADER_KEYS)
        }
    if isinstance(body, list | tuple):
        return [strip_credential_headers(item) for item in body]
    return body
