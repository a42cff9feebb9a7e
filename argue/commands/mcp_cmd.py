"""``argue mcp``: serve argue to agents over the Model Context Protocol (stdio).

The SDK is the optional ``mcp`` extra and is imported only here, when the command runs, so
``argue --help`` and every other command stay fast and work without it.
"""

from __future__ import annotations

from pathlib import Path

import typer

from argue.commands._debate import DEBATES_DIR_HELP
from argue.console import die

MISSING_SDK = (
    "argue mcp needs the MCP SDK (the mcp extra): pip install 'argue-debate[mcp]' "
    "(in a clone, ./run.sh installs it)"
)


def mcp_command(
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    max_running: str | None = typer.Option(
        None,
        "--max-running",
        metavar="N",
        help="At most N debates running at once in the debates folder (1-64; default "
        "$ARGUE_MCP_MAX_RUNNING, else 4); start_debate says so past it.",
    ),
) -> None:
    """Run an MCP server over stdio: tools to start, follow, steer and read debates.

    Register it in an MCP client as the command `argue mcp` (see the README). Debates it starts
    run in the background, as with --detach, and outlive the server.
    """
    try:
        from mcp.server.mcpserver import MCPServer  # noqa: F401  (mcp 2.x)
    except ImportError:
        die(MISSING_SDK, 2)
    from argue.app import UsageError
    from argue.mcp.server import serve
    from argue.mcp.tools import default_max_running, max_running_from

    try:
        cap = default_max_running() if max_running is None else max_running_from(max_running)
    except UsageError as exc:
        die(exc.message, 2)
    try:
        serve(debates_dir, max_running=cap)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
