"""Loopback fakes of the two batch APIs, just the endpoints argue uses.

``OpenAIBatchFake``: ``POST /v1/files`` (multipart upload, purpose batch), ``POST /v1/batches``,
``GET /v1/batches/{id}``, ``GET /v1/files/{id}/content``. ``AnthropicBatchFake``:
``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}``,
``GET /v1/messages/batches/{id}/results`` (JSONL). Both answer each request with
``answer(body)`` (the chat body the adapter built → the reply body the chat endpoint would
send: by default the right ShortAnswer to the arithmetic question, with ``INPUT_TOKENS`` and
``OUTPUT_TOKENS``; ``FakeLLM`` from tests/e2e can answer debates), and share the
knobs a test turns: ``hold`` (a batch stays in progress until it is set), ``polls_to_end`` (it
ends on that poll), ``expire_after`` (the batch expires with only that many answered),
``fail`` (a request that fails inside the batch: the reason, or None), and counts
(``creates``, ``polls``, ``requests_in``).
"""

from __future__ import annotations

import email.parser
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.eval.script import right_answer
from tests.loopback import LoopbackServer, RecordedRequest, Reply

INPUT_TOKENS = 100
OUTPUT_TOKENS = 20


def arithmetic_answer(body: dict[str, Any]) -> str:
    """The ShortAnswer JSON with the right answer to the first user turn's question."""
    first_user = next(m for m in body["messages"] if m["role"] == "user")
    content = first_user["content"]
    text = content if isinstance(content, str) else " ".join(b["text"] for b in content)
    return json.dumps({"reasoning": "I computed it.", "answer": right_answer(text)})


def openai_reply(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1767225600,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": arithmetic_answer(body)},
            }
        ],
        "usage": {
            "prompt_tokens": INPUT_TOKENS,
            "completion_tokens": OUTPUT_TOKENS,
            "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS,
        },
    }


def anthropic_reply(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": [{"type": "text", "text": arithmetic_answer(body)}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": OUTPUT_TOKENS},
    }


@dataclass
class FakeBatch:
    id: str
    requests: list[tuple[str, dict[str, Any]]]
    metadata: dict[str, str] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)
    polls: int = 0
    ended: bool = False
    expired: bool = False
    answers: dict[str, Any] = field(default_factory=dict)


@dataclass
class BatchFake:
    answer: Callable[[dict[str, Any]], dict[str, Any]] = openai_reply
    fail: Callable[[str, dict[str, Any]], str | None] = lambda custom_id, body: None
    expire_after: int | None = None
    list_expired: bool = True  # OpenAI: an expired request has a line in the error file
    polls_to_end: int = 2
    hold: threading.Event = field(default_factory=threading.Event)
    batches: dict[str, FakeBatch] = field(default_factory=dict)
    creates: int = 0
    polls: int = 0
    requests_in: int = 0
    server: LoopbackServer = field(default_factory=LoopbackServer)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.hold.set()  # batches may end unless a test holds them
        self.server.handler = self._route
        self.server.start()

    @property
    def url(self) -> str:
        return self.server.url

    def stop(self) -> None:
        self.server.stop()

    def _route(self, request: RecordedRequest) -> Reply:
        raise NotImplementedError

    def _new_batch(
        self,
        prefix: str,
        requests: list[tuple[str, dict[str, Any]]],
        metadata: dict[str, str] | None = None,
    ) -> FakeBatch:
        with self._lock:
            self.creates += 1
            self.requests_in += len(requests)
            batch = FakeBatch(f"{prefix}{next(self._ids):04d}", requests, dict(metadata or {}))
            self.batches[batch.id] = batch
            self.on_create(batch)
            return batch

    def on_create(self, batch: FakeBatch) -> None:
        """A hook a test sets (e.g. to note the moment the batch exists)."""

    def _poll(self, batch: FakeBatch) -> None:
        """One more look at ``batch``: it ends on its ``polls_to_end``-th poll, when not held."""
        with self._lock:
            self.polls += 1
            batch.polls += 1
            if batch.ended or batch.polls < self.polls_to_end or not self.hold.is_set():
                return
            batch.ended = True
            for n, (custom_id, body) in enumerate(batch.requests):
                if self.expire_after is not None and n >= self.expire_after:
                    batch.expired = True
                    batch.answers[custom_id] = ("expired", None)
                    continue
                reason = self.fail(custom_id, body)
                if reason is not None:
                    batch.answers[custom_id] = ("errored", reason)
                else:
                    batch.answers[custom_id] = ("succeeded", self.answer(body))

    def done(self, batch: FakeBatch) -> int:
        if batch.ended:
            return len(batch.requests)
        return min(len(batch.requests), batch.polls * len(batch.requests) // self.polls_to_end)


def _not_found(what: str) -> Reply:
    return Reply(404, json={"error": {"type": "not_found_error", "message": f"{what} not found"}})


class OpenAIBatchFake(BatchFake):
    def __post_init__(self) -> None:
        self.files: dict[str, str] = {}
        super().__post_init__()

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def _route(self, request: RecordedRequest) -> Reply:
        path = request.path
        if request.method == "POST" and path == "/v1/files":
            return self._upload(request)
        if request.method == "POST" and path == "/v1/batches":
            spec = request.json()
            lines = self.files[spec["input_file_id"]].splitlines()
            entries = [json.loads(line) for line in lines if line.strip()]
            assert all(e["url"] == "/v1/chat/completions" for e in entries)
            assert spec["endpoint"] == "/v1/chat/completions"
            assert spec["completion_window"] == "24h"
            batch = self._new_batch(
                "batch_", [(e["custom_id"], e["body"]) for e in entries], spec.get("metadata")
            )
            return Reply(json=self._batch_json(batch, spec["input_file_id"]))
        if request.method == "GET" and path == "/v1/batches":  # list: the newest first
            listed = [self._batch_json(b, "file-in") for b in reversed(self.batches.values())]
            return Reply(json={"object": "list", "data": listed, "has_more": False})
        if request.method == "GET" and path.startswith("/v1/batches/"):
            batch = self.batches.get(path.rsplit("/", 1)[1])
            if batch is None:
                return _not_found("batch")
            self._poll(batch)
            return Reply(json=self._batch_json(batch, "file-in"))
        if request.method == "GET" and path.startswith("/v1/files/") and path.endswith("/content"):
            file_id = path.split("/")[3]
            if file_id not in self.files:
                return _not_found("file")
            return Reply(body=self.files[file_id], content_type="application/octet-stream")
        return _not_found(path)

    def _upload(self, request: RecordedRequest) -> Reply:
        head = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode()
        message = email.parser.BytesParser().parsebytes(head + request.body)
        fields = {
            part.get_param("name", header="content-disposition"): part.get_payload(decode=True)
            for part in message.get_payload()  # type: ignore[union-attr]
        }
        assert fields["purpose"] == b"batch"
        with self._lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = fields["file"].decode()
        return Reply(
            json={
                "id": file_id,
                "object": "file",
                "bytes": len(fields["file"]),
                "created_at": 1767225600,
                "filename": "argue-eval-batch.jsonl",
                "purpose": "batch",
                "status": "processed",
            }
        )

    def _batch_json(self, batch: FakeBatch, input_file_id: str) -> dict[str, Any]:
        output_file = error_file = None
        failed = 0
        if batch.ended:
            out, err = [], []
            for custom_id, (kind, value) in batch.answers.items():
                if kind == "succeeded":
                    out.append(self._output_line(custom_id, value))
                elif kind == "expired" and not self.list_expired:
                    failed += 1
                elif kind == "expired":
                    failed += 1
                    err.append(
                        {
                            "id": f"req_{custom_id}",
                            "custom_id": custom_id,
                            "response": None,
                            "error": {"code": "batch_expired", "message": "expired"},
                        }
                    )
                else:
                    failed += 1
                    err.append(
                        {
                            "id": f"req_{custom_id}",
                            "custom_id": custom_id,
                            "response": {
                                "status_code": 400,
                                "request_id": "r",
                                "body": {
                                    "error": {"message": value, "type": "invalid_request_error"}
                                },
                            },
                            "error": None,
                        }
                    )
            output_file, error_file = f"{batch.id}-out", f"{batch.id}-err"
            with self._lock:
                self.files[output_file] = "".join(json.dumps(x) + "\n" for x in out)
                self.files[error_file] = "".join(json.dumps(x) + "\n" for x in err)
        status = "in_progress"
        if batch.ended:
            status = "expired" if batch.expired else "completed"
        done = self.done(batch)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": input_file_id,
            "completion_window": "24h",
            "status": status,
            "output_file_id": output_file,
            "error_file_id": error_file,
            "created_at": int(batch.created_at),
            "metadata": batch.metadata or None,
            "request_counts": {
                "total": len(batch.requests),
                "completed": done - failed,
                "failed": failed,
            },
        }

    @staticmethod
    def _output_line(custom_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": f"req_{custom_id}",
            "custom_id": custom_id,
            "response": {"status_code": 200, "request_id": "r", "body": body},
            "error": None,
        }


@dataclass
class AnthropicBatchFake(BatchFake):
    answer: Callable[[dict[str, Any]], dict[str, Any]] = anthropic_reply

    def _route(self, request: RecordedRequest) -> Reply:
        path = request.path
        prefix = "/v1/messages/batches"
        if request.method == "POST" and path == prefix:
            entries = request.json()["requests"]
            batch = self._new_batch("msgbatch_", [(e["custom_id"], e["params"]) for e in entries])
            return Reply(json=self._batch_json(batch))
        if request.method == "GET" and path == prefix:  # list: the newest first
            listed = [self._batch_json(b) for b in reversed(self.batches.values())]
            return Reply(
                json={"data": listed, "has_more": False, "first_id": None, "last_id": None}
            )
        if request.method == "GET" and path.startswith(prefix + "/"):
            rest = path[len(prefix) + 1 :]
            batch_id, _, tail = rest.partition("/")
            batch = self.batches.get(batch_id)
            if batch is None:
                return _not_found("batch")
            if tail == "results":
                return Reply(body=self._results(batch), content_type="application/binary")
            self._poll(batch)
            return Reply(json=self._batch_json(batch))
        return _not_found(path)

    def _batch_json(self, batch: FakeBatch) -> dict[str, Any]:
        kinds = [kind for kind, _ in batch.answers.values()]
        done = self.done(batch)
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if batch.ended else "in_progress",
            "request_counts": {
                "processing": len(batch.requests) - done,
                "succeeded": kinds.count("succeeded") if batch.ended else done,
                "errored": kinds.count("errored"),
                "canceled": 0,
                "expired": kinds.count("expired"),
            },
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch.created_at)),
            "expires_at": "2026-12-02T00:00:00Z",
            "ended_at": "2026-12-01T00:10:00Z" if batch.ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.url}/v1/messages/batches/{batch.id}/results"
            if batch.ended
            else None,
        }

    def _results(self, batch: FakeBatch) -> str:
        lines = []
        for custom_id, (kind, value) in batch.answers.items():
            if kind == "succeeded":
                result: dict[str, Any] = {"type": "succeeded", "message": value}
            elif kind == "errored":
                result = {
                    "type": "errored",
                    "error": {
                        "type": "error",
                        "error": {"type": "invalid_request_error", "message": value},
                    },
                }
            else:
                result = {"type": kind}
            lines.append(json.dumps({"custom_id": custom_id, "result": result}))
        return "".join(line + "\n" for line in lines)
