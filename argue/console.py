"""Consoles: data goes to stdout, progress and errors to stderr."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

stdout_console = Console(highlight=False, soft_wrap=True)
stderr_console = Console(stderr=True, highlight=False, soft_wrap=True)


def die(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error on stderr and exit (2 = usage error)."""
    stderr_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    raise typer.Exit(code)
