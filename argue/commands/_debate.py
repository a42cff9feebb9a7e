"""What the debate commands share: the options, the app's errors said as the CLI says them,
and how a run's outcome is printed. The work itself is ``argue.app``'s."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from argue.console import die, stderr_console

if TYPE_CHECKING:
    from argue.app import (
        DebateStore,
        RunOutcome,
        Workspace,
    )

DEBATES_DIR_HELP = (
    "Where debates are written (default: $ARGUE_DEBATES_DIR, else [defaults] debates_dir in "
    "config.toml, else $ARGUE_HOME/debates; ./run.sh uses the clone's debates/ folder)."
)


def command_name() -> str:
    """How the user runs argue, for hints: ``./run.sh`` in a clone, ``argue`` when installed."""
    import os

    return os.environ.get("ARGUE_LAUNCHER") or "argue"


# A request field the application layer names (`budget_usd`) -> the flag that sets it, where
# it is not --budget-usd; a field that no flag sets keeps its name.
_FLAG_OF = {
    "persona_models": "--persona-model",
    "dataset_file": "DATASET",
    "roles": "--role",
    "request_timeout_s": "--request-timeout",
    "timeout_s": "--timeout",
}
# Names the application's operations take that no request record holds (said as flags too).
_OTHER_FIELDS = ("out", "question_file", "host", "allow_remote")
_FIELD = re.compile(r"`([a-z][a-z0-9_]*)`")


def flag_of(field: str) -> str:
    """The flag that sets a request field (``budget_usd`` -> ``--budget-usd``)."""
    return _FLAG_OF.get(field, "--" + field.replace("_", "-"))


def cli_words(message: str, field: str | None = None) -> str:
    """The application layer's words as the CLI says them: a request field it names in
    backticks (`budget_usd`) is the flag that sets it (--budget-usd), a mode's role named so
    (`champion`) is ``--role champion``, and a message that opens with the ``field`` it
    blames (``rounds: must be …``) opens with its flag (``--rounds must be …``)."""
    if field is not None and message.startswith(f"{field}: "):
        rest = message[len(field) + 2 :]
        # "--rounds must be between 1 and 50", but "--rounds: Input should be …" (pydantic's)
        message = f"{flag_of(field)}{' ' if rest.startswith('must ') else ': '}{rest}"
    if "`" not in message:
        return message
    from argue.app import BOUNDS, EvalRequest, StartRequest, role_fields

    fields = {*StartRequest.model_fields, *EvalRequest.model_fields, *BOUNDS, *_OTHER_FIELDS}
    roles = set(role_fields())

    def flag(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in fields:
            return flag_of(name)
        if name in roles:
            return f"--role {name}"
        return match.group(0)

    return _FIELD.sub(flag, message)


@contextmanager
def app_errors() -> Iterator[None]:
    """An ``ArgueError`` from the application layer (or an error it names: ``app_error``)
    becomes the CLI's one-line error and exit code, its fields said as flags; ``Interrupted``
    (a second Ctrl-C) is said as a plain line, exit 130."""
    from argue.app import ArgueError, Interrupted, app_error

    try:
        yield
    except Interrupted as exc:
        _report(exc.message)
        raise typer.Exit(exc.exit_code) from None
    except ArgueError as exc:
        die(cli_words(exc.message, exc.field), exc.exit_code)
    except Exception as exc:
        error = app_error(exc)  # a lower layer's error the application names (a StoreError)
        if error is None:
            raise
        die(cli_words(error.message, error.field), error.exit_code)


def workspace(debates_dir: Path | None = None) -> Workspace:
    from argue.app import Workspace

    return Workspace(debates_dir)


def _debates_dir(option: Path | None) -> Path:
    with app_errors():
        return workspace(option).root
    raise AssertionError("unreachable")  # pragma: no cover


def _open(debates_dir: Path, debate_id: str) -> DebateStore:
    with app_errors():
        return workspace(debates_dir).open(debate_id)
    raise AssertionError("unreachable")  # pragma: no cover


def _report(message: str) -> None:
    stderr_console.print(cli_words(message), markup=False, highlight=False)


def request_timeout_option() -> Any:
    return typer.Option(
        None,
        "--request-timeout",
        metavar="SECONDS",
        help="One model request's timeout (default 120 s hosted, 600 s self-hosted; "
        "$ARGUE_REQUEST_TIMEOUT_S).",
    )


def max_attempts_option() -> Any:
    return typer.Option(
        None,
        "--max-attempts",
        help="Attempts per model call on outages, 1 to 20 (default 4 hosted, 3 self-hosted; "
        "$ARGUE_MAX_ATTEMPTS). A rejection is never retried.",
    )


def slots_option() -> Any:
    return typer.Option(
        None,
        "--slots",
        help="Model requests in flight at once, 1 to 256 (default 8; 1 for a one-slot server; "
        "$ARGUE_MAX_CONCURRENCY).",
    )


def quiet_option() -> Any:
    return typer.Option(
        False,
        "--quiet",
        "-q",
        help="End with the paths only: no conclusion and strongest arguments on stdout.",
    )


def structured_output_option() -> Any:
    return typer.Option(
        None,
        "--structured-output",
        metavar="DIALECT",
        help="auto (default: negotiated and remembered per server) | json_schema | "
        "json_object_schema | json_object | text ($ARGUE_STRUCTURED_OUTPUT).",
    )


def read_moderator_note(round_no: int, lang: str = "en") -> str | None:
    """Blocking read of one line from stdin (run in a thread); EOF or empty means none."""
    from argue.records.labels import label

    stderr_console.print(label("t_moderator_prompt", lang, n=round_no), end="", markup=False)
    try:
        return input()
    except EOFError:
        return None


def stdin_moderator(lang: str) -> Any:
    """``--interactive``: after each round, a moderator note read from this terminal."""
    from argue.app import run_in_daemon_thread

    async def moderator(round_no: int) -> str | None:
        return await run_in_daemon_thread(read_moderator_note, round_no, lang)

    return moderator


def print_answer(result: RunOutcome, lang: str) -> None:
    """The conclusion and the strongest argument of each side, on stdout, wrapped at word
    boundaries in a terminal (a rich Text lays out its own lines; piped output is unchanged)."""
    from rich.text import Text

    from argue.console import stdout_console, terminal_safe
    from argue.records.labels import label

    blocks: list[str] = []
    if result.conclusion:
        blocks.append(f"{label('t_answer_conclusion', lang)}\n{result.conclusion}")
    for side in (result.strongest or {}).get("sides", []):
        arguments = side.get("arguments") or []
        who = ", ".join(side.get("names") or [])
        heading = f"{side['side_words']} ({who})" if side.get("side_words") else who
        if arguments:
            best = arguments[0]
            line = f"{best['text']} [{best['claim_id']}; {', '.join(best['evidence_ids'])}]"
        else:
            line = label("t_answer_none_ranked", lang)
        blocks.append(f"{label('t_answer_strongest', lang, side=heading)}\n{line}")
    for block in blocks:
        stdout_console.print(Text(terminal_safe(block)), soft_wrap=False)
        stdout_console.print()


def finish(
    store: DebateStore, result: RunOutcome, json_output: bool, *, quiet: bool = False
) -> NoReturn:
    """The run's answer (its conclusion and the strongest argument of each side, unless
    ``quiet`` or ``json_output``), its last line (where the synthesis is, or how to resume),
    its ``--json`` document, and its exit code."""
    from argue.records.labels import label, label_of

    lang = store.config().language
    if not (quiet or json_output) and result.status == "completed":
        print_answer(result, lang)
    if result.report_path:
        kind = (
            "t_partial_report" if result.partial or result.status != "completed" else "t_and_report"
        )
        tail = label(kind, lang, path=result.report_path)
    else:
        tail = label("t_no_report", lang, why=result.report_error or "?")
    if result.status in ("stopped", "budget_exhausted", "interrupted"):
        status = result.status if lang == "en" else label_of("status", result.status, lang)
        command = f"{command_name()} resume {store.debate_id}"
        line = label("t_paused", lang, id=store.debate_id, status=status, command=command)
    elif result.status == "failed":
        line = label("t_failed", lang, id=store.debate_id, error=result.error)
    else:
        line = label("t_synthesis_path", lang, path=store.paths.synthesis)
    _report(line + tail)
    if json_output:
        print(json.dumps(result.as_json()))
    raise typer.Exit(result.exit_code)
