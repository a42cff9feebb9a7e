"""Safe file IO, the ground every layer reads and writes files through: the debate store, the
eval folder, personas, settings (config.toml), the dialect memory, datasets.

Three kinds of guarantee, each a section below:

* **Bounded reading** (a file read by name: config.toml, a persona, dialects.json, eval.json).
  A file must be a regular file: a FIFO, a device or a socket is refused before anything is
  read from it (``os.stat`` first, then opened non-blocking and checked again with ``fstat``, so
  a FIFO swapped in between cannot make the read wait for a writer). At most ``cap + 1`` bytes
  are ever read. JSON and TOML nesting deeper than :data:`MAX_DEPTH` is refused before the
  parser sees it (a linear pre-scan counting ``[``/``{`` outside strings and TOML comments; a
  parser's RecursionError becomes the same refusal); a TOML number longer than
  :data:`MAX_NUMBER_DIGITS` digits is refused, naming its key and line (``tomllib`` calls
  ``int()``, which raises past 4,300 digits). Each refusal is a :class:`BoundedReadError`.
* **A folder as a boundary** (``debates/<id>/``, an eval folder: it may have been shared,
  unzipped or synced from someone else). Every path read, written or deleted in it goes
  through :func:`guard`: it must lie inside the folder and no component of it (the folder
  itself included) may be a symbolic link; the file itself must be a regular file. Reads are
  capped and must be UTF-8 (:func:`read_text_inside`); appends never reach another name of a
  hard-linked file (:func:`open_append`). Each refusal is a :class:`FolderError`.
* **Atomic writes**: a temp file in the same folder, fsync, ``os.replace``, the folder's fsync
  (:func:`write_text_atomic`); with ``durable=False`` the two fsyncs are left to a
  :class:`BackgroundSync`, so that no fsync waits on the event loop between two model waves
  (issue 43 item 4): the file is complete and in place when the write returns (another
  process, or a resume after kill -9, reads it whole), and on the device once the sync ran.

Every refusal is one line naming the file. This module imports only the standard library
(tempfile and the thread pool on first use) and nothing else of argue: the settings read
config.toml without loading pydantic (:func:`to_jsonable` dumps models only when pydantic is
already loaded, as it is wherever one exists).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import threading
import tomllib
from collections.abc import Callable
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

# ---------------------------------------------------------------- bounded reading

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
        # Sized to the file, not to the cap: a cap-sized read allocates the cap every time.
        want = min(cap, info.st_size) + 1
        try:
            data = handle.read(want)
            if len(data) == want <= cap:  # it grew since fstat
                data += handle.read(cap + 1 - want)
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


# ---------------------------------------------------------------- a folder as a boundary

MAX_RECORD_BYTES = 16 * 1024 * 1024  # a JSON record, a note, a transcript
MAX_LOG_BYTES = 256 * 1024 * 1024  # usage.jsonl grows with every call


class FolderError(Exception):
    """A path refused at a folder's boundary (outside it, behind a symbolic link, not a regular
    file, a second hard link, over a cap, not UTF-8), or a file there that cannot be read. The
    debate store calls it ``FolderError``; the message is one line naming the file."""


def guard(root: Path, path: Path, *, folder: bool = False, what: str = "debate folder") -> bool:
    """Check ``path`` may be used; True when it exists (as a regular file, or a folder when
    ``folder``). Raises FolderError for anything outside ``root`` or behind a link. ``what``
    names the kind of folder in messages (an eval folder has the same rules).

    Walked as strings (every record read and written passes here: pathlib's parts and joins
    were most of its cost, issue 43 item 4); the same checks, component by component."""
    root_text, path_text = os.fspath(root), os.fspath(path)
    prefix = root_text.rstrip("/") + "/"
    if path_text == root_text:
        parts: list[str] = []
    elif path_text.startswith(prefix):
        parts = [part for part in path_text[len(prefix) :].split("/") if part not in ("", ".")]
    else:
        try:
            parts = list(path.relative_to(root).parts)
        except ValueError:
            raise FolderError(f"{path}: outside the {what} {root}: refused") from None
    if ".." in parts:
        raise FolderError(f"{path}: outside the {what} {root}: refused")
    current = root_text
    for index, part in enumerate(("", *parts)):
        if part:
            current = f"{current.rstrip('/')}/{part}"
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise FolderError(f"{current}: unreadable ({exc.strerror or exc})") from exc
        if stat.S_ISLNK(info.st_mode):
            raise FolderError(f"{current}: a symbolic link in a {what}: refused")
        last = index == len(parts)
        if not last and not stat.S_ISDIR(info.st_mode):
            raise FolderError(f"{current}: not a folder: refused")
        if last:
            if folder and not stat.S_ISDIR(info.st_mode):
                raise FolderError(f"{current}: not a folder: refused")
            if not folder and not stat.S_ISREG(info.st_mode):
                raise FolderError(f"{current}: not a regular file: refused")
    return True


def read_text_inside(root: Path, path: Path, *, cap: int = MAX_RECORD_BYTES) -> str | None:
    """The text of ``path``, guarded inside ``root`` (:func:`guard`), or None when it does not
    exist; read as :func:`read_bytes` reads (links never followed), refusals as FolderError."""
    if not guard(root, path):
        return None
    try:
        data = read_bytes(path, cap=cap, follow_links=False)
    except BoundedReadError as exc:
        raise FolderError(str(exc)) from exc
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FolderError(f"{path}: not UTF-8 text: refused") from None


def is_regular(root: Path, path: Path) -> bool:
    try:
        return guard(root, path)
    except FolderError:
        return False


def refuse_hard_links(path: Path, links: int, what: str = "debate folder") -> None:
    """A file argue writes into must have one name: another name may lie outside the folder,
    and a write through this one would change it (issue 39 item 6)."""
    if links > 1:
        raise FolderError(
            f"{path}: a file with {links} hard links in a {what} (another name may lie "
            "outside it): refused; remove it"
        )


def open_append(
    root: Path, path: Path, *, what: str = "debate folder", cap: int = MAX_LOG_BYTES
) -> int:
    """An ``O_APPEND`` descriptor on ``path`` (created when missing) that writes nowhere else.

    The path is guarded (inside ``root``, no link, a regular file). A file with more than one
    name (a hard link, perhaps from outside the folder) is first replaced, atomically, by a
    private copy of itself: the other names keep their bytes and nothing appended here reaches
    them. The caller closes the descriptor."""
    guard(root, path, what=what)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
    fd = os.open(path, flags, 0o644)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FolderError(f"{path}: not a regular file: refused")
        if info.st_nlink <= 1:
            return fd
        if info.st_size > cap:
            raise FolderError(f"{path}: {info.st_size} bytes, over the limit of {cap}: refused")
        data = os.pread(fd, info.st_size, 0)
    except BaseException:
        os.close(fd)
        raise
    os.close(fd)
    _replace_bytes(path, data)
    fd = os.open(path, flags & ~os.O_CREAT)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FolderError(f"{path}: not a regular file: refused")
        refuse_hard_links(path, info.st_nlink, what)  # linked again meanwhile
    except BaseException:
        os.close(fd)
        raise
    return fd


def _replace_bytes(path: Path, data: bytes) -> None:
    """``path`` atomically replaced by a new file holding ``data`` (its other names untouched)."""
    import tempfile

    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------- atomic writes


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """``text`` written to ``path`` whole or not at all: a temp file in the same folder, fsync,
    ``os.replace``, the folder's fsync. ``durable=False``: no fsync here (the caller has a
    :class:`BackgroundSync` do them)."""
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    if durable:
        _fsync_dir(path.parent)


class BackgroundSync:
    """fsyncs done in order by one worker thread, off the caller's path; ``settle()`` waits for
    every one submitted so far and raises the first that failed (an ``OSError`` naming its
    file). Pending syncs still run at interpreter exit (the worker is joined then)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[tuple[Path, Future[None]]] = []
        self._worker: ThreadPoolExecutor | None = None

    def later(self, path: Path, *, folder: bool = True) -> None:
        """fsync ``path`` (its content as it is when the sync runs), then its folder."""
        with self._lock:
            self._pending.append((path, self._pool().submit(_fsync_path, path, folder)))

    def then(self, job: Callable[[], None], path: Path) -> None:
        """Run ``job`` (a write of ``path``) once every sync submitted before it has run."""
        with self._lock:
            self._pending.append((path, self._pool().submit(job)))

    def _pool(self) -> ThreadPoolExecutor:
        """The one worker, started on first use (the caller holds ``_lock``)."""
        if self._worker is None:
            from concurrent.futures import ThreadPoolExecutor

            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fsync")
        return self._worker

    def settle(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        failed: tuple[Path, OSError] | None = None
        for path, future in pending:
            error = future.exception()
            if isinstance(error, OSError) and failed is None:
                failed = (path, error)
        if failed is not None:
            raise failed[1]

    def pending(self) -> int:
        with self._lock:
            return sum(1 for _, future in self._pending if not future.done())


def _fsync_path(path: Path, folder: bool) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:  # discarded since: the folder's sync records that
        if folder:
            _fsync_dir(path.parent)
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    finally:
        os.close(fd)
    if folder:
        _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def to_jsonable(value: Any) -> Any:
    """``value`` with its pydantic models dumped (JSON mode), for ``json.dumps``."""
    # No pydantic loaded means no model in ``value``: reading files needs no pydantic.
    pydantic = sys.modules.get("pydantic")
    if pydantic is not None and isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def write_json_atomic(path: Path, value: Any) -> None:
    """``value`` as indented UTF-8 JSON, written atomically and durably."""
    write_text_atomic(path, json.dumps(to_jsonable(value), indent=2, ensure_ascii=False) + "\n")
