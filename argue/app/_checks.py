"""The one home of the numeric bounds a caller may ask for: rounds, budgets, limits, counts.

``StartRequest`` reads its ``Field`` constraints from :data:`BOUNDS`; the operations that take
a number without a request record (``resume``'s new budget, ``research``'s limits, ``recall``'s
``k``…) are checked with :func:`bounds_error`. A face maps the error to its own words (the
CLI: the error's ``field`` is said as the flag that sets it) and to its exit code (2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from argue.app._errors import UsageError
from argue.app._limits import MAX_ROUNDS


@dataclass(frozen=True)
class Bound:
    """``low`` ≤ value ≤ ``high`` (``low_open``: low < value); None: no bound that side."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False

    def error(self, value: float) -> str | None:
        """Why ``value`` is out of bounds, in words; None when it fits."""
        if isinstance(value, float) and not math.isfinite(value):
            return "must be a finite number"
        below = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        above = self.high is not None and value > self.high
        if not (below or above):
            return None
        if self.low is not None and self.high is not None:
            return f"must be between {self.low:g} and {self.high:g} (got {value:g})"
        if self.low == 0 and self.low_open:
            return f"must be positive (got {value:g})"
        if self.low is not None:
            word = "above" if self.low_open else "at least"
            return f"must be {word} {self.low:g} (got {value:g})"
        return f"must be at most {self.high:g} (got {value:g})"


BOUNDS: dict[str, Bound] = {
    # a debate's request (argue QUESTION, resume)
    "rounds": Bound(1, MAX_ROUNDS),
    "budget_usd": Bound(0.0),
    "max_tokens": Bound(1),
    "request_timeout_s": Bound(1.0),
    "max_attempts": Bound(1, 20),
    "slots": Bound(1, 256),
    # research, memory, library
    "k": Bound(1),
    "limit": Bound(1),
    "per_source": Bound(1),
    "timeout_s": Bound(0.0, low_open=True),
    "min_score": Bound(0.0, 1.0),
}
"""Each bounded field, by the name every layer gives it (one name, one bound)."""


def bounds_error(**values: float | None) -> UsageError | None:
    """The first value outside its :data:`BOUNDS` entry, as the error to raise (``rounds:
    must be …``, its ``field`` set); None when every value fits (a None value is not given)."""
    for name, value in values.items():
        if value is None:
            continue
        bound = BOUNDS.get(name)
        if bound is None:
            raise KeyError(f"no bound is known for {name!r}")
        why = bound.error(value)
        if why is not None:
            return UsageError(f"{name}: {why}", field=name)
    return None


def check_bounds(**values: float | None) -> None:
    """Raise :func:`bounds_error`'s error, if any."""
    error = bounds_error(**values)
    if error is not None:
        raise error
