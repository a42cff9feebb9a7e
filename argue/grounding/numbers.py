"""Numbers in text compared as numbers: digits, digit groups, decimals, 1e6, 2^68 / 2**68,
percentages, and number words in English and French (``nineteen``, ``ninety-nine``,
``dix-neuf``, ``quatre-vingt-dix``).

A near match of a quote must carry the same numbers as the document: "ninety" is not
"nineteen", 1e9 is not 1e6. :func:`number_values` reads every number of a text (already in
matching form: case folded, dashes as ``-``) as a canonical key, so two texts can be compared
as multisets of values whatever the notation. Pure: no I/O.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_POWER = r"\d+\s*(?:\^|\*\*)\s*\d+"
_SCIENTIFIC = r"\d+(?:[.,]\d+)?e[+-]?\d+"
_GROUPED = r"\d{1,3}(?:,\d{3})+(?![\d,])|\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)"
_DECIMAL = r"\d+(?:[.,]\d+)?"
_NUMERIC = re.compile(
    rf"(?<![\w.])(?:(?P<power>{_POWER})|(?P<sci>{_SCIENTIFIC})|(?P<grouped>{_GROUPED})"
    rf"|(?P<plain>{_DECIMAL}))(?![\w])"
)
_PERCENT = re.compile(r"%|\bper ?cent\b|\bpour ?cent\b|\bpourcent\b")
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")

_EN_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_FR_UNITS = {
    "zéro": 0, "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6,
    "sept": 7, "huit": 8, "neuf": 9, "dix": 10, "onze": 11, "douze": 12, "treize": 13,
    "quatorze": 14, "quinze": 15, "seize": 16, "vingt": 20, "vingts": 20, "trente": 30,
    "quarante": 40, "cinquante": 50, "soixante": 60,
}  # fmt: skip
_SCALES = {
    "hundred": 100, "hundreds": 100, "thousand": 1000, "thousands": 1000,
    "million": 10**6, "millions": 10**6, "billion": 10**9, "billions": 10**9,
    "trillion": 10**12, "cent": 100, "cents": 100, "mille": 1000, "milliard": 10**9,
    "milliards": 10**9,
}  # fmt: skip
_CONNECTORS = frozenset({"and", "et"})


def number_values(text: str) -> list[str]:
    """Every number of ``text`` (in matching form) as a canonical key, in order.

    ``1,200`` and ``1 200`` and ``1200`` are ``1200``; ``2^68`` and ``2**68`` are ``2^68``;
    ``1e6`` is ``1000000``; ``12 %`` and ``12 percent`` are ``12`` and ``%``; a run of number
    words is one value (``one hundred and twenty`` is ``120``, ``dix-neuf`` is ``19``)."""
    keys: list[str] = []
    for match in _NUMERIC.finditer(text):
        keys.append(_numeric_key(match))
    keys += ["%"] * len(_PERCENT.findall(text))
    words = _PERCENT.sub(" ", _NUMERIC.sub(" ", text))
    keys += [str(value) for value in _word_numbers(words)]
    return keys


def _numeric_key(match: re.Match[str]) -> str:
    if match.group("power"):
        base, exponent = re.split(r"\s*(?:\^|\*\*)\s*", match.group("power"))
        return f"{int(base)}^{int(exponent)}"
    if match.group("sci"):
        mantissa, _, exponent = match.group("sci").partition("e")
        return _decimal_key(mantissa.replace(",", "."), exponent)
    if match.group("grouped"):
        return _decimal_key(re.sub(r"[, \u00a0\u202f]", "", match.group("grouped")))
    return _decimal_key(match.group("plain").replace(",", "."))


def _decimal_key(digits: str, exponent: str = "0") -> str:
    try:
        exp = int(exponent)
        if abs(exp) > 400:
            return f"{digits}e{exp}"
        value = Decimal(digits).scaleb(exp).normalize()
    except (InvalidOperation, ValueError):
        return digits
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _word_numbers(text: str) -> list[int]:
    """Runs of number words read as values: ``twenty nine`` is 29 (a run), ``ninety-nine`` 99."""
    values: list[int] = []
    run: list[int] = []
    for token in _WORD.findall(text):
        parts = token.split("-")
        pieces = [_word_value(part) for part in parts]
        if all(piece is not None for piece in pieces):
            run += [piece for piece in pieces if piece is not None]
            continue
        if token in _CONNECTORS and run:
            continue
        if run:
            values.append(_combine(run))
            run = []
    if run:
        values.append(_combine(run))
    return values


def _word_value(word: str) -> int | None:
    if word in _EN_UNITS:
        return _EN_UNITS[word]
    if word in _FR_UNITS:
        return _FR_UNITS[word]
    if word in _SCALES:
        return -_SCALES[word]  # a scale multiplies what came before it
    return None


def _combine(run: list[int]) -> int:
    """``[20, 9]`` → 29, ``[4, 20]`` (quatre-vingt) → 80, ``[1, -100, 20]`` → 120."""
    total, current = 0, 0
    for value in run:
        if value == 20 and 1 < current < 10:  # French quatre-vingt(s): four twenties
            current *= 20
            continue
        if value >= 0:
            current += value
            continue
        scale = -value
        if scale == 20 or scale < 1000:
            current = max(current, 1) * scale
        else:
            total += max(current, 1) * scale
            current = 0
    return total + current


__all__ = ["number_values"]
