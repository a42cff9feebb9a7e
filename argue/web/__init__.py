"""The browser face: ``argue serve``'s live pages over starlette and uvicorn.

A face like ``argue.commands`` and ``argue.mcp``: it reads and steers debates through the
application layer only, and nothing below the faces imports it. Starlette and uvicorn (the
``serve`` extra) are imported when the server is built, never at ``argue --help``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from argue.web._app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from argue.web._app import create_app

        return create_app
    raise AttributeError(f"module 'argue.web' has no attribute {name!r}")
