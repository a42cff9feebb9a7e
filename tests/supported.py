"""Support verdicts for scripted debates, in the tests that show evidence (issue 36).

Only a claim whose located quote the support check found to support it ranks among the
strongest arguments. The scripted debates these tests run may record no verdict (``unchecked``);
``supported`` marks every word-for-word quote as supporting its claim, in memory (a history) or
on disk (a debate folder, whose synthesis and report are then rendered again by the caller)."""

from __future__ import annotations

import json
from typing import Any

from argue.records.history import DebateHistory
from argue.store import DebateStore


def _mark(citation: Any) -> None:
    if citation.verdict == "quoted":
        citation.support = "supports"
        citation.support_by = "rules"


def supported(history: DebateHistory) -> DebateHistory:
    for record in history.rounds.values():
        for argument in record.arguments.values():
            for claim in argument.claims:
                for citation in claim.citations:
                    _mark(citation)
    return history


def support_on_disk(store: DebateStore) -> None:
    """Every quoted citation of every argument record in ``store`` marked as supporting."""
    for letter in store.config().personas:
        for round_no in range(1, store.config().max_rounds + 1):
            path = store.paths.argument(letter, round_no)
            if not path.is_file():
                continue
            record = json.loads(path.read_text(encoding="utf-8"))
            for claim in record.get("claims", []):
                for citation in claim.get("citations", []):
                    if citation.get("verdict") == "quoted" and citation.get("exact"):
                        citation["support"] = "supports"
                        citation["support_by"] = "rules"
            path.write_text(json.dumps(record), encoding="utf-8")
