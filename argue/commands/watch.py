"""``argue watch ID`` (also ``status ID --follow``): follow a debate that runs elsewhere.

The following is ``argue.app.follow`` (it reads the folder only, never the lock); this face
prints each line with the time and exits with the debate's exit code. Ctrl-C stops watching,
not the debate.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from argue.commands._debate import (
    DEBATES_DIR_HELP,
    _debates_dir,
    _open,
    app_errors,
    command_name,
)
from argue.console import stdout_console
from argue.records.labels import label

if TYPE_CHECKING:
    from argue.app import DebateStore


def watch_command(
    debate_id: str = typer.Argument(..., help="The debate to follow."),
    interval: float = typer.Option(
        1.0, "--interval", min=0.05, help="Seconds between two looks at the folder."
    ),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Follow a running debate (started elsewhere, e.g. with --detach): phase, each persona's
    steps, cost so far; ends with the termination line. Ctrl-C stops watching, not the debate."""
    store = _open(_debates_dir(debates_dir), debate_id)
    follow_and_exit(store, interval)


def follow_and_exit(store: DebateStore, interval: float) -> None:
    """Follow ``store`` until its debate ends, then exit with the debate's exit code."""
    from argue.app import EXIT_BY_STATUS, follow

    try:
        with app_errors():
            state = follow(store, _print_line, interval=interval, command=command_name())
    except KeyboardInterrupt:
        _print_line(
            label(
                "w_stopped_watching",
                store.config().language,
                id=store.debate_id,
                command=f"{command_name()} watch {store.debate_id}",
            )
        )
        raise typer.Exit(130) from None
    raise typer.Exit(EXIT_BY_STATUS.get(state.status, 1))


def _print_line(line: str) -> None:
    stamp = datetime.now().strftime("%H:%M:%S")
    stdout_console.print(f"{stamp}  {line}", markup=False, highlight=False)
