"""``argue report ID``: write the debate's self-contained HTML report."""

from __future__ import annotations

from pathlib import Path

import typer

from argue.commands._debate import DEBATES_DIR_HELP, _report, app_errors, workspace
from argue.console import stdout_console

__all__ = ["report_command"]


def report_command(
    debate_id: str = typer.Argument(..., help="The debate to report on."),
    out: Path | None = typer.Option(
        None, "--out", help="Where to write the HTML (default: debates/<id>/report.html)."
    ),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Write a self-contained HTML report: argument map, confidence and score figures, the
    synthesis, sources, failures and cost (an unfinished debate's is labelled partial)."""
    from argue import app

    with app_errors():
        target = app.report(debate_id, out=out, workspace=workspace(debates_dir))
    _report(f"Report written to {target}")
    stdout_console.print(str(target), markup=False)
