"""Answers compared per kind: numbers by value, a choice by its letter, short text loosely.

``normalize`` returns the canonical form, or None when the text holds no answer of that kind
(an unanswered item is wrong, never a match of two Nones).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from fractions import Fraction

NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:/\d+)?")
DIGIT_GROUPS = re.compile(r"(?<=\d)[,\s_](?=\d{3}\b)")
ARTICLES = re.compile(r"\b(a|an|the)\b")
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
# A number longer than this is no answer to a question with a known answer (the datasets cap
# theirs at 1,000 digits too); a model's run of digits is left unparsed rather than converted.
MAX_NUMBER_CHARS = 1_000


def normalize_number(text: str) -> str | None:
    """The last number in ``text``, canonical: "1,234" -> "1234", "3.50" -> "3.5",
    "6/4" -> "1.5", "1/3" -> "1/3"."""
    cleaned = unicodedata.normalize("NFKC", text).replace("−", "-").replace("$", "")
    cleaned = DIGIT_GROUPS.sub("", cleaned)
    found = NUMBER.findall(cleaned)
    if not found:
        return None
    token = found[-1].lstrip("+")
    if len(token) > MAX_NUMBER_CHARS:
        return None
    try:
        value = Fraction(token) if "/" in token else Fraction(Decimal(token))
    except (InvalidOperation, ValueError, ZeroDivisionError):
        return None
    if value.denominator == 1:
        return str(value.numerator)
    decimal = Decimal(value.numerator) / Decimal(value.denominator)
    if Fraction(decimal) == value:
        return format(decimal.normalize(), "f")
    return f"{value.numerator}/{value.denominator}"


def choice_letter(text: str, choices: Sequence[str]) -> str | None:
    """A letter within the choices ("B", "(b)", "B) foo", "answer is B") or a choice's text."""
    valid = LETTERS[: len(choices)]
    stripped = unicodedata.normalize("NFKC", text).strip()
    wanted = normalize_text(stripped)
    for index, choice in enumerate(choices):
        if wanted and wanted == normalize_text(choice):
            return LETTERS[index]
    lead = re.match(r"^\(?([A-Za-z])\)?(?:[.):\s]|$)", stripped)
    if lead and lead.group(1).upper() in valid:
        return lead.group(1).upper()
    said = re.findall(r"(?:answer|option|choice)\s*(?:is|:)?\s*\(?([A-Za-z])\)?\b", stripped, re.I)
    said += re.findall(r"\(([A-Za-z])\)", stripped)
    for letter in reversed(said):
        if letter.upper() in valid:
            return letter.upper()
    return None


def normalize_text(text: str) -> str:
    """Lower case, no accents' compatibility forms, punctuation, articles or extra spaces."""
    lowered = unicodedata.normalize("NFKC", text).casefold()
    no_punct = "".join(" " if ch in string.punctuation else ch for ch in lowered)
    return " ".join(ARTICLES.sub(" ", no_punct).split())


def normalize(answer: str | None, kind: str, choices: Sequence[str] | None = None) -> str | None:
    if answer is None:
        return None
    if kind == "number":
        return normalize_number(answer)
    if kind == "choice":
        return choice_letter(answer, choices or ())
    return normalize_text(answer) or None


PAPER_CONVENTION = (
    "Du et al.'s scoring: the last space-separated token that parses as a float (commas "
    "turned into dots); an answer with none is dropped from the denominator, as is an item "
    "none of whose agents' answers parse"
)


def paper_number(text: str | None) -> float | None:
    """Du et al.'s ``parse_answer`` after their ``replace(",", ".")`` (math/gen_math.py):
    the last token of ``text.split(" ")`` that ``float()`` accepts, else None.

    Kept literal, quirks included: "1,234" reads as 1.234, "$12" and "12." + newline do not
    parse, "−5" (a Unicode minus) does not parse."""
    if text is None:
        return None
    for part in reversed(text.replace(",", ".").split(" ")):
        try:
            return float(part)
        except ValueError:
            continue
    return None


def paper_majority(answers: Sequence[str | None]) -> float | None:
    """Du et al.'s final answer of several agents: their ``most_frequent`` over the answers
    that parse (a tie goes to the one first in agent order); None when none parses."""
    parsed = [value for value in map(paper_number, answers) if value is not None]
    if not parsed:
        return None
    best, count = parsed[0], 0
    for value in parsed:
        if parsed.count(value) > count:
            best, count = value, parsed.count(value)
    return best


def plain_number(text: str) -> bool:
    """A number written alone ("-1,234", "3.5", "6/4"), not "3 apples"."""
    return re.fullmatch(r"[-+−]?[\d,]*\.?\d+(/\d+)?", text.replace(" ", "")) is not None


def majority(answers: Sequence[str | None]) -> tuple[str | None, dict[str, int]]:
    """The most frequent non-empty answer (a tie goes to the one given first) and the counts."""
    counts = Counter(a for a in answers if a)
    if not counts:
        return None, {}
    best = max(counts.values())
    winner = next(a for a in answers if a and counts[a] == best)
    return winner, dict(counts)
