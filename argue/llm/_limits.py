"""Per-provider concurrency: every adapter instance of one provider shares its slots."""

from __future__ import annotations

import asyncio
import weakref

# Semaphores belong to one event loop, so the registry is kept per loop.
_slots_by_loop: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, int], asyncio.Semaphore]
] = weakref.WeakKeyDictionary()


def provider_slots(provider: str, limit: int) -> asyncio.Semaphore:
    """The semaphore bounding concurrent calls to ``provider`` in the running loop."""
    per_loop = _slots_by_loop.setdefault(asyncio.get_running_loop(), {})
    key = (provider, limit)
    if key not in per_loop:
        per_loop[key] = asyncio.Semaphore(limit)
    return per_loop[key]
