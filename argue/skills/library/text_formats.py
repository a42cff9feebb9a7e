"""Plain text (.txt) and Markdown (.md): decode, then chunk by paragraphs or by headings."""

from __future__ import annotations

import re

from argue.skills.library.chunking import (
    Chunk,
    NumberedLine,
    ParsedDocument,
    line_range,
    numbered,
    pack_lines,
)
from argue.skills.library.decoding import decode_text

_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def parse_txt(data: bytes, name: str, stem: str) -> ParsedDocument:
    text, encoding = decode_text(data, name)
    blocks = pack_lines(numbered(text.splitlines()))
    chunks = [Chunk(line_range(b.first_line, b.last_line), b.text) for b in blocks]
    return ParsedDocument(title=stem, kind="txt", chunks=chunks, encoding=encoding)


def parse_markdown(data: bytes, name: str, stem: str) -> ParsedDocument:
    text, encoding = decode_text(data, name)
    lines = numbered(text.splitlines())
    lines, front_title = _strip_front_matter(lines)
    chunks: list[Chunk] = []
    first_h1: str | None = None
    for heading, level, section in _sections(lines):
        if level == 1 and first_h1 is None:
            first_h1 = heading
        blocks = pack_lines(section)
        for block in blocks:
            span = line_range(block.first_line, block.last_line)
            if heading is None:
                locator = span
            elif len(blocks) == 1:
                locator = f"§ {heading}"
            else:
                locator = f"§ {heading} ({span})"
            chunks.append(Chunk(locator, block.text))
    return ParsedDocument(
        title=front_title or first_h1 or stem, kind="md", chunks=chunks, encoding=encoding
    )


def _strip_front_matter(lines: list[NumberedLine]) -> tuple[list[NumberedLine], str | None]:
    if not lines or lines[0][1].strip() != "---":
        return lines, None
    for index in range(1, len(lines)):
        if lines[index][1].strip() in ("---", "..."):
            title = None
            for _, line in lines[1:index]:
                key, _, value = line.partition(":")
                if key.strip().lower() == "title" and value.strip():
                    title = value.strip().strip("'\"")
            return lines[index + 1 :], title
    return lines, None


def _sections(
    lines: list[NumberedLine],
) -> list[tuple[str | None, int, list[NumberedLine]]]:
    """Split at ATX (``## Title``) and setext (``Title\\n=====``) headings, ignoring code fences.

    The heading line stays in its section's text, so its words are searchable.
    """
    sections: list[tuple[str | None, int, list[NumberedLine]]] = []
    heading: str | None = None
    level = 0
    current: list[NumberedLine] = []
    fence: str | None = None
    for number, line in lines:
        fence_match = _FENCE.match(line)
        if fence_match:
            marker = fence_match.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            current.append((number, line))
            continue
        if fence is not None:
            current.append((number, line))
            continue
        atx = _ATX_HEADING.match(line)
        setext = _SETEXT_UNDERLINE.match(line)
        if atx and atx.group(2).strip():
            if _has_text(current):
                sections.append((heading, level, current))
            heading, level, current = atx.group(2).strip(), len(atx.group(1)), [(number, line)]
        elif setext and _is_setext_title(current):
            title_line = current.pop()
            if _has_text(current):
                sections.append((heading, level, current))
            heading = title_line[1].strip()
            level = 1 if setext.group(1).startswith("=") else 2
            current = [title_line, (number, line)]
        else:
            current.append((number, line))
    if _has_text(current):
        sections.append((heading, level, current))
    return sections


def _is_setext_title(current: list[NumberedLine]) -> bool:
    """The previous line is a one-line paragraph (so ``---`` under a paragraph is a heading)."""
    if not current or not current[-1][1].strip():
        return False
    return len(current) == 1 or not current[-2][1].strip()


def _has_text(lines: list[NumberedLine]) -> bool:
    return any(line.strip() for _, line in lines)
