"""Output helpers shared by the sub-commands: notes on stderr, JSON and search results on stdout."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from argue.console import echo
from argue.text.controls import dumps as safe_dumps

if TYPE_CHECKING:
    from argue.app import SkillItem, SkillResult


def note(message: str) -> None:
    """One line on stderr, printed as it is (no markup)."""
    from rich.markup import escape

    from argue.console import stderr_console

    stderr_console.print(escape(message), highlight=False, soft_wrap=True)


def echo_json(payload: dict[str, Any]) -> None:
    """One indented JSON document on stdout, non-ASCII text kept as it is."""
    echo(safe_dumps(payload, indent=2, ensure_ascii=False))


def show_skill_result(
    result: SkillResult, json_output: bool, print_item: Callable[[int, SkillItem, str], None]
) -> None:
    """A search's SkillResult: as JSON, or ``print_item(rank, item, score)`` for each item.

    With no items the note is shown instead; a failed search then exits 1.
    """
    from argue.console import die

    if json_output:
        echo(result.model_dump_json(indent=2))
    elif not result.items:
        note(result.note)
    else:
        for rank, item in enumerate(result.items, 1):
            score = f"{item.score:.2f}" if item.score is not None else "-"
            print_item(rank, item, score)
    if result.status == "failed":
        die(result.note, 1, document=False)  # --json: the SkillResult was the document
