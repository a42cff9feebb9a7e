"""The errors the application layer raises: each carries its one-line message and exit code.

The faces (the CLI, the MCP server, a Python caller) decide how to show them: the CLI prints
``error: <message>`` and exits with ``exit_code``; the MCP server returns a tool error. The
errors of the layers below (a debate folder's ``StoreError``, an unusable ``ARGUE_HOME``) are
named by :func:`app_error` (and raised as such by a function :func:`at_the_boundary`), so a
face catches ``ArgueError`` alone and never imports the store to tell its errors apart.
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


class ArgueError(Exception):
    """Something the user can act on, said in one line (``message``); ``exit_code`` is what
    the CLI exits with (1: the work failed, 2: the request was wrong)."""

    exit_code: int = 1
    field: str | None = None
    """The request field the message opens with (``rounds: must be …``), when one is to blame:
    a face says it in its own words (the CLI names the flag that sets it)."""

    def __init__(
        self, message: str, exit_code: int | None = None, *, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code
        self.field = field


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


def app_error(exc: BaseException) -> ArgueError | None:
    """The application layer's word for an error from a layer below it: a ``StoreError`` (a
    debate folder missing, unreadable, unsafe or locked) is an ``OperationError`` (exit 1),
    an unusable ``ARGUE_HOME`` a ``UsageError`` (exit 2), each with the same one line; an
    ``ArgueError`` is itself; anything else is None (a bug, not the user's to act on).

    Told apart without importing the store or the paths: a process that never loaded them
    cannot have raised their errors (``argue --help`` pays for neither)."""
    if isinstance(exc, ArgueError):
        return exc
    files = sys.modules.get("argue.files")  # its FolderError is the store's StoreError
    if files is not None and isinstance(exc, files.FolderError):
        return OperationError(str(exc))
    paths = sys.modules.get("argue.paths")
    if paths is not None and isinstance(exc, paths.ArgueHomeError):
        return UsageError(str(exc))
    return None


@contextmanager
def app_errors_only() -> Iterator[None]:
    """Inside, an error :func:`app_error` knows leaves as the ``ArgueError`` it says."""
    try:
        yield
    except ArgueError:
        raise
    except Exception as exc:
        error = app_error(exc)
        if error is None:
            raise
        raise error from exc


def at_the_boundary(fn: F) -> F:
    """``fn`` (a function or a coroutine function) raising only ``ArgueError`` for what the
    layers below it report (:func:`app_error`): ``argue.app``'s public functions are handed
    out so, and a face catches the application's errors alone."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            with app_errors_only():
                return await fn(*args, **kwargs)

        return cast(F, call_async)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        with app_errors_only():
            return fn(*args, **kwargs)

    return cast(F, call)
