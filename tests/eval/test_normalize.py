"""Answers are compared per kind: numbers by value, a choice by its letter, text loosely.

Teeth check (done once): in argue/eval/normalize.py make ``normalize_number`` take the first
number (``found[0]``) instead of the last; the "2+2 = 4" row fails.
"""

from __future__ import annotations

import pytest

from argue.eval.normalize import majority, normalize

CHOICES = ["Paris", "Lyon", "Marseille", "Nice"]


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        ("number", "42", "42"),
        ("number", "The answer is 1,234.", "1234"),
        ("number", "2+2 = 4", "4"),
        ("number", "3.50", "3.5"),
        ("number", "42.0", "42"),
        ("number", "−17", "-17"),
        ("number", "$12", "12"),
        ("number", "6/4", "1.5"),
        ("number", "1/3", "1/3"),
        ("number", "no idea", None),
        ("choice", "B", "B"),
        ("choice", "(c)", "C"),
        ("choice", "D) Nice", "D"),
        ("choice", "lyon", "B"),
        ("choice", "The answer is (A)", "A"),
        ("choice", "Z", None),
        ("text", "The Eiffel Tower!", "eiffel tower"),
        ("text", "  eiffel   TOWER ", "eiffel tower"),
        ("text", "...", None),
    ],
)
def test_normalisation_table(kind, text, expected):
    assert normalize(text, kind, CHOICES if kind == "choice" else None) == expected


def test_no_answer_never_matches_no_answer():
    assert normalize(None, "number") is None


def test_majority_counts_and_breaks_ties_by_first_seen():
    assert majority(["7", "8", "7", None]) == ("7", {"7": 2, "8": 1})
    assert majority(["8", "7", "7", "8"])[0] == "8"
    assert majority([None, None]) == (None, {})


def test_a_number_too_long_to_be_an_answer_is_left_unparsed_not_a_crash():
    """Teeth: without the length check a 5,000-digit answer raised ValueError (Python's
    4,300-digit limit on int-to-str) and ended the eval."""
    from argue.eval.normalize import normalize_number

    assert normalize_number("the answer is " + "9" * 5000) is None
    assert normalize_number("9" * 1000) == "9" * 1000
