"""Accuracy intervals and paired tests, in the standard library only.

Wilson's score interval stays inside [0, 1] and behaves at small n and at 0 % or 100 %, where
the normal approximation does not. McNemar's exact test looks only at the items the two arms
disagree on (one right, the other wrong): under "no difference" each such item is a coin flip.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb, sqrt

Z95 = 1.959963984540054  # two-sided 95 % normal quantile
ALPHA = 0.05


def wilson_interval(correct: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``correct``/``n``; (0, 1) when n is 0 (nothing known)."""
    if n <= 0:
        return (0.0, 1.0)
    p = correct / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def mcnemar_exact(only_first: int, only_second: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pairs (binomial, p = 1/2)."""
    n = only_first + only_second
    if n == 0:
        return 1.0
    k = min(only_first, only_second)
    tail = sum(comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class PairedComparison:
    first: str
    second: str
    n: int  # items both arms answered (or failed) on
    first_correct: int
    second_correct: int
    only_first: int  # first right, second wrong
    only_second: int  # second right, first wrong
    p_value: float

    @property
    def difference(self) -> float:
        return (self.first_correct - self.second_correct) / self.n if self.n else 0.0

    @property
    def significant(self) -> bool:
        return self.n > 0 and self.p_value < ALPHA

    def verdict(self) -> str:
        """One plain sentence, saying so when the difference could be chance."""
        if self.n == 0:
            return f"{self.first} vs {self.second}: no item has both arms; nothing to compare."
        a, b = self.first_correct / self.n, self.second_correct / self.n
        numbers = (
            f"{a:.0%} vs {b:.0%} on the same {self.n} item(s), {self.difference * 100:+.1f} "
            f"points; {self.only_first} item(s) only {self.first} got right, "
            f"{self.only_second} only {self.second}; McNemar exact p = {self.p_value:.3g}"
        )
        if self.significant:
            better, worse = (
                (self.first, self.second) if self.difference > 0 else (self.second, self.first)
            )
            return f"{better} is more accurate than {worse} ({numbers}): significant at 5 %."
        return (
            f"No significant difference between {self.first} and {self.second} ({numbers}): "
            "a difference this size could be chance; more items would be needed to tell."
        )


def compare(first: str, second: str, pairs: list[tuple[bool, bool]]) -> PairedComparison:
    """``pairs``: (first correct, second correct) for each item both arms ran."""
    only_first = sum(1 for a, b in pairs if a and not b)
    only_second = sum(1 for a, b in pairs if b and not a)
    return PairedComparison(
        first=first,
        second=second,
        n=len(pairs),
        first_correct=sum(1 for a, _ in pairs if a),
        second_correct=sum(1 for _, b in pairs if b),
        only_first=only_first,
        only_second=only_second,
        p_value=mcnemar_exact(only_first, only_second),
    )
