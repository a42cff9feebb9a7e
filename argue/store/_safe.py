"""A debate folder is a boundary: it may have been shared, unzipped or synced from someone else.

Every path argue reads, writes or deletes under ``debates/<id>/`` goes through :func:`guard`:
it must lie inside the folder, and no component of it (the folder itself included) may be a
symbolic link; the file itself must be a regular file. Reads are capped in size and must be
UTF-8. Each refusal is one line naming the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_RECORD_BYTES = 16 * 1024 * 1024  # a JSON record, a note, a transcript
MAX_LOG_BYTES = 256 * 1024 * 1024  # usage.jsonl grows with every call


class StoreError(Exception):
    """A debate folder is missing, unreadable, unsafe or owned by another runner."""


class DebateLocked(StoreError):
    pass


class StoreWriteError(StoreError):
    """A record could not be written (disk full, read-only folder…): nothing else is written
    after it, and what was committed before stays intact and resumable."""

    def __init__(self, path: Path, error: OSError) -> None:
        cause = error.strerror or str(error) or type(error).__name__
        super().__init__(
            f"cannot write {path}: {cause}; committed rounds are intact (resume "
            "once the problem is fixed)"
        )
        self.path = path


def guard(root: Path, path: Path, *, folder: bool = False, what: str = "debate folder") -> bool:
    """Check ``path`` may be used; True when it exists (as a regular file, or a folder when
    ``folder``). Raises StoreError for anything outside ``root`` or behind a link. ``what``
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
            raise StoreError(f"{path}: outside the {what} {root}: refused") from None
    if ".." in parts:
        raise StoreError(f"{path}: outside the {what} {root}: refused")
    current = root_text
    for index, part in enumerate(("", *parts)):
        if part:
            current = f"{current.rstrip('/')}/{part}"
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise StoreError(f"{current}: unreadable ({exc.strerror or exc})") from exc
        if stat.S_ISLNK(info.st_mode):
            raise StoreError(f"{current}: a symbolic link in a {what}: refused")
        last = index == len(parts)
        if not last and not stat.S_ISDIR(info.st_mode):
            raise StoreError(f"{current}: not a folder: refused")
        if last:
            if folder and not stat.S_ISDIR(info.st_mode):
                raise StoreError(f"{current}: not a folder: refused")
            if not folder and not stat.S_ISREG(info.st_mode):
                raise StoreError(f"{current}: not a regular file: refused")
    return True


def read_text(root: Path, path: Path, *, cap: int = MAX_RECORD_BYTES) -> str | None:
    """The file's text, or None when it does not exist."""
    if not guard(root, path):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"{path}: unreadable ({exc.strerror or exc})") from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StoreError(f"{path}: not a regular file: refused")
        if info.st_size > cap:
            raise StoreError(f"{path}: {info.st_size} bytes, over the limit of {cap}: refused")
        # Sized to the file, not to the cap: a cap-sized read allocates the cap every time.
        want = min(cap, info.st_size) + 1
        data = handle.read(want)
        if len(data) == want <= cap:  # it grew since fstat
            data += handle.read(cap + 1 - want)
    if len(data) > cap:
        raise StoreError(f"{path}: over the limit of {cap} bytes: refused")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise StoreError(f"{path}: not UTF-8 text: refused") from None


def is_regular(root: Path, path: Path) -> bool:
    try:
        return guard(root, path)
    except StoreError:
        return False


def refuse_hard_links(path: Path, links: int, what: str = "debate folder") -> None:
    """A file argue writes into must have one name: another name may lie outside the folder,
    and a write through this one would change it (issue 39 item 6)."""
    if links > 1:
        raise StoreError(
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
            raise StoreError(f"{path}: not a regular file: refused")
        if info.st_nlink <= 1:
            return fd
        if info.st_size > cap:
            raise StoreError(f"{path}: {info.st_size} bytes, over the limit of {cap}: refused")
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
            raise StoreError(f"{path}: not a regular file: refused")
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
