"""Debates started in the background by a long-lived server (``argue mcp``): the id check,
the cap on how many run at once, and what a start returns."""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from argue.app._errors import UsageError

if TYPE_CHECKING:
    from argue.app._start import StartRequest
    from argue.app._workspace import Workspace

ID_SHOWN_CHARS = 40
MAX_RUNNING = 4
MAX_RUNNING_LIMIT = 64


def check_debate_id(debate_id: str) -> str:
    """``debate_id`` when it is an id as argue writes them (``store.DEBATE_ID_PATTERN``);
    otherwise a UsageError, before any file is touched (an empty id is an error, never
    "all")."""
    from argue.console import terminal_safe
    from argue.store import DEBATE_ID_PATTERN

    if not debate_id or not debate_id.strip():
        raise UsageError("no debate id given")
    if DEBATE_ID_PATTERN.fullmatch(debate_id) is None:
        shown = terminal_safe(debate_id[:ID_SHOWN_CHARS])
        more = "…" if len(debate_id) > ID_SHOWN_CHARS else ""
        raise UsageError(f"not a debate id: {shown!r}{more} (ids look like argue_20260212_153000)")
    return debate_id


def running_cap(value: str | int | None, *, named: str = "max_running") -> int:
    """How many debates may run at once, from ``value`` (None or "": the default). ``named``
    is how the caller spells the setting, for the error."""
    from argue.console import terminal_safe

    if value is None or value == "":
        return MAX_RUNNING
    try:
        number = int(value)
    except ValueError:
        number = 0
    if not 1 <= number <= MAX_RUNNING_LIMIT:
        shown = terminal_safe(str(value)[:ID_SHOWN_CHARS])
        raise UsageError(f"{named}: a whole number from 1 to {MAX_RUNNING_LIMIT}, got {shown!r}")
    return number


@dataclass(frozen=True)
class StartedDebate:
    """What a background start returns: the debate's settings as written, and its run's log."""

    id: str
    status: str
    question: str
    mode: str
    personas: dict[str, str]  # letter -> persona id
    seating_reason: str | None
    max_rounds: int
    model: str
    sources: list[str]
    language: str
    folder: str
    log: str
    unused_sources: dict[str, str] = field(default_factory=dict)  # name -> why it cannot answer

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunningCap:
    """At most ``limit`` debates running at once in a workspace's folder. Starts that arrive
    together (a server runs each call on its own thread) are serialised from counting the
    running debates until the new one's run owns its folder, so none passes the cap.
    ``how_to_raise`` and ``how_to_stop`` say, in the caller's words, how to change the limit
    and how to stop a debate."""

    limit: int = MAX_RUNNING
    how_to_raise: str = "max_running"
    how_to_stop: str = "stop one"
    _starting: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def start(self, request: StartRequest, workspace: Workspace) -> StartedDebate:
        from argue.app._debates import statuses
        from argue.app._run import detach
        from argue.app._start import create, prepare

        plan = prepare(request, workspace)
        with self._starting:
            listing = statuses(full=False, workspace=workspace)
            running = sum(1 for row in listing.debates if row.status == "running")
            if running >= self.limit:
                raise UsageError(
                    f"{running} debates are already running in {listing.debates_dir} (at most "
                    f"{self.limit} at once here: {self.how_to_raise}); wait for one to end or "
                    f"{self.how_to_stop}"
                )
            store = create(plan)
            run = detach(store)
        config, state = store.config(), store.state()
        return StartedDebate(
            id=store.debate_id,
            status=state.status,
            question=config.question,
            mode=config.mode,
            personas=dict(config.personas),
            seating_reason=config.selection_reason,
            max_rounds=config.max_rounds,
            model=f"{config.provider}/{config.model}",
            sources=list(config.research_sources),
            language=config.language,
            folder=str(store.paths.root),
            log=run.log,
            unused_sources=dict(config.unused_sources or {}),
        )


def synthesis_written(debate_id: str, workspace: Workspace) -> tuple[bool, str]:
    """Whether the debate's synthesis.md exists as a regular file, and the debate's folder."""
    from argue.files import is_regular

    store = workspace.open(debate_id)
    return is_regular(store.paths.root, store.paths.synthesis), str(store.paths.root)
