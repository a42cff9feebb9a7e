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
    names the kind of folder in messages (an eval folder has the same rules)."""
    try:
        relative = path.relative_to(root)
    except ValueError:
        raise StoreError(f"{path}: outside the {what} {root}: refused") from None
    if ".." in relative.parts:
        raise StoreError(f"{path}: outside the {what} {root}: refused")
    current = root
    for index, part in enumerate(("", *relative.parts)):
        if part:
            current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise StoreError(f"{current}: unreadable ({exc.strerror or exc})") from exc
        if stat.S_ISLNK(info.st_mode):
            raise StoreError(f"{current}: a symbolic link in a {what}: refused")
        last = index == len(relative.parts)
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
