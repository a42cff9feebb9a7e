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

    async def create(self, requests: list[tuple[str, dict[str, Any]]]) -> str:
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
