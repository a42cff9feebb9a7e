"""The attributes the debate runner's parts (framing, waves, endings) share."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from argue.concurrency import SendTurns
from argue.domain import (
    Failure,
    JudgeVerdictRecord,
)
from argue.engine.metering import MeteredModel
from argue.engine.phases import PersonaSeat
from argue.engine.toolkit import ResearchToolkit
from argue.records.history import DebateHistory
from argue.records.labels import label
from argue.store import DebatePaths, DebateStore

Reporter = Callable[[str], None]
StopKind = Literal["stop", "interrupt"]


class DebateFailed(Exception):
    """The debate cannot go on (e.g. every persona failed to argue in a round)."""


class RunnerState:
    """What the runner's parts share (declared here so each part type-checks on its own)."""

    store: DebateStore
    paths: DebatePaths
    model: MeteredModel
    verifier: MeteredModel  # the support check's model (the judge's unless chosen)
    toolkit: ResearchToolkit
    history: DebateHistory
    report: Reporter
    memory_writer: Callable[..., Awaitable[str]] | None
    seats: dict[str, PersonaSeat]
    _stop: StopKind | None
    _verdicts: dict[int, JudgeVerdictRecord]
    _turns: SendTurns

    @property
    def lang(self) -> str:
        """The debate's language: what the terminal lines are said in."""
        return self.history.config.language

    def words(self, key: str, **fields: object) -> str:
        return label(key, self.lang, **fields)

    def say(self, key: str, **fields: object) -> None:
        """Report the label ``key`` in the debate's language."""
        self.report(label(key, self.lang, **fields))

    def _record_failures(self, failures: list[Failure]) -> None:
        raise NotImplementedError

    def model_for(self, letter: str) -> MeteredModel:
        raise NotImplementedError

    def _stop_flag(self) -> bool:
        raise NotImplementedError

    def _start_bookkeeping(self) -> None:
        raise NotImplementedError
