"""The whole eval's budget (``--budget-usd``, ``--max-tokens``) and its stop switch (Ctrl-C).

``EvalBudget`` keeps a running total over every (item, arm) of the eval: the records already in
``items.jsonl`` (so a resumed eval starts from what its finished items spent), plus every call
answered so far for the ones in flight, counted the moment the provider answers. When an
(item, arm) finishes, its live calls give way to its record (which, for a resumed debate, also
holds the calls an earlier run made). ``EvalControl`` is what the runner asks before it starts
an (item, arm): once the budget is reached or a stop was requested, nothing new starts; what is
in flight finishes and is written down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Literal

from argue.domain import Usage
from argue.eval.arms import ItemResult
from argue.llm import WrappedModel
from argue.llm.base import ChatModel

StopReason = Literal["budget_exhausted", "interrupted"]


def _nothing() -> Usage:
    return Usage(calls=0)


def record_usage(result: ItemResult) -> Usage:
    """An (item, arm) record's spending as one Usage (its tokens counted as input)."""
    return Usage(
        input_tokens=result.tokens,
        cost_usd=result.cost_usd,
        calls=result.calls,
        unpriced_calls=result.unpriced_calls,
        possibly_billed_calls=result.possibly_billed_calls,
    )


class EvalBudget:
    def __init__(self, usd: float | None = None, tokens: int | None = None) -> None:
        self.usd = usd
        self.tokens = tokens
        self._finished = _nothing()
        self._live: dict[tuple[str, str], Usage] = {}

    def add_records(self, records: Iterable[ItemResult]) -> None:
        """What the eval's finished (item, arm) runs spent before this run (once, at start)."""
        for result in records:
            self._finished = self._finished + record_usage(result)

    def add_call(self, key: tuple[str, str], usage: Usage) -> None:
        """One answer the provider sent for the (item, arm) ``key``, still in flight."""
        self._live[key] = self._live.get(key, _nothing()) + usage

    def add_finished(self, result: ItemResult) -> None:
        self._live.pop((result.item, result.arm), None)
        self._finished = self._finished + record_usage(result)

    def spent(self) -> Usage:
        total = self._finished
        for usage in self._live.values():
            total = total + usage
        return total

    def reached(self) -> str | None:
        """The sentence saying which budget is used up, or None while there is room."""
        from argue.llm.pricing import total_tokens

        spent = self.spent()
        if self.usd is not None and spent.cost_usd >= self.usd:
            return f"Budget of ${self.usd:g} reached (${spent.cost_usd:.4f} spent over the eval)"
        if self.tokens is not None and total_tokens(spent) >= self.tokens:
            return f"Token budget of {self.tokens} reached ({total_tokens(spent)} tokens used)"
        return None

    def summary(self) -> dict[str, Any]:
        """What was spent over the whole eval, and the budgets, for the report."""
        from argue.llm.pricing import describe_cost, total_tokens

        spent = self.spent()
        exact = spent.unpriced_calls == 0 and spent.possibly_billed_calls == 0
        return {
            "budget": {"usd": self.usd, "tokens": self.tokens},
            "spent": {
                "calls": spent.calls,
                "tokens": total_tokens(spent),
                "cost_usd": round(spent.cost_usd, 8) if exact else None,
                "cost_usd_at_least": round(spent.cost_usd, 8),
                "unpriced_calls": spent.unpriced_calls,
                "possibly_billed_calls": spent.possibly_billed_calls,
                "cost": describe_cost(spent),
            },
        }


class EvalControl:
    """The runner's gate for new work: the budget, and a stop requested (first Ctrl-C)."""

    def __init__(
        self, budget: EvalBudget | None = None, report: Callable[[str], None] = lambda _: None
    ) -> None:
        self.budget = budget or EvalBudget()
        self.report = report
        self.stopped: StopReason | None = None
        self.in_flight = 0

    def request_stop(self) -> None:
        """Ctrl-C: an interruption wherever it lands (exit 130), even after a budget stop."""
        self.stopped = "interrupted"

    def may_start(self) -> bool:
        """False once a stop was requested or the budget is used up (said once, when first
        found)."""
        if self.stopped is not None:
            return False
        reached = self.budget.reached()
        if reached is None:
            return True
        self.stopped = "budget_exhausted"
        flight = f"; the {self.in_flight} in flight finish" if self.in_flight else ""
        self.report(
            f"{reached}: no new item starts{flight}. Re-run with a larger budget to resume."
        )
        return False


class TalliedModel(WrappedModel):
    """``inner`` with every answer the provider sent passed to ``on_usage`` as it arrives
    (answers billed before an error included, as the engine's metering counts them)."""

    def __init__(self, inner: ChatModel, on_usage: Callable[[Usage], None]) -> None:
        super().__init__(inner)
        self._on_usage = on_usage

    def on_answers(self, answers: list[Usage], purpose: str | None) -> None:
        for answer in answers:
            self._on_usage(answer)
