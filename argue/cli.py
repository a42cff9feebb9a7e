"""The command line: parse, call the engine, print. No debate logic lives here.

Exit codes: 0 completed, 1 failed, 2 usage error, 3 stopped or paused (resumable),
130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import typer
from typer.core import TyperGroup

from argue.commands.config_cmd import config_app
from argue.commands.debates import (
    interject_command,
    resume_command,
    status_command,
    stop_command,
    synthesize_command,
    transcript_command,
)
from argue.commands.doctor import doctor_command
from argue.commands.eval_cmd import eval_app
from argue.commands.library import library_app
from argue.commands.mcp_cmd import mcp_command
from argue.commands.memory import memory_app
from argue.commands.personas import personas_app
from argue.commands.report import report_command
from argue.commands.research import research_command
from argue.commands.serve import serve_command
from argue.commands.start import argue_command
from argue.commands.taxonomy import taxonomy_command
from argue.commands.watch import watch_command
from argue.console import stderr_console


class _OneLineErrors(TyperGroup):
    """The root group: every error is one line on stderr, click's usage errors included
    (``error: <message> (see argue <command> --help)``, exit 2), and a command given ``--json``
    also prints the error as one JSON document on stdout (``argue.console.error_document``).

    It runs typer's ``main`` in non-standalone mode and exits itself, the way standalone mode
    would, so ``python -m argue`` and ``CliRunner`` both see the same errors."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        from argue.app import app_error
        from argue.console import click_exceptions

        errors = click_exceptions()
        argv = list(sys.argv[1:] if args is None else args)
        if ("--help" in argv or "-h" in argv) and _helps_a_command(argv):
            _help_from_the_provider_table(self)
        try:
            result = super().main(
                argv, prog_name, complete_var, False, windows_expand_args, **extra
            )
        except errors.UsageError as exc:
            _fail(_usage_line(exc), exc.exit_code, argv, exc.ctx)
        except errors.ClickException as exc:
            _fail(_one_line(exc.format_message()), exc.exit_code, argv, None)
        except typer.Abort:
            _fail("aborted", 1, argv, None)
        except Exception as exc:
            error = app_error(exc)  # the application's word for it, or None: a bug
            if error is None:
                raise
            _fail(error.message, error.exit_code, argv, None)
        # Non-standalone typer returns the code of a typer.Exit, else the command's value.
        sys.exit(result if isinstance(result, int) and not isinstance(result, bool) else 0)


def _helps_a_command(argv: Sequence[str]) -> bool:
    """Whether help is asked of a command (whose options ``--provider`` may be among) rather
    than of the root, whose help lists commands only (``argue --help`` loads no provider)."""
    first = next((a for a in argv if a not in ("--help", "-h")), None)
    return first is not None and not first.startswith("-")


def _help_from_the_provider_table(group: TyperGroup) -> None:
    """A command's help from the tables, registered plugins included: ``--provider`` from the
    provider table, ``--mode`` and ``--role`` from the mode table, ``--sources`` from the
    source table. Only
    when a command's help is asked for: listing the plugins' entry points takes about 0.1 s,
    which no other run of the CLI should pay."""
    from argue.app import modes_help, provider_help, roles_help, source_names
    from argue.commands.start import MODE_HELP, PROVIDER_HELP, ROLE_HELP, SOURCES_HELP

    builtin_sources = SOURCES_HELP.format(sources="arxiv,github,brave,perplexity,youtube,library")
    from_tables = {
        PROVIDER_HELP: provider_help(),
        MODE_HELP: f"{modes_help()}.",
        ROLE_HELP: roles_help(),
        builtin_sources: SOURCES_HELP.format(sources=",".join(source_names())),
    }
    for command in group.commands.values():
        for param in command.params:
            text = from_tables.get(getattr(param, "help", None) or "")
            if text is not None:
                param.help = text  # type: ignore[attr-defined]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _usage_line(exc: Any) -> str:
    """``<message> (see argue <command> --help)``: click's usage block in one line."""
    path = exc.ctx.command_path if exc.ctx is not None else "argue"
    return f"{_one_line(exc.format_message())} (see {path} --help)"


def _gave_json(argv: Sequence[str], context: Any) -> bool:
    """``--json`` among the options (not after ``--``), on a command that takes it."""
    options = list(argv[: argv.index("--")] if "--" in argv else argv)
    if "--json" not in options:
        return False
    if context is None:
        return True
    return any("--json" in getattr(param, "opts", ()) for param in context.command.params)


def _fail(message: str, code: int, argv: Sequence[str], context: Any) -> NoReturn:
    from argue.console import error_document

    stderr_console.print(f"error: {message}", markup=False, highlight=False)
    if _gave_json(argv, context):
        error_document(message, code)
    sys.exit(code)


app = typer.Typer(
    cls=_OneLineErrors,
    name="argue",
    help="Structured debates between LLM personas that end in a nuanced synthesis, not a winner."
    '\n\nStart one with: argue "Your question?" (the same as: argue argue "Your question?").'
    "\n\nShell completion: argue --install-completion.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=True,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from argue import __version__

        typer.echo(f"argue {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Structured debates between LLM personas that end in a nuanced synthesis, not a winner.

    Start one with: argue "Your question?" (the same as: argue argue "Your question?").
    """
    from argue.app import notices_to_stderr

    notices_to_stderr()  # the library warns through ``warnings``; the CLI prints a line


app.command("argue")(argue_command)
app.command("resume")(resume_command)
app.command("stop")(stop_command)
app.command("interject")(interject_command)
app.command("status")(status_command)
app.command("transcript")(transcript_command)
app.command("synthesize")(synthesize_command)
app.command("report")(report_command)
app.command("watch")(watch_command)
app.command("mcp")(mcp_command)
app.command("serve")(serve_command)
app.command("doctor")(doctor_command)
app.add_typer(personas_app, name="personas", help="List and show personas.")
app.add_typer(config_app, name="config", help="Show the effective settings and their sources.")
app.add_typer(library_app, name="library", help="The local library of books and transcripts.")
app.add_typer(memory_app, name="memory", help="What personas remember from past debates.")
app.add_typer(
    eval_app,
    name="eval",
    help="Does debating pay off? Debate vs a single answer vs a cost-matched majority vote.",
)
app.command("research", help="Run a dogpile search and print each source's status.")(
    research_command
)
app.command("taxonomy", help="Tag a text with the six taxonomy bridges.")(taxonomy_command)


_ROOT_OPTIONS = frozenset(
    {"--help", "-h", "--version", "--install-completion", "--show-completion"}
)


def with_default_command(args: list[str]) -> list[str]:
    """``argue "Q" …`` means ``argue argue "Q" …``: a first word that is no command is the
    question, and a first option the root does not own (``--question-file``) is the start
    command's. ``argue status`` after the launcher's own word (``./run.sh argue status``, as
    the README's ``./run.sh argue "Q"`` invites) is the command, not a debate about
    "status"."""
    if not args or args[0].split("=", 1)[0] in _ROOT_OPTIONS:
        return args
    if args[0].startswith("-"):
        return ["argue", *args]
    import typer.main

    commands = set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    if args[0] == "argue" and len(args) > 1 and args[1] in commands - {"argue"}:
        return args[1:]
    return args if args[0] in commands else ["argue", *args]


def main() -> None:
    """``argue …``: errors, click's own included, are one line (``_OneLineErrors``)."""
    app(args=with_default_command(sys.argv[1:]), prog_name="argue")
