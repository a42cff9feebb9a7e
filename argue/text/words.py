"""The one word tokenizer: every place that splits text into words goes through ``words``.

What a word is, in any script:

* a run of letters, combining marks and digits (``regex`` classes ``\\p{L}\\p{M}\\p{N}``), so
  ``Straße``, ``Москва``, ``ελληνικά`` and ``हिन्दी`` (whose vowel signs are marks) stay whole;
  anything else (punctuation, symbols, ``_``, spaces) separates words;
* Chinese, Japanese and Korean (Han, Hiragana, Katakana, Hangul) are written without spaces: a
  run of them becomes its overlapping character bigrams (``脱碳技术`` → ``脱碳 碳技 技术``); a
  single such character stays a unigram. Bigrams make "same sentence" and "this word occurs
  inside that sentence" work without a dictionary;
* ``-`` between letters splits a word (``state-of-the-art`` → 4 words) unless
  ``join_hyphens=True`` (full-text search sends it as one phrase);
* an apostrophe between letters (``'``, ``’``, ``ʼ``, ``＇``) is handled by language habit:
  a French/Italian elided article or pronoun is dropped (``l'orbite`` → ``orbite``,
  ``qu'il`` → ``il``, ``dell'anno`` → ``anno``), an English ``'s`` is dropped
  (``Collatz's`` → ``collatz``, ``it's`` → ``it``), anything else keeps the apostrophe inside
  the word (``don't``, ``aujourd'hui``, ``o'clock``, Ukrainian ``м'ясо``).

By default words are normalised: NFKC (full-width and compatibility forms, ligatures), then
casefolded (``ß`` → ``ss``, final ``ς`` → ``σ``), and apostrophes written ``'``. Accents are
kept (``strip_accents`` removes Latin/Greek/Cyrillic ones where a caller wants that).
``fold=False`` returns the words exactly as written in ``text`` instead, for a consumer that
normalises on its own (SQLite FTS5 folds case and diacritics of the indexed text itself, and
does not map ``ß`` to ``ss``).

Scripts written without spaces other than CJK (Thai, Lao, Khmer, Myanmar) come out as one word
per run; that is the known limit.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

from argue.text.stopwords import RAW_STOPWORDS

if TYPE_CHECKING:
    import regex

_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\u30fc"  # U+30FC: the long-vowel mark ー
_APOSTROPHES = "'\u2019\u02bc\uff07"
_HYPHENS = r"\-\u2010\u2011"  # a regex class body: "-" escaped
# Elided French (and Italian) articles, pronouns and conjunctions: ``l'``, ``qu'``, ``dell'``.
_ELISIONS = frozenset(
    {"c", "d", "j", "l", "m", "n", "s", "t", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"}
    | {"presqu", "dell", "all", "dall", "nell", "sull", "un"}
)


@cache
def _patterns() -> tuple[regex.Pattern[str], regex.Pattern[str], regex.Pattern[str]]:
    import regex  # deferred: keeps ``import argue.text`` (and ``argue --help``) fast

    letter = rf"[[\p{{L}}\p{{M}}\p{{N}}]--[{_CJK}{_APOSTROPHES}]]"
    joiner = f"[{_APOSTROPHES}{_HYPHENS}]"
    chunk = regex.compile(
        rf"(?V1)([{_CJK}]+)|({letter}+((?:{joiner}{letter}+)+)?)",
    )
    hyphen = regex.compile(f"([{_HYPHENS}])")
    apostrophe = regex.compile(f"([{_APOSTROPHES}])")
    return chunk, hyphen, apostrophe


def normalise(text: str) -> str:
    """NFKC and casefold (NFKC again after casefolding, which can decompose: ``ΐ``)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def strip_accents(word: str) -> str:
    """Drop the accents of Latin, Greek and Cyrillic letters (``théorème`` → ``theoreme``).

    Only the combining diacritics block (U+0300–U+036F) goes: Indic vowel signs, viramas and
    nuktas are part of the spelling and stay.
    """
    decomposed = unicodedata.normalize("NFD", word)
    kept = "".join(char for char in decomposed if not "\u0300" <= char <= "\u036f")
    return unicodedata.normalize("NFC", kept)


def is_cjk(word: str) -> bool:
    """Whether ``word`` is written entirely in Chinese, Japanese or Korean characters."""
    match = _patterns()[0].fullmatch(word)
    return match is not None and match.group(1) is not None


def words(text: str, *, fold: bool = True, join_hyphens: bool = False) -> list[str]:
    """The words of ``text`` in order (see the module docstring for what a word is)."""
    chunk, hyphen, apostrophe = _patterns()
    source = normalise(text) if fold else text
    found: list[str] = []
    # each match: (CJK run, word, its joined tail after a hyphen or apostrophe); "" when absent
    for run, word, joined in chunk.findall(source):
        if run:
            found.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
            continue
        if not joined:  # the common case: no hyphen, no apostrophe
            found.append(word)
            continue
        # parts alternate word, separator, word, ... (the split keeps the separators)
        parts = hyphen.split(word)
        pieces = [_apostrophes(parts[i], apostrophe, fold) for i in range(0, len(parts), 2)]
        if join_hyphens:
            separators = ["-" if fold else parts[i] for i in range(1, len(parts), 2)]
            phrase = pieces[0]
            for separator, piece in zip(separators, pieces[1:], strict=True):
                phrase += separator + piece
            found.append(phrase)
        else:
            found.extend(pieces)
    return found


def _apostrophes(word: str, apostrophe: regex.Pattern[str], fold: bool) -> str:
    parts = apostrophe.split(word)
    if len(parts) == 1:
        return word
    pieces, separators = parts[0::2], parts[1::2]
    if len(pieces) > 1 and pieces[-1].casefold() == "s":  # English possessive or "it's"
        pieces, separators = pieces[:-1], separators[:-1]
    if len(pieces) > 1 and pieces[0].casefold() in _ELISIONS:  # French/Italian elision
        pieces, separators = pieces[1:], separators[1:]
    result = pieces[0]
    for separator, piece in zip(separators, pieces[1:], strict=True):
        result += ("'" if fold else separator) + piece
    return result


def _build_stopwords() -> dict[str, frozenset[str]]:
    return {
        language: frozenset(normalise(word) for word in text.split())
        for language, text in RAW_STOPWORDS.items()
    }


STOPWORDS_BY_LANGUAGE: dict[str, frozenset[str]] = _build_stopwords()
"""English, French, German, Spanish, Russian, Greek and Hindi function words, normalised."""
STOPWORDS: frozenset[str] = frozenset().union(*STOPWORDS_BY_LANGUAGE.values())


def content_words(text: str, stopwords: Iterable[str] = STOPWORDS) -> list[str]:
    """``words(text)`` without function words and one-letter words (``a``, ``x``, ``3``).

    A single Chinese, Japanese or Korean character is kept: it is often a word by itself.
    """
    drop = stopwords if isinstance(stopwords, frozenset | set) else frozenset(stopwords)
    return [word for word in words(text) if word not in drop and (len(word) > 1 or is_cjk(word))]
