"""``argue eval --batch``: the eval's independent calls gathered into provider batches, a wave
at a time, and their answers handed back to the calls that wait for them.

Every (item, arm) runs in a *lane* (``BatchCollector.lane``): its model is a ``BatchingModel``
that routes each call's requests (``argue.llm._batch.BATCH_ROUTE``) to the collector instead
of the provider's chat endpoint. The adapter still builds each request and reads each reply;
the collector only carries them. It submits what is queued as one batch once every lane is
waiting for an answer (all items run at once in batch mode, so that is the whole wave: the
single calls, the vote samples, each society round, each debate phase, across all items), or
after a quiet window with nothing new queued (a lane busy with something else must not hold
the others up forever). A re-ask or a resend after a cut-off answer joins the next wave.

Each batch is written to the eval folder's ``batches.jsonl`` the moment it is created, with the
custom_id of every request in it. A custom_id is deterministic: a hash of the item, the arm,
the call's purpose, the exact request body and its occurrence in the lane. So a run that was
killed between submission and results, run again, makes the same requests, finds them in a
recorded batch and re-attaches to it (polls it, reads its answers) instead of submitting them
again; a request whose body changed is new, and is submitted.

Polling reports progress ("batch msgbatch_…: 37/100 done, 12 s") at an interval that grows
(``BatchPolling``). A request that failed inside a batch fails its own call, in plain words
("failed inside batch <id>: …"); an expired or cancelled batch fails the calls it did not
answer as unavailable; the eval goes on with the rest.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError

from argue.eval.folder import INTENT, BatchRecord, EvalFolder
from argue.llm import WrappedModel
from argue.llm._batch import (
    BATCH_ROUTE,
    BatchAnswer,
    BatchClient,
    BatchProgress,
    answer_response,
    wire_body,
)
from argue.llm.base import (
    ChatModel,
    ChatResult,
    Message,
    ModelAuthError,
    ModelError,
    ModelRequestError,
    ModelUnavailableError,
)

T = TypeVar("T", bound=BaseModel)

# The queue counts as settled after this many turns of the event loop with nothing new in it:
# calls that ``asyncio.gather`` started together have all been queued by then.
SETTLE_TURNS = 5
MAX_SETTLE_TURNS = 10_000
# A custom_id is this and 40 hex digits: within Anthropic's 1-64 characters of [a-zA-Z0-9_-].
CUSTOM_ID_PREFIX = "argue-"
ANSWER_KINDS = ("succeeded", "errored", "expired", "canceled")


@dataclass(frozen=True)
class BatchPolling:
    """How often a batch is asked after: ``first_s``, then ``factor`` times longer each time
    up to ``max_s``. ``quiet_s``: how long the queue may sit with a lane not waiting before it
    is submitted anyway. A progress line at most every ``report_every_s`` unless it moved."""

    first_s: float = 5.0
    max_s: float = 60.0
    factor: float = 1.5
    quiet_s: float = 2.0
    report_every_s: float = 60.0
    max_failed_polls: int = 10

    @classmethod
    def starting_at(cls, first_s: float) -> BatchPolling:
        """Polling that starts every ``first_s`` and backs off to twelve times that."""
        return cls(first_s=first_s, max_s=max(first_s, 12 * first_s))


class BatchLane:
    """One (item, arm) of the eval: its calls waiting for answers."""

    def __init__(self, key: tuple[str, str]) -> None:
        self.key = key
        self.open: set[asyncio.Future[Any]] = set()
        self.seen: dict[str, int] = {}

    @property
    def waiting(self) -> bool:
        return any(not future.done() for future in self.open)


@dataclass
class _Queued:
    custom_id: str
    body: dict[str, Any]
    call: str
    future: asyncio.Future[tuple[str, BatchAnswer | None]]


@dataclass(frozen=True)
class _Route:
    collector: BatchCollector
    lane: BatchLane
    purpose: str | None

    async def send(self, adapter: Any, request: dict[str, Any]) -> Any:
        return await self.collector.send(self.lane, self.purpose, adapter, request)


class BatchingModel(WrappedModel):
    """A lane's model: each call's requests go through the collector's batches."""

    def __init__(self, inner: ChatModel, collector: BatchCollector, lane: BatchLane) -> None:
        super().__init__(inner)
        self._collector = collector
        self._lane = lane

    async def complete(
        self,
        messages: list[Message],
        *,
        output: type[T] | None = None,
        max_tokens: int = 2048,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> ChatResult[T]:
        token = BATCH_ROUTE.set(_Route(self._collector, self._lane, purpose))
        try:
            return await super().complete(
                messages,
                output=output,
                max_tokens=max_tokens,
                temperature=temperature,
                purpose=purpose,
            )
        finally:
            BATCH_ROUTE.reset(token)


def _fresh(error: BaseException) -> BaseException:
    """A copy of ``error`` for one more waiting call (each raise gets its own traceback)."""
    clone = BaseException.__new__(type(error))
    clone.__dict__.update(error.__dict__)
    clone.args = error.args
    return clone


@dataclass
class _RunCounts:
    created: list[str] = field(default_factory=list)
    reattached: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    submitted: int = 0
    reattached_requests: int = 0


class _NotOurs(Exception):
    """A recorded or found batch whose requests are not this run's: refused, not used."""


def intent_token(custom_ids: list[str]) -> str:
    """The client token of a batch of these requests: the same requests, the same token, so a
    run killed before recording the batch's id finds it again under the intent it recorded."""
    return hashlib.sha256("\n".join(sorted(custom_ids)).encode()).hexdigest()[:32]


class BatchCollector:
    """Gathers the lanes' requests into batches of ``client``'s engine, recorded in ``folder``."""

    def __init__(
        self,
        client: BatchClient,
        folder: EvalFolder,
        *,
        report: Callable[[str], None] = lambda _: None,
        polling: BatchPolling | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.client = client
        self._folder = folder
        self._report = report
        self._polling = polling or BatchPolling()
        self._sleep = sleep
        self._clock = clock
        self._now = now
        self._lanes: set[BatchLane] = set()
        self._queue: list[_Queued] = []
        self._wake: asyncio.Event | None = None
        self._known: dict[str, str] = {}  # custom_id -> the recorded batch that answers it
        self._calls_of: dict[str, set[str]] = {}  # batch id -> its recorded custom_ids
        self._intent_of: dict[str, str] = {}  # batch id -> its recorded client token
        self._pending: dict[str, str] = {}  # custom_id -> an intent with no batch recorded
        self._intents: dict[str, BatchRecord] = {}  # client token -> its intent line
        self._status: dict[str, str] = {}  # batch id -> how it ended
        self._mine: set[str] = set()  # the custom_ids this run queued
        self._answered: set[str] = set()  # of those, the ones a batch answered
        self._wave = 0
        self._followed: dict[str, asyncio.Task[dict[str, BatchAnswer]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.this_run = _RunCounts()

    # -- the eval's side

    @asynccontextmanager
    async def collecting(self) -> AsyncIterator[BatchCollector]:
        """Collect while the body runs; on the way out (cancelled too) stop polling and close
        the client. Batches already submitted stay recorded for the next run."""
        self._wake = asyncio.Event()
        records, intents, problems = self._folder.batch_lines()
        for problem in problems:
            self._report(problem)
        ours = {k: r for k, r in records.items() if r.provider == self.client.provider}
        for batch_id, record in ours.items():
            self._calls_of[batch_id] = set(record.calls)
            if record.intent:
                self._intent_of[batch_id] = record.intent
            failed = set(record.failed)  # not answered there: submitted again
            self._known.update({c: batch_id for c in record.calls if c not in failed})
        placed = set(self._intent_of.values())
        for intent in intents:
            self._wave = max(self._wave, intent.wave or 0)
            if intent.provider != self.client.provider or intent.intent in placed:
                continue
            assert intent.intent is not None
            self._intents[intent.intent] = intent
            self._pending.update({c: intent.intent for c in intent.calls})
        collector = asyncio.create_task(self._collect())
        try:
            yield self
        finally:
            pending: list[asyncio.Task[Any]] = [collector, *self._tasks, *self._followed.values()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            await self.client.aclose()

    @asynccontextmanager
    async def lane(self, key: tuple[str, str], model: ChatModel) -> AsyncIterator[ChatModel]:
        """``model`` for one (item, arm) whose calls go into batches, while the body runs."""
        lane = BatchLane(key)
        self._lanes.add(lane)
        try:
            yield BatchingModel(model, self, lane)
        finally:
            self._lanes.discard(lane)
            self._poke()

    async def send(
        self, lane: BatchLane, purpose: str | None, adapter: Any, request: dict[str, Any]
    ) -> Any:
        """Queue one request of ``lane``'s call; the adapter's response once its batch ended."""
        body = wire_body(request)
        what = json.dumps([list(lane.key), purpose, body], sort_keys=True, ensure_ascii=True)
        digest = hashlib.sha256(what.encode()).hexdigest()
        occurrence = lane.seen.get(digest, 0)
        lane.seen[digest] = occurrence + 1
        custom_id = (
            CUSTOM_ID_PREFIX + hashlib.sha256(f"{digest}:{occurrence}".encode()).hexdigest()[:40]
        )
        call = f"{lane.key[0]}/{lane.key[1]}/{purpose or 'call'}"
        future: asyncio.Future[tuple[str, BatchAnswer | None]] = (
            asyncio.get_running_loop().create_future()
        )
        self._queue.append(_Queued(custom_id, body, call, future))
        self._mine.add(custom_id)
        lane.open.add(future)
        self._poke()
        try:
            batch_id, answer = await future
        finally:
            lane.open.discard(future)
        return answer_response(adapter, batch_id, answer)

    def summary(self) -> dict[str, Any]:
        """The batches of this eval (all runs) and what this run did, for the report."""
        from argue.llm.pricing import BATCH_PRICE_FACTOR

        records = self._folder.batches()
        used = [
            (record, len(set(record.calls) & self._mine))
            for batch_id, record in records.items()
            if batch_id not in self.this_run.refused
        ]
        return {
            "engine": self.client.engine,
            "provider": self.client.provider,
            "price": f"{BATCH_PRICE_FACTOR:.0%} of list price",
            # Only this run's requests are counted: a recorded batch's other custom_ids (an
            # earlier run's, or lines from elsewhere) are not.
            "batches": [
                {
                    "id": record.batch_id,
                    "requests": mine,
                    "status": record.status,
                    "counts": record.counts,
                }
                for record, mine in used
                if mine
            ],
            "requests": len(self._mine),
            "answered": len(self._answered & self._mine),
            "this_run": {
                "created": list(self.this_run.created),
                "reattached": list(self.this_run.reattached),
                "refused": list(self.this_run.refused),
                "requests_submitted": self.this_run.submitted,
                "requests_reattached": self.this_run.reattached_requests,
            },
        }

    # -- when to submit

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _live(self) -> list[_Queued]:
        return [queued for queued in self._queue if not queued.future.done()]

    def _everyone_waiting(self) -> bool:
        return all(lane.waiting for lane in self._lanes)

    async def _collect(self) -> None:
        assert self._wake is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._settle()
            if not self._live():
                continue
            if not self._everyone_waiting():
                try:
                    await asyncio.wait_for(self._wake.wait(), self._polling.quiet_s)
                    continue  # something changed: look again
                except TimeoutError:
                    pass  # quiet: submit what there is
            self._submit_queue()

    async def _settle(self) -> None:
        """Let the calls started together reach the queue (a few turns of the loop)."""
        assert self._wake is not None
        steady, size = 0, len(self._queue)
        for _ in range(MAX_SETTLE_TURNS):
            await asyncio.sleep(0)
            if len(self._queue) == size:
                steady += 1
                if steady >= SETTLE_TURNS:
                    break
            else:
                steady, size = 0, len(self._queue)
        self._wake.clear()  # what happened meanwhile is looked at now

    def _submit_queue(self) -> None:
        queued, self._queue = self._live(), []
        groups: dict[tuple[str, str | None], list[_Queued]] = {}
        for item in queued:
            if item.custom_id in self._known:
                group: tuple[str, str | None] = ("batch", self._known[item.custom_id])
            elif item.custom_id in self._pending:
                group = ("intent", self._pending[item.custom_id])
            else:
                group = ("new", None)
            groups.setdefault(group, []).append(item)
        for (kind, key), members in groups.items():
            task = asyncio.create_task(self._run_batch(kind, key, members))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    # -- one batch

    async def _run_batch(self, kind: str, key: str | None, members: list[_Queued]) -> None:
        """Re-attach ``members`` to the batch recorded for them (``kind`` "batch"), or to the
        one created for the intent recorded for them ("intent"), or submit them as a new batch
        ("new", or when neither is found); then give each waiting call its answer, or the
        error that stopped them all. A batch that turns out not to hold this run's requests
        is refused in one line and its requests submitted anew."""
        try:
            batch_id: str | None = None
            try:
                if kind == "batch" and key is not None:
                    batch_id = await self._reattach(key, members)
                elif kind == "intent" and key is not None:
                    batch_id = await self._found(key, members)
                if batch_id is None:
                    raise _NotOurs  # nothing to re-attach to: a new batch
                answers = await self._answers_of(batch_id, members)
            except _NotOurs:
                batch_id = await self._create(members)
                answers = await asyncio.shield(self._follow(batch_id))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a ModelError, or the folder refusing a write
            for member in members:
                if not member.future.done():
                    member.future.set_exception(_fresh(error))
            return
        expired = self._status.get(batch_id) == "expired"
        for member in members:
            answer = answers.get(member.custom_id)
            if answer is None and expired:  # OpenAI: an expired batch may list nothing
                answer = BatchAnswer(member.custom_id, "expired")
            if answer is not None and answer.kind == "succeeded":
                self._answered.add(member.custom_id)
            if not member.future.done():
                member.future.set_result((batch_id, answer))

    async def _answers_of(self, batch_id: str, members: list[_Queued]) -> dict[str, BatchAnswer]:
        """A re-attached batch's answers, once it is checked to be this run's: raises
        ``_NotOurs`` (said in one line) when its answers hold none of ``members``."""
        answers = await asyncio.shield(self._follow(batch_id))
        if answers and not any(m.custom_id in answers for m in members):
            self._refuse(
                batch_id,
                members,
                f"none of its {len(answers)} answer(s) is for this run's requests",
            )
        return answers

    def _refuse(self, batch_id: str, members: list[_Queued], why: str) -> NoReturn:
        self._report(
            f"batch {batch_id}: not this eval's batch ({why}): refused, not used; its "
            f"{len(members)} request(s) are submitted anew"
        )
        if batch_id not in self.this_run.refused:
            self.this_run.refused.append(batch_id)
        if batch_id in self.this_run.reattached:
            self.this_run.reattached.remove(batch_id)
        self.this_run.reattached_requests -= len(members)
        for member in members:
            self._known.pop(member.custom_id, None)
        raise _NotOurs

    async def _reattach(self, batch_id: str, members: list[_Queued]) -> str | None:
        """``batch_id`` when the provider still knows it as the batch recorded; None (submit
        again) when it does not (404: another account, or results past their retention);
        ``_NotOurs`` (refused, said in one line) when its size or client token are not the
        recorded batch's."""
        self._report(
            f"batch {batch_id}: re-attached to {len(members)} request(s) an earlier run "
            "submitted (not sent again)"
        )
        if batch_id not in self.this_run.reattached:
            self.this_run.reattached.append(batch_id)
        self.this_run.reattached_requests += len(members)
        try:
            progress = await self.client.progress(batch_id)
        except (ModelAuthError, ModelRequestError) as error:
            if error.status_code != 404:
                raise
            self.this_run.reattached.remove(batch_id)
            self.this_run.reattached_requests -= len(members)
            for member in members:
                self._known.pop(member.custom_id, None)
            self._report(
                f"batch {batch_id}: unknown to the {self.client.engine} ({error}); its "
                "requests are submitted again"
            )
            return None
        except ModelError:
            return batch_id  # asked after again while it is followed, with its own patience
        recorded = self._calls_of.get(batch_id, set())
        token = self._intent_of.get(batch_id)
        if progress.tag is not None and token is not None and progress.tag != token:
            self._refuse(batch_id, members, "it was created for another intent")
        if progress.total and recorded and progress.total != len(recorded):
            self._refuse(
                batch_id,
                members,
                f"it holds {progress.total} request(s), the record {len(recorded)}",
            )
        return batch_id

    async def _found(self, token: str, members: list[_Queued]) -> str | None:
        """The batch the provider created for the recorded intent ``token`` (a run killed
        between creating it and recording its id), recorded now; None when there is none
        (the run was killed before the provider created it: submitted now)."""
        intent = self._intents[token]
        ids = set(intent.calls)
        batch_id = await self.client.find(token, ids, intent.at)
        for custom_id in ids:
            self._pending.pop(custom_id, None)
        if batch_id is None:
            return None
        self._record_created(batch_id, token, intent.calls)
        self.this_run.reattached.append(batch_id)
        self.this_run.reattached_requests += len(members)
        self._report(
            f"batch {batch_id}: found the batch an earlier run created for {len(ids)} "
            "request(s) before it could record it; re-attached (not sent again)"
        )
        return batch_id

    def _record_created(self, batch_id: str, token: str, calls: dict[str, str]) -> None:
        at = self._now()
        try:
            record = BatchRecord(
                provider=self.client.provider,
                engine=self.client.engine,
                batch_id=batch_id,
                status="submitted",
                intent=token,
                submitted_at=at,
                calls=calls,
                at=at,
            )
        except ValidationError:
            raise ModelUnavailableError(
                self.client.provider,
                f"the {self.client.engine} answered a batch id argue cannot record "
                f"({batch_id[:80]!r}): the batch may run and be billed; look for it in the "
                "provider's console",
            ) from None
        # Recorded before anything else happens: a run killed from here on re-attaches.
        self._folder.append_batch(record)
        self._known.update({custom_id: batch_id for custom_id in calls})
        self._calls_of[batch_id] = set(calls)
        self._intent_of[batch_id] = token

    async def _create(self, members: list[_Queued]) -> str:
        """The intent recorded first (its wave, custom_ids and client token), then the batch
        created, tagged with the token where the API keeps one, then its id recorded."""
        calls = {m.custom_id: m.call for m in members}
        token = intent_token(list(calls))
        self._wave += 1
        self._folder.append_batch(
            BatchRecord(
                provider=self.client.provider,
                engine=self.client.engine,
                status=INTENT,
                intent=token,
                wave=self._wave,
                calls=calls,
                at=self._now(),
            )
        )
        batch_id = await self.client.create([(m.custom_id, m.body) for m in members], token)
        self._record_created(batch_id, token, calls)
        self.this_run.created.append(batch_id)
        self.this_run.submitted += len(members)
        self._report(
            f"batch {batch_id}: {len(members)} request(s) submitted to the {self.client.engine}"
        )
        return batch_id

    def _follow(self, batch_id: str) -> asyncio.Task[dict[str, BatchAnswer]]:
        """The one poller of ``batch_id`` (shared by every group waiting on it)."""
        task = self._followed.get(batch_id)
        if task is None:
            task = asyncio.create_task(self._poll(batch_id))
            self._followed[batch_id] = task
        return task

    async def _poll(self, batch_id: str) -> dict[str, BatchAnswer]:
        """Ask after ``batch_id`` until it ended (reporting progress), then read its answers
        and record its end."""
        polling = self._polling
        started, wait, failures = self._clock(), polling.first_s, 0
        said: tuple[str, int] | None = None
        said_at = -math.inf
        while True:
            try:
                progress = await self.client.progress(batch_id)
            except (ModelAuthError, ModelRequestError):
                raise
            except ModelError as error:
                failures += 1
                if failures >= polling.max_failed_polls:
                    raise ModelUnavailableError(
                        self.client.provider,
                        f"lost track of batch {batch_id} ({error}); it may still run and be "
                        f"billed: its id is in {self._folder.root / 'batches.jsonl'}, and "
                        "running the same command again re-attaches to it",
                    ) from None
                self._report(
                    f"batch {batch_id}: cannot ask after it ({error}); asking again in {wait:.0f} s"
                )
            else:
                failures = 0
                elapsed = self._clock() - started
                now_said = (progress.status, progress.done)
                if (
                    progress.ended
                    or now_said != said
                    or elapsed - said_at >= polling.report_every_s
                ):
                    self._report(
                        f"batch {batch_id}: {progress.done}/{progress.total} done, "
                        f"{elapsed:.0f} s ({progress.status})"
                    )
                    said, said_at = now_said, elapsed
                if progress.ended:
                    break
            await self._sleep(wait)
            wait = min(wait * polling.factor, polling.max_s)
        return await self._ended(batch_id, progress)

    async def _ended(self, batch_id: str, progress: BatchProgress) -> dict[str, BatchAnswer]:
        answers: dict[str, BatchAnswer] = {}
        if progress.problem is None:
            answers = await self.client.results(batch_id)
        counts = {kind: 0 for kind in ANSWER_KINDS}
        for answer in answers.values():
            counts[answer.kind] = counts.get(answer.kind, 0) + 1
        self._status[batch_id] = progress.status
        recorded = self._calls_of.get(batch_id, set())
        unanswered = sorted(
            c for c in recorded if c not in answers or answers[c].kind != "succeeded"
        )
        for custom_id in unanswered:  # the next run submits them again
            self._known.pop(custom_id, None)
        self._folder.append_batch(
            BatchRecord(
                provider=self.client.provider,
                engine=self.client.engine,
                batch_id=batch_id,
                status=progress.status,
                counts={k: v for k, v in counts.items() if v},
                failed=unanswered,
                at=self._now(),
            )
        )
        if progress.problem is not None:
            self._report(f"batch {batch_id}: {progress.problem}")
            raise ModelRequestError(
                self.client.provider, f"failed inside batch {batch_id}: {progress.problem}"
            )
        failed = [f"{counts[k]} {k}" for k in ANSWER_KINDS[1:] if counts[k]]
        self._report(
            f"batch {batch_id}: {progress.status}: {counts['succeeded']} answered"
            + (f", {', '.join(failed)}" if failed else "")
        )
        return answers
