"""Collects the Usage of every model call of one debate and sums it up."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from argue.domain import Usage


class UsageLedger:
    def __init__(self, records: Iterable[Usage] = ()) -> None:
        self._records: list[Usage] = list(records)

    def record(self, usage: Usage) -> Usage:
        self._records.append(usage)
        return usage

    def total(self) -> Usage:
        """The sum of every record; an empty ledger is zero calls."""
        if not self._records:
            return Usage(calls=0)
        total = self._records[0]
        for usage in self._records[1:]:
            total = total + usage
        return total.model_copy(update={"purpose": None})

    def by_model(self) -> dict[str, Usage]:
        return self._grouped(lambda usage: f"{usage.provider}/{usage.model}")

    def _grouped(self, key: Callable[[Usage], str]) -> dict[str, Usage]:
        groups: dict[str, UsageLedger] = {}
        for usage in self._records:
            groups.setdefault(key(usage), UsageLedger()).record(usage)
        return {name: ledger.total() for name, ledger in groups.items()}
