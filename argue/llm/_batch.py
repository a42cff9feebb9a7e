"""The providers' batch engines, shared parts: what a batch client does, one request's answer,
and that answer turned into the adapter's response or the call's error.

``argue eval --batch`` sends independent calls through OpenAI's Batch API (``_batch_openai``)
and Anthropic's Message Batches (``_batch_anthropic``). The adapters keep building every
request and reading every reply themselves: ``SDKAdapter._call`` hands the request it would
have sent to the batch route of the running call (``argue.llm._batch_route``), which returns
the answer read from the batch as the same response object the SDK would have returned
(``SDKAdapter._checked_response``). So re-asks, resends after a cut-off answer, refusals and
usage are the adapters' own, and a batched call differs from a direct one only in how it
travelled (``Usage.batch_calls``, priced at the batch price).

A batch client creates a batch from ``(custom_id, body)`` pairs, says how far it got, and reads
its answers (``BatchAnswer``: succeeded, errored, expired, canceled). ``answer_response`` turns
one answer into the adapter's response or into that call's ``ModelError``, in plain words
("failed inside batch <id>: …"). ``argue.llm._batch_engines.batch_client_for`` says which
engine a model has, or, in one line, why it has none (the eval then makes direct calls and says
so).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeVar

from argue.llm._batch_route import BATCH_ROUTE, BatchRoute, batch_route, in_batch
from argue.llm._retry import TransportFailure, call_with_retries
from argue.llm._secrets import masked_error
from argue.llm.base import (
    ModelAuthError,
    ModelError,
    ModelRequestError,
    ModelUnavailableError,
)

if TYPE_CHECKING:
    from argue.llm._adapter import SDKAdapter

R = TypeVar("R")


class _ClosableClient(Protocol):
    async def close(self) -> None: ...


ClientT = TypeVar("ClientT", bound=_ClosableClient)

__all__ = [
    "BATCH_ROUTE",
    "BatchAnswer",
    "BatchClient",
    "BatchProgress",
    "BatchRoute",
    "SDKBatchClient",
    "answer_response",
    "batch_route",
    "in_batch",
    "retried",
    "wire_body",
]


AnswerKind = Literal["succeeded", "errored", "expired", "canceled", "missing"]


def wire_body(request: dict[str, Any]) -> dict[str, Any]:
    """The JSON body an SDK would send for ``request`` (an adapter's keyword arguments): the
    client-side ``timeout`` left out, ``extra_body`` merged in, as the SDKs do."""
    from argue.llm._adapter import sdk_body

    decoded: dict[str, Any] = json.loads(json.dumps(sdk_body(request)))  # nothing SDK-typed
    return decoded


@dataclass(frozen=True)
class BatchAnswer:
    """One request's outcome in an ended batch: ``reply`` (the SDK response object) when it
    succeeded, else ``kind`` and, for an error, the provider's words and HTTP status."""

    custom_id: str
    kind: AnswerKind
    reply: object | None = None
    status_code: int | None = None
    error: str = ""


@dataclass(frozen=True)
class BatchProgress:
    """How far a batch got: ``ended`` once its answers can be read (completed, expired or
    cancelled alike); ``problem`` when the whole batch failed (nothing in it ran)."""

    status: str
    ended: bool
    done: int
    total: int
    failed: int = 0
    problem: str | None = None
    # The client token argue tagged the batch with (OpenAI's metadata), when the API keeps one.
    tag: str | None = None


class BatchClient(Protocol):
    """One provider's batch engine."""

    provider: str
    engine: str  # "OpenAI Batch API", "Anthropic Message Batches"

    async def create(self, requests: list[tuple[str, dict[str, Any]]], tag: str) -> str:
        """Submit ``(custom_id, body)`` pairs as one batch tagged with the client token ``tag``
        where the API keeps one; its id."""
        ...

    async def find(self, tag: str, custom_ids: set[str], since: float) -> str | None:
        """The batch created for the intent ``tag`` (holding ``custom_ids``, created after the
        Unix time ``since``), if the provider has one; None if not."""
        ...

    async def progress(self, batch_id: str) -> BatchProgress: ...

    async def results(self, batch_id: str) -> dict[str, BatchAnswer]:
        """Every answer of an ended batch, by custom_id."""
        ...

    async def aclose(self) -> None: ...


class SDKBatchClient(Generic[ClientT]):
    """What both providers' batch clients share: the adapter's own connection (its key, base
    URL and request timeout), its SDK client opened on first use and closed once."""

    engine: str

    def __init__(self, model: SDKAdapter[Any, ClientT, Any]) -> None:
        self._model = model
        self.provider = model.provider
        self._client: ClientT | None = None

    def _sdk(self) -> ClientT:
        if self._client is None:
            self._client = self._model._connection.client(self._model._retry.request_timeout_s)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None


def answer_response(
    adapter: SDKAdapter[Any, Any, Any], batch_id: str, answer: BatchAnswer | None
) -> Any:
    """The adapter's response for one answer read from batch ``batch_id``, or that call's
    ModelError: a request rejected inside the batch (4xx) is a rejection, with its status, so
    the adapter adapts to it as to a direct one (another dialect, no temperature); an expired,
    cancelled or missing answer is unavailable (nothing happened: it was not billed)."""
    where = f"failed inside batch {batch_id}"
    secrets = adapter._secrets()
    provider = adapter.provider
    if answer is None:
        answer = BatchAnswer(custom_id="", kind="missing")
    if answer.kind == "succeeded":
        try:
            return adapter._checked_response(answer.reply)
        except TransportFailure as failure:
            raise masked_error(
                ModelUnavailableError,
                provider,
                f"{where}: unreadable answer ({failure.detail})",
                secrets=secrets,
            ) from None
    if answer.kind == "errored":
        status = answer.status_code
        said = f"HTTP {status}: {answer.error}" if status else answer.error or "no reason given"
        kind: type[ModelError] = (
            ModelRequestError
            if status is not None and 400 <= status < 500 and status != 429
            else ModelUnavailableError
        )
        raise masked_error(kind, provider, f"{where}: {said}", status_code=status, secrets=secrets)
    why = {
        "expired": "the batch expired (its 24-hour window ended) before this request was answered",
        "canceled": "the batch was cancelled before this request was answered",
        "missing": "the batch ended without an answer for this request",
    }[answer.kind]
    raise masked_error(
        ModelUnavailableError, provider, f"{where}: {why} (not billed)", secrets=secrets
    )


async def retried(
    adapter: SDKAdapter[Any, Any, Any],
    sdk: Any,
    what: str,
    call: Callable[[float], Awaitable[R]],
) -> R:
    """One batch API call (``call(timeout_s)``) with the adapter's retry policy and its SDK
    errors translated as a chat call's are; a ModelError names ``what`` was being done."""
    policy = adapter._retry

    async def attempt(timeout_s: float) -> R:
        with adapter._sdk_failures(sdk, timeout_s):
            return await call(timeout_s)

    try:
        return await call_with_retries(
            attempt,
            provider=adapter.provider,
            endpoint=adapter._connection.base_url,
            policy=policy,
            sleep=adapter._sleep,
            clock=adapter._clock,
            auth_hint=adapter._connection.key_env,
            secrets=adapter._secrets(),
        )
    except ModelAuthError:
        raise
    except ModelError as error:
        said = str(error).removeprefix(f"{adapter.provider}: ")
        raise masked_error(
            type(error),
            adapter.provider,
            f"{what}: {said}",
            status_code=error.status_code,
            secrets=adapter._secrets(),
        ) from None
