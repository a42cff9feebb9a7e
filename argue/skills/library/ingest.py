"""Read one file and turn it into titled, located chunks; every failure is a LibraryError."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from argue.skills.library.chunking import ParsedDocument
from argue.skills.library.epub import parse_epub
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


@dataclass(frozen=True)
class FileContent:
    path: Path
    data: bytes
    kind: str

    @property
    def doc_id(self) -> str:
        return content_id(self.data)


def content_id(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:DOC_ID_LENGTH]


def read_file(path: Path) -> FileContent:
    """The file's bytes, once: its id and its parse both come from this single read."""
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
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LibraryError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    if not data.strip():
        raise LibraryError(f"{path}: file is empty")
    return FileContent(path=path, data=data, kind=kind)


def parse_content(content: FileContent) -> ParsedDocument:
    name, stem, data = str(content.path), content.path.stem, content.data
    if content.kind == "txt":
        parsed = parse_txt(data, name, stem)
    elif content.kind == "md":
        parsed = parse_markdown(data, name, stem)
    elif content.kind == "pdf":
        parsed = parse_pdf(data, name, stem)
    elif content.kind == "epub":
        parsed = parse_epub(data, name, stem)
    else:
        parsed = parse_subtitles(data, name, stem, content.kind)
    if not parsed.chunks:
        raise LibraryError(f"{name}: no text to index")
    return parsed
