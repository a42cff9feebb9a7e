"""The retry loop on its own: classification, waits, bounds and final errors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from argue.llm import ModelAuthError, ModelRequestError, ModelUnavailableError, RetryPolicy
from argue.llm._retry import (
    TransportFailure,
    call_with_retries,
    error_detail,
    parse_retry_after,
    status_failure,
)
from tests.llm.wire import SleepRecorder


class ScriptedAttempts:
    """An attempt function that fails with the given failures, then returns "done"."""

    def __init__(self, *failures: TransportFailure) -> None:
        self.failures = list(failures)
        self.calls = 0
        self.timeouts: list[float] = []

    async def __call__(self, timeout_s: float) -> str:
        self.calls += 1
        self.timeouts.append(timeout_s)
        if self.failures:
            raise self.failures.pop(0)
        return "done"


class FakeTime:
    """A clock that only moves when the injected sleep (or an attempt) says so."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def http(status: int, retry_after: str | None = None, body: object = None) -> TransportFailure:
    headers = {"retry-after": retry_after} if retry_after else {}
    return status_failure(status, headers, body or {"error": {"message": f"status {status}"}})


async def run(attempts: ScriptedAttempts, policy: RetryPolicy, sleeps: SleepRecorder) -> str:
    return await call_with_retries(
        attempts, provider="demo", endpoint="http://demo", policy=policy, sleep=sleeps
    )


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
async def test_transient_statuses_are_retried(status: int):
    attempts, sleeps = ScriptedAttempts(http(status)), SleepRecorder()
    assert await run(attempts, RetryPolicy(jitter_s=0), sleeps) == "done"
    assert attempts.calls == 2


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (400, ModelRequestError),
        (401, ModelAuthError),
        (403, ModelAuthError),
        (404, ModelRequestError),
        (422, ModelRequestError),
    ],
)
async def test_client_errors_fail_at_once(status: int, error_type: type[Exception]):
    attempts, sleeps = ScriptedAttempts(http(status)), SleepRecorder()
    with pytest.raises(error_type, match=f"^demo: HTTP {status} from http://demo"):
        await run(attempts, RetryPolicy(), sleeps)
    assert (attempts.calls, sleeps.waits) == (1, [])


async def test_backoff_grows_exponentially_with_bounded_jitter():
    policy = RetryPolicy(max_attempts=5, initial_backoff_s=1.0, max_backoff_s=30, jitter_s=0.5)
    attempts = ScriptedAttempts(*(TransportFailure("connection", detail="refused"),) * 4)
    sleeps = SleepRecorder()

    await run(attempts, policy, sleeps)

    assert len(sleeps.waits) == 4
    for wait, base in zip(sleeps.waits, [1.0, 2.0, 4.0, 8.0], strict=True):
        assert base <= wait <= base + 0.5


async def test_backoff_is_capped():
    policy = RetryPolicy(max_attempts=4, initial_backoff_s=20, max_backoff_s=30, jitter_s=5)
    attempts = ScriptedAttempts(*(http(500),) * 3)
    sleeps = SleepRecorder()
    await run(attempts, policy, sleeps)
    assert sleeps.waits[1:] == [30.0, 30.0]


async def test_a_retry_after_beyond_the_total_budget_stops_at_once_and_names_the_wait():
    policy = RetryPolicy(max_attempts=5, max_total_s=10, max_backoff_s=60)
    attempts, sleeps = ScriptedAttempts(http(429, retry_after="20")), SleepRecorder()

    with pytest.raises(ModelUnavailableError) as caught:
        await run(attempts, policy, sleeps)

    assert (attempts.calls, sleeps.waits) == (1, [])
    assert str(caught.value) == (
        "demo: HTTP 429 from http://demo: rate limited; retry after 20 s "
        "(beyond this call's 10 s budget): status 429"
    )
    assert caught.value.status_code == 429


async def test_retry_after_is_honoured_in_full_beyond_the_backoff_cap():
    policy = RetryPolicy(max_attempts=3, max_total_s=300, max_backoff_s=30)
    attempts, sleeps = ScriptedAttempts(http(429, retry_after="45")), SleepRecorder()

    assert await run(attempts, policy, sleeps) == "done"

    assert (attempts.calls, sleeps.waits) == (2, [45.0])


async def test_a_retry_after_that_outlasts_the_budget_left_stops_the_call():
    """Waits spent earlier count: 25 s of a 60 s budget gone, a 40 s retry-after is too long."""
    time = FakeTime()
    policy = RetryPolicy(max_attempts=5, max_total_s=60, initial_backoff_s=25, jitter_s=0)
    attempts = ScriptedAttempts(http(503), http(429, retry_after="40"))

    with pytest.raises(ModelUnavailableError, match=r"rate limited; retry after 40 s"):
        await call_with_retries(
            attempts,
            provider="demo",
            endpoint="http://demo",
            policy=policy,
            sleep=time.sleep,
            clock=time.clock,
        )

    assert (attempts.calls, time.waits) == (2, [25.0])


async def test_a_backoff_that_would_end_past_the_budget_is_not_started():
    time = FakeTime()
    policy = RetryPolicy(
        max_attempts=4,
        max_total_s=80,
        request_timeout_s=40,
        initial_backoff_s=30,
        max_backoff_s=60,
        jitter_s=0,
    )
    attempts = ScriptedAttempts(http(500), http(500), http(500))

    with pytest.raises(ModelUnavailableError, match="gave up after 2 attempts") as caught:
        await call_with_retries(
            attempts,
            provider="demo",
            endpoint="http://demo",
            policy=policy,
            sleep=time.sleep,
            clock=time.clock,
        )

    # After a 30 s wait the 50 s left still allow the full 40 s; the next wait (60 s) would
    # end past the 80 s budget, so no third attempt is started.
    assert attempts.timeouts == [40.0, 40.0]
    assert time.waits == [30.0]
    assert "HTTP 500" in str(caught.value)


async def test_an_attempt_timeout_is_cut_to_the_budget_left():
    time = FakeTime()
    policy = RetryPolicy(
        max_attempts=3, max_total_s=50, request_timeout_s=40, initial_backoff_s=5, jitter_s=0
    )
    attempts = ScriptedAttempts(TransportFailure("timeout", detail="no answer within 25 s"))

    async def first_one_slow(timeout_s: float) -> str:
        if attempts.calls == 0:
            time.now += 25.0  # the first attempt takes 25 s before failing
        return await attempts(timeout_s)

    result = await call_with_retries(
        first_one_slow,
        provider="demo",
        endpoint="http://demo",
        policy=policy,
        sleep=time.sleep,
        clock=time.clock,
    )

    assert result == "done"
    # 25 s spent plus a 5 s wait leave 20 s of the 50 s budget for the second attempt.
    assert attempts.timeouts == [40.0, 20.0]
    assert time.waits == [5.0]


async def test_exhaustion_reports_attempts_and_last_error():
    attempts = ScriptedAttempts(
        http(500), TransportFailure("timeout", detail="no answer within 2 s")
    )
    sleeps = SleepRecorder()
    with pytest.raises(ModelUnavailableError) as caught:
        await run(attempts, RetryPolicy(max_attempts=2, jitter_s=0), sleeps)
    assert str(caught.value) == (
        "demo: gave up after 2 attempts at http://demo: last error no answer within 2 s"
    )


def test_retry_after_in_seconds_milliseconds_and_dates():
    now = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after({"retry-after": "12"}) == 12.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Sun, 29 Nov 2026 12:00:45 GMT"}, now=now) == 45.0
    assert parse_retry_after({"retry-after": "Sun, 29 Nov 2026 11:00:00 GMT"}, now=now) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_quota_exhaustion_is_recognised_from_the_body():
    quota = status_failure(
        429, {}, {"message": "You exceeded your current quota", "code": "insufficient_quota"}
    )
    rate = status_failure(429, {}, {"message": "Rate limit reached", "code": "rate_limit_exceeded"})
    assert quota.quota_exhausted and not quota.retryable
    assert rate.retryable and not rate.quota_exhausted


def test_error_detail_reads_the_common_body_shapes():
    assert error_detail({"type": "error", "error": {"type": "x", "message": "bad"}}) == "bad"
    assert error_detail({"message": "flat"}) == "flat"
    assert error_detail({"error": "model 'llama9' not found"}) == "model 'llama9' not found"
    assert error_detail("<html>\n  Bad   Gateway\n</html>") == "<html> Bad Gateway </html>"
    assert len(error_detail("x" * 1000)) == 300
