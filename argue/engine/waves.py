"""A round's three model waves, each persona's records loaded from disk or produced and saved
at once, and the round's commit (score, memory)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from argue.domain import (
    NO_PLAN,
    ArgumentRecord,
    Failure,
    JudgeVerdictRecord,
    RebuttalRecord,
    ReflectionRecord,
    ResearchRecord,
    RoundScore,
    plan_failed,
)
from argue.engine import phases
from argue.engine.fanout import fan_out
from argue.engine.heartbeat import still_working
from argue.engine.phases import PhaseOutcome
from argue.engine.runner_state import DebateFailed, RunnerState
from argue.engine.schemas import ResearchPlanDraft
from argue.engine.scoring import score_round
from argue.records.labels import label, label_of
from argue.records.support import SupportRecord, apply_support


class RoundWaves(RunnerState):
    # ------------------------------------------------------------ phases

    async def _per_persona(
        self,
        round_no: int,
        phase: str,
        path_of: Callable[[str, int], Path],
        model_type: type[BaseModel],
        produce: Callable[[str], Awaitable[PhaseOutcome[Any]]],
        letters: list[str] | None = None,
        failed: Callable[[Any], bool] | None = None,
    ) -> None:
        """Load what is on disk; produce the rest concurrently; save each result at once."""
        await fan_out(
            *(
                self._load_or_make(letter, round_no, phase, path_of, model_type, produce, failed)
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
        path_of: Callable[[str, int], Path],
        model_type: type[BaseModel],
        produce: Callable[[str], Awaitable[PhaseOutcome[Any]]],
        failed: Callable[[Any], bool] | None = None,
    ) -> bool:
        """One persona's record of one phase: from disk if it is there, else produced and saved
        at once (a record on disk is never produced again: resume repeats no model call).
        True when it came from disk.

        ``failed(record)`` marks a record on disk that stands for a call that did not deliver
        (research without a plan, an argument without claims): that call is asked again."""
        target = getattr(self.history.round(round_no), _BUCKET[phase])
        path = path_of(letter, round_no)
        existing = self.store.load_if_readable(path, model_type)
        if existing is not None and (failed is None or not failed(existing)):
            target[letter] = existing
            return True
        if existing is not None:
            target.pop(letter, None)
            self.store.discard(path)
            self.say(
                "t_asked_again",
                name=self.history.persona_name(letter),
                phase=label_of("phase", phase, self.lang),
            )
        started = time.monotonic()
        name, words = self.history.persona_name(letter), label_of("phase", phase, self.lang)

        def beat(seconds: float) -> None:
            self.say("t_still_working", name=name, phase=words, seconds=f"{seconds:.0f}")

        async with still_working(beat), self._turns.turn():
            outcome = await produce(letter)
        # Failures first: a kill between the two writes then repeats the call on resume (a
        # second attempt, recorded as one) rather than losing what went wrong in the first.
        self._record_failures(outcome.failures)
        if outcome.record is not None:
            target[letter] = outcome.record
            self.store.save(path_of(letter, round_no), outcome.record)
            self.say(
                "t_phase_done",
                name=self.history.persona_name(letter),
                phase=label_of("phase", phase, self.lang),
                summary=_summary(outcome.record, self.lang),
                seconds=f"{time.monotonic() - started:.0f}",
            )
        return False

    def _argued(self, letter: str, round_no: int) -> bool:
        """Whether the persona's argument of the round is on disk (one with claims)."""
        argument = self.store.load_if_readable(
            self.paths.argument(letter, round_no), ArgumentRecord
        )
        return argument is not None and bool(argument.claims)

    async def _retry_failed_research(self, round_no: int, letter: str) -> None:
        """On resume: re-run research calls that failed (no effect) before anyone argued on them.

        Calls that worked keep their evidence and ids; new items continue the numbering. The
        earlier failure stays in the record: it happened.
        """
        research = self.history.round(round_no).research.get(letter)
        if research is None or self._argued(letter, round_no):
            return
        failed = [i for i, call in enumerate(research.calls) if call.status == "failed"]
        if failed:
            self.say("t_retrying", name=self.history.persona_name(letter), n=len(failed))
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
            again = outcome.record
            assert again is not None  # run_research always returns its record
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
            # On resume, a plan call that failed is asked again (then its research runs) unless
            # the persona already argued without it; failed skill calls of a plan run again.
            loaded = await self._load_or_make(
                letter,
                round_no,
                "research",
                self.paths.research,
                ResearchRecord,
                self._researcher(round_no),
                lambda research: plan_failed(research) and not self._argued(letter, round_no),
            )
            if loaded:
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
                    self.model_for(letter), self.history, self.seats[letter], round_no
                ),
                lambda argument: not argument.claims,  # from before claimless answers failed
            )

        await fan_out(*(chain(letter) for letter in self.history.letters))
        self._seat_order(round_no, "research")
        self._seat_order(round_no, "argument")
        arguments = self.history.round(round_no).arguments
        if self._stop_flag() and len(arguments) < len(self.history.letters):
            return
        self._check_references(round_no)
        if not any(a.claims for a in arguments.values()):
            raise DebateFailed(self.words("t_no_argument", n=round_no))
        lost = [self.history.persona_name(k) for k in self.history.letters if k not in arguments]
        if lost:
            self.say("t_no_argument_from", n=round_no, names=", ".join(lost))

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

    def _researcher(self, round_no: int) -> Callable[[str], Awaitable[PhaseOutcome[Any]]]:
        async def produce(letter: str) -> PhaseOutcome[ResearchRecord]:
            plan_path = self.paths.research_plan(letter, round_no)
            consult = self.store.load_if_readable(
                self.paths.answered_consult(letter, round_no), phases.AnsweredConsult
            )
            plan = self.store.load_if_readable(
                self.paths.planned_research(letter, round_no), ResearchPlanDraft
            ) or self.store.load_if_readable(plan_path, ResearchPlanDraft)
            if plan is None:
                planned = await phases.plan_research(
                    self.model_for(letter),
                    self.history,
                    self.seats[letter],
                    self.toolkit,
                    round_no,
                    consult_answered=consult is not None,
                )
                if planned.record is None:
                    return PhaseOutcome(
                        ResearchRecord(persona=letter, round=round_no, why=NO_PLAN),
                        planned.failures,
                    )
                plan = planned.record
                self.store.save(plan_path, plan)
            for call in plan.calls[: phases.RESEARCH_BUDGET - (consult is not None)]:
                target = f" {call.colleague}" if call.colleague else ""
                self.say(
                    "t_search_via" if call.skill == "dogpile" else "t_skill_call",
                    name=self.history.persona_name(letter),
                    skill=call.skill,
                    target=target,
                    query=call.query,
                )
            outcome = await phases.run_research(
                plan,
                self.history,
                letter,
                self.toolkit,
                round_no,
                answered=[consult] if consult is not None else None,
            )
            research = outcome.record
            assert research is not None  # run_research always returns its record
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
                self.model_for(letter), self.history, self.seats[letter], round_no, self.toolkit
            ),
        )

    async def _reflect_and_judge(self, round_no: int) -> None:
        """Wave 3: every reflection (each also planning the next round's research), the judge
        and each persona's support check, which need only the arguments and rebuttals, all at
        once."""

        async def reflect(letter: str) -> PhaseOutcome[ReflectionRecord]:
            outcome = await phases.make_reflection(
                self.model_for(letter), self.history, self.seats[letter], round_no, self.toolkit
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
            self._support_check(round_no),
            *(self._consult(letter, round_no) for letter in self.history.letters),
        )

    async def _support_check(self, round_no: int) -> None:
        """Each persona's support check (one request each, beside the reflections and the
        judge: it needs only the round's arguments and rebuttals), then its verdicts applied to
        the round's citations before scoring. A check that failed is asked again on resume."""
        await self._per_persona(
            round_no,
            "support",
            self.paths.support,
            SupportRecord,
            lambda letter: phases.check_support(self.verifier, self.history, letter, round_no),
            failed=lambda support: not support.available,
        )
        record = self.history.round(round_no)
        apply_support(record)
        for letter, support in record.support.items():
            for check in support.checks:
                if check.support == "contradicts":
                    self.say(
                        "t_quote_contradicts",
                        name=self.history.persona_name(letter),
                        what=check.claim_id or self.words("t_counter_n", n=check.counter),
                        evidence=check.evidence_id,
                    )

    async def _consult(self, letter: str, round_no: int) -> None:
        """The colleague question the persona's rebuttal decided for the next round, answered
        now beside the reflections and the judge (from what is published up to this round),
        and saved as the first research call of the next round."""
        rebuttal = self.history.round(round_no).rebuttals.get(letter)
        ask = rebuttal.next_ask if rebuttal is not None else None
        path = self.paths.answered_consult(letter, round_no + 1)
        if ask is None or round_no >= self.history.config.max_rounds or self.store.has(path):
            return
        self.say(
            "t_skill_call",
            name=self.history.persona_name(letter),
            skill="ask",
            target=f" {ask.colleague}",
            query=ask.question,
        )
        async with self._turns.turn():
            answered = await phases.answer_consult(
                self.history, letter, self.toolkit, ask.colleague, ask.question
            )
        self.store.save(path, answered)

    async def _judge_once(self, round_no: int) -> None:
        judge = self.store.load_if_readable(self.paths.judge(round_no), JudgeVerdictRecord)
        if judge is None:
            async with self._turns.turn():
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
        apply_support(self.history.round(round_no))  # the verdicts on disk (resume) count
        score = score_round(self.history, round_no, judge)
        self.history.round(round_no).score = score
        await self._remember(round_no, score)
        # The commit point: every record of the round on the device first (store.commit).
        self.store.commit(self.paths.round_score(round_no), score)
        self._start_bookkeeping()  # the readable views, beside the next wave
        return score

    async def _judge(self, round_no: int) -> JudgeVerdictRecord:
        outcome = await phases.make_judgement(self.model, self.history, round_no)
        self._record_failures(outcome.failures)
        assert outcome.record is not None  # a failed judge call is a record too (unavailable)
        return outcome.record

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


def _summary(record: object, lang: str = "en") -> str:
    """One line of progress for a finished persona phase, in the debate's language."""
    if isinstance(record, ResearchRecord):
        worked = sum(1 for c in record.calls if c.status == "ok")
        return label(
            "sum_research", lang, items=len(record.evidence), ok=worked, calls=len(record.calls)
        )
    if isinstance(record, ArgumentRecord):
        quoted = sum(len(c.quoted_citations) for c in record.claims)
        return label("sum_argument", lang, claims=len(record.claims), quotes=quoted)
    if isinstance(record, RebuttalRecord):
        conceded = sum(1 for c in record.concessions if c.valid_target)
        return label("sum_rebuttal", lang, counters=len(record.counters), conceded=conceded) + (
            label("sum_declined", lang) if record.declined_to_concede else ""
        )
    if isinstance(record, ReflectionRecord):
        return label("sum_reflection", lang, confidence=f"{record.confidence:.2f}")
    if isinstance(record, SupportRecord):
        if not record.available:
            return label("sum_support_failed", lang, n=len(record.checks))
        return label(
            "sum_support",
            lang,
            supports=record.count("supports"),
            contradicts=record.count("contradicts"),
            unrelated=record.count("unrelated"),
            by=label("support_rules", lang) if record.checked_by == "rules" else record.checked_by,
        )
    return label("sum_done", lang)


_BUCKET = {
    "research": "research",
    "argument": "arguments",
    "rebuttal": "rebuttals",
    "reflection": "reflections",
    "support": "support",
}
