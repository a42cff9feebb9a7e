"""One tool call: the application function's value as a tool result, its ``ArgueError`` as a
tool error whose text is the line the CLI prints (``error: <message>``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp.types import CallToolResult, TextContent

from argue.app import ArgueError
from argue.console import terminal_safe
from argue.redact import redact


def error_line(exc: ArgueError) -> str:
    """The CLI's one-line error for ``exc``."""
    return f"error: {' '.join(terminal_safe(exc.message).split())}"


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


def run_tool(work: Callable[[], Any], render: Callable[[Any], CallToolResult]) -> CallToolResult:
    """``work()`` rendered by ``render``; an ``ArgueError`` becomes a tool error."""
    try:
        value = work()
    except ArgueError as exc:
        return _error(error_line(exc))
    return render(value)
