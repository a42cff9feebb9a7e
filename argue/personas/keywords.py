"""The one tokeniser shared by persona routing and the taxonomy classifier.

Deliberately simple, so a routing decision can be predicted by reading the keyword lists:
lower-case, accents folded (``théorème`` → ``theoreme``, so French questions match too),
punctuation dropped, naive plural stripping applied to both the text and the keywords.
A keyword of several words (``memory safety``) matches when its words appear consecutively.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"[^\W_]+")
_KEEP_FINAL_S = ("ss", "us", "is")


def fold(text: str) -> str:
    """Lower-case and strip accents."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def normalise_word(word: str) -> str:
    """Naive singular: ``proofs`` → ``proof``, ``theories`` → ``theory``; short words kept."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(_KEEP_FINAL_S):
        return word[:-1]
    return word


def tokenise(text: str) -> list[str]:
    return [normalise_word(word) for word in _WORD.findall(fold(text))]


def match_keywords(tokens: Sequence[str], keywords: Iterable[str]) -> list[str]:
    """The keywords present in ``tokens``: each once, spelled and ordered as in ``keywords``."""
    haystack = f" {' '.join(tokens)} "
    found: list[str] = []
    for keyword in keywords:
        needle = " ".join(tokenise(keyword))
        if needle and f" {needle} " in haystack and keyword not in found:
            found.append(keyword)
    return found
