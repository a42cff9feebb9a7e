"""Consoles: data goes to stdout, progress and errors to stderr."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from argue.text.controls import UNSAFE

# Escape sequences (ESC, CSI, OSC…), other C0/C1 controls and every Bidi_Control character: text
# from models, sources, files and the question never reaches a terminal able to act on them
# (argue.text.controls: the one character policy of every output).
_UNSAFE = UNSAFE


def terminal_safe(text: object) -> str:
    """Printable text: control and escape characters removed (newlines and tabs kept), and
    credentials masked (key values, URL passwords)."""
    from argue.redact import redact

    return redact(_UNSAFE.sub("", str(text)))


class SafeConsole(Console):
    """A rich Console that strips control characters from the plain strings it is given
    (markup and styles that code writes still work).

    Piped, plain strings are written whole, one line per line, so that piped output is
    byte-faithful. In a terminal everything is wrapped by rich at the window's width, at word
    boundaries: a live line longer than the window never has a word cut at its edge (the
    terminal's own wrap would cut it anywhere), and a rendered block (Markdown, a table) is
    never cropped; a table's cells fold rather than cut a word that does not fit
    (``_never_crop``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # rich freezes $COLUMNS/$LINES at construction (import time, here); read at print
        # time instead, as rich does when they are not set, so one process sees one width rule.
        if kwargs.get("width") is None:
            self._width = None
        if kwargs.get("height") is None:
            self._height = None

    def print(self, *objects: Any, **kwargs: Any) -> None:
        if self.is_terminal and "soft_wrap" not in kwargs:
            kwargs["soft_wrap"] = False
            for block in objects:
                _never_crop(block)
        safe = tuple(terminal_safe(o) if isinstance(o, str) else o for o in objects)
        if not self.is_terminal and _has_table(objects):
            # Piped, a table takes the width it needs: no cell is cut to "…" at 80 columns.
            saved, self._width = self._width, PIPED_TABLE_WIDTH
            try:
                super().print(*safe, **kwargs)
            finally:
                self._width = saved
            return
        super().print(*safe, **kwargs)


PIPED_TABLE_WIDTH = 400


def _has_table(objects: tuple[Any, ...]) -> bool:
    from rich.table import Table

    return any(isinstance(o, Table) for o in objects)


def _never_crop(block: object) -> None:
    """A table's columns wrap and fold, never end a cell with "…" nor cut it (rich shrinks the
    widest columns first, so short cells stay on one line when there is room)."""
    from rich.table import Table

    if isinstance(block, Table):
        for column in block.columns:
            column.no_wrap = False
            column.overflow = "fold"


def _keep_no_break_spaces_together() -> None:
    """rich wraps at every ``\\s``, no-break spaces included, so a French line wrapped in a
    terminal could start with ``:`` or ``?`` (French puts a no-break space before them,
    ``argue.text.typography``). Its word splitter is made to treat the no-break spaces as
    parts of a word, as a browser does. rich reads this module-level pattern at each wrap."""
    import re

    from rich import _wrap

    from argue.text.typography import NO_BREAK

    breaking = rf"[^\S{NO_BREAK}]"
    _wrap.re_word = re.compile(rf"{breaking}*(?:[^\s]|[{NO_BREAK}])+{breaking}*")


_keep_no_break_spaces_together()

_OPTIONS: dict[str, Any] = {"highlight": False, "soft_wrap": True}
stdout_console = SafeConsole(**_OPTIONS)
stderr_console = SafeConsole(stderr=True, **_OPTIONS)


@contextmanager
def fresh_consoles(**options: Any) -> Iterator[None]:
    """Both consoles set up again as a new process would set them up (colour, width and the
    like read from the environment and streams of now, ``options`` on top), and put back as they
    were on exit: the test harness runs the CLI in-process with this."""
    saved = [(console, dict(console.__dict__)) for console in (stdout_console, stderr_console)]
    try:
        for console, _ in saved:
            SafeConsole.__init__(console, stderr=console.stderr, **_OPTIONS, **options)
        yield
    finally:
        for console, state in saved:
            console.__dict__.clear()
            console.__dict__.update(state)


def echo(message: object = "", **kwargs: Any) -> None:
    """``typer.echo`` for text that may come from outside (snippets, memories, titles); in a
    terminal, wrapped at word boundaries like every other line argue prints."""
    console = stderr_console if kwargs.get("err") else stdout_console
    if console.is_terminal and set(kwargs) <= {"err"}:
        console.print(terminal_safe(message), markup=False)
        return
    typer.echo(terminal_safe(message), **kwargs)


def die(message: str, code: int = 2, *, document: bool = True) -> NoReturn:
    """Print a one-line error on stderr and exit (2 = usage error).

    Under ``--json`` stdout carries the error as one JSON document too (``error_document``),
    unless ``document`` is False: the command already printed its own document."""
    stderr_console.print(f"[bold red]error:[/] {escape(terminal_safe(message))}", highlight=False)
    if document and json_requested():
        error_document(message, code)
    raise typer.Exit(code)


def error_document(message: str, code: int) -> None:
    """``{"error": …, "exit_code": N}`` on stdout: the one line a ``--json`` caller parses."""
    import json

    echo(json.dumps({"error": terminal_safe(message), "exit_code": code}, ensure_ascii=False))


def click_exceptions() -> Any:
    """The exceptions module of the click typer runs on: its own copy (typer 0.2x) or click."""
    return _click_module("exceptions")


def _click_module(name: str) -> Any:
    """``typer._click.<name>`` (typer 0.2x bundles click), else ``click.<name>``."""
    from importlib import import_module

    try:
        return import_module(f"typer._click.{name}")
    except ImportError:  # an older typer on the click package
        return import_module(f"click.{name}")


def _current_context() -> Any:
    return _click_module("globals").get_current_context(silent=True)


def json_requested() -> bool:
    """Whether the running command (or one it belongs to) was given ``--json``."""
    context = _current_context()
    while context is not None:
        if context.params.get("json_output"):
            return True
        context = context.parent
    return False
