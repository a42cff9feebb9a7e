"""Cut text into search-sized chunks along paragraph boundaries, remembering line numbers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

TARGET_CHARS = 1200
MAX_CHARS = 2000

NumberedLine = tuple[int, str]


@dataclass(frozen=True)
class Chunk:
    locator: str
    text: str


@dataclass(frozen=True)
class ParsedDocument:
    title: str
    kind: str
    chunks: list[Chunk] = field(default_factory=list)
    encoding: str | None = None  # the charset of a text file (see decoding.py); None otherwise


@dataclass(frozen=True)
class TextBlock:
    first_line: int
    last_line: int
    text: str


def numbered(lines: Iterable[str], start: int = 1) -> list[NumberedLine]:
    return [(number, line) for number, line in enumerate(lines, start)]


def pack_lines(
    lines: Sequence[NumberedLine], target: int = TARGET_CHARS, limit: int = MAX_CHARS
) -> list[TextBlock]:
    """Group lines into blocks of about ``target`` characters, breaking at blank lines.

    A paragraph longer than ``limit`` is broken between lines; a line longer than ``limit`` is
    broken between words (or anywhere, if it has no spaces).
    """
    pieces: list[TextBlock] = []
    for paragraph in _paragraphs(lines):
        pieces.extend(_split_oversized(paragraph, limit))

    blocks: list[TextBlock] = []
    current: list[TextBlock] = []
    size = 0
    for piece in pieces:
        if current and size + len(piece.text) > target:
            blocks.append(_join(current))
            current, size = [], 0
        current.append(piece)
        size += len(piece.text) + 2
    if current:
        blocks.append(_join(current))
    return blocks


def _paragraphs(lines: Sequence[NumberedLine]) -> list[list[NumberedLine]]:
    paragraphs: list[list[NumberedLine]] = []
    current: list[NumberedLine] = []
    for number, line in lines:
        if line.strip():
            current.append((number, line.rstrip()))
        elif current:
            paragraphs.append(current)
            current = []
    if current:
        paragraphs.append(current)
    return paragraphs


def _split_oversized(paragraph: list[NumberedLine], limit: int) -> list[TextBlock]:
    pieces: list[TextBlock] = []
    current: list[NumberedLine] = []
    size = 0
    for number, line in paragraph:
        if len(line) > limit:
            if current:
                pieces.append(_block(current))
                current, size = [], 0
            pieces.extend(TextBlock(number, number, part) for part in _split_line(line, limit))
            continue
        if current and size + len(line) + 1 > limit:
            pieces.append(_block(current))
            current, size = [], 0
        current.append((number, line))
        size += len(line) + 1
    if current:
        pieces.append(_block(current))
    return pieces


def _split_line(line: str, limit: int) -> list[str]:
    parts: list[str] = []
    rest = line.strip()
    while len(rest) > limit:
        cut = rest.rfind(" ", limit // 2, limit)
        if cut == -1:
            cut = limit
        parts.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        parts.append(rest)
    return parts


def _block(lines: list[NumberedLine]) -> TextBlock:
    return TextBlock(lines[0][0], lines[-1][0], "\n".join(text for _, text in lines))


def _join(pieces: list[TextBlock]) -> TextBlock:
    return TextBlock(
        pieces[0].first_line, pieces[-1].last_line, "\n\n".join(p.text for p in pieces)
    )


def line_range(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}-{last}"
