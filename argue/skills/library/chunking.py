"""Cut text into search-sized chunks along paragraph boundaries, remembering line numbers.

Everything here is linear in the length of the text, and works on a stream: ``split_lines``
turns decoded text pieces into lines (a line longer than ``SEGMENT_CHARS`` comes in segments),
and ``LinePacker`` takes them one at a time, so no step needs the whole file in memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argue.skills.library.limits import IngestBudget

TARGET_CHARS = 1200
MAX_CHARS = 2000
# A title or heading is repeated in every chunk of its document or section: it is kept short.
LABEL_MAX_CHARS = 300
# A line longer than this is handed on in segments of at least this many characters.
SEGMENT_CHARS = 1 << 20
# What ``str.splitlines`` breaks lines at.
LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
_WHITESPACE = re.compile(r"\s*")

NumberedLine = tuple[int, str]
LineSegment = tuple[str, bool]
"""Part of a line, and whether the line ends with it."""


class Chunk:
    """A passage and where it is (``p. 3``, ``§ Methods``, ``00:01:30``…).

    Its text is held as UTF-8: a ``str`` takes four bytes per character as soon as one of them
    is an emoji, so a document's chunks, waiting to be written, could take four times its size.
    """

    __slots__ = ("_utf8", "locator")

    def __init__(self, locator: str, text: str) -> None:
        self.locator = locator
        self._utf8 = text.encode("utf-8", "replace")  # a lone surrogate becomes "?"

    @classmethod
    def from_utf8(cls, locator: str, utf8: bytes) -> Chunk:
        chunk = cls.__new__(cls)
        chunk.locator, chunk._utf8 = locator, utf8
        return chunk

    @property
    def text(self) -> str:
        return self._utf8.decode("utf-8")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chunk):
            return NotImplemented
        return (self.locator, self._utf8) == (other.locator, other._utf8)

    def __hash__(self) -> int:
        return hash((self.locator, self._utf8))

    def __repr__(self) -> str:
        return f"Chunk(locator={self.locator!r}, text={self.text!r})"


@dataclass(frozen=True)
class ParsedDocument:
    title: str
    kind: str
    chunks: list[Chunk] = field(default_factory=list)
    encoding: str | None = None  # the charset of a text file (see decoding.py); None otherwise


@dataclass(frozen=True, slots=True)
class TextBlock:
    first_line: int
    last_line: int
    text: str


def numbered(lines: Iterable[str], start: int = 1) -> list[NumberedLine]:
    return [(number, line) for number, line in enumerate(lines, start)]


def split_lines(
    pieces: Iterable[str], breaks: re.Pattern[str] = LINE_BREAKS, segment: int = SEGMENT_CHARS
) -> Iterator[LineSegment]:
    """The lines of the text ``pieces`` make, as ``str.splitlines`` would cut the whole of it.

    A line comes whole as ``(line, True)``, or, once more than ``segment`` characters of it
    are waiting, as ``(part, False)`` pieces ended by a ``(rest, True)``.
    """
    carry = ""
    line_open = False  # part of the current line was handed on already
    for piece in pieces:
        if not piece:
            continue
        text = carry + piece
        start = 0
        # The carry holds no line break, but perhaps a last "\r": look from there on only.
        for found in breaks.finditer(text, len(carry) - carry.endswith("\r")):
            if found.end() == len(text) and found.group() == "\r":
                break  # perhaps the first half of "\r\n": wait for the next piece
            yield text[start : found.start()], True
            start = found.end()
            line_open = False
        carry = text[start:]
        held = 1 if carry.endswith("\r") else 0
        if len(carry) - held > segment:
            yield carry[: len(carry) - held], False
            carry = carry[len(carry) - held :]
            line_open = True
    if carry or line_open:
        yield carry.removesuffix("\r"), True


def numbered_segments(
    segments: Iterable[LineSegment], start: int = 1
) -> Iterator[tuple[int, str, bool, bool]]:
    """``(line number, segment, first of its line, last of its line)`` for each segment."""
    number = start - 1
    first = True
    for segment, last in segments:
        if first:
            number += 1
        yield number, segment, first, last
        first = last


def pack_lines(
    lines: Iterable[NumberedLine],
    target: int = TARGET_CHARS,
    limit: int = MAX_CHARS,
    budget: IngestBudget | None = None,
) -> list[TextBlock]:
    """Group lines into blocks of about ``target`` characters, breaking at blank lines.

    A paragraph longer than ``limit`` is broken between lines; a line longer than ``limit`` is
    broken between words (or anywhere, if it has no spaces).
    """
    packer = LinePacker(target, limit, budget)
    for number, line in lines:
        packer.add_line(number, line)
    return packer.finish()


class LinePacker:
    """``pack_lines`` one line at a time; a long line may be given in segments.

    Lines go into a paragraph until a blank line; a paragraph becomes pieces of at most
    ``limit`` characters (cut between lines, or a long line between words); pieces are packed
    into blocks of about ``target`` characters. Finished blocks wait in ``blocks``.
    """

    def __init__(
        self, target: int = TARGET_CHARS, limit: int = MAX_CHARS, budget: IngestBudget | None = None
    ) -> None:
        self.target = target
        self.limit = limit
        self.blocks: list[TextBlock] = []
        self._budget = budget
        self._paragraph: list[NumberedLine] = []
        self._paragraph_size = 0
        self._pieces: list[TextBlock] = []
        self._pieces_size = 0
        self._long_line: LineSplitter | None = None
        self._long_line_number = 0
        self._long_line_cut = False

    def add_line(self, number: int, line: str) -> bool:
        """Add one whole line; False if it is blank."""
        if not line or line.isspace():
            self._end_piece()
            return False
        line = line.rstrip()
        if len(line) > self.limit:
            self._end_piece()
            for part in _split_line(line, self.limit):
                self._add_piece(TextBlock(number, number, part))
        else:
            self._add_short_line(number, line)
        return True

    def add_segment(self, number: int, segment: str, first: bool, last: bool) -> bool | None:
        """Add one segment of ``numbered_segments``; once its line ends, False if it was blank."""
        if first and last:
            return self.add_line(number, segment)
        if first:
            self.start_line(number)
        self.continue_line(segment)
        return self.end_line() if last else None

    def start_line(self, number: int) -> None:
        self._long_line = LineSplitter(self.limit)
        self._long_line_number = number
        self._long_line_cut = False

    def continue_line(self, segment: str) -> None:
        assert self._long_line is not None, "start_line first"
        self._add_long_line_parts(self._long_line.feed(segment))

    def end_line(self) -> bool:
        """The line started by ``start_line`` is complete; False if it was blank."""
        assert self._long_line is not None, "start_line first"
        splitter, self._long_line = self._long_line, None
        end = splitter.finish()
        if end.blank:
            self._end_piece()
            return False
        if end.short_line is not None:
            self._add_short_line(self._long_line_number, end.short_line)
        else:
            self._add_long_line_parts(end.parts)
        return True

    def finish(self) -> list[TextBlock]:
        """Every block, the last ones included; the packer is empty afterwards."""
        self._end_piece()
        if self._pieces:
            self._add_block(_join(self._pieces))
            self._pieces, self._pieces_size = [], 0
        blocks, self.blocks = self.blocks, []
        return blocks

    def take_blocks(self) -> list[TextBlock]:
        """The blocks finished so far (the packer forgets them)."""
        blocks, self.blocks = self.blocks, []
        return blocks

    def _add_short_line(self, number: int, line: str) -> None:
        if self._paragraph and self._paragraph_size + len(line) + 1 > self.limit:
            self._end_piece()
        self._paragraph.append((number, line))
        self._paragraph_size += len(line) + 1

    def _add_long_line_parts(self, parts: list[str]) -> None:
        if not parts:
            return
        if not self._long_line_cut:
            self._end_piece()
            self._long_line_cut = True
        number = self._long_line_number
        for part in parts:
            self._add_piece(TextBlock(number, number, part))

    def _end_piece(self) -> None:
        if self._paragraph:
            self._add_piece(_block(self._paragraph))
            self._paragraph, self._paragraph_size = [], 0

    def _add_piece(self, piece: TextBlock) -> None:
        if self._pieces and self._pieces_size + len(piece.text) > self.target:
            self._add_block(_join(self._pieces))
            self._pieces, self._pieces_size = [], 0
        self._pieces.append(piece)
        self._pieces_size += len(piece.text) + 2

    def _add_block(self, block: TextBlock) -> None:
        if self._budget is not None:
            self._budget.count_chunk()
        self.blocks.append(block)


@dataclass(frozen=True)
class LineEnd:
    """How a line fed to ``LineSplitter`` ended: blank, short enough to be one piece, or cut."""

    blank: bool = False
    short_line: str | None = None  # the line without trailing spaces, when it fits in a piece
    parts: list[str] = field(default_factory=list)


class LineSplitter:
    """Cut one line, fed in segments, into parts of at most ``limit`` characters.

    The parts are those of cutting ``line.strip()`` at the last space between ``limit // 2``
    and ``limit`` characters (or at ``limit`` without one) and stripping every part, again and
    again; each cut looks only at the next ``limit`` characters, so the line is read once.
    Only what may still be cut is kept: at most ``limit`` characters of text, and ``limit + 1``
    of the whitespace after it (whatever follows a longer run of whitespace starts a new part).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buffer = ""
        self._start = 0  # where the part not yet cut begins, in the buffer
        self._text_end = 0  # just past the buffer's last non-whitespace character
        self._fed = 0  # characters of the line fed so far
        self._line_text_end = 0  # just past the line's last non-whitespace character
        self._head = ""  # the line's first ``limit`` characters

    def feed(self, segment: str) -> list[str]:
        """The parts that are complete once ``segment`` is added."""
        if not segment:
            return []
        if len(self._head) < self.limit:
            self._head += segment[: self.limit - len(self._head)]
        kept = self._buffer[self._start :]
        text_length = len(segment.rstrip())
        if text_length:
            self._text_end = len(kept) + text_length
            self._line_text_end = self._fed + text_length
        else:
            self._text_end = max(self._text_end - self._start, 0)
        self._buffer = kept + segment
        self._start = 0
        self._fed += len(segment)
        parts = self._cut()
        keep_until = max(self._start, self._text_end) + self.limit + 1
        if len(self._buffer) > keep_until:
            self._buffer = self._buffer[:keep_until]
        return parts

    def finish(self) -> LineEnd:
        if self._line_text_end == 0:
            return LineEnd(blank=True)
        if self._line_text_end <= self.limit:
            return LineEnd(short_line=self._head[: self._line_text_end])
        parts = self._cut()
        if self._text_end > self._start:
            parts.append(self._buffer[self._start : self._text_end])
        return LineEnd(parts=parts)

    def _cut(self) -> list[str]:
        parts: list[str] = []
        buffer, limit = self._buffer, self.limit
        while True:
            blank = _WHITESPACE.match(buffer, self._start)
            assert blank is not None  # \s* matches at every position
            start = blank.end()
            self._start = start
            if self._text_end - start <= limit:
                return parts
            space = buffer.rfind(" ", start + limit // 2, start + limit)
            cut = space if space != -1 else start + limit
            parts.append(buffer[start:cut].strip())
            self._start = cut


def _split_line(line: str, limit: int) -> list[str]:
    splitter = LineSplitter(limit)
    parts = splitter.feed(line)
    end = splitter.finish()
    if end.short_line is not None:
        return [end.short_line.strip()]
    return parts + end.parts


def _block(lines: Sequence[NumberedLine]) -> TextBlock:
    return TextBlock(lines[0][0], lines[-1][0], "\n".join(text for _, text in lines))


def _join(pieces: list[TextBlock]) -> TextBlock:
    return TextBlock(
        pieces[0].first_line, pieces[-1].last_line, "\n\n".join(p.text for p in pieces)
    )


def clip_label(text: str, most: int = LABEL_MAX_CHARS) -> str:
    """``text``, cut to ``most`` characters (ending with "…") if it is longer."""
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def line_range(first: int, last: int) -> str:
    return f"line {first}" if first == last else f"lines {first}-{last}"
