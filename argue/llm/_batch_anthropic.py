"""Anthropic's Message Batches for ``argue eval --batch``: ``messages.batches.create`` with one
``{custom_id, params}`` per request (the params are the Messages API body the adapter built),
polled with ``retrieve`` until ``processing_status`` is "ended", then ``results()`` (JSONL):
each request succeeded (a Message), errored (the API's error), canceled or expired."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from argue.llm._batch import BatchAnswer, BatchProgress, SDKBatchClient, retried

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic  # noqa: F401 (the client type, named in a string)

    from argue.llm._anthropic import AnthropicModel

LIST_LIMIT = 100
CLOCK_SKEW_S = 60.0

# The HTTP status each Anthropic error type stands for (an errored request carries the type).
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


class AnthropicBatchClient(SDKBatchClient["AsyncAnthropic"]):
    engine = "Anthropic Message Batches"

    def __init__(self, model: AnthropicModel) -> None:
        super().__init__(model)

    async def create(self, requests: list[tuple[str, dict[str, Any]]], tag: str = "") -> str:
        """Message Batches keep no client metadata: ``tag`` is not sent (``find`` matches a
        batch by its time, size and custom_ids instead)."""
        import anthropic

        client = self._sdk()
        entries: Any = [{"custom_id": cid, "params": body} for cid, body in requests]
        batch = await retried(
            self._model,
            anthropic,
            "creating the message batch",
            lambda timeout_s: client.messages.batches.create(requests=entries, timeout=timeout_s),
        )
        return str(batch.id)

    async def find(self, tag: str, custom_ids: set[str], since: float) -> str | None:
        """The batch created for these ``custom_ids``: among the most recent batches
        (``LIST_LIMIT``), one created after ``since`` (less a minute of clock skew) with as many
        requests; an ended one is taken only if its results hold exactly these custom_ids, one
        still running is taken when it is the only candidate (the collector checks its
        custom_ids once it ends, and refuses it if they are not these)."""
        import anthropic

        client = self._sdk()
        page = await retried(
            self._model,
            anthropic,
            "looking for the batch an earlier run created",
            lambda timeout_s: client.messages.batches.list(limit=LIST_LIMIT, timeout=timeout_s),
        )
        running: list[str] = []
        for batch in page.data:
            created = batch.created_at.timestamp() if batch.created_at else 0.0
            counts = batch.request_counts
            size = sum(
                getattr(counts, name, 0) or 0
                for name in ("processing", "succeeded", "errored", "canceled", "expired")
            )
            if created < since - CLOCK_SKEW_S or size != len(custom_ids):
                continue
            if batch.processing_status != "ended":
                running.append(str(batch.id))
                continue
            if set((await self.results(str(batch.id))).keys()) == custom_ids:
                return str(batch.id)
        return running[0] if len(running) == 1 else None

    async def progress(self, batch_id: str) -> BatchProgress:
        import anthropic

        client = self._sdk()
        batch = await retried(
            self._model,
            anthropic,
            f"asking after batch {batch_id}",
            lambda timeout_s: client.messages.batches.retrieve(batch_id, timeout=timeout_s),
        )
        counts = batch.request_counts
        processing = counts.processing or 0
        failed = (counts.errored or 0) + (counts.expired or 0) + (counts.canceled or 0)
        done = (counts.succeeded or 0) + failed
        return BatchProgress(
            status=str(batch.processing_status),
            ended=batch.processing_status == "ended",
            done=done,
            total=done + processing,
            failed=failed,
        )

    async def results(self, batch_id: str) -> dict[str, BatchAnswer]:
        import anthropic

        client = self._sdk()

        async def read(timeout_s: float) -> dict[str, BatchAnswer]:
            answers: dict[str, BatchAnswer] = {}
            decoder = await client.messages.batches.results(batch_id, timeout=timeout_s)
            async for entry in decoder:
                answers.setdefault(entry.custom_id, _answer(entry))
            return answers

        return await retried(
            self._model, anthropic, f"reading the results of batch {batch_id}", read
        )


def _answer(entry: Any) -> BatchAnswer:
    result = entry.result
    kind = getattr(result, "type", None)
    if kind == "succeeded":
        return BatchAnswer(entry.custom_id, "succeeded", reply=result.message)
    if kind in ("expired", "canceled"):
        return BatchAnswer(entry.custom_id, kind)
    detail = getattr(getattr(result, "error", None), "error", None)
    error_type = str(getattr(detail, "type", "") or "")
    message = str(getattr(detail, "message", "") or error_type or "no reason given")
    return BatchAnswer(
        entry.custom_id,
        "errored",
        status_code=ERROR_STATUS.get(error_type),
        error=f"{error_type}: {message}"[:500] if error_type else message[:500],
    )
