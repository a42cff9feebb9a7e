"""WebVTT (.vtt) and SubRip (.srt) transcripts: cues grouped in ~30 s windows, located HH:MM:SS."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from argue.skills.library.chunking import Chunk, ParsedDocument
from argue.skills.library.decoding import decode_text
from argue.skills.library.models import LibraryError

WINDOW_SECONDS = 30.0
_TIMING = re.compile(
    r"^\s*(?P<start>(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*"
    r"(?P<end>(?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})"
)
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class Cue:
    start: float
    text: str


def parse_subtitles(data: bytes, name: str, stem: str, kind: str) -> ParsedDocument:
    text, encoding = decode_text(data, name)
    if kind == "vtt" and not text.lstrip().startswith("WEBVTT"):
        raise LibraryError(f"{name}: not a WebVTT file (missing the WEBVTT header)")
    cues = _cues(text)
    if not cues:
        raise LibraryError(f"{name}: no subtitle cues found")
    return ParsedDocument(title=stem, kind=kind, chunks=_windows(cues), encoding=encoding)


def parse_timestamp(value: str) -> float:
    parts = value.replace(",", ".").split(":")
    seconds = float(parts[-1])
    minutes = int(parts[-2])
    hours = int(parts[-3]) if len(parts) == 3 else 0
    return hours * 3600 + minutes * 60 + seconds


def format_timestamp(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def _cues(text: str) -> list[Cue]:
    """Cues in file order. Caption lines repeated from the previous cue (the rolling captions
    of auto-generated YouTube transcripts) are dropped so each sentence is indexed once."""
    cues: list[Cue] = []
    previous_lines: set[str] = set()
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n").replace("\r", "\n")):
        lines = block.strip("\n").split("\n")
        matches = ((i, _TIMING.match(line)) for i, line in enumerate(lines))
        found = next(((i, m) for i, m in matches if m is not None), None)
        if found is None:
            continue  # WEBVTT header, NOTE, STYLE, REGION or stray text
        timing_at, timing = found
        cue_lines = [
            " ".join(html.unescape(_TAG.sub("", raw)).split()) for raw in lines[timing_at + 1 :]
        ]
        caption_lines = [line for line in cue_lines if line and line not in previous_lines]
        previous_lines = set(cue_lines)
        if caption_lines:
            cues.append(Cue(parse_timestamp(timing.group("start")), " ".join(caption_lines)))
    return cues


def _windows(cues: list[Cue]) -> list[Chunk]:
    chunks: list[Chunk] = []
    window_start = cues[0].start
    texts: list[str] = []
    for cue in cues:
        if texts and cue.start >= window_start + WINDOW_SECONDS:
            chunks.append(Chunk(format_timestamp(window_start), " ".join(texts)))
            window_start, texts = cue.start, []
        texts.append(cue.text)
    if texts:
        chunks.append(Chunk(format_timestamp(window_start), " ".join(texts)))
    return chunks
