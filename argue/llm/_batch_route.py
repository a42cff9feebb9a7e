"""Where a call's requests go in ``argue eval --batch``: the batch route of the running call.

The eval (``argue.eval.batching``) sets ``BATCH_ROUTE`` around each call it wants batched;
``SDKAdapter._call`` then hands the request it would have sent to that route, which returns the
answer read from the batch as the same SDK response object (``argue.llm._batch`` has the rest).
Kept apart from the batch clients so that the adapters import only this.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Protocol


class BatchRoute(Protocol):
    """Where one call's requests go instead of the provider's chat endpoint."""

    async def send(self, adapter: Any, request: dict[str, Any]) -> Any:
        """The adapter's (an ``argue.llm._adapter.SDKAdapter``: typed ``Any`` here, since the
        adapter module imports this one) response object for ``request``, answered inside a
        batch."""
        ...


# Set by the eval around one call (``argue.eval.batching``): that call's requests go there.
BATCH_ROUTE: ContextVar[BatchRoute | None] = ContextVar("argue_batch_route", default=None)


def batch_route() -> BatchRoute | None:
    return BATCH_ROUTE.get()


def in_batch() -> bool:
    """Whether the running call goes through a batch (its answers are priced so)."""
    return BATCH_ROUTE.get() is not None
