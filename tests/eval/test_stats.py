"""Wilson interval and McNemar exact test on known values; verdicts that say "not significant".

Teeth check (done once): in argue/eval/stats.py change ``mcnemar_exact``'s ``2 * tail`` to
``tail`` (a one-sided p-value); ``test_mcnemar_exact_p_on_a_known_table`` fails (0.0107 instead
of 0.0215), and so does the verdict test for the 6-vs-1 table.
"""

from __future__ import annotations

import pytest

from argue.eval.stats import compare, mcnemar_exact, wilson_interval


@pytest.mark.parametrize(
    ("correct", "n", "low", "high"),
    [
        (8, 10, 0.4902, 0.9433),  # Wilson (1927); Newcombe (1998) table
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
    ],
)
def test_wilson_interval_known_values(correct, n, low, high):
    got_low, got_high = wilson_interval(correct, n)
    assert got_low == pytest.approx(low, abs=1e-4)
    assert got_high == pytest.approx(high, abs=1e-4)


def test_wilson_interval_of_nothing_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_mcnemar_exact_p_on_a_known_table():
    # Discordant pairs 1 and 9: p = 2 * (C(10,0) + C(10,1)) / 2**10 = 22/1024.
    assert mcnemar_exact(1, 9) == pytest.approx(0.021484375)
    assert mcnemar_exact(9, 1) == pytest.approx(0.021484375)
    # 6 vs 1 of 7: 2 * (1 + 7) / 128.
    assert mcnemar_exact(6, 1) == pytest.approx(0.125)
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0


def test_verdict_says_when_a_difference_is_not_significant():
    # debate right on 6 items single missed, single right on 1 debate missed, 3 both right.
    pairs = [(True, False)] * 6 + [(False, True)] + [(True, True)] * 3
    result = compare("debate", "single", pairs)
    assert (result.only_first, result.only_second, result.n) == (6, 1, 10)
    assert not result.significant
    verdict = result.verdict()
    assert verdict.startswith("No significant difference between debate and single")
    assert "could be chance" in verdict and "p = 0.125" in verdict


def test_verdict_names_the_better_arm_when_significant():
    pairs = [(False, True)] * 9 + [(True, False)] + [(True, True)] * 5
    result = compare("debate", "vote", pairs)
    assert result.significant
    assert result.verdict().startswith("vote is more accurate than debate")
    assert "significant at 5 %" in result.verdict()
