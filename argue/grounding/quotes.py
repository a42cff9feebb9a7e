"""Quotes anchored in documents: the model quotes, code finds the quote.

A claim cites ``{evidence_id, quote}``; the quote should be a verbatim span of the text the
persona was shown. :func:`locate_quote` finds it in that document's text and returns the
character offsets of the span *in the document as stored*, so what a reader is shown is the
document's own words, not the model's copy of them.

Matching, in order:

1. **Exact after normalisation.** Both texts are normalised the same way: NFKC (full-width and
   other compatibility forms become plain letters and digits), case folded, every quote mark and
   apostrophe (single, double, guillemets) one ASCII apostrophe, dashes one hyphen, format
   characters (zero-width space, soft hyphen, BOM…) removed, every run of whitespace one space;
   leading and trailing quote marks and ellipses of the quote are dropped
   (``“…the effect is bounded…”`` is the span ``the effect is bounded``).
2. **Near match**, for a model that changed a word or two while copying: the best window of the
   document's words whose similarity with the quote's words (difflib's ratio, over words, in
   order) is at least :data:`NEAR_MATCH_THRESHOLD` (0.90 — about one word in ten may differ),
   and whose numbers and negation words are exactly the quote's. A near match never turns
   "bounded" into "unbounded" or 12 % into 21 %: those words must be equal, not similar.

A quote shorter than :data:`MIN_QUOTE_WORDS` words anchors nothing (``"the effect"`` is in any
text about effects) and is reported as too short. Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher

MAX_QUOTE_CHARS = 300
MIN_QUOTE_WORDS = 4
NEAR_MATCH_THRESHOLD = 0.90

_TRANSLATE = str.maketrans(
    {
        "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'", "`": "'", "´": "'",
        "“": "'", "”": "'", "„": "'", "‟": "'", "″": "'", "«": "'", "»": "'",
        "‹": "'", "›": "'", '"': "'",
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-", "⁃": "-",
        "…": "...",
    }
)  # fmt: skip
_EDGE = " \"'.-,;:()[]"
_WORD = re.compile(r"\w+")
_NEGATIONS = frozenset(
    {
        "no", "not", "never", "none", "nor", "neither", "cannot", "without", "unbounded",
        "ne", "pas", "jamais", "aucun", "aucune", "sans", "ni", "non", "nie", "nicht", "kein",
    }
)  # fmt: skip


@dataclass(frozen=True)
class NormalisedText:
    """A text in matching form, with each character's offset in the original."""

    text: str
    origin: tuple[int, ...]  # origin[i]: index in the original of normalised character i

    def span(self, start: int, end: int, original_length: int) -> tuple[int, int]:
        """Original offsets of normalised ``[start, end)``."""
        begin = self.origin[start] if start < len(self.origin) else original_length
        last = self.origin[end - 1] + 1 if end > 0 else begin
        return begin, max(begin, last)


def _char_form(char: str) -> str:
    if unicodedata.category(char) == "Cf":
        return ""
    return unicodedata.normalize("NFKC", char).casefold().translate(_TRANSLATE)


def normalise(text: str) -> NormalisedText:
    """The matching form of ``text`` (see the module docstring), keeping offsets."""
    chars: list[str] = []
    origin: list[int] = []
    space_pending = False
    for index, char in enumerate(text):
        form = _char_form(char)
        for piece in form:
            if piece.isspace():
                space_pending = bool(chars)
                continue
            if space_pending:
                chars.append(" ")
                origin.append(index)
                space_pending = False
            chars.append(piece)
            origin.append(index)
    return NormalisedText("".join(chars), tuple(origin))


def quote_form(quote: str) -> str:
    """A quote in matching form, its surrounding quote marks and ellipses dropped."""
    return normalise(quote).text.strip(_EDGE).strip()


@dataclass(frozen=True)
class QuoteMatch:
    """Where a quote was found in one document's text, or why it was not."""

    found: bool
    start: int = 0  # offsets in the document's text as stored
    end: int = 0
    exact: bool = False
    similarity: float = 0.0
    reason: str = ""


def locate_quote(quote: str, document: str) -> QuoteMatch:
    """Find ``quote`` in ``document`` (exact after normalisation, else a near match)."""
    wanted = quote_form(quote)
    words = _WORD.findall(wanted)
    if not wanted:
        return QuoteMatch(False, reason="no quote given")
    if len(words) < MIN_QUOTE_WORDS:
        return QuoteMatch(
            False,
            reason=f"too short to anchor ({len(words)} word(s); at least {MIN_QUOTE_WORDS})",
        )
    if len(quote) > MAX_QUOTE_CHARS * 2:
        return QuoteMatch(False, reason=f"longer than {MAX_QUOTE_CHARS} characters")
    doc = normalise(document)
    position = doc.text.find(wanted)
    if position >= 0:
        start, end = doc.span(position, position + len(wanted), len(document))
        return QuoteMatch(True, start, end, exact=True, similarity=1.0)
    return _near_match(words, doc, len(document))


def _near_match(words: list[str], doc: NormalisedText, original_length: int) -> QuoteMatch:
    tokens = list(_WORD.finditer(doc.text))
    doc_words = [t.group() for t in tokens]
    n = len(words)
    if not doc_words:
        return QuoteMatch(False, reason="not in the document")
    slack = max(1, n // 10)
    wanted_bag = Counter(words)
    # A window can reach the threshold only if enough of its words are the quote's words.
    floor = NEAR_MATCH_THRESHOLD * n - slack
    best: tuple[float, int, int] = (0.0, 0, 0)
    for size in range(max(1, n - slack), n + slack + 1):
        if size > len(doc_words):
            break
        window = Counter(doc_words[:size])
        for begin in range(0, len(doc_words) - size + 1):
            if begin:
                window[doc_words[begin - 1]] -= 1
                window[doc_words[begin + size - 1]] += 1
            if sum((window & wanted_bag).values()) < floor:
                continue
            candidate = doc_words[begin : begin + size]
            ratio = SequenceMatcher(None, words, candidate, autojunk=False).ratio()
            if ratio > best[0] and _same_anchors(words, candidate):
                best = (ratio, begin, begin + size)
    ratio, begin, end = best
    if ratio >= NEAR_MATCH_THRESHOLD:
        start, stop = doc.span(tokens[begin].start(), tokens[end - 1].end(), original_length)
        # Every word the same, in order (only spacing or punctuation differ): exact.
        return QuoteMatch(True, start, stop, exact=ratio == 1.0, similarity=round(ratio, 3))
    if ratio:
        return QuoteMatch(
            False,
            similarity=round(ratio, 3),
            reason=f"not in the document (closest passage {ratio:.0%} similar, "
            f"{NEAR_MATCH_THRESHOLD:.0%} needed)",
        )
    return QuoteMatch(False, reason="not in the document")


def _same_anchors(quote: list[str], passage: list[str]) -> bool:
    """Numbers and negation words must be the same in a near match (they carry the meaning)."""

    def anchors(words: list[str]) -> Counter[str]:
        return Counter(w for w in words if w.isdigit() or w in _NEGATIONS or w.startswith("un"))

    return anchors(quote) == anchors(passage)
