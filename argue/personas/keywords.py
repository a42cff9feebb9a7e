"""The one tokeniser shared by persona routing and the taxonomy classifier.

Deliberately simple, so a routing decision can be predicted by reading the keyword lists:
words as the shared tokenizer cuts them in any script (``argue.text.words``: casefolded,
punctuation dropped, French elisions dropped, Chinese/Japanese/Korean as character bigrams), then
accents folded (``théorème`` → ``theoreme``, so French questions match too) and naive plural
stripping, applied to both the text and the keywords. A keyword of several words
(``memory safety``) matches when its words appear consecutively; so does a CJK keyword inside a
CJK sentence (its bigrams are consecutive bigrams of the sentence), unless it is one character.

Persona routing (``find_keywords``) also accepts a question word that is a keyword plus a
common English or French ending (``INFLECTIONS``: ``taxer``, ``taxed``, ``taxing``,
``taxation`` for the keyword ``taxe``; ``légaliser``, ``legalised`` for ``legal``;
``hôpitaux`` for ``hôpital``), so verbs, feminines and ``-aux`` plurals reach the noun a
persona file lists. What is left once the ending is removed must keep four letters (``caring``
is not ``car``), and a word matched through an ending is shown with the keyword in the reason:
``taxe ("taxer")``. The taxonomy classifier keeps exact matching (``match_keywords``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

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


# French "car" after a comma is the conjunction "because", not the noun (a car, a coach).
_FRENCH_CAR = re.compile(r",\s*car\b", re.IGNORECASE)


def _prepare(text: str) -> str:
    return _FRENCH_CAR.sub(", ", _ELIDED_AVOIR.sub(" avoir ", text))


def tokenise(text: str) -> list[str]:
    return [normalise_word(strip_accents(word)) for word in words(_prepare(text))]


def match_keywords(tokens: Sequence[str], keywords: Iterable[str]) -> list[str]:
    """The keywords present in ``tokens``: each once, spelled and ordered as in ``keywords``."""
    haystack = f" {' '.join(tokens)} "
    found: list[str] = []
    for keyword in keywords:
        needle = " ".join(tokenise(keyword))
        if needle and f" {needle} " in haystack and keyword not in found:
            found.append(keyword)
    return found


# (ending, replacement) pairs tried on a question word already folded by ``tokenise`` (accents
# gone, so ``é`` is ``e``; plural ``s`` gone). Each yields one candidate base; the word matches a
# keyword word equal to the word itself or to one of its bases.
INFLECTIONS: tuple[tuple[str, str], ...] = (
    # English: verbs and nouns made from a verb, adverbs, adjectives
    ("ing", ""),  # banning → bann (no), building → build
    ("ing", "e"),  # taxing → taxe, pricing → price
    ("ied", "y"),  # studied → study
    ("ed", ""),  # banned → bann, regulated → regulat
    ("ed", "e"),  # regulated → regulate
    ("d", ""),  # taxed → taxe, legalised → legalise
    ("ation", ""),  # regulation → regul (no), legalisation → legalis
    ("ation", "e"),  # taxation → taxe, vaccination → vaccine
    ("isation", ""),  # legalisation → legal
    ("ization", ""),  # legalization → legal
    ("ised", ""),  # legalised → legal
    ("ized", ""),  # legalized → legal
    ("ise", ""),  # legalise, légalisé → legal
    ("ize", ""),  # legalize → legal
    ("ly", ""),  # legally → legal, morally → moral
    ("al", ""),  # educational → education
    # French: infinitives, participles, feminines, -aux/-eaux plurals, nouns in -ement
    ("er", ""),  # chauffer → chauff (no), voter → vot (no)
    ("er", "e"),  # taxer → taxe, subventionner → subventionne (no)
    ("iser", ""),  # légaliser → legal
    ("isee", ""),  # légalisée → legal
    ("ee", "e"),  # taxée → taxe
    ("e", ""),  # gratuite → gratuit, médicale → medical
    ("ement", ""),  # financement → financ (no)
    ("ement", "e"),  # financement → finance
    ("aux", "al"),  # hôpitaux → hopital, impôts locaux → local
    ("x", ""),  # réseaux → reseau, jeux → jeu (too short: kept out)
    ("s", ""),  # emplois → emploi, where ``normalise_word`` keeps a final -is/-us/-ss
)
_MIN_BASE = 4
# Words (folded) that look like an inflection of a keyword but are another word: ``droite`` is
# the political right, not ``droit`` (law); ``équipement`` is equipment, not ``équipe`` (team).
NOT_INFLECTED: frozenset[str] = frozenset(
    {"droite", "equipement", "equitation", "retraitement", "striking", "tolle", "lemming"}
)


def inflection_bases(token: str) -> frozenset[str]:
    """The bases ``token`` may be an inflection of (``taxer`` → ``taxe``, ``tax``…); not itself."""
    if token in NOT_INFLECTED:
        return frozenset()
    bases: set[str] = set()
    for ending, replacement in INFLECTIONS:
        if token.endswith(ending):
            base = token[: len(token) - len(ending)] + replacement
            if len(base) >= _MIN_BASE and base != token:
                bases.add(base)
    return frozenset(bases)


@dataclass(frozen=True)
class KeywordMatch:
    """A keyword found in a text, with the text's words that matched it (folded, accents kept)."""

    keyword: str
    words: tuple[str, ...]
    inflected: bool  # some word matched only through an ending (``INFLECTIONS``)

    def label(self) -> str:
        """``taxe`` for an exact match, ``taxe ("taxer")`` for one through an ending."""
        if not self.inflected:
            return self.keyword
        return f'{self.keyword} ("{" ".join(self.words)}")'


def find_keywords(text: str, keywords: Iterable[str]) -> list[KeywordMatch]:
    """The keywords found in ``text``, each once, ordered as in ``keywords``.

    A keyword matches its words written consecutively, each word exactly as ``tokenise`` folds
    it or through one of its ``inflection_bases``. A match through an ending does not count
    where another match already covers one of its words (exact matches first, then in keyword
    order): ``taxation`` is the keyword ``taxation``, not also ``taxe``, and ``moralement`` is
    ``moral``, not also ``morale``. Exact matches may overlap as they always have (``climate``
    and ``climate change``).
    """
    surface = words(_prepare(text))
    tokens = [normalise_word(strip_accents(word)) for word in surface]
    bases = [inflection_bases(token) for token in tokens]
    ordered = list(dict.fromkeys(keywords))
    spans: dict[str, tuple[int, int, bool]] = {}  # keyword → (start, end, through an ending)
    for keyword in ordered:
        needle = _needle(keyword)
        span = _find(needle, tokens, bases) if needle else None  # "++" has no word
        if span is not None:
            spans[keyword] = span
    covered = {
        i for start, end, inflected in spans.values() if not inflected for i in range(start, end)
    }
    kept: list[KeywordMatch] = []
    for keyword in ordered:
        if keyword not in spans:
            continue
        start, end, inflected = spans[keyword]
        if inflected:
            if not covered.isdisjoint(range(start, end)):
                continue
            covered.update(range(start, end))
        kept.append(KeywordMatch(keyword, tuple(surface[start:end]), inflected))
    return kept


@cache
def _needle(keyword: str) -> tuple[str, ...]:
    return tuple(tokenise(keyword))


def _find(
    needle: Sequence[str], tokens: Sequence[str], bases: Sequence[frozenset[str]]
) -> tuple[int, int, bool] | None:
    """The first span of ``tokens`` matching ``needle`` (an exact one if any), and whether a
    word in it matched only through an ending."""
    best: tuple[int, int, bool] | None = None
    for start in range(len(tokens) - len(needle) + 1):
        through_ending = False
        for offset, word in enumerate(needle):
            index = start + offset
            if tokens[index] == word:
                continue
            if word in bases[index]:
                through_ending = True
                continue
            break
        else:
            if not through_ending:
                return start, start + len(needle), False
            if best is None:
                best = (start, start + len(needle), True)
    return best
