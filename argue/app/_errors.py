"""The errors the application layer raises: each carries its one-line message and exit code.

The faces (the CLI, the MCP server, a Python caller) decide how to show them: the CLI prints
``error: <message>`` and exits with ``exit_code``; the MCP server returns a tool error.
"""

from __future__ import annotations


class ArgueError(Exception):
    """Something the user can act on, said in one line (``message``); ``exit_code`` is what
    the CLI exits with (1: the work failed, 2: the request was wrong)."""

    exit_code: int = 1

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class UsageError(ArgueError):
    """The request cannot be carried out as given (a bad flag, an unknown persona, …)."""

    exit_code = 2


class NotFoundError(UsageError):
    """The debate (or folder) named does not exist."""


class OperationError(ArgueError):
    """The request was fine but the work failed (a model, a disk, a background run)."""

    exit_code = 1


class Interrupted(ArgueError):
    """The run was cancelled (a second Ctrl-C); ``message`` says how to resume it. Not an
    error the user made: the CLI prints it as a plain line."""

    exit_code = 130
