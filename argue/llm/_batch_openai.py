"""OpenAI's Batch API for ``argue eval --batch``: a JSONL file uploaded (``purpose="batch"``),
a batch on ``/v1/chat/completions`` within 24 h, polled with ``batches.retrieve``, its output
and error files read back. Each line of those files is one request's outcome by custom_id:
``response.status_code`` 200 with a chat completion body, or an error (a request the API
rejected; ``batch_expired`` / ``batch_cancelled`` for one the batch never ran)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from argue.llm._batch import BatchAnswer, BatchProgress, SDKBatchClient, retried

if TYPE_CHECKING:
    from openai import AsyncOpenAI

    from argue.llm._openai_compat import OpenAICompatModel

ENDPOINT: Literal["/v1/chat/completions"] = "/v1/chat/completions"
RUNNING = frozenset({"validating", "in_progress", "finalizing", "cancelling"})
# Output lines argue reads at most (a batch holds at most 50,000 requests).
MAX_LINES = 60_000
# The metadata key of argue's client token (the intent recorded before the batch was created).
TAG_KEY = "argue_intent"
LIST_LIMIT = 100


class OpenAIBatchClient(SDKBatchClient["AsyncOpenAI"]):
    engine = "OpenAI Batch API"

    def __init__(self, model: OpenAICompatModel) -> None:
        super().__init__(model)

    async def create(self, requests: list[tuple[str, dict[str, Any]]], tag: str = "") -> str:
        import openai

        lines = [
            json.dumps({"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": body})
            for cid, body in requests
        ]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        client = self._sdk()
        upload = await retried(
            self._model,
            openai,
            "uploading the batch file",
            lambda timeout_s: client.files.create(
                file=("argue-eval-batch.jsonl", data, "application/jsonl"),
                purpose="batch",
                timeout=timeout_s,
            ),
        )
        batch = await retried(
            self._model,
            openai,
            "creating the batch",
            lambda timeout_s: client.batches.create(
                input_file_id=upload.id,
                endpoint=ENDPOINT,
                completion_window="24h",
                metadata={"created_by": "argue eval --batch", TAG_KEY: tag},
                timeout=timeout_s,
            ),
        )
        return str(batch.id)

    async def find(self, tag: str, custom_ids: set[str], since: float) -> str | None:
        """The batch whose metadata carries ``tag``, among the most recent (``LIST_LIMIT``)."""
        import openai

        client = self._sdk()
        page = await retried(
            self._model,
            openai,
            "looking for the batch an earlier run created",
            lambda timeout_s: client.batches.list(limit=LIST_LIMIT, timeout=timeout_s),
        )
        for batch in page.data:
            if _tag_of(batch) == tag:
                return str(batch.id)
        return None

    async def progress(self, batch_id: str) -> BatchProgress:
        import openai

        client = self._sdk()
        batch = await retried(
            self._model,
            openai,
            f"asking after batch {batch_id}",
            lambda timeout_s: client.batches.retrieve(batch_id, timeout=timeout_s),
        )
        counts = batch.request_counts
        total = getattr(counts, "total", 0) or 0
        done = (getattr(counts, "completed", 0) or 0) + (getattr(counts, "failed", 0) or 0)
        problem = None
        if batch.status == "failed":
            errors = getattr(getattr(batch, "errors", None), "data", None) or []
            said = "; ".join(str(getattr(e, "message", "") or e) for e in errors[:3])
            problem = f"the batch failed as a whole: {said or 'no reason given'}"
        return BatchProgress(
            status=str(batch.status),
            ended=batch.status not in RUNNING,
            done=done,
            total=total,
            failed=getattr(counts, "failed", 0) or 0,
            problem=problem,
            tag=_tag_of(batch),
        )

    async def results(self, batch_id: str) -> dict[str, BatchAnswer]:
        import openai

        client = self._sdk()
        batch = await retried(
            self._model,
            openai,
            f"asking after batch {batch_id}",
            lambda timeout_s: client.batches.retrieve(batch_id, timeout=timeout_s),
        )
        answers: dict[str, BatchAnswer] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            text = await retried(
                self._model,
                openai,
                f"reading the results of batch {batch_id}",
                _file_reader(client, file_id),
            )
            for line in text.splitlines()[:MAX_LINES]:
                answer = _answer(line)
                if answer is not None:
                    answers.setdefault(answer.custom_id, answer)
        return answers


def _tag_of(batch: Any) -> str | None:
    metadata = getattr(batch, "metadata", None)
    said = metadata.get(TAG_KEY) if isinstance(metadata, dict) else None
    return said if isinstance(said, str) else None


def _file_reader(client: AsyncOpenAI, file_id: str) -> Callable[[float], Awaitable[str]]:
    async def read(timeout_s: float) -> str:
        content = await client.files.content(file_id, timeout=timeout_s)
        return content.text

    return read


def _answer(line: str) -> BatchAnswer | None:
    """One output or error file line; a line that is not one is skipped (the request it
    stood for then has no answer, which says so)."""
    from openai.types.chat import ChatCompletion

    try:
        entry = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("custom_id"), str):
        return None
    custom_id = entry["custom_id"]
    found = entry.get("response")
    response: dict[str, Any] = found if isinstance(found, dict) else {}
    said_error = entry.get("error")
    error: dict[str, Any] | None = said_error if isinstance(said_error, dict) else None
    status = response.get("status_code")
    body = response.get("body")
    if status == 200 and isinstance(body, dict) and not error:
        return BatchAnswer(custom_id, "succeeded", reply=ChatCompletion.construct(**body))
    code = str((error or {}).get("code") or "")
    if code == "batch_expired":
        return BatchAnswer(custom_id, "expired")
    if code == "batch_cancelled":
        return BatchAnswer(custom_id, "canceled")
    said = (error or {}).get("message")
    if not said and isinstance(body, dict) and isinstance(body.get("error"), dict):
        said = body["error"].get("message")
    return BatchAnswer(
        custom_id,
        "errored",
        status_code=status if isinstance(status, int) else None,
        error=str(said or code or "no reason given")[:500],
    )
