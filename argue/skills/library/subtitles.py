"""WebVTT (.vtt) and SubRip (.srt) transcripts: cues grouped in ~30 s windows, located HH:MM:SS.

Read line by line: a line longer than ``max_subtitle_line_chars`` refuses the file, and a window
longer than ``MAX_CHARS`` is cut between words into chunks that keep its timestamp.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import BinaryIO

from argue.skills.library.chunking import (
    MAX_CHARS,
    Chunk,
    LineSplitter,
    ParsedDocument,
    split_lines,
)
from argue.skills.library.decoding import read_decoded
from argue.skills.library.limits import IngestBudget
from argue.skills.library.models import LibraryError

WINDOW_SECONDS = 30.0
# Lines of the previous cue remembered to drop rolling captions; real cues have two or three.
REMEMBERED_CUE_LINES = 64
_TIMING = re.compile(
    r"^\s*(?P<start>(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*"
    r"(?P<end>(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})"
)
# Subtitle lines end at \n, \r\n or \r only (not at the other breaks str.splitlines knows).
_SUBTITLE_LINE_BREAKS = re.compile(r"\r\n|[\r\n]")


def parse_subtitles(
    stream: BinaryIO, name: str, stem: str, kind: str, budget: IngestBudget
) -> ParsedDocument:
    def read(text: Iterable[str]) -> list[Chunk]:
        transcript = _Transcript(budget)
        header_seen = kind != "vtt"
        for line in _lines(text, budget):
            if not header_seen and line and not line.isspace():
                if not line.lstrip().startswith("WEBVTT"):
                    break
                header_seen = True
            transcript.add(line)
        if not header_seen:
            raise LibraryError(f"{name}: not a WebVTT file (missing the WEBVTT header)")
        return transcript.finish()

    chunks, encoding = read_decoded(stream, name, budget, read)
    if not chunks:
        raise LibraryError(f"{name}: no subtitle cues found")
    return ParsedDocument(title=stem, kind=kind, chunks=chunks, encoding=encoding)


def parse_timestamp(value: str) -> float:
    parts = value.replace(",", ".").split(":")
    seconds = float(parts[-1])
    minutes = int(parts[-2])
    hours = int(parts[-3]) if len(parts) == 3 else 0
    return hours * 3600 + minutes * 60 + seconds


def format_timestamp(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def strip_tags(text: str) -> str:
    """``text`` without ``<…>`` tags, as ``re.sub("<[^>]*>", "", text)``, in linear time."""
    if "<" not in text:
        return text
    kept: list[str] = []
    position = 0
    while (opening := text.find("<", position)) != -1:
        closing = text.find(">", opening + 1)
        if closing == -1:
            break  # no later "<" has a ">" either
        kept.append(text[position:opening])
        position = closing + 1
    kept.append(text[position:])
    return "".join(kept)


def _lines(text: Iterable[str], budget: IngestBudget) -> Iterable[str]:
    """Whole lines, refusing one longer than ``max_subtitle_line_chars``."""
    most = budget.limits.max_subtitle_line_chars
    number = 0
    parts: list[str] = []
    length = 0
    for segment, last in split_lines(text, _SUBTITLE_LINE_BREAKS, segment=min(most, 1 << 20)):
        parts.append(segment)
        length += len(segment)
        if length > most:
            raise budget.refusal(
                f"line {number + 1} is longer than {most} characters", "max_subtitle_line_chars"
            )
        if last:
            number += 1
            yield parts[0] if len(parts) == 1 else "".join(parts)
            parts, length = [], 0


class _Transcript:
    """Cues in file order, in blocks separated by blank lines, grouped into 30-second windows.

    Caption lines repeated from the previous cue (the rolling captions of auto-generated YouTube
    transcripts) are dropped so each sentence is indexed once.
    """

    def __init__(self, budget: IngestBudget) -> None:
        self.chunks: list[Chunk] = []
        self._budget = budget
        self._in_cue = False  # the current block has had its timing line
        self._cue_start = 0.0
        self._cue_has_text = False
        self._previous_lines: set[str] = set()
        self._cue_lines: set[str] = set()
        self._window_start: float | None = None
        self._window: LineSplitter | None = None

    def add(self, line: str) -> None:
        if not line or line.isspace():
            self._end_block()
        elif self._in_cue:
            self._caption_line(" ".join(html.unescape(strip_tags(line)).split()))
        else:
            timing = _TIMING.match(line)
            if timing is not None:  # else a cue number, WEBVTT header, NOTE, STYLE or REGION
                self._in_cue = True
                self._cue_start = parse_timestamp(timing.group("start"))
                self._cue_has_text = False

    def finish(self) -> list[Chunk]:
        self._end_block()
        self._end_window()
        return self.chunks

    def _caption_line(self, line: str) -> None:
        if len(self._cue_lines) < REMEMBERED_CUE_LINES:
            self._cue_lines.add(line)
        if not line or line in self._previous_lines:
            return
        if not self._cue_has_text:
            self._cue_has_text = True
            self._start_cue()
        else:
            self._add_to_window(" ")
        self._add_to_window(line)

    def _start_cue(self) -> None:
        if self._window is not None:
            assert self._window_start is not None
            if self._cue_start >= self._window_start + WINDOW_SECONDS:
                self._end_window()
            else:
                self._add_to_window(" ")
                return
        self._window_start = self._cue_start
        self._window = LineSplitter(MAX_CHARS)

    def _add_to_window(self, text: str) -> None:
        assert self._window is not None
        for part in self._window.feed(text):
            self._add_chunk(part)

    def _end_block(self) -> None:
        if self._in_cue:
            self._previous_lines, self._cue_lines = self._cue_lines, set()
        self._in_cue = False

    def _end_window(self) -> None:
        if self._window is None:
            return
        window, self._window = self._window, None
        end = window.finish()
        if end.short_line is not None:
            self._add_chunk(end.short_line)
        for part in end.parts:
            self._add_chunk(part)

    def _add_chunk(self, text: str) -> None:
        assert self._window_start is not None
        self._budget.count_chunk()
        self.chunks.append(Chunk(format_timestamp(self._window_start), text))
