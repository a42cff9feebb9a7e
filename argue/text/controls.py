"""One character policy for every output (issue 39, item 3).

Text from models, sources, files and the question is data: no output argue writes (the terminal,
Markdown, the HTML report and its SVG, the JSON argue prints, ``argue serve`` pages and streams,
eval records) carries a character that can act on a terminal or reorder what a reader sees:

- C0 controls but tab and newline (ESC starts terminal escape sequences, BEL rings), DEL, and the
  C1 controls (U+0080–U+009F: U+009B is a one-character CSI);
- every Bidi_Control character: U+061C ARABIC LETTER MARK, U+200E/U+200F (LRM, RLM), the
  embeddings and overrides U+202A–U+202E and the isolates U+2066–U+2069.

Text outputs strip them (``strip_controls``, ``one_line``); JSON outputs keep the value but write
each as a ``\\uXXXX`` escape (``json_safe``, ``dumps``): a reader parsing the JSON gets the text
back, a terminal showing it sees only ASCII.
"""

from __future__ import annotations

import json
import re
from typing import Any

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Every character whose Unicode property is Bidi_Control."""

UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
"""C0 controls but tab and newline, DEL, C1 controls and every Bidi_Control character."""


def strip_controls(text: object) -> str:
    """``text`` without control or bidi characters (tabs and newlines kept)."""
    return UNSAFE.sub("", str(text))


# Whitespace that may break a line; the no-break spaces French typography puts before « : ; ?
# ! » (U+00A0, U+202F) and the figure space are kept, so a label keeps its spacing in one line.
_BREAKING_SPACE = re.compile(r"[^\S\u00a0\u2007\u202f]+")


def breakable_words(text: object) -> list[str]:
    """``text`` split where a line may break: at whitespace other than the no-break spaces."""
    return [word for word in _BREAKING_SPACE.split(str(text)) if word]


def one_line(text: object) -> str:
    """``text`` as one line without control or bidi characters (whitespace runs, a carriage
    return or a form feed among them, become one space; no-break spaces stay)."""
    parts = (UNSAFE.sub("", w) for w in _BREAKING_SPACE.split(str(text)))
    return " ".join(part for part in parts if part)


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_safe(document: str) -> str:
    """A JSON document with each control or bidi character written as a ``\\uXXXX`` escape.

    Outside strings JSON has only ASCII structure and whitespace, so every such character is
    inside a string, where the escape means the same character."""
    return UNSAFE.sub(_escape, document)


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps`` (non-ASCII text kept readable) with no raw control or bidi character."""
    kwargs.setdefault("ensure_ascii", False)
    return json_safe(json.dumps(value, **kwargs))
