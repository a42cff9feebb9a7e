"""Text handling shared by the engine, routing and skills: one Unicode word tokenizer.

Importing this package is cheap: the ``regex`` patterns are compiled on first use.
"""

from argue.text.words import (
    STOPWORDS,
    STOPWORDS_BY_LANGUAGE,
    content_words,
    is_cjk,
    normalise,
    strip_accents,
    words,
)

__all__ = [
    "STOPWORDS",
    "STOPWORDS_BY_LANGUAGE",
    "content_words",
    "is_cjk",
    "normalise",
    "strip_accents",
    "words",
]
