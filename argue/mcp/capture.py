"""One tool call: the application function's value as a tool result, its ``ArgueError`` as a
tool error whose text is the line the CLI prints (``error: <message>``).

Every tool error is one short line (at most ``ERROR_MAX_CHARS``): anything else a tool raises
is ``internal error: <type>: <message>``, logged once as that line, never a traceback.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from mcp.types import CallToolResult, TextContent

from argue.app import ArgueError, app_error, redact
from argue.console import terminal_safe

ERROR_MAX_CHARS = 500

logger = logging.getLogger("argue.mcp")


def log_plainly() -> None:
    """Log argue's lines to stderr as they are, one line each: the SDK's rich handler (on the
    root logger) would wrap a long line at 80 columns and add a timestamp column."""
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("argue mcp: %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def one_line(text: str, limit: int = ERROR_MAX_CHARS) -> str:
    """``text`` on one line of at most ``limit`` characters, control characters removed and
    secrets masked (``terminal_safe``, before it is cut: no secret is cut to a bare prefix)."""
    line = " ".join(terminal_safe(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def error_line(exc: ArgueError) -> str:
    """The CLI's one-line error for ``exc``."""
    return one_line(f"error: {exc.message}")


def internal_error_line(exc: BaseException) -> str:
    """What a tool answers when something unexpected was raised (a bug): one line."""
    return one_line(f"internal error: {type(exc).__name__}: {exc}")


def _error(line: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=line)], is_error=True)


def _json(value: dict[str, Any]) -> CallToolResult:
    # Secrets masked in every form (argue.redact), in the text and the structured value alike:
    # MASK is inert in JSON, so the masked dump still parses.
    text = redact(json.dumps(value, ensure_ascii=False, indent=2))
    compact = json.dumps(value, ensure_ascii=False)
    masked = redact(compact)
    structured = value if masked == compact else json.loads(masked)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


def _text(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=redact(text))])


def _text_and_data(value: tuple[str, dict[str, Any]]) -> CallToolResult:
    """Markdown for the reader, and the same facts as a structured value (secrets masked in
    both, as :func:`_json` does)."""
    text, data = value
    compact = json.dumps(data, ensure_ascii=False)
    masked = redact(compact)
    structured = data if masked == compact else json.loads(masked)
    return CallToolResult(
        content=[TextContent(type="text", text=redact(text))], structured_content=structured
    )


def run_tool(work: Callable[[], Any], render: Callable[[Any], CallToolResult]) -> CallToolResult:
    """``work()`` rendered by ``render``; an ``ArgueError`` (or an error the application names,
    ``app_error``: a debate folder that cannot be read) becomes a tool error, and so does
    anything else, as one ``internal error`` line (logged once, without a traceback)."""
    try:
        return render(work())
    except ArgueError as exc:
        return _error(error_line(exc))
    except Exception as exc:
        named = app_error(exc)  # a lower layer's error the application names (a StoreError)
        if named is not None:
            return _error(error_line(named))
        line = internal_error_line(exc)  # a bug: one line for the agent and one on stderr
        logger.error("%s", line)
        return _error(line)
