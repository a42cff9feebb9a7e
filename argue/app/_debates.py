"""Operations on existing debates: resume, stop, interject, status, transcript, synthesize,
report."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from argue.app._errors import ArgueError, OperationError, UsageError
from argue.app._limits import NOTE_MAX_CHARS
from argue.app._report import strongest_document, write_report
from argue.app._run import (
    RunOutcome,
    UsageSummary,
    completeness,
    end_report,
    outcome,
    run_debate,
)
from argue.app._workspace import Reporter, Workspace, quiet, server_limits

if TYPE_CHECKING:
    from argue.app._run import Moderator
    from argue.llm import ChatModel, ServerLimits
    from argue.store import DebateStore

RUNNING_PHASES = ("research", "argument", "rebuttal", "reflection", "scoring")


def _workspace(workspace: Workspace | None) -> Workspace:
    return workspace or Workspace()


# ------------------------------------------------------------------ resume


def resume(
    debate_id: str,
    *,
    provider: str | None = None,
    model: str | None = None,
    budget_usd: float | None = None,
    max_tokens: int | None = None,
    limits: ServerLimits | None = None,
    workspace: Workspace | None = None,
    reporter: Reporter = quiet,
    moderator: Moderator | None = None,
    command: str = "argue",
) -> RunOutcome:
    """Continue a stopped or interrupted debate from its last committed step (a completed one
    is returned as it is). A new ``budget_usd`` / ``max_tokens`` replaces the recorded one."""
    ready = ready_to_run(
        debate_id,
        provider=provider,
        model=model,
        budget_usd=budget_usd,
        max_tokens=max_tokens,
        limits=limits,
        workspace=workspace,
        reporter=reporter,
    )
    if isinstance(ready, RunOutcome):
        return ready
    store, chat_model, workspace = ready
    return run_debate(
        store, chat_model, workspace, reporter=reporter, moderator=moderator, command=command
    )


async def aresume(
    debate_id: str,
    *,
    provider: str | None = None,
    model: str | None = None,
    budget_usd: float | None = None,
    max_tokens: int | None = None,
    limits: ServerLimits | None = None,
    workspace: Workspace | None = None,
    reporter: Reporter = quiet,
    moderator: Moderator | None = None,
    command: str = "argue",
) -> RunOutcome:
    """``resume`` in the caller's event loop (``arun_debate``: its signal handlers are left
    alone, and cancelling the task leaves the debate interrupted)."""
    from argue.app._run import arun_debate

    ready = ready_to_run(
        debate_id,
        provider=provider,
        model=model,
        budget_usd=budget_usd,
        max_tokens=max_tokens,
        limits=limits,
        workspace=workspace,
        reporter=reporter,
    )
    if isinstance(ready, RunOutcome):
        return ready
    store, chat_model, workspace = ready
    return await arun_debate(
        store, chat_model, workspace, reporter=reporter, moderator=moderator, command=command
    )


def ready_to_run(
    debate_id: str,
    *,
    provider: str | None = None,
    model: str | None = None,
    budget_usd: float | None = None,
    max_tokens: int | None = None,
    limits: ServerLimits | None = None,
    workspace: Workspace | None = None,
    reporter: Reporter = quiet,
    chat_model: ChatModel | None = None,
    announce: bool = True,
) -> RunOutcome | tuple[DebateStore, ChatModel, Workspace]:
    """What a run of ``debate_id`` needs (its store, its model, the workspace), or, for a
    completed debate, its outcome as it is. ``chat_model``: the model a fresh plan resolved
    (``argue.start``), used unless ``provider``/``model`` name another. ``announce``: say
    "Resuming …" (not for a debate's first run)."""
    from argue.records.labels import label
    from argue.records.terminal import word

    workspace = _workspace(workspace)
    if budget_usd is not None and not budget_usd >= 0:
        raise UsageError(f"`budget_usd`: must be a number >= 0, got {budget_usd}")
    if max_tokens is not None and max_tokens < 1:
        raise UsageError(f"`max_tokens`: must be at least 1, got {max_tokens}")
    store = workspace.open(debate_id)
    config = store.config()
    state = store.state()
    lang = config.language
    if state.status == "completed":
        ending = word("termination", state.termination, lang)
        reporter(label("t_already_completed", lang, id=debate_id, termination=ending))
        from argue.report import REPORT_FILE

        report = store.paths.root / REPORT_FILE
        if report.is_file():
            return outcome(store, state).model_copy(update={"report_path": str(report)})
        path, problem = end_report(store)
        return outcome(store, state).model_copy(
            update={"report_path": path, "report_error": problem}
        )
    if store.is_locked():
        raise UsageError(f"debate {debate_id} is being run by another process (pid {state.pid})")
    if chat_model is None or provider is not None or model is not None:
        chat_model = workspace.resolve(provider or config.provider, model or config.model, limits)
    workspace.require_price(chat_model, budget_usd if budget_usd is not None else config.budget_usd)
    if budget_usd is not None:
        config.budget_usd = budget_usd
    if max_tokens is not None:
        config.budget_tokens = max_tokens
    if budget_usd is not None or max_tokens is not None:
        store.save_config(config)
    if announce:
        reporter(
            label("t_resuming", lang, id=debate_id, n=max(store.committed_rounds(), default=0))
        )
    return store, chat_model, workspace


# ------------------------------------------------------------------ stop / interject


class StopResult(BaseModel):
    id: str
    stop_requested: bool
    message: str


def stop(debate_id: str | None = None, *, workspace: Workspace | None = None) -> list[StopResult]:
    """Ask a running debate (``debate_id``), or every running one (None), to finish its current
    batch, checkpoint and exit with status stopped. An empty id is a usage error, never "all"."""
    from argue.store import iter_debates

    workspace = _workspace(workspace)
    if debate_id is not None:
        targets = [workspace.open(debate_id)]
    else:
        targets = [s for s in iter_debates(workspace.root) if s.is_locked()]
    results = []
    for store in targets:
        if not store.is_locked():
            status = store.state().status
            results.append(
                StopResult(
                    id=store.debate_id,
                    stop_requested=False,
                    message=f"{store.debate_id} is not running (status {status}); nothing to stop.",
                )
            )
            continue
        store.request_stop()
        results.append(
            StopResult(
                id=store.debate_id,
                stop_requested=True,
                message=f"Stop requested for {store.debate_id}",
            )
        )
    return results


class InterjectResult(BaseModel):
    id: str
    first_round: int | None  # None: no later round will read it (a running last round records it)
    message: str


def interject(debate_id: str, note: str, *, workspace: Workspace | None = None) -> InterjectResult:
    """Add a moderator note; it binds every round that starts after it."""
    if not note.strip():
        raise UsageError("the note is empty")
    if len(note) > NOTE_MAX_CHARS or "\x00" in note:
        raise UsageError(f"the note is not text of at most {NOTE_MAX_CHARS:,} characters")
    store = _workspace(workspace).open(debate_id)
    status = store.state().status
    if status in ("completed", "failed"):
        raise UsageError(f"debate {debate_id} is {status}: no later round for the note to bind")
    first, why = store.first_round_for_a_new_note()
    # Only a round still running will drain (and record) a note that no round reads.
    in_round = store.state().phase in RUNNING_PHASES
    running = status == "running" and store.is_locked() and in_round
    if first is None and not running:
        raise UsageError(f"debate {debate_id}: no later round for the note to bind ({why})")
    store.post_note(note.strip())
    if first is None:
        message = f"Note recorded for {debate_id}, but no later round will read it: {why}."
    else:
        message = (
            f"Note queued for {debate_id}: {why}, so round {first} is the first round whose "
            "prompts will see it (if the debate gets that far)."
        )
    return InterjectResult(id=store.debate_id, first_round=first, message=message)


# ------------------------------------------------------------------ status


class DebateStatus(BaseModel):
    """One debate's row (``argue status --json``). ``usage``, ``partial``, ``partial_reasons``
    and ``failures`` read the whole record and are filled only for a full status."""

    id: str
    question: str
    mode: str
    personas: dict[str, str]
    status: str
    round: int
    max_rounds: int
    termination: str | None
    updated_at: str | None
    language: str = "en"
    usage: UsageSummary | None = None
    partial: bool | None = None
    partial_reasons: list[str] | None = None
    failures: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The row as ``status --json`` prints it (no language; the record's parts if read)."""
        data = self.model_dump(exclude={"language"})
        if self.usage is None:
            for key in ("usage", "partial", "partial_reasons", "failures"):
                data.pop(key)
        return data


class StatusList(BaseModel):
    debates_dir: str
    debates: list[DebateStatus]
    skipped: list[str]  # "skipped <id>: <why>" for a folder whose files cannot be read


def debate_status(store: DebateStore, *, full: bool = True) -> DebateStatus:
    """One debate's row. Without ``full`` it reads config.json, state.json and, for a debate
    marked running, the lock: a bounded read per folder, however many rounds it has."""
    from argue.app._run import usage_summary

    config = store.config()
    state = store.state()
    status = state.status
    if status == "running" and not store.is_locked():
        status = "interrupted"
        state = state.model_copy(update={"status": status})
    row = DebateStatus(
        id=config.id,
        question=config.question,
        mode=config.mode,
        personas=dict(config.personas),
        status=status,
        round=state.round,
        max_rounds=config.max_rounds,
        termination=state.termination,
        updated_at=state.updated_at,
        language=config.language,
    )
    if full:
        row = row.model_copy(update={"usage": usage_summary(store), **completeness(store, state)})
    return row


def status(
    debate_id: str, *, full: bool = True, workspace: Workspace | None = None
) -> DebateStatus:
    """Where one debate stands."""
    from argue.store import StoreError

    store = _workspace(workspace).open(debate_id)
    try:
        return debate_status(store, full=full)
    except StoreError as exc:
        raise OperationError(str(exc)) from None


def statuses(*, full: bool = True, workspace: Workspace | None = None) -> StatusList:
    """Every debate in the folder; one whose files cannot be read is named in ``skipped``."""
    from argue.store import StoreError, iter_debates

    workspace = _workspace(workspace)
    rows, skipped = [], []
    for store in iter_debates(workspace.root):
        try:
            rows.append(debate_status(store, full=full))
        except StoreError as exc:
            skipped.append(f"skipped {store.debate_id}: {exc}")
    return StatusList(debates_dir=str(workspace.root), debates=rows, skipped=skipped)


# ------------------------------------------------------------------ transcript / synthesis


def transcript(debate_id: str, *, workspace: Workspace | None = None) -> str:
    """The transcript in Markdown, re-rendered from the saved records (also while it runs)."""
    from argue.engine import render_current_transcript
    from argue.store import StoreError

    store = _workspace(workspace).open(debate_id)
    try:
        return render_current_transcript(store)
    except StoreError as exc:
        raise OperationError(str(exc)) from None


class SynthesisResult(BaseModel):
    id: str
    text: str
    path: str
    written: bool  # False: synthesis.md was already there and is returned as written
    report_path: str | None = None
    report_error: str | None = None
    strongest: dict[str, Any] | None = None
    """The strongest arguments of each side and why the others cannot rank (JSON-ready)."""

    def as_json(self) -> dict[str, Any]:
        """``argue synthesize ID --json``: where it was written, and the strongest arguments
        (the Markdown itself is the file at ``path``)."""
        return self.model_dump(exclude={"text"})


def synthesize(
    debate_id: str,
    *,
    provider: str | None = None,
    model: str | None = None,
    rewrite: bool = True,
    wait_s: float = 0.0,
    workspace: Workspace | None = None,
    reporter: Reporter = quiet,
) -> SynthesisResult:
    """(Re)write synthesis.md and the HTML report: ``asynthesize`` in an event loop of its
    own (see there)."""
    import asyncio

    return asyncio.run(
        asynthesize(
            debate_id,
            provider=provider,
            model=model,
            rewrite=rewrite,
            wait_s=wait_s,
            workspace=workspace,
            reporter=reporter,
        )
    )


async def asynthesize(
    debate_id: str,
    *,
    provider: str | None = None,
    model: str | None = None,
    rewrite: bool = True,
    wait_s: float = 0.0,
    workspace: Workspace | None = None,
    reporter: Reporter = quiet,
) -> SynthesisResult:
    """(Re)write synthesis.md and the HTML report; a debate that did not finish gets a
    synthesis labelled partial. The prose parts come from the model (the debate's, with its
    configured limits, unless ``provider``/``model`` say otherwise); with no model configured
    the synthesis is written without them, and ``reporter`` says so.

    ``rewrite=False`` returns synthesis.md as written when there is one. ``wait_s``: how long to
    wait for a stopped debate's run to let go before giving up (it writes the synthesis)."""
    import asyncio

    from argue.engine import resynthesize
    from argue.files import read_text_inside
    from argue.llm import ModelError
    from argue.store import DebateLocked

    workspace = _workspace(workspace)
    store = workspace.open(debate_id)
    state = store.state()
    if wait_s > 0:
        if store.is_locked() and state.status == "running":
            raise UsageError(
                f"debate {debate_id} is still running (round {state.round}, {state.phase}); "
                "poll its status until it ends, or stop it"
            )
        deadline = time.monotonic() + wait_s
        while store.is_locked():
            if time.monotonic() > deadline:
                raise UsageError(
                    f"debate {debate_id} is {store.state().status} and its run is still "
                    "writing the synthesis; ask again shortly"
                )
            await asyncio.sleep(0.2)
    if not rewrite:
        text = read_text_inside(store.paths.root, store.paths.synthesis)
        if text is not None:
            return SynthesisResult(
                id=debate_id,
                text=text,
                path=str(store.paths.synthesis),
                written=False,
                strongest=strongest_document(store),
            )
    config = store.config()
    chat_model = None
    if not store.paths.synthesis_prose.exists():
        try:
            chat_model = workspace.resolve(provider or config.provider, model or config.model)
        except UsageError as exc:
            reporter(f"No model available ({exc}); writing the synthesis without its prose parts.")
    try:
        text = await resynthesize(store, chat_model, reporter)
    except DebateLocked:
        raise UsageError(f"debate {debate_id} is still running; stop it first or wait") from None
    except ModelError as exc:
        raise OperationError(str(exc)) from None
    reporter(f"Synthesis written to {store.paths.synthesis}")
    result = SynthesisResult(
        id=debate_id,
        text=text,
        path=str(store.paths.synthesis),
        written=True,
        strongest=strongest_document(store),
    )
    try:
        result.report_path = str(write_report(store))
        reporter(f"Report written to {result.report_path}")
    except ArgueError as exc:
        result.report_error = exc.message
        reporter(f"Report not refreshed: {exc.message}")
    return result


# ------------------------------------------------------------------ report


def report(debate_id: str, *, out: Path | None = None, workspace: Workspace | None = None) -> Path:
    """Write the debate's self-contained HTML report (default ``debates/<id>/report.html``)."""
    store = _workspace(workspace).open(debate_id)
    if out is not None and out.is_dir():
        raise UsageError(f"`out` {out} is a folder; name the file to write")
    return write_report(store, out)


__all__ = [
    "DebateStatus",
    "InterjectResult",
    "StatusList",
    "StopResult",
    "SynthesisResult",
    "debate_status",
    "interject",
    "report",
    "resume",
    "server_limits",
    "status",
    "statuses",
    "stop",
    "synthesize",
    "transcript",
]
