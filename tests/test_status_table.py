"""`status` is readable at 80 columns: id, status, round and termination are never cut."""

from __future__ import annotations

import pytest
from rich.console import Console

from argue.commands.debates import status_table

ROWS = [
    {
        "id": "argue_20261201_053709",
        "status": "budget_exhausted",
        "round": 12,
        "max_rounds": 50,
        "termination": "synthesis_ready",
        "mode": "devils-advocate",
        "personas": {"A": "embry", "B": "horus"},
        "question": "Faut-il utiliser des microservices ou un monolithe pour une équipe de cinq ?",
    },
    {
        "id": "argue_20261201_053710_2",
        "status": "running",
        "round": 2,
        "max_rounds": 5,
        "termination": None,
        "mode": "panel",
        "personas": {"A": "embry", "B": "horus", "C": "brandon"},
        "question": "Q?",
    },
]


@pytest.mark.parametrize("width", [80, 100, 160])
def test_the_status_table_fits_and_keeps_the_key_columns_whole(width: int) -> None:
    console = Console(width=width, force_terminal=False)
    with console.capture() as captured:
        console.print(status_table(ROWS, width))
    lines = captured.get().splitlines()
    assert max(len(line) for line in lines) <= width
    text = captured.get()
    for whole in ("argue_20261201_053709", "argue_20261201_053710_2", "budget_exhausted",
                  "12/50", "2/5", "synthesis_ready", "running"):  # fmt: skip
        assert whole in text, (width, whole)
    assert "Faut-il" in text
    if width >= 160:
        assert "devils-advocate" in text and "embry, horus, brandon" in text
