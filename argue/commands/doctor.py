"""``argue doctor``: can the configured model run a debate? Tiny calls, one table, one verdict.

The model is resolved exactly as ``argue QUESTION`` resolves it (flags > environment >
config.toml > auto-detection), then probed by ``argue.llm.probe``: each probe is one short
request, sent once, bounded by ``--timeout``. Research sources are listed with the variable
their key lives in (never its value) and, unless ``--no-sources``, asked a tiny query.
Everything a server or a source wrote is untrusted text: it reaches the terminal through
``terminal_safe`` and rich's ``escape``, and the JSON through ``mask_secrets``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from argue.commands._debate import app_errors
from argue.console import stdout_console, terminal_safe

if TYPE_CHECKING:
    from argue.app import Check, Diagnosis

_COLOURS = {
    "ok": "green",
    "empty": "yellow",
    "no_content": "yellow",
    "not_told": "dim",
    "skipped": "dim",
    "not_asked": "dim",
}


def doctor_command(
    provider: str | None = typer.Option(None, "--provider", help="As for `argue QUESTION`."),
    model: str | None = typer.Option(None, "--model", help="As for `argue QUESTION`."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
    timeout: float = typer.Option(
        30.0, "--timeout", min=0.1, max=3600.0, help="Seconds each probe may take."
    ),
    no_sources: bool = typer.Option(
        False, "--no-sources", help="Say which research sources have keys; ask them nothing."
    ),
    call_local: bool = typer.Option(
        False, "--call-local", help="Provider local: load the model and ask a tiny question."
    ),
) -> None:
    """Check that the configured model can run a debate, with a few tiny calls.

    Resolves the provider and model as `argue QUESTION` does, then asks the server: is it
    reachable (and how fast), does it accept the model, which structured-output dialects work
    (json_schema, json_object_schema, json_object, text), does it stream, and how long a context
    it says it has. The first dialect that works is remembered for this server and model, so
    debates start there. Each probe is sent once and waits at most --timeout seconds; on a paid
    API the calls cost a fraction of a cent. Anthropic: reachable, model accepted and its native
    structured output. In-process llama.cpp (provider local): the model file only, since loading
    a model is slow; --call-local loads it and asks a tiny question (raise --timeout for a large
    file).

    Research sources: whether each key is set (the variable's name, never its value) and, unless
    --no-sources, whether each source answers a tiny query.

    Exit codes: 0 a debate can run; 1 it cannot (the last line says what to fix); 2 usage error
    (a bad flag, no provider configured)."""
    from argue.app import Knobs, configured_model, diagnose

    with app_errors():
        chat_model = configured_model(provider, model)
    knobs = Knobs(
        timeout="--timeout", model="--model", call_local="--call-local", ask_sources="--no-sources"
    )
    try:
        found = diagnose(
            chat_model,
            timeout_s=timeout,
            ask_sources=not no_sources,
            call_local=call_local,
            knobs=knobs,
        )
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    if json_output:
        _print_json(found)
    else:
        _print_tables(found)
    raise typer.Exit(0 if found.ready else 1)


def _print_json(found: Diagnosis) -> None:
    from argue.app import mask_secrets

    print(mask_secrets(json.dumps(found.as_json())))


def _print_tables(found: Diagnosis) -> None:
    from rich.table import Table

    report, sources, verdict, ready = found.report, found.sources, found.verdict, found.ready
    title = f"argue doctor: {report.provider} {report.model} at {report.endpoint}"
    checks = Table(title=_safe(title), title_justify="left")
    checks.add_column("Check", no_wrap=True)
    checks.add_column("Result", no_wrap=True)
    checks.add_column("Latency", justify="right", no_wrap=True)
    checks.add_column("Detail", overflow="fold")
    for check in report.checks:
        latency = f"{check.latency_s:.2f} s" if check.latency_s is not None else ""
        checks.add_row(_safe(check.name), _result(check), latency, _safe(check.detail))
    stdout_console.print(checks)
    table = Table(title="Research sources", title_justify="left")
    table.add_column("Source", no_wrap=True)
    table.add_column("Key", no_wrap=True)
    table.add_column("Answers", no_wrap=True)
    table.add_column("Detail", overflow="fold")
    for row in sources:
        colour = _COLOURS.get(row.status, "red")
        status = row.status.replace("_", " ")
        table.add_row(
            _safe(row.source), _safe(row.key), f"[{colour}]{status}[/]", _safe(row.detail)
        )
    stdout_console.print(table)
    for note in found.notes:
        stdout_console.print(f"[dim]note: {_safe(note)}[/]")
    colour = "green" if ready else "red"
    stdout_console.print(f"[bold {colour}]{_safe(verdict)}[/]")


def _result(check: Check) -> str:
    word = "works" if check.dialect and check.ok else check.status.replace("_", " ")
    return f"[{_COLOURS.get(check.status, 'red')}]{word}[/]"


def _safe(text: object) -> str:
    """Server and source text for a rich cell: no control characters, no markup, no keys."""
    from rich.markup import escape

    return escape(terminal_safe(text))
