"""`argue personas list|show`: the built-in and user personas."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from argue.console import echo
from argue.text.controls import dumps as safe_dumps

if TYPE_CHECKING:
    from argue.app import PersonaCatalog

personas_app = typer.Typer(
    name="personas",
    help="List and inspect debate personas (built-in and ARGUE_HOME/personas/*.toml).",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


def _catalog() -> PersonaCatalog:
    from argue.app import persona_catalog
    from argue.commands._debate import app_errors

    with app_errors():
        return persona_catalog()
    raise AssertionError("unreachable")  # pragma: no cover


@personas_app.command("list")
def list_personas(
    json_output: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """List every persona with its lens and dominant bridge."""
    from rich.markup import escape
    from rich.table import Table

    from argue.console import stdout_console

    catalog = _catalog()
    if json_output:
        document = [
            {**persona.model_dump(), "source": catalog.source(persona.name)}
            for persona in catalog.all()
        ]
        echo(safe_dumps(document, ensure_ascii=False, indent=2))
        return
    table = Table()
    table.add_column("name", no_wrap=True)
    table.add_column("dominant bridge", no_wrap=True)
    table.add_column("lens", overflow="fold")
    table.add_column("role")
    table.add_column("source")
    for persona in catalog.all():
        bridge, weight = persona.dominant_bridge()
        table.add_row(
            persona.name,
            f"{bridge}={weight:.2f}",
            escape(persona.lens),
            escape(persona.role),
            escape(catalog.source(persona.name)),
        )
    stdout_console.print(table)


@personas_app.command("show")
def show_persona(
    name: str = typer.Argument(..., help="Persona name, e.g. embry."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Show one persona: fields, bridge weights, BDI and the prompt card the debate uses."""
    from rich.markup import escape

    from argue.app import BRIDGES, persona_view
    from argue.commands._debate import app_errors
    from argue.console import stdout_console

    with app_errors():
        view = persona_view(name)
    persona, source, card = view.persona, view.source, view.card
    if json_output:
        document = {**persona.model_dump(), "source": source, "card": card}
        echo(safe_dumps(document, ensure_ascii=False, indent=2))
        return
    bridges = "  ".join(f"{bridge}={persona.bridges[bridge]:.2f}" for bridge in BRIDGES)
    lines = [
        f"[bold]{escape(persona.display_name)}[/] ({persona.name}) — {escape(persona.role)}",
        f"lens: {escape(persona.lens)}",
        f"style: {escape(persona.style)}",
        f"expertise: {escape(', '.join(persona.expertise))}",
        f"bridges: {bridges}",
        f"colleagues: {escape(', '.join(persona.colleagues) or 'none')}",
        f"source: {escape(source)}",
        "",
        "[bold]prompt card[/]",
        escape(card),
    ]
    stdout_console.print("\n".join(lines))
