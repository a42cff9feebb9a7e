"""``argue mcp``: a Model Context Protocol server over stdio, so an agent can run debates.

Built on the official SDK's ``mcp.server.mcpserver.MCPServer`` (``mcp`` 2.x, the optional
``mcp`` extra); only ``argue mcp`` imports this package. The tools reuse the CLI's own functions
(``argue.commands``), run in the SDK's worker threads, so they say exactly what the CLI says:
whatever those functions print on either console is captured per call (rich buffers its output
per thread), and a ``die()`` — the CLI's one-line error and exit — becomes a tool error whose
text is the line the CLI prints (``error: unknown mode 'chaos'; choose one of: …``).

``start_debate`` does what ``argue QUESTION --detach`` does: it creates the debate and starts a
background ``resume`` process of its own session (log in ``debates/<id>/run.log``), and returns
the id as soon as that process owns the debate; it outlives the server.

Transcripts and syntheses are Markdown written partly by models: they are returned as text
content, as data. Nothing a model wrote reaches a tool description, an error message or the
server's instructions.

Modules: ``server`` registers the tools (and says what they are), ``tools`` does what they do
(``Debates``), ``resources`` serves the debates as resources, and ``capture`` runs a piece of
the CLI with its output captured and its error line kept.
"""

from __future__ import annotations

from argue.mcp.capture import ArgueError
from argue.mcp.server import TOOL_NAMES, build_server, serve

__all__ = ["TOOL_NAMES", "ArgueError", "build_server", "serve"]
