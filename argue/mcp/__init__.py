"""``argue mcp``: a Model Context Protocol server over stdio, so an agent can run debates.

Built on the official SDK's ``mcp.server.mcpserver.MCPServer`` (``mcp`` 2.x, the optional
``mcp`` extra); only ``argue mcp`` imports this package. The tools call the application layer
(``argue.app``), the same functions the CLI calls, so they check and fail exactly as the CLI
does: an ``ArgueError`` becomes a tool error whose text is the line the CLI prints
(``error: unknown mode 'chaos'; choose one of: …``). Nothing is read back from a console.

``start_debate`` does what ``argue QUESTION --detach`` does: it creates the debate and starts a
background ``resume`` process of its own session (log in ``debates/<id>/run.log``), and returns
the id as soon as that process owns the debate; it outlives the server.

Transcripts and syntheses are Markdown written partly by models: they are returned as text
content, as data. Nothing a model wrote reaches a tool description, an error message or the
server's instructions.

Modules: ``server`` registers the tools (and says what they are), ``tools`` does what they do
(``Debates``), ``resources`` serves the debates as resources, and ``capture`` turns a value or
an ``ArgueError`` into a tool result.
"""

from __future__ import annotations

from argue.app import ArgueError
from argue.mcp.server import TOOL_NAMES, build_server, serve

__all__ = ["TOOL_NAMES", "ArgueError", "build_server", "serve"]
