"""The debate loop: research → argument → rebuttal → reflection → score and checkpoint.

Personas run each phase concurrently; a phase waits for all of them. Every phase result is
written to disk as soon as it exists, and a phase whose result is on disk is never re-run, so
``resume`` repeats no model call. A round is committed when scoring/round_NNN.json exists.
Stop and Ctrl-C are honoured between batches, never in the middle of one.
"""

from __future__ import annotations

import asyncio
import gc
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress

from argue.concurrency import SendTurns, after_this_turn
from argue.domain import (
    DebateState,
    Failure,
    JudgeVerdictRecord,
    Usage,
)
from argue.engine.framing import DebateFraming
from argue.engine.metering import MeteredModel
from argue.engine.runner_state import DebateFailed, Reporter, StopKind
from argue.engine.termination import TerminationDecision, check_termination, max_rounds_decision
from argue.engine.toolkit import ResearchToolkit
from argue.engine.waves import RoundWaves
from argue.llm.base import ChatModel, ModelAuthError
from argue.records.history import DebateHistory
from argue.records.labels import label_of
from argue.records.reasons import failure_sentence, note_words
from argue.records.terminal import score_words
from argue.store import DebateStore, StoreWriteError
from argue.store.history import load_history


def _quiet(_: str) -> None:
    return None


STOP_POLL_S = 0.5
"""How often a running debate looks for a `stop` to acknowledge it (it stops at a checkpoint)."""
STOP_REMIND_S = 30.0
"""How often it says again that it is still finishing calls in flight."""
VIEWS_WAIT_S = 2.0
"""At most how long a round's readable views wait for the next wave's requests to go out."""


class ViewsGate:
    """When a committed round's readable views may be written (in a thread that holds the GIL):
    once ``expected`` calls of the next wave have started and the last one's request is out, so
    that rendering never delays building that wave's requests (issue 43 item 4)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.started = 0
        self.go = threading.Event()

    def on_send(self) -> None:
        self.started += 1
        if self.started == self.expected:
            after_this_turn(self.go.set)

    def expect_one_more(self) -> None:
        """The next wave is a single call (the synthesis): it is the one to wait for."""
        if self.started < self.expected:
            self.expected = self.started + 1


class DebateRunner(DebateFraming, RoundWaves):
    def __init__(
        self,
        store: DebateStore,
        model: ChatModel,
        toolkit: ResearchToolkit,
        *,
        reporter: Reporter = _quiet,
        memory_writer: Callable[..., Awaitable[str]] | None = None,
        moderator: Callable[[int], Awaitable[str | None]] | None = None,
        persona_models: Mapping[str, ChatModel] | None = None,
        verifier_model: ChatModel | None = None,
    ) -> None:
        """``moderator(round_no)`` is asked after each round that does not end the debate; a
        note it returns binds every later round (``--interactive``).

        ``persona_models`` (letter -> model) gives a persona its own model for its research
        plan, argument, rebuttal, reflection and ``ask`` consultations; framing, the judge and
        the synthesis (and every persona not listed) use ``model``. ``verifier_model`` runs the
        support check (default: the judge's model, ``model``). All are metered alike."""
        self.store = store
        self.paths = store.paths
        # Every answer is appended to usage.jsonl as it arrives (a kill -9 loses none);
        # usage.json is the readable snapshot written at checkpoints.
        self.usage: list[Usage] = store.load_usage()
        self.model = MeteredModel(model, self.usage, store.append_usage, reporter)
        self.persona_models = {
            letter: MeteredModel(own, self.usage, store.append_usage, reporter)
            for letter, own in (persona_models or {}).items()
        }
        self.verifier = (
            self.model
            if verifier_model is None
            else MeteredModel(verifier_model, self.usage, store.append_usage, reporter)
        )
        self.toolkit = toolkit
        bind_model = getattr(toolkit, "bind_model", None)
        if bind_model is not None:
            bind_model(self.model)  # skill calls (ask) are metered with the debate's
        bind_persona_models = getattr(toolkit, "bind_persona_models", None)
        if bind_persona_models is not None:
            bind_persona_models(self.persona_models)  # a persona consults with its own model
        self.report = reporter
        self.memory_writer = memory_writer
        self.moderator = moderator
        self._stop: StopKind | None = None
        self._verdicts: dict[int, JudgeVerdictRecord] = {}
        self._turns = SendTurns()  # a wave's calls built and sent one at a time
        self._views_worker: ThreadPoolExecutor | None = None
        self._views_pending: Future[None] | None = None
        self._views_gate: ViewsGate | None = None
        self._refusals: dict[str, int] = {}
        self.history = self._load_history()

    # ------------------------------------------------------------ public

    def model_for(self, letter: str) -> MeteredModel:
        """The model a persona speaks with: its own, else the debate's."""
        return self.persona_models.get(letter, self.model)

    def request_stop(self, kind: StopKind = "stop") -> None:
        """Finish the current batch, checkpoint, then exit (used for Ctrl-C)."""
        self._stop = kind

    async def run(self) -> DebateState:
        self.store.acquire_lock()
        try:
            async with self._stop_acknowledged():
                return await self._run_locked()
        except asyncio.CancelledError:
            self._halt(status="interrupted")
            raise
        except StoreWriteError:
            raise  # the disk refuses writes: writing the failure down would fail too
        except Exception as exc:
            from argue.llm import mask_secrets

            self._fail(mask_secrets(f"unexpected {type(exc).__name__}: {exc}"))
            raise
        finally:
            if self._views_worker is not None:
                self._views_worker.shutdown(wait=True)
                self._views_worker = None
            self.store.release_lock()

    # ------------------------------------------------------------ loop

    async def _run_locked(self) -> DebateState:
        config = self.store.config()
        state = self.store.state()
        if state.status == "completed":
            self.say(
                "t_already_completed",
                id=config.id,
                termination=self._ending_word(state.termination),
            )
            return state
        self.store.clear_stop()
        # An ending already decided (the run died while writing the synthesis) is kept.
        decided = state.termination if state.phase == "synthesis" else None
        detail = state.termination_detail if decided else ""
        self.store.update_state(
            status="running",
            pid=os.getpid(),
            termination=decided,
            termination_detail=detail,
            error=None,
        )
        try:
            if decided is not None and decided != "stopped":
                self.say("t_resuming_ending", id=config.id, reason=self._ending_word(decided))
                return await self._conclude(TerminationDecision(decided, detail))
            # Prose written for an earlier, unfinished state (`synthesize` on a stopped debate)
            # must not stand in for the ending this run reaches.
            self.store.discard(self.paths.synthesis_prose)
            if config.framing is None or self._framing_to_ask_again():
                await self._frame()
            # What is loaded by now (the SDK's and pydantic's hundreds of classes, its client,
            # the catalog) lives as long as the process: out of the cyclic collector's way,
            # each collection walks only what the rounds allocate (issue 43 item 4).
            gc.freeze()
            start = max((r.round for r in self.history.committed_rounds()), default=0) + 1
            for round_no in range(start, config.max_rounds + 1):
                outcome = await self._round(round_no)
                if outcome is not None and outcome.status == "stopped":
                    return await self._synthesize_stopped(outcome)
                if outcome is not None:
                    return outcome
            return await self._conclude(max_rounds_decision(config.max_rounds))
        except ModelAuthError as exc:
            return self._fail(self.words("t_check_api_key", error=exc))
        except DebateFailed as exc:
            return self._fail(str(exc))

    def _fail(self, reason: str) -> DebateState:
        self._record_failures(
            [
                Failure(
                    round=self.store.state().round,
                    phase="debate",
                    kind="failed",
                    what="debate",
                    reason=reason,
                )
            ]
        )
        return self._halt(status="failed", error=reason)

    async def _round(self, round_no: int) -> DebateState | None:
        config = self.history.config
        self.say("t_round", n=round_no, total=config.max_rounds)
        self.seats = self._seats(round_no)
        known = len(self.history.moderator_notes)
        # A note binds from the first round whose prompts see it (not a round already started).
        self.history.moderator_notes = self.store.drain_inbox(round_no)
        for note in self.history.moderator_notes[known:]:
            self.say(
                "t_moderator_note",
                note=note.get("read_by") or self.words("t_binds_from", n=round_no),
            )
        # Three model waves: the data needs no more (an argument needs its own research, a
        # rebuttal the arguments, a reflection the rebuttals; the judge joins the reflections).
        # Rendering and snapshots wait for the round's commit, off the critical path.
        for phase, wave in (
            ("research", self._research_and_argue),
            ("rebuttal", self._rebuttal),
            ("reflection", self._reflect_and_judge),
        ):
            halted = self._halt_if_requested(round_no, phase)
            if halted:
                return halted
            self.store.update_state(round=round_no, phase=phase)
            self.say("t_wave", wave=label_of("wave", phase, self.lang), n=len(self.history.letters))
            await wave(round_no)
            if phase == "research" and self._stop_flag():
                arguments = self.history.round(round_no).arguments
                if len(arguments) < len(self.history.letters):
                    return self._stopped_state(round_no, "after_research")
        score = await self._score(round_no)
        decision = check_termination(self.history, round_no, self._stop_flag())
        self.say(
            "t_scored",
            n=round_no,
            scores=", ".join(
                f"{self.history.persona_name(k)} {score_words(v.total, v.max_total, self.lang)}"
                for k, v in score.personas.items()
            ),
            spending=self.model.describe_spending(self.lang),
        )
        if decision is None:
            halted = self._budget_halt(round_no)
            if halted is None and self.moderator is not None and not self._stop_flag():
                text = await self.moderator(round_no)
                if text and text.strip():
                    self.store.post_note(text.strip())
                    self.say("t_note_queued", n=round_no + 1)
            return halted
        if decision.reason == "stopped":
            return self._stopped_state(round_no, "after_scoring")
        # Notes posted while this round ran: the debate ends here, so no round will read them.
        known = len(self.history.moderator_notes)
        self.history.moderator_notes = self.store.drain_inbox(round_no, debate_ends=True)
        for note in self.history.moderator_notes[known:]:
            self.say("t_moderator_note", note=note.get("read_by"))
        return await self._conclude(decision)

    # ------------------------------------------------------------ endings

    @asynccontextmanager
    async def _stop_acknowledged(self) -> AsyncIterator[None]:
        """While the debate runs, a `stop` (the flag file, or SIGTERM) is answered on this
        terminal within :data:`STOP_POLL_S`: how many calls are still in flight, then again
        every :data:`STOP_REMIND_S` while they run (the stop itself lands at the next
        checkpoint, never in the middle of a batch)."""

        async def watch() -> None:
            seen_at: float | None = None
            while True:
                await asyncio.sleep(STOP_POLL_S)
                if self._stop == "interrupt":
                    return  # Ctrl-C says so itself
                if not (self._stop is not None or self.store.stop_requested()):
                    continue
                now = time.monotonic()
                if seen_at is None:
                    seen_at = now
                    self.say("t_stop_seen", n=self._calls_in_flight())
                elif now - seen_at >= STOP_REMIND_S and self._calls_in_flight():
                    seen_at = now
                    self.say("t_stop_waiting", n=self._calls_in_flight())

        task = asyncio.get_running_loop().create_task(watch(), name="argue-stop-watch")
        try:
            yield
        finally:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    def _calls_in_flight(self) -> int:
        models = {id(m): m for m in (self.model, *self.persona_models.values())}
        return sum(getattr(m, "in_flight", 0) for m in models.values())

    def _stop_flag(self) -> bool:
        return self._stop is not None or self.store.stop_requested()

    def _halt_if_requested(self, round_no: int, phase: str) -> DebateState | None:
        if self._stop == "interrupt":
            phase_words = label_of("phase", phase, self.lang)
            where = label_of("where", "before", self.lang, phase=phase_words)
            self.say("t_interrupted", where=where, n=round_no)
            return self._halt(status="interrupted")
        if self._stop_flag():
            return self._stopped_state(round_no, "before", phase=phase)
        return self._budget_halt(round_no)

    def _budget_halt(self, round_no: int) -> DebateState | None:
        """Pause (resumable) once the cost budget (--budget-usd) or the token budget
        (--max-tokens: every token sent and received, all calls) is used up."""
        from argue.llm.pricing import total_tokens

        config = self.history.config
        total = self.model.total()
        if config.budget_usd is not None and total.cost_usd >= config.budget_usd:
            budget, spent = f"{config.budget_usd:g}", f"{total.cost_usd:.4f}"
            self.say("t_budget_reached", budget=budget, spent=spent)
            detail = label_of(
                "detail", "budget_usd", "en", spent=f"${spent}", budget=f"${budget}", n=round_no
            )
        elif config.budget_tokens is not None and total_tokens(total) >= config.budget_tokens:
            limit, used = config.budget_tokens, total_tokens(total)
            self.say("t_token_budget_reached", limit=limit, used=used)
            detail = label_of("detail", "budget_tokens", "en", used=used, limit=limit, n=round_no)
        else:
            return None
        return self._halt(status="budget_exhausted", termination_detail=detail)

    def _stopped_state(self, round_no: int, at: str, phase: str = "") -> DebateState:
        """``at``: where in the round, a value of the catalog's ``where`` family (``before`` a
        ``phase``)."""

        def where(lang: str) -> str:
            named = {"phase": label_of("phase", phase, lang)} if phase else {}
            return label_of("where", at, lang, **named)

        if self._stop == "interrupt":
            # Ctrl-C is an interruption wherever it lands (exit 130), never a `stop` (exit 3).
            self.say("t_interrupted", where=where(self.lang), n=round_no)
            return self._halt(status="interrupted")
        self.say("t_stop_requested", where=where(self.lang), n=round_no)
        self.store.clear_stop()
        return self._halt(
            status="stopped",
            termination="stopped",
            termination_detail=label_of(
                "detail", "stop_where", "en", where=where("en"), n=round_no
            ),
        )

    async def _synthesize_stopped(self, state: DebateState) -> DebateState:
        """`stop` is one of the spec's endings: it leaves a synthesis of what was said, labelled
        as ended by stop (and partial). ``resume`` can still continue and write it again."""
        from argue.engine.synthesis import write_synthesis

        if not self.history.all_claims():
            return state
        self.say("t_writing_stopped_synthesis")
        self._next_wave_is_one_call()
        try:
            await write_synthesis(
                self.store, self.history, self.model, self.usage, self.report, state=state
            )
        except ModelAuthError as exc:
            self.say("t_synthesis_not_written", error=exc)
        self._checkpoint_usage()
        self._render_transcript()
        return state

    def _halt(self, **changes: object) -> DebateState:
        """Record how the run ended, then render: the transcript states the final status."""
        self._report_repeated_refusals()
        self._checkpoint_usage()
        state = self.store.update_state(pid=None, **changes)
        self._render_transcript()
        return state

    def _finish_state(self, reason: str, detail: str) -> DebateState:
        self._report_repeated_refusals()
        return self.store.update_state(
            status="completed", termination=reason, termination_detail=detail, pid=None
        )

    def _ending_word(self, reason: str | None) -> str:
        """A termination reason as the word the debate's language uses for it."""
        if reason is None:
            return "—"
        return label_of("termination", reason, self.lang, default=reason)

    async def _conclude(self, decision: TerminationDecision) -> DebateState:
        """Write the ending (synthesis, archive), then mark the debate completed.

        The synthesis is rendered as the completed debate it describes; if the run dies while
        writing it, state.json still says phase "synthesis" and ``resume`` redoes only this.
        """
        from argue.engine.synthesis import archive_debate, write_synthesis

        reason, detail = decision.reason, decision.detail
        self.say(
            "t_termination", reason=self._ending_word(reason), detail=decision.shown(self.lang)
        )
        self.store.update_state(phase="synthesis", termination=reason, termination_detail=detail)
        final = self.store.state().model_copy(update={"status": "completed", "pid": None})
        writer = self.memory_writer

        async def archive() -> None:
            if writer is not None:
                await archive_debate(self.store, self.history, writer, self.report)

        self._next_wave_is_one_call()
        await write_synthesis(
            self.store,
            self.history,
            self.model,
            self.usage,
            self.report,
            state=final,
            before_render=archive,
        )
        self._checkpoint_usage()
        state = self._finish_state(reason, detail)
        self._render_transcript()
        return state

    # ------------------------------------------------------------ bookkeeping

    def _record_failures(self, failures: list[Failure]) -> None:
        if not failures:
            return
        from argue.redact import redact

        # Error texts can quote a base URL with its password, or a key a server echoed back.
        failures = [
            f.model_copy(update={"what": redact(f.what), "reason": redact(f.reason)})
            for f in failures
        ]
        for failure in failures:
            # One entry per attempt: a call asked again on resume that fails in the same words
            # is a second failure, recorded as such.
            self.history.failures.append(failure)
            if failure.kind == "refused":
                # The same refusal (a missing key…) is told once, then counted.
                self._refusals[failure.reason] = self._refusals.get(failure.reason, 0) + 1
                if self._refusals[failure.reason] > 1:
                    continue
            self.report(
                "  "
                + (
                    ""
                    if failure.persona is None
                    else f"[{self.history.persona_name(failure.persona)}] "
                )
                + failure_sentence(failure, self.lang)
            )
        self.store.save(self.paths.failures, self.history.failures)

    def _report_repeated_refusals(self) -> None:
        for reason, count in self._refusals.items():
            if count > 1:
                self.say("t_same_refusal", count=count, reason=note_words(reason, self.lang))
        self._refusals.clear()

    def _start_bookkeeping(self) -> None:
        """After a round commits: the readable views (usage.json, summary.json, transcript.md)
        are written in a worker thread from a snapshot, while the next wave's model calls run.
        Every later write of those views waits for it first (see ``_settle_bookkeeping``)."""
        from concurrent.futures import ThreadPoolExecutor

        from argue.engine.synthesis import score_summary
        from argue.render import render_transcript

        self._settle_bookkeeping()
        history, usage, state = self.history.snapshot(), list(self.usage), self.store.state()
        # Rendering holds the GIL: it starts once the next wave's requests are out, one per
        # persona, the last on the wire (or after VIEWS_WAIT_S), so it never delays building
        # them; with the first request out it delayed a panel's other four (issue 43 item 4).
        gate = ViewsGate(expected=len(self.history.letters))
        self._views_gate = gate
        for model in {
            id(m): m for m in (self.model, self.verifier, *self.persona_models.values())
        }.values():
            model.on_send = gate.on_send

        def write_views() -> None:
            gate.go.wait(VIEWS_WAIT_S)
            write_ledgers(self.store, history)
            self.store.save(self.paths.usage, usage)
            self.store.save(self.paths.summary, score_summary(history, usage))
            self.store.save_text(self.paths.transcript, render_transcript(history, state, usage))

        if self._views_worker is None:
            self._views_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="views")
        self._views_pending = self._views_worker.submit(write_views)

    def _next_wave_is_one_call(self) -> None:
        """The synthesis follows: the last round's views go once its request is out (waiting
        for a wave of one call per persona, they would start only after its answer)."""
        if self._views_gate is not None:
            self._views_gate.expect_one_more()

    def _settle_bookkeeping(self) -> None:
        """Wait for the views being written in the background (their errors surface here)."""
        pending, self._views_pending = self._views_pending, None
        if self._views_gate is not None:
            self._views_gate.go.set()  # needed now: no waiting for a call
        if pending is not None:
            pending.result()

    def _checkpoint_usage(self) -> None:
        """Rewrite usage.json, the readable snapshot; each record was already appended to
        usage.jsonl when its answer arrived (MeteredModel), so this adds nothing to the count.
        scoring/summary.json, once a round wrote it, gets the same totals (the synthesis call
        included)."""
        self._settle_bookkeeping()
        write_ledgers(self.store, self.history)
        self.store.save(self.paths.usage, self.usage)
        if self.store.has(self.paths.summary):
            self._write_summary()

    def _write_summary(self) -> None:
        from argue.engine.synthesis import score_summary

        self._settle_bookkeeping()
        self.store.save(self.paths.summary, score_summary(self.history, self.usage))

    def _render_transcript(self) -> None:
        from argue.render import render_transcript

        self._settle_bookkeeping()
        self.store.save_text(
            self.paths.transcript,
            render_transcript(self.history, self.store.state(), self.usage),
        )

    def _load_history(self) -> DebateHistory:
        return load_history(self.store)


def write_ledgers(store: DebateStore, history: DebateHistory) -> None:
    """Each persona's concession ledger and confidence trajectory (views of the records)."""
    for letter in history.letters:
        store.save(
            store.paths.concessions(letter),
            [
                c
                for r in history.ordered_rounds()
                if letter in r.rebuttals
                for c in r.rebuttals[letter].concessions
            ],
        )
        store.save(
            store.paths.confidence(letter),
            [{"round": r, "confidence": v} for r, v in history.confidences(letter)],
        )
