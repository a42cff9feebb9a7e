"""Quotes anchored in documents: the model quotes, code finds the quote.

A claim cites ``{evidence_id, quote}``; the quote should be a verbatim span of the text the
persona was shown. :func:`locate_quote` finds it in that document's text and returns the
character offsets of the span *in the document as stored*, so what a reader is shown is the
document's own words, not the model's copy of them, and the sentence around them.

Matching, in order:

1. **Exact after normalisation, on whole words.** Both texts are normalised the same way: NFKC
   (full-width and other compatibility forms become plain letters and digits), case folded,
   every quote mark and apostrophe (single, double, guillemets) one ASCII apostrophe, dashes one
   hyphen, format characters (zero-width space, soft hyphen, BOM…) removed, every run of
   whitespace one space; leading and trailing quote marks and ellipses of the quote are dropped
   (``“…the effect is bounded…”`` is the span ``the effect is bounded``). The span must begin
   and end on word boundaries of the document: "decidable" is not in "undecidable", "19" not in
   "190", "possible" not in "impossible" (letters, digits and marks are word characters, and so
   are an apostrophe or hyphen between them, and ``.``, ``,`` or ``^`` between digits; Chinese,
   Japanese and Korean are matched by character). A quote found only inside words is not found,
   and says which word it cuts.
2. **Near match**, for a model that changed a word or two while copying: the best window of the
   document's words whose similarity with the quote's words (difflib's ratio, over words, in
   order) is at least :data:`NEAR_MATCH_THRESHOLD` (0.90 — about one word in ten may differ),
   and whose numbers (compared as numbers: ``nineteen`` is 19, never 90), negations (``not``,
   ``n't``, ``n'``…) and polarity words (``increased``/``decreased``…) are exactly the quote's.
   A near match is shown with the document's words and never counts as support.

Every located span comes with its sentence (:func:`sentence_bounds`, at most
:data:`CONTEXT_CHARS` characters either side) and the words before it in that sentence that
negate or distance it (:func:`distancing_words`: "It is not true that …", "Aucun …").

A quote shorter than :data:`MIN_QUOTE_WORDS` words, or with fewer than
:data:`MIN_CONTENT_WORDS` words that are not function words, anchors nothing ("the results show
that" is in any paper) and is reported as too short or too generic. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher

MAX_QUOTE_CHARS = 300
MIN_QUOTE_WORDS = 6
MIN_CONTENT_WORDS = 3
NEAR_MATCH_THRESHOLD = 0.90
CONTEXT_CHARS = 150  # of the sentence kept on each side of a located span
_SHINGLE = 3  # words in a run the quote and a near-matching passage must share
_CANDIDATES = 16  # likeliest starting points aligned per document

_TRANSLATE = str.maketrans(
    {
        "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'", "`": "'", "´": "'",
        "“": "'", "”": "'", "„": "'", "‟": "'", "″": "'", "«": "'", "»": "'",
        "‹": "'", "›": "'", '"': "'",
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": " - ", "―": " - ", "−": "-", "⁃": "-",
        "…": "...",
    }
)  # fmt: skip
_EDGE = " \"'.-,;:()[]"
_WORD = re.compile(r"\w+(?:(?:'|(?<=\d)(?:[.,^]|\*\*)(?=\d))\w+)*")
_NEGATIONS = frozenset(
    {
        "no", "not", "never", "none", "nor", "neither", "cannot", "without", "nobody",
        "nothing", "ne", "pas", "jamais", "aucun", "aucune", "sans", "ni", "non", "rien",
        "nul", "nulle", "nie", "nicht", "kein", "keine",
    }
)  # fmt: skip
_POLARITY = frozenset(
    {
        "increase", "increased", "increases", "increasing", "decrease", "decreased",
        "decreases", "decreasing", "rise", "rises", "rose", "risen", "fall", "falls", "fell",
        "fallen", "grow", "grew", "grown", "decline", "declined", "declines", "more", "less",
        "fewer", "most", "least", "higher", "lower", "greater", "smaller", "larger", "above",
        "below", "before", "after", "always", "sometimes", "often", "rarely", "all", "some",
        "true", "false", "proven", "disproven", "proved", "disproved", "likely", "unlikely",
        "plus", "moins", "augmente", "augmenté", "augmentée", "diminue", "diminué", "diminuée",
        "hausse", "baisse", "toujours", "parfois", "vrai", "faux", "fausse", "tous", "certains",
    }
)  # fmt: skip
_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "anti", "mis", "counter")


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


@functools.lru_cache(maxsize=2048)
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
    context_start: int = 0  # the span's sentence (capped), offsets in the document as stored
    context_end: int = 0
    distancing: str = ""  # the words before the span, in its sentence, that negate or distance it


def quote_problem(quote: str) -> str:
    """Why ``quote`` cannot anchor anything whatever the document ("" when it can)."""
    wanted = quote_form(quote)
    if not wanted:
        return "no quote given"
    if len(quote) > MAX_QUOTE_CHARS * 2:
        return f"longer than {MAX_QUOTE_CHARS} characters"
    from argue.text import content_words, words

    count = len(words(wanted))
    if count < MIN_QUOTE_WORDS:
        return f"too short to anchor ({count} word(s); at least {MIN_QUOTE_WORDS})"
    content = len(content_words(wanted))
    if content < MIN_CONTENT_WORDS:
        return (
            f"too generic to anchor ({content} word(s) that are not function words; at least "
            f"{MIN_CONTENT_WORDS})"
        )
    return ""


def locate_quote(quote: str, document: str) -> QuoteMatch:
    """Find ``quote`` in ``document`` (exact on whole words after normalisation, else a near
    match), with the sentence around it."""
    problem = quote_problem(quote)
    if problem:
        return QuoteMatch(False, reason=problem)
    wanted = quote_form(quote)
    doc = normalise(document)
    cut = ""
    position = doc.text.find(wanted)
    while position >= 0:
        word = _cut_word(doc.text, position, position + len(wanted))
        if not word:
            start, end = doc.span(position, position + len(wanted), len(document))
            return _in_context(document, QuoteMatch(True, start, end, True, 1.0))
        cut = cut or _original_word(document, doc, word)
        position = doc.text.find(wanted, position + 1)
    if cut:
        return QuoteMatch(False, reason=f"the quote cuts the word “{cut}”")
    match = _near_match(_WORD.findall(wanted), wanted, document)
    return _in_context(document, match) if match.found else match


def _in_context(document: str, match: QuoteMatch) -> QuoteMatch:
    begin, stop = sentence_bounds(document, match.start, match.end)
    return QuoteMatch(
        True,
        match.start,
        match.end,
        match.exact,
        match.similarity,
        match.reason,
        context_start=begin,
        context_end=stop,
        distancing=distancing_words(document[begin : match.start]),
    )


# ------------------------------------------------------------------ whole words


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return (
        0x3040 <= code <= 0x30FF
        or 0x3400 <= code <= 0x4DBF
        or 0x4E00 <= code <= 0x9FFF
        or 0xF900 <= code <= 0xFAFF
        or 0xAC00 <= code <= 0xD7AF
        or 0x1100 <= code <= 0x11FF
        or 0x20000 <= code <= 0x2FFFF
    )


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_" or unicodedata.category(char).startswith("M")


def _joins(text: str, index: int) -> bool:
    """Whether ``text[index]`` joins the characters on either side into one word: an
    apostrophe or hyphen between word characters, ``.``, ``,`` or ``^`` between digits."""
    if not 0 < index < len(text) - 1:
        return False
    before, char, after = text[index - 1], text[index], text[index + 1]
    if char in "'-":
        return _is_word_char(before) and _is_word_char(after)
    return char in ".,^" and before.isdigit() and after.isdigit()


def _glued(left: str, right: str) -> bool:
    """Two adjacent characters of one word (CJK is matched by character: never glued)."""
    return _is_word_char(left) and _is_word_char(right) and not (_is_cjk(left) or _is_cjk(right))


def _cut_word(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The ``(start, end)`` in ``text`` of a word that ``[start, end)`` cuts, else None."""
    cuts_start = start > 0 and (
        _glued(text[start - 1], text[start]) or (_joins(text, start - 1) and start >= 2)
    )
    cuts_end = end < len(text) and (_glued(text[end - 1], text[end]) or _joins(text, end))
    if not (cuts_start or cuts_end):
        return None
    at = start if cuts_start else end - 1
    low = high = at
    while low > 0 and (_glued(text[low - 1], text[low]) or _joins(text, low - 1)):
        low -= 1 if _glued(text[low - 1], text[low]) else 2
    while high < len(text) - 1 and (_glued(text[high], text[high + 1]) or _joins(text, high + 1)):
        high += 1 if _glued(text[high], text[high + 1]) else 2
    return max(0, low), min(len(text), high + 1)


def _original_word(document: str, doc: NormalisedText, word: tuple[int, int]) -> str:
    start, end = doc.span(word[0], word[1], len(document))
    return document[start:end][:60]


# ------------------------------------------------------------------ the sentence

_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’»)\]]*(?=\s|$)|[。！？]+|\n")
_ABBREVIATIONS = frozenset(
    {
        "e.g", "i.e", "al", "dr", "mr", "mrs", "ms", "prof", "vs", "cf", "fig", "no", "p",
        "pp", "vol", "ed", "eds", "st", "jr", "sr", "inc", "ltd", "approx", "ca", "mme", "mlle",
        "m", "art", "chap", "éd", "resp",
    }
)  # fmt: skip
_LAST_WORD = re.compile(r"([\w.]+)\.$")


def _ends_sentence(text: str, match: re.Match[str]) -> bool:
    if not match.group().startswith("."):
        return True
    head = text[max(0, match.start() - 40) : match.start() + 1]  # bounded: linear overall
    last = _LAST_WORD.search(head)
    if last is None:
        return True
    word = last.group(1).casefold()
    return not (word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()))


def sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence(s) around ``text[start:end]``, at most :data:`CONTEXT_CHARS` characters
    either side, cut on spaces; offsets in ``text``."""
    begin, stop = 0, len(text)
    for match in _SENTENCE_END.finditer(text):
        if not _ends_sentence(text, match):
            continue
        if match.end() <= start:
            begin = match.end()
        elif match.start() >= end or (match.end() > end and match.start() >= end - 1):
            stop = match.end() if match.group() != "\n" else match.start()
            break
    if start - begin > CONTEXT_CHARS:
        space = text.find(" ", start - CONTEXT_CHARS, start)
        begin = space + 1 if space >= 0 else start - CONTEXT_CHARS
    if stop - end > CONTEXT_CHARS:
        space = text.rfind(" ", end, end + CONTEXT_CHARS)
        stop = space if space > end else end + CONTEXT_CHARS
    while begin < start and text[begin].isspace():
        begin += 1
    while stop > end and text[stop - 1].isspace():
        stop -= 1
    return begin, stop


# Cues that distance a span wherever they stand before it in its sentence ("It is not true,
# as some wrote, that …"), and words that negate it within its own clause ("Although no proof
# exists, it was verified that …" does not negate what follows the comma).
_SENTENCE_CUES = (
    "it is not true", "it's not true", "it is false", "it is untrue", "it is a myth",
    "some claim", "some argue", "some say", "it has been suggested", "it is claimed",
    "it was claimed", "it is rumoured", "it is rumored", "nobody has shown", "no one has shown",
    "il est faux", "il n'est pas vrai", "ce n'est pas vrai", "certains affirment",
    "certains prétendent", "certains disent", "on prétend", "il a été suggéré",
    "selon certains", "il est inexact", "c'est un mythe",
)  # fmt: skip
_CLAUSE_CUES = (
    "contrary to", "contrairement à", "contrairement a", "rather than", "instead of",
    "au lieu de", "plutôt que", "whether", "si oui ou non", "doubt that", "doute que",
    "allegedly", "supposedly", "purportedly", "prétendument", "soi-disant", "false that",
    "faux que", "myth that", "mythe selon lequel", "no evidence that", "aucune preuve que",
    "unlikely that", "peu probable que", "refuted", "disproved", "réfuté",
)  # fmt: skip
_CLAUSE_BREAK = re.compile(r"[,;:()\[\]—–]| - ")


def distancing_words(before: str) -> str:
    """The words of ``before`` (a sentence up to a quoted span) that negate or distance what
    follows them, as written, or "" when none do."""
    folded = normalise(before).text
    if not folded.strip():
        return ""
    clauses = _CLAUSE_BREAK.split(folded)
    clause = clauses[-1] if clauses else folded
    for cue in _SENTENCE_CUES:
        if _has_phrase(folded, cue):
            return _as_written(before)
    for cue in _CLAUSE_CUES:
        if _has_phrase(clause, cue):
            return _as_written(_CLAUSE_BREAK.split(before)[-1])
    tokens = _WORD.findall(clause)
    if any(_negates(token) for token in tokens):
        return _as_written(_CLAUSE_BREAK.split(before)[-1])
    return ""


def _has_phrase(text: str, phrase: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text) is not None


def _negates(token: str) -> bool:
    return token in _NEGATIONS or token.endswith("n't") or token.startswith("n'")


def _as_written(text: str) -> str:
    shown = " ".join(text.split())
    return shown if len(shown) <= 120 else "…" + shown[-119:]


# ------------------------------------------------------------------ near matches


def _near_match(words: list[str], wanted: str, document: str) -> QuoteMatch:
    """The best near match, looked for only where the quote and the document share a run of
    :data:`_SHINGLE` words (a passage 90 % like the quote always has one): each shared run votes
    for where the quote would start, and the :data:`_CANDIDATES` likeliest starts are aligned
    with difflib. Linear in the document's length, whatever the quote: scanning every window
    took 20 s for one fabricated quote against 40 documents of common words."""
    doc = normalise(document)
    original_length = len(document)
    tokens = list(_WORD.finditer(doc.text))
    doc_words = [t.group() for t in tokens]
    n = len(words)
    if len(doc_words) < _SHINGLE or n < _SHINGLE:
        return QuoteMatch(False, reason="not in the document")
    runs: dict[tuple[str, ...], list[int]] = {}
    for position in range(len(doc_words) - _SHINGLE + 1):
        runs.setdefault(tuple(doc_words[position : position + _SHINGLE]), []).append(position)
    votes: Counter[int] = Counter()
    for offset in range(n - _SHINGLE + 1):
        for position in runs.get(tuple(words[offset : offset + _SHINGLE]), ()):
            votes[position - offset] += 1
    slack = max(1, n // 10)
    best: tuple[float, int, int] = (0.0, 0, 0)
    changed: tuple[float, int, int] = (0.0, 0, 0)  # close, but its numbers or negations differ
    for start, _ in votes.most_common(_CANDIDATES):
        low, high = max(0, start - slack), min(len(doc_words), start + n + slack)
        region = doc_words[low:high]
        blocks = [
            b
            for b in SequenceMatcher(None, words, region, autojunk=False).get_matching_blocks()
            if b.size
        ]
        if not blocks:
            continue
        begin, end = low + blocks[0].b, low + blocks[-1].b + blocks[-1].size
        candidate = doc_words[begin:end]
        ratio = SequenceMatcher(None, words, candidate, autojunk=False).ratio()
        passage = doc.text[tokens[begin].start() : tokens[end - 1].end()]
        if ratio > best[0] and _same_anchors(words, wanted, candidate, passage):
            best = (ratio, begin, end)
        elif ratio > changed[0]:
            changed = (ratio, begin, end)
    ratio, begin, end = best
    if ratio >= NEAR_MATCH_THRESHOLD:
        start, stop = doc.span(tokens[begin].start(), tokens[end - 1].end(), original_length)
        # Every word the same, in order (only spacing or punctuation differ): exact.
        return QuoteMatch(True, start, stop, exact=ratio == 1.0, similarity=round(ratio, 3))
    if changed[0] >= NEAR_MATCH_THRESHOLD:
        start, stop = doc.span(
            tokens[changed[1]].start(), tokens[changed[2] - 1].end(), original_length
        )
        return QuoteMatch(
            False,
            similarity=round(changed[0], 3),
            reason="not in the document: the closest passage has other numbers, negations or "
            f"direction words (the document says “{_as_written(document[start:stop])}”)",
        )
    if ratio:
        return QuoteMatch(
            False,
            similarity=round(ratio, 3),
            reason=f"not in the document (closest passage {ratio:.0%} similar, "
            f"{NEAR_MATCH_THRESHOLD:.0%} needed)",
        )
    return QuoteMatch(False, reason="not in the document")


def _same_anchors(quote: list[str], quote_text: str, passage: list[str], passage_text: str
                  ) -> bool:  # fmt: skip
    """Numbers (as numbers), negations and polarity words must be the same in a near match:
    they carry the meaning."""
    from argue.grounding.numbers import number_values

    def anchors(words: list[str], text: str) -> Counter[str]:
        kept = [
            "not" if _negates(w) and w not in _NEGATIONS else w
            for w in words
            if _negates(w) or w in _POLARITY or w.startswith(_NEGATING_PREFIXES)
        ]
        return Counter(kept + number_values(text))

    return anchors(quote, quote_text) == anchors(passage, passage_text)
