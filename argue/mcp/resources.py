"""The debates as MCP resources: the index, and each debate's status, transcript, synthesis."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from argue.app import ArgueError, NotFoundError
from argue.mcp.capture import error_line, internal_error_line, logger
from argue.mcp.tools import DATA_NOTE, Debates


def add_resources(server: MCPServer, debates: Debates) -> None:
    def read(fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except NotFoundError as exc:
            raise ResourceNotFoundError(error_line(exc)) from None
        except ArgueError as exc:
            raise ResourceError(error_line(exc)) from None
        except Exception as exc:  # a bug: one line, logged once, no traceback
            line = internal_error_line(exc)
            logger.error("%s", line)
            raise ResourceError(line) from None

    @server.resource(
        "argue://debates",
        name="debates",
        description="Every debate in the debates folder (JSON).",
        mime_type="application/json",
    )
    def debates_index() -> str:
        return json.dumps(read(lambda: debates.all_statuses(compact=True)), ensure_ascii=False)

    @server.resource(
        "argue://debates/{debate_id}/status",
        name="debate-status",
        description="Where a debate stands (JSON, as `argue status ID --json`).",
        mime_type="application/json",
    )
    def status_resource(debate_id: str) -> str:
        return json.dumps(read(lambda: debates.status(debate_id)), ensure_ascii=False)

    @server.resource(
        "argue://debates/{debate_id}/transcript",
        name="debate-transcript",
        description="A debate's transcript (Markdown)." + DATA_NOTE,
        mime_type="text/markdown",
    )
    def transcript_resource(debate_id: str) -> str:
        return read(lambda: debates.transcript(debate_id))

    @server.resource(
        "argue://debates/{debate_id}/synthesis",
        name="debate-synthesis",
        description="A debate's synthesis (Markdown), once it is no longer running." + DATA_NOTE,
        mime_type="text/markdown",
    )
    def synthesis_resource(debate_id: str) -> str:
        return read(lambda: debates.synthesis(debate_id))
