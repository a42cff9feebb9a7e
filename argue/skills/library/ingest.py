"""Read one file and turn it into titled, located chunks; every failure is a LibraryError.

A file is read twice, as a stream both times: once for its id (the sha256 of its bytes, so a
duplicate is found before any parsing), once to parse it. It must be a regular file within
``max_file_mb``; if it changes between the two reads (size, modification time, inode), it is
refused rather than recorded under the id of other bytes.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from argue.skills.library.chunking import ParsedDocument
from argue.skills.library.epub import parse_epub
from argue.skills.library.limits import IngestBudget, IngestLimits, megabytes
from argue.skills.library.models import LibraryError
from argue.skills.library.pdf import parse_pdf
from argue.skills.library.subtitles import parse_subtitles
from argue.skills.library.text_formats import parse_markdown, parse_txt

KIND_BY_SUFFIX = {
    ".txt": "txt",
    ".text": "txt",
    ".md": "md",
    ".markdown": "md",
    ".pdf": "pdf",
    ".epub": "epub",
    ".vtt": "vtt",
    ".srt": "srt",
}
SUPPORTED_SUFFIXES = tuple(sorted(KIND_BY_SUFFIX))
DOC_ID_LENGTH = 16
_BLOCK_BYTES = 1 << 20
_ASCII_WHITESPACE = b" \t\n\r\x0b\x0c"

FileVersion = tuple[int, int, int, int]
"""(device, inode, size, modification time in ns): a file that changes gets another one."""


@dataclass(frozen=True)
class FileContent:
    """A file that was read once: its kind, size and id (the content is read again to parse,
    within the same limits)."""

    path: Path
    kind: str
    size_bytes: int
    doc_id: str
    version: FileVersion
    limits: IngestLimits


def content_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:DOC_ID_LENGTH]


def read_file(path: Path, limits: IngestLimits | None = None) -> FileContent:
    """The file's kind, size and id, from one bounded read; LibraryError if it cannot be added."""
    limits = IngestLimits.from_env() if limits is None else limits
    kind = KIND_BY_SUFFIX.get(path.suffix.lower())
    if kind is None:
        shown = path.suffix or "(no extension)"
        raise LibraryError(
            f"{path}: unsupported file type {shown} (supported: {', '.join(SUPPORTED_SUFFIXES)})"
        )
    if not path.exists():
        raise LibraryError(f"{path}: no such file")
    if path.is_dir():
        raise LibraryError(f"{path}: is a directory, not a file")
    budget = IngestBudget(str(path), limits)
    most = limits.max_bytes("max_file_mb")
    digest = hashlib.sha256()
    size = 0
    has_text = False
    with _open(path) as (stream, version):
        if version[2] > most:
            raise budget.over(f"file size ({megabytes(version[2])})", "max_file_mb")
        try:
            while block := stream.read(min(_BLOCK_BYTES, most + 1 - size)):
                size += len(block)
                if size > most:
                    raise budget.over("file size (still growing)", "max_file_mb")
                digest.update(block)
                has_text = has_text or bool(block.strip(_ASCII_WHITESPACE))
        except OSError as exc:
            raise _unreadable(path, exc) from exc
    if not has_text:
        raise LibraryError(f"{path}: file is empty")
    return FileContent(
        path=path,
        kind=kind,
        size_bytes=size,
        doc_id=digest.hexdigest()[:DOC_ID_LENGTH],
        version=version,
        limits=limits,
    )


def parse_content(content: FileContent) -> ParsedDocument:
    name, stem = str(content.path), content.path.stem
    budget = IngestBudget(name, content.limits)
    with _open(content.path) as (stream, version):
        if version != content.version:
            raise _changed(name)
        try:
            parsed = _parse(stream, content.kind, name, stem, budget)
        except OSError as exc:
            raise _unreadable(content.path, exc) from exc
        if _version(os.fstat(stream.fileno())) != content.version:
            raise _changed(name)
    if not parsed.chunks:
        raise LibraryError(f"{name}: no text to index")
    return parsed


def _parse(
    stream: BinaryIO, kind: str, name: str, stem: str, budget: IngestBudget
) -> ParsedDocument:
    if kind == "txt":
        return parse_txt(stream, name, stem, budget)
    if kind == "md":
        return parse_markdown(stream, name, stem, budget)
    if kind == "pdf":
        return parse_pdf(stream, name, stem, budget)
    if kind == "epub":
        return parse_epub(stream, name, stem, budget)
    return parse_subtitles(stream, name, stem, kind, budget)


@contextmanager
def _open(path: Path) -> Iterator[tuple[BinaryIO, FileVersion]]:
    """The file open for reading, and its version; only a regular file (opening a named pipe
    would wait for a writer, a device may never end)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise LibraryError(f"{path}: not a regular file (a device, pipe or socket?)")
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    with os.fdopen(descriptor, "rb") as stream:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise LibraryError(f"{path}: not a regular file (a device, pipe or socket?)")
        yield stream, _version(status)


def _version(status: os.stat_result) -> FileVersion:
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


def _unreadable(path: Path, exc: OSError) -> LibraryError:
    return LibraryError(f"{path}: cannot read ({exc.strerror or exc})")


def _changed(name: str) -> LibraryError:
    return LibraryError(f"{name}: changed while it was being read; add it again")
