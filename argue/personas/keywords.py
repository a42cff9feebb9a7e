"""The one tokeniser shared by persona routing and the taxonomy classifier.

Deliberately simple, so a routing decision can be predicted by reading the keyword lists:
words as the shared tokenizer cuts them in any script (``argue.text.words``: casefolded,
punctuation dropped, French elisions dropped, Chinese/Japanese/Korean as character bigrams), then
accents folded (``théorème`` → ``theoreme``, so French questions match too) and naive plural
stripping, applied to both the text and the keywords. A keyword of several words
(``memory safety``) matches when its words appear consecutively; so does a CJK keyword inside a
CJK sentence (its bigrams are consecutive bigrams of the sentence), unless it is one character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from argue.text import strip_accents, words

_KEEP_FINAL_S = ("ss", "us", "is")


def normalise_word(word: str) -> str:
    """Naive singular: ``proofs`` → ``proof``, ``theories`` → ``theory``; short words kept."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(_KEEP_FINAL_S):
        return word[:-1]
    return word


# French "j'ai", "n'ai", "qu'ai", "ai-je" (the verb avoir) would leave "ai" once the elision or
# the hyphen is dropped, and "ai" is a keyword (artificial intelligence): those spellings are the
# verb, never the topic.
_ELIDED_AVOIR = re.compile(r"\b(?:(?:j|n|qu)['’]ai|ai-je)\b", re.IGNORECASE)


def tokenise(text: str) -> list[str]:
    text = _ELIDED_AVOIR.sub(" avoir ", text)
    return [normalise_word(strip_accents(word)) for word in words(text)]


def match_keywords(tokens: Sequence[str], keywords: Iterable[str]) -> list[str]:
    """The keywords present in ``tokens``: each once, spelled and ordered as in ``keywords``."""
    haystack = f" {' '.join(tokens)} "
    found: list[str] = []
    for keyword in keywords:
        needle = " ".join(tokenise(keyword))
        if needle and f" {needle} " in haystack and keyword not in found:
            found.append(keyword)
    return found
