"""A piece of the CLI run for one MCP call: what it printed, captured; how it failed, kept.

``cli_call`` runs it with both consoles captured (rich buffers its output per thread, and each
call runs in one of the SDK's worker threads); a non-zero exit becomes ``ArgueError`` carrying
the line the CLI prints on stderr. ``run_tool`` turns that into a tool error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import typer
from mcp.types import CallToolResult, TextContent

from argue.console import stderr_console, stdout_console

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


class ArgueError(Exception):
    """A call that failed the way the CLI fails: ``line`` is what the CLI prints on stderr."""

    def __init__(self, line: str, code: int) -> None:
        super().__init__(line)
        self.line = line
        self.code = code


@dataclass
class Printed:
    """What one call printed: stdout and stderr lines, as the CLI would have shown them."""

    out: list[str] = field(default_factory=list)
    err: list[str] = field(default_factory=list)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in _ANSI.sub("", text).splitlines() if line.strip()]


def cli_call(fn: Callable[[], Any]) -> tuple[Any, Printed]:
    """Run a piece of the CLI in this (worker) thread with both consoles captured.

    Returns what ``fn`` returned (None when it ended with ``typer.Exit(0)``) and what it
    printed; raises ``ArgueError`` with the CLI's error line when it exited non-zero.
    """
    from argue.store import StoreError

    code = 0
    value: Any = None
    stdout_console.begin_capture()
    stderr_console.begin_capture()
    try:
        value = fn()
    except typer.Exit as exc:
        code = exc.exit_code
    except StoreError as exc:  # what `argue.cli.main` turns into one line and exit 1
        stderr_console.print(f"error: {exc}", markup=False)
        code = 1
    finally:
        printed = Printed(
            out=_lines(stdout_console.end_capture()), err=_lines(stderr_console.end_capture())
        )
    if code:
        errors = [line for line in printed.err if line.startswith("error:")]
        line = (errors or printed.err or [f"error: exit code {code}"])[-1]
        raise ArgueError(line, code)
    return value, printed


def _error(line: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=line)], is_error=True)


def _json(value: dict[str, Any]) -> CallToolResult:
    text = json.dumps(value, ensure_ascii=False, indent=2)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=value)


def _text(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)])


def run_tool(
    work: Callable[[], Any], render: Callable[[Any, Printed], CallToolResult]
) -> CallToolResult:
    """One tool call: ``work`` under ``cli_call``; a CLI error becomes a tool error."""
    try:
        value, printed = cli_call(work)
    except ArgueError as exc:
        return _error(exc.line)
    return render(value, printed)
