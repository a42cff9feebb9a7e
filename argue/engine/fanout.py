"""Structured fan-out: sibling tasks that live and die together.

``asyncio.gather`` lets the other personas run on (and write files) after one of them raised a
fatal error; a TaskGroup cancels them first, so nothing is written for a debate once it is
marked failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


async def fan_out(*jobs: Coroutine[Any, Any, object]) -> None:
    """Run ``jobs`` concurrently; the first error cancels the others and is raised as itself."""
    try:
        async with asyncio.TaskGroup() as group:
            for job in jobs:
                group.create_task(job)
    except BaseExceptionGroup as errors:
        raise _first(errors) from None


def _first(errors: BaseExceptionGroup) -> BaseException:
    for error in errors.exceptions:
        if isinstance(error, BaseExceptionGroup):
            return _first(error)
        if not isinstance(error, asyncio.CancelledError):
            return error
    return errors.exceptions[0]
