"""Plain text (.txt) and Markdown (.md): decode, then chunk by paragraphs or by headings.

Both are read as a stream of lines (see ``chunking.split_lines``), so a file never sits in
memory as a whole. A Markdown line longer than ``SEGMENT_CHARS`` (a million characters) is
plain text: not a heading, a fence or a setext title; front matter longer than
``FRONT_MATTER_MAX_LINES`` lines (or ``SEGMENT_CHARS`` characters) is not front matter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import BinaryIO

from argue.skills.library.chunking import (
    SEGMENT_CHARS,
    Chunk,
    LinePacker,
    NumberedLine,
    ParsedDocument,
    TextBlock,
    clip_label,
    line_range,
    numbered_segments,
    split_lines,
)
from argue.skills.library.decoding import read_decoded
from argue.skills.library.limits import IngestBudget

_ATX_OPENING = re.compile(r" {0,3}(#{1,6})[ \t]+")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
FRONT_MATTER_MAX_LINES = 1000


def parse_txt(stream: BinaryIO, name: str, stem: str, budget: IngestBudget) -> ParsedDocument:
    chunks, encoding = read_decoded(stream, name, budget, lambda text: _txt_chunks(text, budget))
    return ParsedDocument(title=stem, kind="txt", chunks=chunks, encoding=encoding)


def _txt_chunks(text: Iterable[str], budget: IngestBudget) -> list[Chunk]:
    packer = LinePacker(budget=budget)
    chunks: list[Chunk] = []
    for number, segment, first, last in numbered_segments(split_lines(text)):
        packer.add_segment(number, segment, first, last)
        if packer.blocks:
            chunks.extend(_line_chunks(packer.take_blocks()))
    chunks.extend(_line_chunks(packer.finish()))
    return chunks


def _line_chunks(blocks: Iterable[TextBlock]) -> list[Chunk]:
    return [Chunk(line_range(block.first_line, block.last_line), block.text) for block in blocks]


def parse_markdown(stream: BinaryIO, name: str, stem: str, budget: IngestBudget) -> ParsedDocument:
    def read(text: Iterable[str]) -> _Markdown:
        markdown = _Markdown(budget)
        for number, segment, first, last in numbered_segments(split_lines(text)):
            markdown.add(number, segment, first, last)
        markdown.finish()
        return markdown

    markdown, encoding = read_decoded(stream, name, budget, read)
    return ParsedDocument(
        title=markdown.front_title or markdown.first_h1 or stem,
        kind="md",
        chunks=markdown.chunks,
        encoding=encoding,
    )


class _Markdown:
    """Markdown sections, one line at a time: split at ATX (``## Title``) and setext
    (``Title\\n=====``) headings, ignoring code fences, after any front matter.

    The heading line stays in its section's text, so its words are searchable. A section's last
    line is held back until the next one: a setext underline makes it the next section's title.
    """

    def __init__(self, budget: IngestBudget) -> None:
        self.chunks: list[Chunk] = []
        self.front_title: str | None = None
        self.first_h1: str | None = None
        self._front_matter: list[NumberedLine] | None = None
        self._front_matter_chars = 0
        self._at_start = True
        self._fence: str | None = None
        self._heading: str | None = None
        self._level = 0
        self._packer = LinePacker(budget=budget)
        self._has_text = False
        self._held: NumberedLine | None = None
        self._before_held_blank: bool | None = None  # None: nothing before it in the section
        self._section_blocks = 0
        self._first_block: TextBlock | None = None

    def add(self, number: int, segment: str, first: bool, last: bool) -> None:
        if first and last and len(segment) <= SEGMENT_CHARS:
            self._add_line(number, segment)
        else:
            if first:
                self._replay_front_matter()
                self._release_held()
                self._packer.start_line(number)
            self._packer.continue_line(segment)
            if last:
                self._fed(self._packer.end_line())
        if self._packer.blocks:
            self._take_blocks(self._packer.take_blocks())

    def finish(self) -> None:
        self._replay_front_matter()
        self._end_section()

    def _add_line(self, number: int, line: str) -> None:
        if self._at_start:
            self._at_start = False
            if line.strip() == "---":
                self._front_matter = [(number, line)]
                return
        if self._front_matter is not None:
            if line.strip() in ("---", "..."):
                self.front_title = _front_title(self._front_matter[1:])
                self._front_matter = None
                return
            self._front_matter.append((number, line))
            self._front_matter_chars += len(line)
            if (
                len(self._front_matter) > FRONT_MATTER_MAX_LINES
                or self._front_matter_chars > SEGMENT_CHARS
            ):
                self._replay_front_matter()
            return
        self._section_line(number, line)

    def _replay_front_matter(self) -> None:
        self._at_start = False
        lines, self._front_matter = self._front_matter, None
        for number, line in lines or ():
            self._section_line(number, line)

    def _section_line(self, number: int, line: str) -> None:
        fence_match = _FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)
            if self._fence is None:
                self._fence = marker[0] * 3
            elif marker.startswith(self._fence):
                self._fence = None
            self._hold(number, line)
            return
        if self._fence is not None:
            self._hold(number, line)
            return
        atx = _atx_heading(line)
        setext = _SETEXT_UNDERLINE.match(line)
        if atx is not None and atx[1].strip():
            self._end_section()
            self._heading, self._level = clip_label(atx[1].strip()), atx[0]
            self._hold(number, line)
        elif setext and self._held_is_title():
            title_line, self._held = self._held, None
            assert title_line is not None
            self._end_section()
            self._heading = clip_label(title_line[1].strip())
            self._level = 1 if setext.group(1).startswith("=") else 2
            self._hold(*title_line)
            self._hold(number, line)
        else:
            self._hold(number, line)

    def _held_is_title(self) -> bool:
        """The held line is a one-line paragraph (so ``---`` under a paragraph is a heading)."""
        if self._held is None or not self._held[1].strip():
            return False
        return self._before_held_blank is None or self._before_held_blank

    def _hold(self, number: int, line: str) -> None:
        self._release_held()
        self._held = (number, line)

    def _release_held(self) -> None:
        if self._held is not None:
            held, self._held = self._held, None
            self._fed(self._packer.add_line(*held))

    def _fed(self, has_text: bool) -> None:
        self._has_text = self._has_text or has_text
        self._before_held_blank = not has_text

    def _end_section(self) -> None:
        self._release_held()
        self._take_blocks(self._packer.finish())
        if self._first_block is not None:
            self._add_chunk(self._first_block, alone=True)
            self._first_block = None
        if self._has_text and self._level == 1 and self.first_h1 is None:
            self.first_h1 = self._heading
        self._heading, self._level = None, 0
        self._has_text = False
        self._before_held_blank = None
        self._section_blocks = 0

    def _take_blocks(self, blocks: list[TextBlock]) -> None:
        """Chunks from the section's blocks as they come; the first waits for a second, which
        decides its locator (``§ Heading`` alone, ``§ Heading (lines 1-9)`` with others)."""
        for block in blocks:
            self._section_blocks += 1
            if self._section_blocks == 1:
                self._first_block = block
                continue
            if self._first_block is not None:
                self._add_chunk(self._first_block, alone=False)
                self._first_block = None
            self._add_chunk(block, alone=False)

    def _add_chunk(self, block: TextBlock, alone: bool) -> None:
        span = line_range(block.first_line, block.last_line)
        if self._heading is None:
            locator = span
        elif alone:
            locator = f"§ {self._heading}"
        else:
            locator = f"§ {self._heading} ({span})"
        self.chunks.append(Chunk(locator, block.text))


def _front_title(lines: list[NumberedLine]) -> str | None:
    title = None
    for _, line in lines:
        key, _, value = line.partition(":")
        if key.strip().lower() == "title" and value.strip():
            title = value.strip().strip("'\"")
    return clip_label(title) if title else title


def _atx_heading(line: str) -> tuple[int, str] | None:
    """``(level, text)`` of an ATX heading line, else None; linear in the line's length.

    The same as matching ``^ {0,3}(#{1,6})[ \\t]+(.*?)(?:[ \\t]+#+)?[ \\t]*$``, whose lazy
    group backtracks quadratically over a long run of spaces.
    """
    opening = _ATX_OPENING.match(line)
    if opening is None:
        return None
    text = line[opening.end() :].rstrip(" \t")
    without_closing = text.rstrip("#")
    if without_closing != text and without_closing.endswith((" ", "\t")):
        text = without_closing.rstrip(" \t")
    return len(opening.group(1)), text
