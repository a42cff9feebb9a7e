"""``argue research QUERY``: run the dogpile research skill on its own and show what came back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from argue.app import SkillResult


def research_command(
    query: str = typer.Argument(..., help="What to research, in plain words"),
    sources: str | None = typer.Option(
        None,
        "--sources",
        help="Comma-separated sources (default: all): arxiv, github, brave, perplexity, "
        "youtube, library, and any a plugin adds",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print the result as one JSON document"),
    limit: int = typer.Option(12, "--limit", help="Maximum number of merged items"),
    per_source: int = typer.Option(5, "--per-source", help="Maximum items asked of each source"),
    timeout: float = typer.Option(15.0, "--timeout", help="Seconds each source may take"),
) -> None:
    """Search every research source at once; exit 1 if the search failed (no results and a
    source failed) or no source could answer."""
    from rich.markup import escape

    from argue.app import check_bounds, research, source_names
    from argue.commands._debate import app_errors
    from argue.console import die, echo, stderr_console

    chosen = None if sources is None else [n.strip() for n in sources.split(",") if n.strip()]
    if chosen == []:
        die(f"--sources is empty (choose from {', '.join(source_names())})", 2)
    with app_errors():
        check_bounds(limit=limit, per_source=per_source, timeout_s=timeout)
        outcome = research(query, chosen, limit=limit, per_source=per_source, timeout_s=timeout)
    for name, reason in outcome.unused.items():
        warning = "warning: " if sources is not None else ""
        stderr_console.print(escape(f"{warning}{name} not used: {reason}"))
    result = outcome.result
    if json_output:
        echo(result.model_dump_json(indent=2))
    else:
        _print_result(result)
    if not outcome.answered:
        # "No results" would pass a failure off as an answer: say which sources did not answer.
        reason = "no source could answer" if outcome.nobody_answered else "research failed"
        stderr_console.print(f"[bold red]{reason}:[/] {escape(result.note)}")
        raise typer.Exit(1)


def _print_result(result: SkillResult) -> None:
    from rich.markup import escape
    from rich.table import Table

    from argue.console import stdout_console

    if result.items:
        items_table = Table(title=f"Research: {escape(result.query)}", show_lines=True)
        items_table.add_column("#", justify="right")
        items_table.add_column("Title / link")
        items_table.add_column("Source")
        items_table.add_column("Snippet")
        for number, item in enumerate(result.items, start=1):
            where = item.url or item.locator or ""
            items_table.add_row(
                str(number),
                f"{escape(item.title)}\n[dim]{escape(where)}[/]" if where else escape(item.title),
                f"{escape(item.source)}\n[dim]{escape(item.id)}[/]",
                escape(item.snippet),
            )
        stdout_console.print(items_table)
    elif result.status in ("failed", "refused"):
        stdout_console.print(
            f"Research {result.status} for: {escape(result.query)} ({escape(result.note)})"
        )
    else:
        stdout_console.print(f"No results for: {escape(result.query)}")

    sources_table = Table(title="Sources")
    sources_table.add_column("Source")
    sources_table.add_column("Status")
    sources_table.add_column("Items", justify="right")
    sources_table.add_column("Note")
    colours = {"ok": "green", "empty": "yellow", "refused": "magenta", "failed": "red"}
    for status in result.sources:
        colour = colours[status.status]
        sources_table.add_row(
            escape(status.source),
            f"[{colour}]{status.status}[/]",
            str(status.count),
            escape(status.note),
        )
    stdout_console.print(sources_table)
