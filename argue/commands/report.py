"""``argue report ID``: write the debate's self-contained HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from argue.commands._debate import DEBATES_DIR_HELP, _debates_dir, _open, _report
from argue.console import die, stdout_console

if TYPE_CHECKING:
    from argue.store import DebateStore

NO_PROSE_YET = (
    "no synthesis prose on disk yet (it is written when the debate ends, or by `synthesize`)"
)


def write_report(store: DebateStore, out: Path | None = None) -> Path:
    """Render the report from the folder as it is now and write it atomically; returns where.

    Reads only: a running debate is reported as it stands (labelled partial) and not disturbed.
    """
    from argue.records import SynthesisDraft
    from argue.report import REPORT_FILE, render_report
    from argue.store import StoreError, write_text_atomic
    from argue.store.history import load_history

    history = load_history(store)
    state = store.state()
    if state.status == "running" and not store.is_locked():
        state = state.model_copy(update={"status": "interrupted"})
    prose_failure: str | None = None
    try:
        prose = store.load(store.paths.synthesis_prose, SynthesisDraft)
    except StoreError as exc:
        prose, prose_failure = None, str(exc)
    if prose is None and prose_failure is None:
        prose_failure = NO_PROSE_YET
    html = render_report(history, state, store.load_usage(), prose, prose_failure)
    target = out if out is not None else store.paths.root / REPORT_FILE
    write_text_atomic(target, html)
    return target


def report_command(
    debate_id: str = typer.Argument(..., help="The debate to report on."),
    out: Path | None = typer.Option(
        None, "--out", help="Where to write the HTML (default: debates/<id>/report.html)."
    ),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Write a self-contained HTML report: argument map, confidence and score figures, the
    synthesis, sources, failures and cost (an unfinished debate's is labelled partial)."""
    from argue.store import StoreError

    store = _open(_debates_dir(debates_dir), debate_id)
    if out is not None and out.is_dir():
        die(f"--out {out} is a folder; name the file to write", 2)
    try:
        target = write_report(store, out)
    except StoreError as exc:
        die(str(exc), 1)
    except OSError as exc:
        die(f"cannot write the report: {exc}", 1)
    _report(f"Report written to {target}")
    stdout_console.print(str(target), markup=False)
