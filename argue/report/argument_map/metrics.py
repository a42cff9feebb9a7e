"""How wide the map's text is, estimated without a browser: per-character advance widths.

SVG text does not wrap or shrink by itself, so the layout must know how wide a line is before
a browser draws it. The widths below are the larger of DejaVu Sans (what ``system-ui`` and
``sans-serif`` resolve to on a stock Linux, and one of the widest sans-serif faces) and
Liberation Sans (Arial's metrics), measured in Chromium at 100 px, in hundredths of an em;
Segoe UI, San Francisco, Roboto and Helvetica are narrower, so the estimate errs wide. Ids are
drawn in a monospace face (0.6 em in DejaVu Sans Mono and Menlo, 0.55 in Consolas).
A character outside printable ASCII counts as its base letter (é as e), a wide East Asian
character as a full em, anything else as 0.8 em.

Every piece of text on the map has a ``Font`` here; the drawing writes its size and weight as
presentation attributes, so the numbers the layout measured with are the numbers drawn.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from argue.text.controls import breakable_words

_ASCII = "".join(chr(i) for i in range(32, 127))
_REGULAR = (
    "32 40 46 84 64 95 78 27 39 39 50 84 32 36 32 34 64 64 64 64 64 64 64 64 64 64 34 34 84 "
    "84 84 56 102 68 69 72 77 67 61 78 75 29 50 67 56 86 75 79 67 79 72 67 61 73 68 99 69 67 "
    "69 39 34 39 84 56 50 61 63 55 63 62 35 63 63 28 28 58 28 97 63 61 63 63 41 52 39 63 59 "
    "82 59 59 52 64 34 64 84"
)
_BOLD = (
    "35 46 52 84 70 100 87 31 46 46 52 84 38 42 38 37 70 70 70 70 70 70 70 70 70 70 40 40 84 "
    "84 84 61 100 77 76 73 83 68 68 82 84 37 56 77 64 100 84 85 73 85 77 72 68 81 77 110 77 "
    "72 73 46 37 46 84 56 50 67 72 59 72 68 44 72 71 34 34 67 34 104 71 69 72 72 49 60 48 71 "
    "65 92 65 65 58 71 37 71 84"
)
_PUNCTUATION = {"—": 1.0, "…": 1.0, "·": 0.38, "’": 0.38, "‘": 0.38, "“": 0.66, "”": 0.66}
_PUNCTUATION |= {"«": 0.65, "»": 0.65, "–": 0.6, "−": 0.84, "×": 0.84, "→": 0.84}
MONO_EM = 0.62  # the widest common monospace advance, rounded up
OTHER_EM = 0.8
ASCENT_EM = 0.93  # DejaVu Sans: ascender 0.928 em, descender 0.236 em (what getBBox spans)
DESCENT_EM = 0.24


def _table(numbers: str) -> dict[str, float]:
    return {c: int(n) / 100 for c, n in zip(_ASCII, numbers.split(), strict=True)}


_EM = {False: _table(_REGULAR), True: _table(_BOLD)}


@dataclass(frozen=True)
class Font:
    """A piece of map text: size in px (SVG user units), bold or not, monospace or not."""

    size: float
    bold: bool = False
    mono: bool = False

    @property
    def weight(self) -> str:
        return "700" if self.bold else "400"

    @property
    def ascent(self) -> float:
        return ASCENT_EM * self.size

    @property
    def descent(self) -> float:
        return DESCENT_EM * self.size


# Every text of the map, by role. Claim text and everything else stay at 11 px or more at the
# figure's natural width (the report shows the map at that width, in a scroll box if wider).
CLAIM_TEXT = Font(11.5)
CLAIM_ID = Font(12.5, bold=True, mono=True)
SCORE = Font(11.5)
BADGE = Font(11, bold=True)
REBUTTAL = Font(11.5)
GHOST = Font(11)
COLUMN_HEAD = Font(13, bold=True)
ROUND_LABEL = Font(13, bold=True)
LEGEND = Font(12)
EMPTY = Font(13)


def _char_em(char: str, bold: bool) -> float:
    table = _EM[bold]
    if char in table:
        return table[char]
    if char in _PUNCTUATION:
        return _PUNCTUATION[char]
    if unicodedata.combining(char):
        return 0.0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 1.0
    base = unicodedata.normalize("NFD", char)[:1]
    return table.get(base, OTHER_EM)


def char_width(char: str, font: Font) -> float:
    if font.mono:
        return 0.0 if unicodedata.combining(char) else MONO_EM * font.size
    return _char_em(char, font.bold) * font.size


@lru_cache(maxsize=4096)
def text_width(value: str, font: Font) -> float:
    """The estimated advance width of ``value`` (one line) in ``font``, in px."""
    return sum(char_width(c, font) for c in value)


def fitting(value: str, width: float, font: Font) -> int:
    """How many of ``value``'s first characters fit in ``width`` (one pass: a megabyte-long
    token costs a megabyte, not its square)."""
    total = 0.0
    for i, char in enumerate(value):
        total += char_width(char, font)
        if total > width:
            return i
    return len(value)


def clip_to_width(value: str, width: float, font: Font) -> str:
    """One line that fits ``width``, with an ellipsis when cut."""
    line = " ".join(breakable_words(value))
    if fitting(line, width, font) == len(line):
        return line
    cut = fitting(line, width - char_width("…", font), font)
    return line[:cut].rstrip() + "…" if cut else ""


def wrap_to_width(value: str, width: float, font: Font, max_lines: int) -> tuple[list[str], bool]:
    """Greedy word wrap into lines that fit ``width``; at most ``max_lines``, the last one cut
    with an ellipsis when text is left over. A word longer than a line (a URL, a hash) is
    broken. Returns the lines and whether the text was cut."""
    lines: list[str] = []
    current = ""
    for word in value.split():
        candidate = f"{current} {word}" if current else word
        if text_width(candidate, font) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        while len(lines) <= max_lines and (cut := fitting(word, width, font)) < len(word):
            lines.append(word[: max(1, cut)])
            word = word[max(1, cut) :]
        current = word
        if len(lines) > max_lines:
            break
    if current:
        lines.append(current)
    if len(lines) <= max_lines:
        return lines, False
    rest = " ".join(lines[max_lines - 1 :])
    return [*lines[: max_lines - 1], clip_to_width(rest, width, font)], True
