"""`argue taxonomy TEXT`: tag a text with the six bridges (keyword classifier, no model)."""

from __future__ import annotations

import typer

from argue.text.controls import dumps as safe_dumps


def taxonomy_command(
    text: str = typer.Argument(..., help="The argument or claim to classify."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Classify TEXT with the bridge taxonomy (precision, resilience, fragility, ...)."""
    from rich.markup import escape

    from argue.app import BRIDGE_MEANINGS, classify
    from argue.commands._debate import app_errors
    from argue.console import echo, stdout_console

    with app_errors():
        result = classify(text)
    if json_output:
        echo(safe_dumps(result.model_dump(), ensure_ascii=False, indent=2))
        return
    if not result.tags:
        stdout_console.print("no bridge applies")
    for bridge in result.tags:
        matched = escape(", ".join(result.matched.get(bridge, [])))
        stdout_console.print(
            f"{bridge:<11} {result.confidence[bridge]:.2f}  {BRIDGE_MEANINGS[bridge]}"
            f"  [dim](matched: {matched})[/]"
        )
    stdout_console.print(f"method: {result.method}")
