"""Following a debate that runs elsewhere (``argue watch ID``, ``status ID --follow``).

:func:`follow` polls the debate's folder and reads only: ``state.json`` (status, round, phase),
each persona's records as they appear, ``failures.json``, and ``usage.jsonl`` for the cost so
far. It never takes the lock, writes a file or signals the runner, so a watcher starting,
stopping or being interrupted changes nothing in the debate. Its lines are in the debate's
language; the last is the termination line (the live page's words, with the spending).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from argue.app._live import phase_words, termination_words
from argue.records.labels import label, label_of
from argue.records.reasons import failure_sentence
from argue.records.terminal import plural, rebuttal_line, score_words, word

if TYPE_CHECKING:
    from argue.domain import DebateState
    from argue.store import DebateStore

# Where each phase falls in a round, to print what a look found in the debate's order.
_STEP = {
    "framing": 0,
    "research": 0,
    "argument": 0,
    "rebuttal": 1,
    "reflection": 2,
    "scoring": 3,
}
ORPHAN_GRACE_S = 5.0
"""How long "running" may go without a live runner (no lock, no live pid) before the debate is
reported interrupted: a detached run takes a moment to start and take the lock."""


def follow(
    store: DebateStore,
    emit: Callable[[str], None],
    *,
    interval: float = 1.0,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    grace_s: float = ORPHAN_GRACE_S,
    command: str = "argue",
) -> DebateState:
    """Emit one line per change until the debate is no longer running; return its last state.
    ``command`` is how the user runs argue, for the resume hint. A folder that cannot be read
    is an ``OperationError``.

    The state is read before the records on each look: the runner writes a record before the
    state that follows it, so the last look shows every record before the termination line.
    """
    from argue.app._errors import OperationError
    from argue.store import StoreError

    try:
        return _follow(store, emit, interval, sleep, clock, grace_s, command)
    except StoreError as exc:
        raise OperationError(str(exc)) from None


def _follow(
    store: DebateStore,
    emit: Callable[[str], None],
    interval: float,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
    grace_s: float,
    command: str,
) -> DebateState:
    tracker = _Tracker(store, command)
    emit(tracker.header())
    for line in tracker.catch_up():
        emit(line)
    orphan_since: float | None = None
    while True:
        state = store.state()
        for line in tracker.changes(state):
            emit(line)
        if state.status != "running":
            emit(tracker.termination_line(state))
            return state
        if store.is_locked() or _alive(state.pid):
            orphan_since = None
        else:
            orphan_since = clock() if orphan_since is None else orphan_since
            if clock() - orphan_since >= grace_s:
                state = state.model_copy(
                    update={
                        "status": "interrupted",  # said as "no process is running it"
                        "termination": None,
                        "termination_detail": None,
                        "error": None,
                    }
                )
                emit(tracker.termination_line(state))
                return state
        sleep(interval)


def _alive(pid: int | None) -> bool:
    if not pid or pid == os.getpid():
        # Our own pid means the runner is in this process (a thread): the lock tells.
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ------------------------------------------------------------------ what changed


@dataclass
class _Tracker:
    store: DebateStore
    command: str = "argue"
    seen: set[Path] = field(default_factory=set)
    scored: set[int] = field(default_factory=set)
    phase: tuple[int, str] | None = None
    failures_seen: int = 0
    refusals: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.config = self.store.config()
        self.lang = self.config.language
        self.names = {letter: self._name(letter) for letter in self.config.personas}

    def _name(self, letter: str) -> str:
        from argue.domain import Persona

        snapshot = self.store.load_if_readable(self.store.paths.persona_snapshot(letter), Persona)
        return snapshot.display_name if snapshot else self.config.personas[letter]

    # -- lines

    def header(self) -> str:
        question = " ".join(self.config.question.split())
        if len(question) > 100:
            question = question[:99] + "…"
        return self._say(
            "w_following",
            id=self.config.id,
            question=question,
            names=label("t_vs", self.lang).join(self.names.values()),
            mode=self.config.mode
            if self.lang == "en"
            else word("mode", self.config.mode, self.lang),
            n=self.config.max_rounds,
        )

    def _say(self, key: str, **fields: object) -> str:
        return label(key, self.lang, **fields)

    def termination_line(self, state: DebateState) -> str:
        line = termination_words(self.config, state) + f" · {self._spending()}"
        if state.status == "completed":
            line += " · " + self._say("w_synthesis", path=self.store.paths.synthesis)
        elif state.status in ("stopped", "budget_exhausted", "interrupted"):
            command = f"{self.command} resume {self.config.id}"
            line += " · " + self._say("w_resume", command=command)
        return line

    def _spending(self) -> str:
        from argue.llm import UsageLedger
        from argue.llm.pricing import describe_cost

        total = UsageLedger(self.store.load_usage()).total()
        calls = plural(total.calls, "model_call", self.lang)
        return self._say("w_spending", calls=calls, cost=describe_cost(total, self.lang))

    # -- records

    def catch_up(self) -> list[str]:
        """What happened before the watch began: committed rounds in one line each; the
        records of a round under way come through :meth:`changes`, one by one."""
        lines = []
        for round_no in self.store.committed_rounds():
            for path in self._round_paths(round_no):
                self.seen.add(path)
            line = self._score_line(round_no)
            if line:
                lines.append(line)
        return lines

    def changes(self, state: DebateState) -> list[str]:
        """New lines since the last look, in the debate's order (a phase line before the
        records of that phase, a round's score after its records)."""
        keyed: list[tuple[tuple[int, int, int], str]] = []
        keyed += self._new_failures()
        last = max(state.round, max(self.store.committed_rounds(), default=0))
        for round_no in range(1, min(last, self.config.max_rounds) + 1):
            for letter in self.config.personas:
                keyed += self._new_records(letter, round_no)
            if round_no not in self.scored and self.store.has(
                self.store.paths.round_score(round_no)
            ):
                score_line = self._score_line(round_no)
                if score_line:
                    keyed.append(
                        ((round_no, _STEP["scoring"], 1), f"{score_line} · {self._spending()}")
                    )
        # After the scores: the look that finds a late score also tells the next phase.
        keyed += self._phase_line(state)
        return [line for _, line in sorted(keyed, key=lambda item: item[0])]

    def _phase_line(self, state: DebateState) -> list[tuple[tuple[int, int, int], str]]:
        keyed: list[tuple[tuple[int, int, int], str]] = []
        key = (state.round, state.phase)
        if key != self.phase and state.status == "running" and self._previous_round_told(state):
            self.phase = key
            words = phase_words(state.phase, self.lang)
            if state.phase == "synthesis":
                ending = state.termination or ""
                reason = (
                    (ending or "ending")
                    if self.lang == "en"
                    else word("termination", ending, self.lang)
                    if ending
                    else self._say("w_ending")
                )
                line = self._say("w_writing_synthesis", reason=reason)
                keyed.append(((self.config.max_rounds + 1, 0, 0), line))
            elif state.round >= 1 and state.phase != "framing":
                line = self._say(
                    "w_round",
                    n=state.round,
                    total=self.config.max_rounds,
                    words=words,
                    spending=self._spending(),
                )
                keyed.append(((state.round, _STEP.get(state.phase, 0), 0), line))
            else:
                keyed.append(((0, 0, 0), f"{words.capitalize()}…"))
        return keyed

    def _previous_round_told(self, state: DebateState) -> bool:
        """A round's score is written in the background while the next round starts: its phase
        line waits for the look that finds the score, so the lines keep the debate's order.
        The synthesis state is written behind every commit point (``DebateStore.save_state``);
        a score on disk that does not read (damaged) holds nothing back."""
        previous = state.round - 1
        if state.phase == "synthesis" or previous < 1 or previous in self.scored:
            return True
        return self.store.has(self.store.paths.round_score(previous))

    def _round_paths(self, round_no: int) -> list[Path]:
        paths = self.store.paths
        return [
            path
            for letter in self.config.personas
            for path in (
                paths.research(letter, round_no),
                paths.argument(letter, round_no),
                paths.rebuttal(letter, round_no),
                paths.reflection(letter, round_no),
            )
        ]

    def _new_records(self, letter: str, round_no: int) -> list[tuple[tuple[int, int, int], str]]:
        from argue.domain import ArgumentRecord, RebuttalRecord, ReflectionRecord, ResearchRecord

        paths = self.store.paths
        name = self.names[letter]
        lines = []
        for step, path, model, describe in (
            ("research", paths.research(letter, round_no), ResearchRecord, _describe_research),
            ("research", paths.argument(letter, round_no), ArgumentRecord, _describe_argument),
            ("rebuttal", paths.rebuttal(letter, round_no), RebuttalRecord, _describe_rebuttal),
            (
                "reflection",
                paths.reflection(letter, round_no),
                ReflectionRecord,
                _describe_reflection,
            ),
        ):
            if path in self.seen or not self.store.has(path):
                continue
            record = self.store.load_if_readable(path, model)
            if record is None:
                continue  # being replaced: the next look reads it
            self.seen.add(path)
            line = f"  [{name}] {describe(record, self.lang)}"
            lines.append(((round_no, _STEP[step], 1), line))
        return lines

    def _score_line(self, round_no: int) -> str | None:
        from argue.domain import RoundScore

        score = self.store.load_if_readable(self.store.paths.round_score(round_no), RoundScore)
        if score is None:
            return None  # not written yet, or being replaced: the next look reads it
        self.scored.add(round_no)
        parts = [
            f"{self.names.get(letter, letter)} {score_words(s.total, s.max_total, self.lang)}"
            for letter, s in score.personas.items()
        ]
        return self._say("w_scored", n=round_no, scores=", ".join(parts))

    def _new_failures(self) -> list[tuple[tuple[int, int, int], str]]:
        from argue.domain import Failure
        from argue.store import StoreError

        try:
            failures = self.store.load_list(self.store.paths.failures, Failure)
        except StoreError:
            return []
        lines = []
        for failure in failures[self.failures_seen :]:
            if failure.kind == "refused":
                if failure.reason in self.refusals:
                    continue  # the same refusal (a missing key…) is told once
                self.refusals.add(failure.reason)
            who = (
                f"[{self.names.get(failure.persona, failure.persona)}] " if failure.persona else ""
            )
            step = _STEP.get(failure.phase, _STEP["scoring"])
            if failure.phase == "synthesis":
                key = (self.config.max_rounds + 1, 0, 2)
            else:
                key = (failure.round, step, 2)
            lines.append((key, f"  {who}{failure_sentence(failure, self.config.language)}"))
        self.failures_seen = max(self.failures_seen, len(failures))
        return lines


def _describe_research(record: object, lang: str = "en") -> str:
    from argue.domain import ResearchRecord

    assert isinstance(record, ResearchRecord)
    statuses: dict[str, int] = {}
    for call in record.calls:
        if call.status != "ok":
            statuses[call.status] = statuses.get(call.status, 0) + 1
    documents = sum(1 for e in record.evidence if e.is_document)
    line = label(
        "w_research",
        lang,
        round=record.round,
        calls=plural(len(record.calls), "call", lang),
        items=plural(len(record.evidence), "item", lang),
        documents=documents,
    )
    if statuses:
        line += " · " + ", ".join(
            f"{n} {status if lang == 'en' else label_of('call', status, lang)}"
            for status, n in sorted(statuses.items())
        )
    return line


def _describe_argument(record: object, lang: str = "en") -> str:
    from argue.domain import ArgumentRecord

    assert isinstance(record, ArgumentRecord)
    ids = ", ".join(c.id for c in record.claims)
    claims = plural(len(record.claims), "claim", lang)
    return label("w_argument", lang, round=record.round, claims=claims) + (
        f" ({ids})" if ids else ""
    )


def _describe_rebuttal(record: object, lang: str = "en") -> str:
    from argue.domain import RebuttalRecord

    assert isinstance(record, RebuttalRecord)
    return rebuttal_line(record, lang)


def _describe_reflection(record: object, lang: str = "en") -> str:
    from argue.domain import ReflectionRecord

    assert isinstance(record, ReflectionRecord)
    return label("w_reflection", lang, round=record.round, confidence=f"{record.confidence:.2f}")
