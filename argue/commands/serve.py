"""``argue serve``: a live view of the debates folder in the browser, on loopback.

The server prints its URL once; the URL carries a fresh unguessable token and every route
requires it. Starlette and uvicorn are the optional ``serve`` extra, imported
here only when the command runs, so ``argue --help`` stays fast and works without them.
"""

from __future__ import annotations

import socket
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from argue.commands._debate import (
    DEBATES_DIR_HELP,
    _debates_dir,
    cli_words,
    command_name,
    workspace,
)
from argue.console import die, stderr_console, stdout_console

if TYPE_CHECKING:
    from argue.web._server import BoundedServer

MISSING_STACK = (
    "argue serve needs starlette and uvicorn (the serve extra): "
    "pip install 'argue-debate[serve]' (in a clone, ./run.sh installs it)"
)
DEFAULT_PORT = 8765


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and the name localhost (``argue.app.is_loopback``)."""
    from argue.app import is_loopback as loopback

    return loopback(host)


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the URL is printed (``--port 0``: any free port)."""
    name = host.strip("[]")
    family = socket.AF_INET6 if ":" in name else socket.AF_INET
    if name.lower() == "localhost":
        name, family = "127.0.0.1", socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((name, port))
    except OSError as exc:
        sock.close()
        raise exc
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _url(sock: socket.socket, token: str) -> str:
    address = sock.getsockname()
    host = f"[{address[0]}]" if sock.family == socket.AF_INET6 else address[0]
    return f"http://{host}:{address[1]}/?token={token}"


def serve_command(
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on (loopback unless --allow-remote)."
    ),
    port: int = typer.Option(
        DEFAULT_PORT, "--port", min=0, max=65535, help="Port to listen on (0: any free port)."
    ),
    allow_remote: bool = typer.Option(
        False,
        "--allow-remote",
        help="Allow a --host other machines can reach (anyone with the URL can stop debates).",
    ),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Watch running and finished debates in the browser: a local page that updates as each
    phase lands, with stop and interject. Prints its URL (with a fresh token) once."""
    import secrets

    from argue.app import listen_error

    refused = listen_error(host, allow_remote=allow_remote)
    if refused is not None:
        die(cli_words(refused.message), refused.exit_code)
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        die(MISSING_STACK, 2)
    from argue.app import ArgueError
    from argue.web import create_app
    from argue.web._server import Bounds, build_server

    try:
        bounds = Bounds.from_env()
    except ArgueError as exc:
        die(exc.message, 2)
    root = _debates_dir(debates_dir)
    if not is_loopback(host):
        stderr_console.print(
            f"warning: serving on {host}, which other machines may reach; anyone with the URL "
            "can read, stop and steer these debates",
            markup=False,
            highlight=False,
        )
    try:
        sock = _bind(host, port)
    except OSError as exc:
        die(f"cannot listen on {host}:{port}: {exc.strerror or exc} (try --port 0)", 2)
    token = secrets.token_urlsafe(32)
    servers: list[BoundedServer] = []
    application = create_app(
        workspace(root),
        token,
        command=command_name(),
        stopping=lambda: bool(servers) and servers[0].should_exit,
        bounds=bounds,
    )
    stdout_console.print(_url(sock, token), markup=False, highlight=False, soft_wrap=True)
    stderr_console.print(
        f"Serving the debates in {root} (read-only, plus stop and interject). "
        "Ctrl-C stops the server; debates keep running.",
        markup=False,
        highlight=False,
    )
    servers.append(build_server(application, bounds))
    try:
        servers[0].run(sockets=[sock])
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    finally:
        sock.close()
