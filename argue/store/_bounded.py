"""Bounded reading: every JSON or TOML file argue reads from a debate folder, an eval folder or
ARGUE_HOME goes through here.

* A file read by name must be a regular file: a FIFO, a device or a socket is refused before
  anything is read from it (``os.stat`` first, then opened non-blocking and checked again with
  ``fstat``, so a FIFO swapped in between cannot make the read wait for a writer).
* At most ``cap + 1`` bytes are ever read: a file over its cap is refused, however large.
* A TOML number longer than ``MAX_NUMBER_DIGITS`` digits is refused before the parser sees it
  (``tomllib`` calls ``int()``, which raises past 4,300 digits), naming its key and line.
* Nesting deeper than ``MAX_DEPTH`` (arrays and objects, tables and inline tables) is refused
  before the parser sees it, by a linear pre-scan that counts ``[``/``{`` outside strings (and
  TOML comments); a RecursionError from a parser is turned into the same refusal.

Each refusal is a :class:`BoundedReadError`, one line naming the file.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from itertools import accumulate
from pathlib import Path
from typing import Any

MAX_DEPTH = 64
"""Deeper than any record argue writes (about 8) by a wide margin; far below a parser's
recursion limit."""
MAX_NUMBER_DIGITS = 30
"""Longer than any number a setting or a persona needs (an int64 has 19 digits)."""
MAX_SETTINGS_BYTES = 4 * 1024 * 1024  # config.toml, dialects.json, a persona file, eval.json


class BoundedReadError(ValueError):
    """A file refused by a bound (not a regular file, too large, nested too deep, not UTF-8);
    the message is one line naming the file, ``reason`` the same without the name."""

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


def regular_file_or_none(path: Path) -> os.stat_result | None:
    """``os.stat`` of ``path`` (links followed), None when it does not exist; anything but a
    regular file is refused without being opened."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise BoundedReadError(f"{path}: unreadable ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise BoundedReadError(f"{path}: not a regular file (a FIFO, device or folder): refused")
    return info


def read_bytes(path: Path, *, cap: int, follow_links: bool = True) -> bytes | None:
    """The file's bytes (at most ``cap``), or None when it does not exist."""
    if follow_links:
        if regular_file_or_none(path) is None:
            return None
    elif os.path.islink(path):
        raise BoundedReadError(f"{path}: a symbolic link: refused")
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise BoundedReadError(f"{path}: unreadable ({exc.strerror or exc})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BoundedReadError(f"{path}: not a regular file: refused")
        if info.st_size > cap:
            raise BoundedReadError(
                f"{path}: {info.st_size} bytes, over the limit of {cap}: refused"
            )
        try:
            data = handle.read(cap + 1)
        except OSError as exc:
            raise BoundedReadError(f"{path}: unreadable ({exc.strerror or exc})") from None
    if len(data) > cap:
        raise BoundedReadError(f"{path}: over the limit of {cap} bytes: refused")
    return data


def read_text(
    path: Path, *, cap: int = MAX_SETTINGS_BYTES, follow_links: bool = True
) -> str | None:
    """The file's UTF-8 text (a BOM dropped), or None when it does not exist."""
    data = read_bytes(path, cap=cap, follow_links=follow_links)
    if data is None:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise BoundedReadError(f"{path}:{line}: not UTF-8 text: refused") from None


# ------------------------------------------------------------------ depth

# Strings (and TOML comments) are removed before brackets are counted. Each pattern always
# matches from its opening character (the closing one is optional), so an unterminated string
# costs one pass, never a retry per position.
_JSON_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.S)
_TOML_STRINGS = re.compile(
    r'"""[\s\S]*?(?:"""|\Z)'
    r"|'''[\s\S]*?(?:'''|\Z)"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?'
    r"|'[^'\n]*'?"
    r"|#[^\n]*"
)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEP = [0] * 256
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1


def nesting_depth(text: str, *, toml: bool = False) -> int:
    """How deep arrays and objects (tables) nest in ``text``; linear in its length."""
    brackets = _NOT_BRACKETS.sub("", (_TOML_STRINGS if toml else _JSON_STRINGS).sub("", text))
    if brackets.count("[") + brackets.count("{") <= MAX_DEPTH:
        return min(MAX_DEPTH, brackets.count("[") + brackets.count("{"))
    return max(accumulate(map(_STEP.__getitem__, brackets.encode("ascii"))), default=0)


def _check_depth(text: str, where: object, *, toml: bool) -> None:
    depth = nesting_depth(text, toml=toml)
    if depth > MAX_DEPTH:
        reason = f"nested {depth} deep, over the limit of {MAX_DEPTH}"
        raise BoundedReadError(f"{where}: {reason}: refused", reason)


def _too_deep(where: object) -> BoundedReadError:
    reason = f"nested over the limit of {MAX_DEPTH}"
    return BoundedReadError(f"{where}: {reason}: refused", reason)


def loads_json(text: str | bytes, where: object) -> Any:
    """``json.loads`` with the depth bound (a BoundedReadError); ``where`` names the file in
    it. A syntax error is json's own JSONDecodeError, a ValueError like the bound's."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    _check_depth(text, where, toml=False)
    try:
        return json.loads(text)
    except RecursionError:
        raise _too_deep(where) from None


def loads_toml(text: str, where: object) -> dict[str, Any]:
    """``tomllib.loads`` with the depth and digit bounds; a TOML error is a TOMLDecodeError
    as before, and any other ValueError from the parser a BoundedReadError naming ``where``."""
    _check_depth(text, where, toml=True)
    _check_numbers(text, where)
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise _too_deep(where) from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError as exc:  # a number the parser could not convert, whatever the bound
        reason = f"a value the TOML parser refused ({' '.join(str(exc).split())[:120]})"
        raise BoundedReadError(f"{where}: {reason}: refused", reason) from None


_DIGIT_RUN = re.compile(r"\d[\d_]*")
_LONG_RUN = re.compile(rf"\d[\d_]{{{MAX_NUMBER_DIGITS},}}")
_KEY_BEFORE_EQUALS = re.compile(r"([A-Za-z0-9_-]+(?:[ \t]*\.[ \t]*[A-Za-z0-9_-]+)*)[ \t]*\Z")
_TOML_TABLE = re.compile(r"^[ \t]*\[\[?[ \t]*([A-Za-z0-9_. -]+?)[ \t]*\]", re.M)


def _check_numbers(text: str, where: object) -> None:
    """Refuse a run of more than ``MAX_NUMBER_DIGITS`` digits outside strings and comments,
    naming its ``table.key`` and line (linear: a pass over the text, another on a hit)."""
    if _LONG_RUN.search(text) is None:
        return
    # Strings and comments blanked, their line breaks kept (so line numbers stay true).
    bare = _TOML_STRINGS.sub(lambda m: "\n" * m.group().count("\n"), text)
    for run in _DIGIT_RUN.finditer(bare):
        digits = len(run.group()) - run.group().count("_")
        if digits <= MAX_NUMBER_DIGITS:
            continue
        before = bare[: run.start()]
        equals = before.rfind("=")  # the key's (also when an array began on an earlier line)
        key = _KEY_BEFORE_EQUALS.search(before[max(0, equals - 200) : max(0, equals)])
        tables = _TOML_TABLE.findall(before)
        name = key.group(1).replace(" ", "").replace("\t", "") if key else "a value"
        if tables and key:
            name = f"{tables[-1].strip()}.{name}"
        line = before.count("\n") + 1
        reason = (
            f"{name} (line {line}): a number of {digits:,} digits, over the limit of "
            f"{MAX_NUMBER_DIGITS}"
        )
        raise BoundedReadError(f"{where}: {reason}: refused", reason)


def read_json(path: Path, *, cap: int = MAX_SETTINGS_BYTES, follow_links: bool = True) -> Any:
    """The parsed JSON file, or None when it does not exist."""
    text = read_text(path, cap=cap, follow_links=follow_links)
    return None if text is None else loads_json(text, path)
