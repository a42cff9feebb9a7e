"""Which language a question is written in: French or English, from its function words and
accents (the debate's language when ``--lang`` is not given)."""

from __future__ import annotations

import re
from typing import Literal

Language = Literal["en", "fr"]
LANGUAGES: tuple[Language, ...] = ("en", "fr")

_FRENCH_WORDS = frozenset(
    [
        "le",
        "la",
        "les",
        "des",
        "du",
        "de",
        "un",
        "une",
        "est",
        "sont",
        "et",
        "ou",
        "que",
        "qui",
        "quoi",
        "pour",
        "par",
        "avec",
        "dans",
        "sur",
        "faut-il",
        "peut-on",
        "est-ce",
        "quel",
        "quelle",
        "quels",
        "quelles",
        "meilleure",
        "meilleur",
        "entre",
        "ce",
        "cette",
        "ces",
        "comment",
        "pourquoi",
        "il",
        "elle",
        "nous",
        "vous",
        "ils",
        "au",
        "aux",
        "pas",
        "plus",
        "sans",
        "selon",
    ]
)
_ENGLISH_WORDS = frozenset(
    [
        "the",
        "a",
        "an",
        "is",
        "are",
        "and",
        "or",
        "that",
        "which",
        "who",
        "what",
        "for",
        "by",
        "with",
        "in",
        "on",
        "should",
        "can",
        "does",
        "do",
        "how",
        "why",
        "best",
        "between",
        "this",
        "these",
        "it",
        "we",
        "you",
        "they",
        "to",
        "of",
        "not",
        "more",
        "without",
    ]
)


def detect_language(text: str) -> Language:
    """French or English, from function words and accents; English when unsure."""
    words = re.findall(r"[a-zàâçéèêëîïôûùüÿœ'-]+", text.lower())
    french = sum(1 for w in words if w in _FRENCH_WORDS or w.split("'")[-1] in _FRENCH_WORDS)
    french += sum(1 for w in words if "'" in w and w.split("'")[0] in ("l", "d", "qu", "n", "s"))
    french += 2 * len(re.findall(r"[àâçéèêëîïôûùüÿœ]", text.lower())) // 3
    english = sum(1 for w in words if w in _ENGLISH_WORDS)
    return "fr" if french > english else "en"
