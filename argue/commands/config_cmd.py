"""``argue config show [--json]``: the effective settings and where each one came from.

Every setting has a value and a source: ``flag`` (an option given to this command, the same
options ``argue QUESTION`` takes), ``env`` (an environment variable), ``config file``
($ARGUE_HOME/config.toml), ``default`` or ``auto-detected`` (provider resolution). Credentials
are never printed: a key is shown as "set (masked)" or "not set", and every line still passes
through ``mask_secrets``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer

from argue.commands._debate import DEBATES_DIR_HELP, app_errors
from argue.console import stdout_console
from argue.text.controls import dumps as safe_dumps

config_app = typer.Typer(
    name="config",
    help="Show the effective settings (flags > environment > config.toml > defaults).",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


@config_app.command("show")
def show_command(
    provider: str | None = typer.Option(None, "--provider", help="As for `argue QUESTION`."),
    model: str | None = typer.Option(None, "--model", help="As for `argue QUESTION`."),
    rounds: int | None = typer.Option(None, "--rounds"),
    mode: str | None = typer.Option(None, "--mode"),
    sources: str | None = typer.Option(None, "--sources"),
    budget_usd: float | None = typer.Option(None, "--budget-usd"),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Print each effective setting, its value and where it came from; keys are masked."""
    from argue.app import check_bounds, effective_settings, mask_secrets

    with app_errors():  # a bad config.toml: one line naming file and field, exit 2
        check_bounds(rounds=rounds, budget_usd=budget_usd)
        entries = effective_settings(
            os.environ,
            flag_name=lambda key: f"--{key.replace('_', '-')}",
            provider=provider,
            model=model,
            rounds=rounds,
            mode=mode,
            sources=sources,
            budget_usd=budget_usd,
            debates_dir=debates_dir,
        )
    if json_output:
        text = safe_dumps({k: e.as_json() for k, e in entries.items()}, ensure_ascii=False)
        print(mask_secrets(text))
        return
    width = max(len(k) for k in entries)
    for key, entry in entries.items():
        value = "(none)" if entry.value is None else _text(entry.value)
        if key == "sources" and not entry.value:
            value = "all"
        where = entry.source + (f": {entry.detail}" if entry.detail else "")
        line = f"{key:<{width}}  {value}  [{where}]"
        stdout_console.print(mask_secrets(line), markup=False, highlight=False)


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "(none)"
    return str(value)
