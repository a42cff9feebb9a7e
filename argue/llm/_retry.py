"""One retry loop around each HTTP call: tenacity, exponential backoff with jitter, retry-after.

Adapters translate their SDK's exceptions into ``TransportFailure`` (status, retry-after, the
server's own words); this module decides whether to wait and try again, and turns the final
failure into the right ``ModelError`` with a one-line, secret-free message.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal, TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
)

from argue.concurrency import cede
from argue.llm._secrets import masked_error
from argue.llm.base import (
    ModelAuthError,
    ModelError,
    ModelRequestError,
    ModelServerDiedError,
    ModelUnavailableError,
)
from argue.redact import redact, strip_credential_headers, strip_credential_text

R = TypeVar("R")
Sleep = Callable[[float], Awaitable[None]]

RETRYABLE_STATUSES = frozenset({408, 409, 429})
AUTH_STATUSES = frozenset({401, 403})
QUOTA_MARKERS = (
    "insufficient_quota",
    "exceeded your current quota",
    "credit balance",
    "billing_hard_limit",
)
DETAIL_LIMIT = 300


@dataclass(frozen=True)
class RetryPolicy:
    """Bounds for one logical call: attempts, total time, per-request timeout, waits.

    ``max_backoff_s`` caps argue's own exponential backoff; a server's retry-after is honoured
    as given (within ``max_total_s``).
    """

    max_attempts: int = 4
    max_total_s: float = 300.0
    request_timeout_s: float = 120.0
    initial_backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    jitter_s: float = 1.0
    # A self-hosted server keeps computing a request argue stopped waiting for: sending it again
    # only queues a second copy behind the first (one slot: the wait doubles). Off for those.
    retry_timeouts: bool = True

    def backoff_s(self, failed_attempts: int) -> float:
        base = self.initial_backoff_s * 2 ** (failed_attempts - 1)
        return min(base + random.uniform(0.0, self.jitter_s), self.max_backoff_s)


FailureKind = Literal["status", "timeout", "connection", "dropped", "crashed", "unreadable"]
# "crashed": the server dropped the connection mid-answer and then refused the next connection,
# so the process that was answering is gone. Not retried: nothing listens, and a restarted server
# given the same request may die the same way. Its log or ``dmesg`` says why.
CRASH_WORDS = "the server process died while answering (check its log or dmesg)"
EARLIER_CRASH_WORDS = (
    "the server process died while answering an earlier call (check its log or dmesg)"
)
# Words in a 5xx body that say the server refused this request, not that it is down: such a
# rejection is deterministic (llama-cpp-python answers 500 to a response_format it does not know).
_REQUEST_MARKERS = (
    "response_format",
    "json_schema",
    "json_object",
    "grammar",
    "validation error",
    "validationerror",
    "unsupported",
    "not supported",
    "invalid request",
    "invalid_request",
    "unrecognized",
    "extra inputs",
)
DETERMINISTIC_STATUSES = frozenset({400, 404, 405, 413, 415, 422})


def names_the_request(detail: str) -> bool:
    lowered = detail.lower()
    return any(marker in lowered for marker in _REQUEST_MARKERS)


class TransportFailure(Exception):
    """What one HTTP attempt ran into, in SDK-neutral terms."""

    def __init__(
        self,
        kind: FailureKind,
        *,
        status: int | None = None,
        detail: str = "",
        retry_after_s: float | None = None,
        quota_exhausted: bool = False,
        deterministic: bool = False,
        possibly_billed: bool = False,
    ) -> None:
        super().__init__(detail)
        self.kind = kind
        # The request was sent, and no answer came (a timeout, a connection dropped or reset
        # after sending): the server may have computed it, and billed it.
        self.possibly_billed = possibly_billed
        self.status = status
        self.detail = detail
        self.retry_after_s = retry_after_s
        self.quota_exhausted = quota_exhausted
        # The same request would fail the same way: a rejection, not an outage.
        self.deterministic = deterministic or (
            kind == "status"
            and status is not None
            and (status in DETERMINISTIC_STATUSES or (status >= 500 and names_the_request(detail)))
        )

    @property
    def retryable(self) -> bool:
        if self.deterministic or self.kind == "crashed":
            return False
        if self.kind in ("timeout", "connection", "dropped"):
            return True
        if self.kind == "unreadable" or self.status is None or self.quota_exhausted:
            return False
        return self.status in RETRYABLE_STATUSES or self.status >= 500

    def describe(self) -> str:
        if self.kind == "status":
            return f"HTTP {self.status}: {self.detail}" if self.detail else f"HTTP {self.status}"
        return self.detail


# httpx's errors (httpx and httpx2 name them alike) that came after the whole request was sent:
# waiting for the answer (ReadTimeout), or the connection closed or reset before one came
# (RemoteProtocolError: "Server disconnected without sending a response"; ReadError). The
# server may have computed, and billed, the request.
_AFTER_SENDING = frozenset({"ReadTimeout", "ReadError", "RemoteProtocolError"})
# Those that came before the request was wholly sent: nothing a server could compute or bill.
_BEFORE_SENDING = frozenset(
    {
        "ConnectTimeout",
        "PoolTimeout",
        "WriteTimeout",
        "ConnectError",
        "WriteError",
        "LocalProtocolError",
        "UnsupportedProtocol",
        "ProxyError",
    }
)


def reached_server(error: BaseException, *, unknown: bool) -> bool:
    """Whether the request behind ``error`` (an SDK's or httpx's, its causes followed) was
    wholly sent before it failed, so that the server may have computed, and billed, it;
    ``unknown`` when its causes do not say."""
    seen: BaseException | None = error
    for _ in range(6):
        if seen is None:
            break
        name = type(seen).__name__
        if name in _BEFORE_SENDING:
            return False
        if name in _AFTER_SENDING:
            return True
        seen = seen.__cause__ or seen.__context__
    return unknown


def sent_before_timeout(error: BaseException) -> bool:
    """Whether a timeout came while waiting for the answer to a request already sent (httpx's
    ReadTimeout), so that the server may have computed, and billed, it. A timeout connecting,
    waiting for a pooled connection or still writing the request (ConnectTimeout, PoolTimeout,
    WriteTimeout) was not; a timeout that cannot be told apart counts as sent."""
    return reached_server(error, unknown=True)


def sent_before_dropping(error: BaseException) -> bool:
    """Whether a failed connection had sent the whole request first: the server read it, then
    closed or reset the connection without an answer (RemoteProtocolError, ReadError), so it
    may have computed, and billed, it. A connection refused, a failed write, a proxy or TLS
    failure (ConnectError, WriteError…) sent nothing; one that cannot be told apart counts as
    not sent (nothing says it reached a server)."""
    return reached_server(error, unknown=False)


def one_line(text: str, limit: int = DETAIL_LIMIT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def error_detail(body: object, fallback: str = "") -> str:
    """The server's own explanation of an error body, as one short line: credential headers
    a server echoed stripped, then secrets masked (before the cut, so no part of one is left)."""
    body = strip_credential_headers(body)
    message: object = None
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict):
            message = error.get("message")
        elif isinstance(error, str):
            message = error
        message = message or body.get("message") or body.get("detail")
    elif isinstance(body, str | bytes):
        message = body
    return one_line(redact(strip_credential_text(str(message or fallback))))


def is_quota_exhausted(body: object) -> bool:
    try:
        text = json.dumps(body) if not isinstance(body, str) else body
    except (TypeError, ValueError):
        text = str(body)
    lowered = text.lower()
    return any(marker in lowered for marker in QUOTA_MARKERS)


def parse_retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date)."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def status_failure(status: int, headers: Mapping[str, str], body: object) -> TransportFailure:
    return TransportFailure(
        "status",
        status=status,
        detail=error_detail(body),
        retry_after_s=parse_retry_after(headers),
        quota_exhausted=status in (402, 429) and is_quota_exhausted(body),
    )


def final_error(
    failure: TransportFailure,
    *,
    provider: str,
    endpoint: str,
    attempts: int,
    auth_hint: str = "",
    secrets: Iterable[str | None] = (),
) -> ModelError:
    """The ModelError a caller sees once no (further) retry will happen."""
    status = failure.status
    if failure.kind == "status" and status in AUTH_STATUSES:
        hint = f" (check {auth_hint})" if auth_hint else ""
        message = f"HTTP {status} from {endpoint}: credentials rejected{hint}: {failure.detail}"
        return masked_error(ModelAuthError, provider, message, status_code=status, secrets=secrets)
    if failure.kind == "status" and failure.quota_exhausted:
        message = f"HTTP {status} from {endpoint}: quota or credit exhausted: {failure.detail}"
        return masked_error(
            ModelRequestError, provider, message, status_code=status, secrets=secrets
        )
    if failure.kind == "crashed":
        message = f"{endpoint}: {failure.detail}"
        return masked_error(ModelServerDiedError, provider, message, secrets=secrets)
    if failure.kind == "dropped" and failure.deterministic:
        message = f"{endpoint} closed the connection without answering: {failure.detail}"
        return masked_error(ModelRequestError, provider, message, secrets=secrets)
    if failure.kind == "status" and not failure.retryable:
        message = (
            f"HTTP {status} from {endpoint}: request rejected (not retried: the same request "
            f"would be rejected again): {failure.detail}"
        )
        return masked_error(
            ModelRequestError, provider, message, status_code=status, secrets=secrets
        )
    if failure.kind == "timeout" and attempts == 1:
        message = f"{endpoint}: {failure.describe()}"
        return masked_error(ModelUnavailableError, provider, message, secrets=secrets)
    if failure.kind == "unreadable":
        message = f"unreadable response from {endpoint}: {failure.detail}"
        return masked_error(ModelUnavailableError, provider, message, secrets=secrets)
    message = (
        f"gave up after {attempts} attempt{'s' if attempts != 1 else ''} at {endpoint}: "
        f"last error {failure.describe()}"
    )
    return masked_error(
        ModelUnavailableError, provider, message, status_code=status, secrets=secrets
    )


def rate_limited_error(
    failure: TransportFailure,
    *,
    provider: str,
    endpoint: str,
    budget_s: float,
    secrets: Iterable[str | None] = (),
) -> ModelError:
    """The server asked for a longer wait than this call has left: say so, and how long."""
    wait_s = math.ceil(failure.retry_after_s or 0.0)
    what = "rate limited" if failure.status == 429 else "unavailable"
    message = (
        f"HTTP {failure.status} from {endpoint}: {what}; retry after {wait_s} s "
        f"(beyond this call's {budget_s:g} s budget)"
    )
    if failure.detail:
        message += f": {failure.detail}"
    return masked_error(
        ModelUnavailableError, provider, message, status_code=failure.status, secrets=secrets
    )


async def call_with_retries(
    attempt: Callable[[float], Awaitable[R]],
    *,
    provider: str,
    endpoint: str,
    policy: RetryPolicy,
    sleep: Sleep = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
    auth_hint: str = "",
    secrets: Iterable[str | None] = (),
) -> R:
    """Run ``attempt(timeout_s)`` until it succeeds, fails for good, or the policy's bounds are
    reached.

    ``max_total_s`` bounds waits and attempts together: a retry happens only when its wait ends
    inside the budget, and each attempt's timeout is cut to what is left of it. A server's
    retry-after is honoured in full; one that reaches past the budget ends the call at once.
    """
    started = clock()

    def budget_left() -> float:
        return policy.max_total_s - (clock() - started)

    def wait(state: RetryCallState) -> float:
        failure = state.outcome.exception() if state.outcome else None
        if isinstance(failure, TransportFailure) and failure.retry_after_s is not None:
            return failure.retry_after_s
        return policy.backoff_s(state.attempt_number)

    told_to_wait_too_long: TransportFailure | None = None

    def stop(state: RetryCallState) -> bool:
        nonlocal told_to_wait_too_long
        if state.attempt_number >= policy.max_attempts:
            return True
        if state.upcoming_sleep < budget_left():
            return False
        failure = state.outcome.exception() if state.outcome else None
        if isinstance(failure, TransportFailure) and failure.retry_after_s is not None:
            told_to_wait_too_long = failure
        return True

    def worth_retrying(exc: BaseException) -> bool:
        if not isinstance(exc, TransportFailure) or not exc.retryable:
            return False
        return exc.kind != "timeout" or policy.retry_timeouts

    async def ceding_sleep(seconds: float) -> None:
        cede()  # waiting to retry: the next call may be built meanwhile
        await sleep(seconds)

    retrying = AsyncRetrying(
        stop=stop,
        wait=wait,
        retry=retry_if_exception(worth_retrying),
        sleep=ceding_sleep,
        reraise=True,
    )
    attempts = 0
    try:
        async for attempt_state in retrying:
            with attempt_state:
                attempts += 1
                return await attempt(max(0.0, min(policy.request_timeout_s, budget_left())))
    except TransportFailure as failure:
        if failure.kind == "timeout" and not policy.retry_timeouts:
            failure.detail += (
                "; not sent again, since the server may still be computing it "
                "(ARGUE_REQUEST_TIMEOUT_S gives a slow server longer)"
            )
        if failure is told_to_wait_too_long:
            raise rate_limited_error(
                failure,
                provider=provider,
                endpoint=endpoint,
                budget_s=policy.max_total_s,
                secrets=secrets,
            ) from None
        raise final_error(
            failure,
            provider=provider,
            endpoint=endpoint,
            attempts=attempts,
            auth_hint=auth_hint,
            secrets=secrets,
        ) from None
    raise AssertionError("unreachable: tenacity neither returned nor raised")  # pragma: no cover
