"""The debate loop: research → argument → rebuttal → reflection → score and checkpoint.

Personas run each phase concurrently; a phase waits for all of them. Every phase result is
written to disk as soon as it exists, and a phase whose result is on disk is never re-run, so
``resume`` repeats no model call. A round is committed when scoring/round_NNN.json exists.
Stop and Ctrl-C are honoured between batches, never in the middle of one.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel

from argue.domain import (
    ArgumentRecord,
    Belief,
    Concession,
    DebateState,
    Failure,
    Framing,
    JudgeVerdictRecord,
    Persona,
    RebuttalRecord,
    ReflectionRecord,
    ResearchRecord,
    RoundScore,
    Usage,
)
from argue.engine import phases, prompts
from argue.engine.context import DebateHistory
from argue.engine.fanout import fan_out
from argue.engine.metering import MeteredModel
from argue.engine.modes import role_hint, stances_for
from argue.engine.phases import PersonaSeat, PhaseOutcome
from argue.engine.schemas import FramingDraft, ResearchPlanDraft
from argue.engine.scoring import score_round
from argue.engine.termination import check_termination
from argue.engine.toolkit import ResearchToolkit
from argue.llm.base import ChatModel, ModelAuthError, ModelError
from argue.store import DebateStore
from argue.store.history import load_history

Reporter = Callable[[str], None]
StopKind = Literal["stop", "interrupt"]


class DebateFailed(Exception):
    """The debate cannot go on (e.g. every persona failed to argue in a round)."""


def _quiet(_: str) -> None:
    return None


class DebateRunner:
    def __init__(
        self,
        store: DebateStore,
        model: ChatModel,
        toolkit: ResearchToolkit,
        *,
        reporter: Reporter = _quiet,
        memory_writer: Callable[..., Awaitable[str]] | None = None,
        moderator: Callable[[int], Awaitable[str | None]] | None = None,
    ) -> None:
        """``moderator(round_no)`` is asked after each round that does not end the debate; a
        note it returns binds every later round (``--interactive``)."""
        self.store = store
        self.paths = store.paths
        # Every answer is appended to usage.jsonl as it arrives (a kill -9 loses none);
        # usage.json is the readable snapshot written at checkpoints.
        self.usage: list[Usage] = store.load_usage()
        self.model = MeteredModel(model, self.usage, record=store.append_usage)
        self.toolkit = toolkit
        bind_model = getattr(toolkit, "bind_model", None)
        if bind_model is not None:
            bind_model(self.model)  # skill calls (ask) are metered with the debate's
        self.report = reporter
        self.memory_writer = memory_writer
        self.moderator = moderator
        self._stop: StopKind | None = None
        self._verdicts: dict[int, JudgeVerdictRecord] = {}
        self.history = self._load_history()

    # ------------------------------------------------------------ public

    def request_stop(self, kind: StopKind = "stop") -> None:
        """Finish the current batch, checkpoint, then exit (used for Ctrl-C)."""
        self._stop = kind

    async def run(self) -> DebateState:
        self.store.acquire_lock()
        try:
            return await self._run_locked()
        except asyncio.CancelledError:
            self._halt(status="interrupted")
            raise
        except Exception as exc:
            from argue.llm import mask_secrets

            self._fail(mask_secrets(f"unexpected {type(exc).__name__}: {exc}"))
            raise
        finally:
            self.store.release_lock()

    # ------------------------------------------------------------ loop

    async def _run_locked(self) -> DebateState:
        config = self.store.config()
        state = self.store.state()
        if state.status == "completed":
            self.report(f"Debate {config.id} is already completed ({state.termination}).")
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
                self.report(f"Resuming the ending of {config.id}: {decided}")
                return await self._conclude(decided, detail)
            # Prose written for an earlier, unfinished state (`synthesize` on a stopped debate)
            # must not stand in for the ending this run reaches.
            self.store.discard(self.paths.synthesis_prose)
            if config.framing is None:
                await self._frame()
            start = max((r.round for r in self.history.committed_rounds()), default=0) + 1
            for round_no in range(start, config.max_rounds + 1):
                outcome = await self._round(round_no)
                if outcome is not None:
                    return outcome
            return await self._conclude(
                "max_rounds", f"reached the limit of {config.max_rounds} round(s)"
            )
        except ModelAuthError as exc:
            return self._fail(f"{exc} — check the provider's API key")
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
        self.report(f"Round {round_no}/{config.max_rounds}")
        self.seats = self._seats(round_no)
        known = len(self.history.moderator_notes)
        # A note binds from the first round whose prompts see it (not a round already started).
        self.history.moderator_notes = self.store.drain_inbox(round_no)
        for note in self.history.moderator_notes[known:]:
            self.report(f"Moderator note: {note.get('read_by') or f'binds from round {round_no}'}")
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
            self.report(f"  {_WAVES[phase]}: {len(self.history.letters)} personas in parallel…")
            await wave(round_no)
            if phase == "research" and self._stop_flag():
                arguments = self.history.round(round_no).arguments
                if len(arguments) < len(self.history.letters):
                    if self._stop == "interrupt":
                        self.report(f"Interrupted after the research of round {round_no}.")
                        return self._halt(status="interrupted")
                    return self._stopped_state(round_no, "after the research")
        score = await self._score(round_no)
        decision = check_termination(self.history, round_no, self._stop_flag())
        self.report(
            f"Round {round_no} scored: "
            + ", ".join(
                f"{self.history.persona_name(k)} {v.total:.2f}/{v.max_total:.1f}"
                for k, v in score.personas.items()
            )
            + f" · {self.model.describe_spending()} so far"
        )
        if decision is None:
            halted = self._budget_halt(round_no)
            if halted is None and self.moderator is not None and not self._stop_flag():
                note = await self.moderator(round_no)
                if note and note.strip():
                    self.store.post_note(note.strip())
                    self.report(f"Moderator note queued: it binds from round {round_no + 1}.")
            return halted
        if decision.reason == "stopped":
            return self._stopped_state(round_no, "after scoring")
        # Notes posted while this round ran: the debate ends here, so no round will read them.
        known = len(self.history.moderator_notes)
        self.history.moderator_notes = self.store.drain_inbox(round_no, debate_ends=True)
        for note in self.history.moderator_notes[known:]:
            self.report(f"Moderator note: {note.get('read_by')}")
        return await self._conclude(decision.reason, decision.detail)

    # ------------------------------------------------------------ framing

    async def _frame(self) -> None:
        config = self.store.config()
        self.store.update_state(phase="framing")
        lenses = {k: f"{p.display_name}: {p.lens}" for k, p in self.history.personas.items()}
        try:
            result = await self.model.complete(
                prompts.framing_messages(config.question, config.mode, lenses),
                output=FramingDraft,
                purpose="framing",
            )
            draft: FramingDraft = result.value  # type: ignore[assignment]
            proposition = draft.proposition.strip() or config.question
            angles = {a.persona.strip().upper(): a.angle for a in draft.angles}
        except ModelAuthError:
            raise  # rejected credentials end the debate, see DebateRunner.run
        except ModelError as exc:
            self._record_failures(
                [
                    Failure(
                        round=0,
                        phase="framing",
                        kind="failed",
                        what="framing model call",
                        reason=f"{exc}; the question itself is used as the proposition",
                    )
                ]
            )
            proposition, angles = config.question, {}
        from argue.engine.modes import PreDebateContext, PreDebateOutcome, mode_named

        mode = mode_named(config.mode)
        outcome = PreDebateOutcome()
        if mode.pre_debate is not None:
            seated = {letter: self.history.personas[letter] for letter in config.personas}
            try:
                outcome = await mode.pre_debate.run(
                    PreDebateContext(self.model, proposition, seated, self._card)
                )
            except ModelAuthError:
                raise  # rejected credentials end the debate, see DebateRunner.run
            except ModelError as exc:
                raise DebateFailed(f"{mode.pre_debate.what} could not be obtained: {exc}") from exc
        # A skill plugin that could not be loaded is reported once, before the first round.
        problems = getattr(self.toolkit, "problems", {})
        self._record_failures(
            [
                Failure(round=0, phase="framing", kind="refused", what=f"skill {name}", reason=why)
                for name, why in problems.items()
            ]
        )
        holds = outcome.advocate_holds
        stances = stances_for(
            config.mode, list(config.personas), self.history.personas, angles, holds
        )
        config.framing = Framing(
            proposition=proposition, stances=stances, private_views=outcome.private_views
        )
        self.store.save_config(config)
        self.history.config = config
        self.report(f"Proposition: {proposition}")

    def _seats(self, round_no: int) -> dict[str, PersonaSeat]:
        config = self.history.config
        assert config.framing is not None
        seats = {}
        for letter, original in self.history.personas.items():
            persona = updated_beliefs(original, self.history, letter, round_no)
            stance = config.framing.stances.get(letter, "your own angle")
            seats[letter] = PersonaSeat(
                letter=letter,
                system=prompts.system_prompt(persona, self._card(persona), config, stance),
                role_hint=role_hint(config.mode, list(config.personas).index(letter)),
            )
        return seats

    @staticmethod
    def _card(persona: Persona) -> str:
        from argue.personas import persona_card

        return persona_card(persona)

    # ------------------------------------------------------------ phases

    async def _per_persona(
        self,
        round_no: int,
        phase: str,
        path_of: Callable[[str, int], object],
        model_type: type[BaseModel],
        produce: Callable[[str], Awaitable[PhaseOutcome]],
        letters: list[str] | None = None,
    ) -> None:
        """Load what is on disk; produce the rest concurrently; save each result at once."""
        await fan_out(
            *(
                self._load_or_make(letter, round_no, phase, path_of, model_type, produce)
                for letter in letters or self.history.letters
            )
        )
        self._seat_order(round_no, phase)

    def _seat_order(self, round_no: int, phase: str) -> None:
        """Seat order, whatever order the records arrived in: the record reads the same."""
        target = getattr(self.history.round(round_no), _BUCKET[phase])
        ordered = {k: target[k] for k in self.history.letters if k in target}
        target.clear()
        target.update(ordered)

    async def _load_or_make(
        self,
        letter: str,
        round_no: int,
        phase: str,
        path_of: Callable[[str, int], object],
        model_type: type[BaseModel],
        produce: Callable[[str], Awaitable[PhaseOutcome]],
    ) -> None:
        """One persona's record of one phase: from disk if it is there, else produced and saved
        at once (a record on disk is never produced again: resume repeats no model call)."""
        target = getattr(self.history.round(round_no), _BUCKET[phase])
        existing = self.store.load_if_readable(path_of(letter, round_no), model_type)  # type: ignore[arg-type]
        if existing is not None:
            target[letter] = existing
            return
        started = time.monotonic()
        outcome = await produce(letter)
        if outcome.record is not None:
            target[letter] = outcome.record
            self.store.save(path_of(letter, round_no), outcome.record)  # type: ignore[arg-type]
            self.report(
                f"  [{self.history.persona_name(letter)}] {phase}: "
                f"{_summary(outcome.record)} ({time.monotonic() - started:.0f} s)"
            )
        self._record_failures(outcome.failures)

    async def _retry_failed_research(self, round_no: int, letter: str) -> None:
        """On resume: re-run research calls that failed (no effect) before anyone argued on them.

        Calls that worked keep their evidence and ids; new items continue the numbering. The
        earlier failure stays in the record: it happened.
        """
        record = self.history.round(round_no)
        research = record.research.get(letter)
        if research is None or letter in record.arguments:
            return
        if self.store.has(self.paths.argument(letter, round_no)):
            return
        failed = [i for i, call in enumerate(research.calls) if call.status == "failed"]
        if failed:
            self.report(
                f"  [{self.history.persona_name(letter)}] retrying {len(failed)} failed "
                "research call(s)"
            )
            retry = ResearchPlanDraft(
                calls=[phases.research_call_from_record(research.calls[i]) for i in failed],
                why=research.why,
            )
            outcome = await phases.run_research(
                retry,
                self.history,
                letter,
                self.toolkit,
                round_no,
                first_evidence=len(research.evidence) + 1,
            )
            again: ResearchRecord = outcome.record  # type: ignore[assignment]
            for index, call in zip(failed, again.calls, strict=True):
                research.calls[index] = call
            research.evidence.extend(again.evidence)
            self.store.save(self.paths.research(letter, round_no), research)
            self._record_failures(outcome.failures)

    async def _research_and_argue(self, round_no: int) -> None:
        """Wave 1: each persona researches, then argues, without waiting for the others.

        Isolation holds: an argument prompt shows the persona's own evidence and the record of
        earlier rounds only, so another persona's progress in this round changes nothing.
        """

        async def chain(letter: str) -> None:
            await self._load_or_make(
                letter,
                round_no,
                "research",
                self.paths.research,
                ResearchRecord,
                self._researcher(round_no),
            )
            await self._retry_failed_research(round_no, letter)
            if self._stop_flag() and not self.store.has(self.paths.argument(letter, round_no)):
                return  # a stop lands between a persona's research and its argument
            await self._load_or_make(
                letter,
                round_no,
                "argument",
                self.paths.argument,
                ArgumentRecord,
                lambda letter: phases.make_argument(
                    self.model, self.history, self.seats[letter], round_no
                ),
            )

        await fan_out(*(chain(letter) for letter in self.history.letters))
        self._seat_order(round_no, "research")
        self._seat_order(round_no, "argument")
        arguments = self.history.round(round_no).arguments
        if self._stop_flag() and len(arguments) < len(self.history.letters):
            return
        self._check_references(round_no)
        if not any(a.claims for a in arguments.values()):
            raise DebateFailed(f"no persona produced an argument in round {round_no}")
        lost = [self.history.persona_name(k) for k in self.history.letters if k not in arguments]
        if lost:
            self.report(
                f"Round {round_no}: no argument from {', '.join(lost)} (recorded as failed)"
            )

    def _check_references(self, round_no: int) -> None:
        """Check the references written in this round's claims against every document the
        debate retrieved up to this round, once all research of the round is in (so the result
        does not depend on which persona finished first)."""
        from argue.grounding.debate import unverified_in

        index = self.history.reference_index(round_no)
        for letter, argument in self.history.round(round_no).arguments.items():
            changed = False
            for claim in argument.claims:
                found = unverified_in(index, claim.text, claim.warrant)
                if found != claim.unverified_references:
                    claim.unverified_references = found
                    changed = True
            if changed:
                self.store.save(self.paths.argument(letter, round_no), argument)

    def _researcher(self, round_no: int) -> Callable[[str], Awaitable[PhaseOutcome]]:
        async def produce(letter: str) -> PhaseOutcome:
            plan_path = self.paths.research_plan(letter, round_no)
            plan = self.store.load_if_readable(
                self.paths.planned_research(letter, round_no), ResearchPlanDraft
            ) or self.store.load_if_readable(plan_path, ResearchPlanDraft)
            if plan is None:
                planned = await phases.plan_research(
                    self.model, self.history, self.seats[letter], self.toolkit, round_no
                )
                if planned.record is None:
                    return PhaseOutcome(
                        ResearchRecord(
                            persona=letter, round=round_no, why="(no plan: model call failed)"
                        ),
                        planned.failures,
                    )
                plan = planned.record  # type: ignore[assignment]
                self.store.save(plan_path, plan)
            for call in plan.calls[: phases.RESEARCH_BUDGET]:
                target = f" {call.colleague}" if call.colleague else ""
                self.report(
                    f'[{self.history.persona_name(letter)}] /{call.skill}{target} "{call.query}"'
                )
            outcome = await phases.run_research(plan, self.history, letter, self.toolkit, round_no)
            research: ResearchRecord = outcome.record  # type: ignore[assignment]
            consults = [c for c in research.calls if c.skill == "ask"]
            if consults:
                self.store.save(
                    self.paths.consults(letter, round_no),
                    {
                        "calls": consults,
                        "answers": [e for e in research.evidence if e.skill == "ask"],
                    },
                )
            return outcome

        return produce

    async def _rebuttal(self, round_no: int) -> None:
        await self._per_persona(
            round_no,
            "rebuttal",
            self.paths.rebuttal,
            RebuttalRecord,
            lambda letter: phases.make_rebuttal(
                self.model, self.history, self.seats[letter], round_no
            ),
        )
        for letter in self.history.letters:
            ledger: list[Concession] = [
                c
                for r in self.history.ordered_rounds()
                if letter in r.rebuttals
                for c in r.rebuttals[letter].concessions
            ]
            self.store.save(self.paths.concessions(letter), ledger)

    async def _reflect_and_judge(self, round_no: int) -> None:
        """Wave 3: every reflection (each also planning the next round's research) and the
        judge, which needs only the arguments and rebuttals, all at once."""

        async def reflect(letter: str) -> PhaseOutcome:
            outcome = await phases.make_reflection(
                self.model, self.history, self.seats[letter], round_no, self.toolkit
            )
            if outcome.record is not None and outcome.next_plan is not None:
                # Saved before the reflection itself: a reflection on disk has its plan too.
                self.store.save(
                    self.paths.planned_research(letter, round_no + 1), outcome.next_plan
                )
            return outcome

        await fan_out(
            self._per_persona(
                round_no, "reflection", self.paths.reflection, ReflectionRecord, reflect
            ),
            self._judge_once(round_no),
        )
        for letter in self.history.letters:
            trajectory = [
                {"round": r, "confidence": v} for r, v in self.history.confidences(letter)
            ]
            self.store.save(self.paths.confidence(letter), trajectory)

    async def _judge_once(self, round_no: int) -> None:
        judge = self.store.load_if_readable(self.paths.judge(round_no), JudgeVerdictRecord)
        if judge is None:
            judge = await self._judge(round_no)
            if judge.available:
                self.store.save(self.paths.judge(round_no), judge)
        self._verdicts[round_no] = judge

    # ------------------------------------------------------------ scoring and commit

    async def _score(self, round_no: int) -> RoundScore:
        self.store.update_state(round=round_no, phase="scoring")
        judge = self._verdicts.pop(round_no, None)
        if judge is None:
            await self._judge_once(round_no)
            judge = self._verdicts.pop(round_no)
        score = score_round(self.history, round_no, judge)
        self.history.round(round_no).score = score
        await self._remember(round_no, score)
        self.store.save(self.paths.round_score(round_no), score)  # the commit point
        self._checkpoint_usage()
        self._write_summary()
        self._render_transcript()
        return score

    async def _judge(self, round_no: int) -> JudgeVerdictRecord:
        outcome = await phases.make_judgement(self.model, self.history, round_no)
        self._record_failures(outcome.failures)
        return outcome.record  # type: ignore[return-value]

    async def _remember(self, round_no: int, score: RoundScore) -> None:
        """Store well-scored claims in each persona's memory (once per round, marker-guarded)."""
        if self.memory_writer is None:
            return
        record = self.history.round(round_no)
        for letter, persona_score in score.personas.items():
            marker = self.paths.memory_marker(letter, round_no)
            if self.store.has(marker):
                continue
            argument = record.arguments.get(letter)
            if argument is None:
                continue
            stored = []
            for claim in argument.claims:
                if persona_score.claim_scores.get(claim.id, 0.0) < 1.0:
                    continue
                try:
                    stored.append(
                        await self.memory_writer(
                            self.history.personas[letter].name,
                            claim.text,
                            kind="argument",
                            debate_id=self.history.config.id,
                            round_no=round_no,
                            tags=argument.taxonomy_tags,
                        )
                    )
                except Exception as exc:
                    self._record_failures(
                        [
                            Failure(
                                round=round_no,
                                persona=letter,
                                phase="reflection",
                                kind="failed",
                                what=f"memory write of {claim.id}",
                                reason=f"{type(exc).__name__}: {exc}",
                            )
                        ]
                    )
            self.store.save(marker, {"memory_ids": stored})

    # ------------------------------------------------------------ endings

    def _stop_flag(self) -> bool:
        return self._stop is not None or self.store.stop_requested()

    def _halt_if_requested(self, round_no: int, phase: str) -> DebateState | None:
        if self._stop == "interrupt":
            self.report(f"Interrupted before the {phase} of round {round_no}; checkpoint saved.")
            return self._halt(status="interrupted")
        if self._stop_flag():
            return self._stopped_state(round_no, f"before the {phase}")
        return self._budget_halt(round_no)

    def _budget_halt(self, round_no: int) -> DebateState | None:
        """Pause (resumable) once the cost budget (--budget-usd) or the token budget
        (--max-tokens: every token sent and received, all calls) is used up."""
        from argue.llm.pricing import total_tokens

        config = self.history.config
        total = self.model.total()
        if config.budget_usd is not None and total.cost_usd >= config.budget_usd:
            budget = config.budget_usd
            self.report(
                f"Budget of ${budget:g} reached (${total.cost_usd:.4f} spent); stopping. "
                "Resume with a larger --budget-usd."
            )
            detail = f"spent ${total.cost_usd:.4f} of a ${budget:g} budget in round {round_no}"
        elif config.budget_tokens is not None and total_tokens(total) >= config.budget_tokens:
            limit, used = config.budget_tokens, total_tokens(total)
            self.report(
                f"Token budget of {limit} reached ({used} tokens used); stopping. Resume with a "
                "larger --max-tokens."
            )
            detail = f"used {used} of a {limit}-token budget in round {round_no}"
        else:
            return None
        return self._halt(status="budget_exhausted", termination_detail=detail)

    def _stopped_state(self, round_no: int, where: str) -> DebateState:
        self.report(f"Stop requested: stopped {where} of round {round_no}; resumable.")
        self.store.clear_stop()
        return self._halt(
            status="stopped",
            termination="stopped",
            termination_detail=f"stop requested; stopped {where} of round {round_no}",
        )

    def _halt(self, **changes: object) -> DebateState:
        """Record how the run ended, then render: the transcript states the final status."""
        self._checkpoint_usage()
        state = self.store.update_state(pid=None, **changes)
        self._render_transcript()
        return state

    def _finish_state(self, reason: str, detail: str) -> DebateState:
        return self.store.update_state(
            status="completed", termination=reason, termination_detail=detail, pid=None
        )

    async def _conclude(self, reason: str, detail: str) -> DebateState:
        """Write the ending (synthesis, archive), then mark the debate completed.

        The synthesis is rendered as the completed debate it describes; if the run dies while
        writing it, state.json still says phase "synthesis" and ``resume`` redoes only this.
        """
        from argue.engine.synthesis import archive_debate, write_synthesis

        self.report(f"Termination: {reason} — {detail}")
        self.store.update_state(phase="synthesis", termination=reason, termination_detail=detail)
        final = self.store.state().model_copy(update={"status": "completed", "pid": None})
        writer = self.memory_writer

        async def archive() -> None:
            if writer is not None:
                await archive_debate(self.store, self.history, writer)

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
        known = {f.model_dump_json() for f in self.history.failures}
        for failure in failures:
            if failure.model_dump_json() not in known:
                self.history.failures.append(failure)
                self.report(
                    "  "
                    + (
                        ""
                        if failure.persona is None
                        else f"[{self.history.persona_name(failure.persona)}] "
                    )
                    + failure.sentence()
                )
        self.store.save(self.paths.failures, self.history.failures)

    def _checkpoint_usage(self) -> None:
        """Rewrite usage.json, the readable snapshot; each record was already appended to
        usage.jsonl when its answer arrived (MeteredModel), so this adds nothing to the count.
        scoring/summary.json, once a round wrote it, gets the same totals (the synthesis call
        included)."""
        self.store.save(self.paths.usage, self.usage)
        if self.store.has(self.paths.summary):
            self._write_summary()

    def _write_summary(self) -> None:
        from argue.engine.synthesis import score_summary

        self.store.save(self.paths.summary, score_summary(self.history, self.usage))

    def _render_transcript(self) -> None:
        from argue.render import render_transcript

        self.store.save_text(
            self.paths.transcript,
            render_transcript(self.history, self.store.state(), self.usage),
        )

    def _load_history(self) -> DebateHistory:
        return load_history(self.store)


def updated_beliefs(
    persona: Persona, history: DebateHistory, letter: str, round_no: int
) -> Persona:
    """The persona's BDI after the belief updates of its reflections before ``round_no``."""
    beliefs = [b.model_copy() for b in persona.bdi.beliefs]
    for record in history.ordered_rounds():
        reflection = record.reflections.get(letter)
        if record.round >= round_no or reflection is None:
            continue
        for update in reflection.belief_updates:
            key = update.belief.strip().lower()
            match = next((b for b in beliefs if b.statement.strip().lower() == key), None)
            if match is not None:
                match.strength = update.new_strength
            else:
                beliefs.append(Belief(statement=update.belief, strength=update.new_strength))
    if beliefs == persona.bdi.beliefs:
        return persona
    bdi = persona.bdi.model_copy(update={"beliefs": beliefs[-8:]})
    return persona.model_copy(update={"bdi": bdi})


def _summary(record: object) -> str:
    """One line of progress for a finished persona phase."""
    if isinstance(record, ResearchRecord):
        worked = sum(1 for c in record.calls if c.status == "ok")
        return f"{len(record.evidence)} item(s) from {worked}/{len(record.calls)} call(s)"
    if isinstance(record, ArgumentRecord):
        cited = sum(len(c.verified_evidence_ids) for c in record.claims)
        return f"{len(record.claims)} claim(s), {cited} verified citation(s)"
    if isinstance(record, RebuttalRecord):
        conceded = sum(1 for c in record.concessions if c.valid_target)
        return f"{len(record.counters)} counter(s), {conceded} concession(s)" + (
            " — declined to concede" if record.declined_to_concede else ""
        )
    if isinstance(record, ReflectionRecord):
        return f"confidence {record.confidence:.2f}"
    return "done"


_WAVES = {
    "research": "research and argument",
    "rebuttal": "rebuttal",
    "reflection": "reflection and judge",
}
_BUCKET = {
    "research": "research",
    "argument": "arguments",
    "rebuttal": "rebuttals",
    "reflection": "reflections",
}
