"""Running a created debate: in this process (Ctrl-C pauses, a second one cancels) or in a
background process of its own session; and what a finished run amounts to (``RunOutcome``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from argue.app._errors import ArgueError, Interrupted, OperationError, UsageError
from argue.app._report import write_report
from argue.app._workspace import Reporter, Workspace, quiet

if TYPE_CHECKING:
    from argue.domain import DebateState
    from argue.llm import ChatModel
    from argue.store import DebateStore

EXIT_BY_STATUS = {
    "completed": 0,
    "failed": 1,
    "stopped": 3,
    "budget_exhausted": 3,
    "interrupted": 130,
    "running": 1,
}

RUN_LOG = "run.log"
# How long a detached start waits for the background run to take the debate's lock.
STARTUP_DEADLINE_S = 60.0

Moderator = Callable[[int], Awaitable[str | None]]


class UsageSummary(BaseModel):
    """Calls, tokens and cost. ``cost_usd`` is None unless every call has a known price and
    every request was answered (``possibly_billed_calls``: sent, then timed out or dropped,
    maybe billed);
    ``cost_usd_at_least`` is the priced part; ``cost`` says it in words."""

    calls: int
    tokens: int
    cost_usd: float | None
    cost_usd_at_least: float
    unpriced_calls: int
    possibly_billed_calls: int
    cost: str
    models: dict[str, int]


class RunOutcome(BaseModel):
    """Where a run left its debate; ``exit_code`` is what the CLI exits with (0 completed,
    1 failed, 3 paused and resumable, 130 interrupted)."""

    id: str
    status: str
    termination: str | None
    rounds: int
    synthesis_path: str | None
    usage: UsageSummary
    partial: bool
    partial_reasons: list[str]
    failures: int
    exit_code: int
    error: str | None = None
    report_path: str | None = None
    """The HTML report written as the run ended (``debates/<id>/report.html``)."""
    report_error: str | None = None
    """Why that report could not be written (the debate itself is unaffected)."""
    strongest: dict[str, Any] | None = None
    """The strongest arguments of each side, once the synthesis is written (see
    ``argue.app._report.strongest_document``)."""

    conclusion: str | None = None
    """The synthesis's nuanced conclusion as the model wrote it (model text: data), when the
    synthesis prose is on disk and is not a refusal."""

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` document the CLI ends with."""
        return self.model_dump(exclude={"exit_code", "error", "conclusion"})


class DetachedRun(BaseModel):
    """A debate handed to a background process that now owns it."""

    id: str
    pid: int
    status: str
    log: str
    started: bool  # False: the process had not taken the debate within the deadline


def usage_summary(store: DebateStore) -> UsageSummary:
    from argue.llm import UsageLedger
    from argue.llm.pricing import describe_cost, total_tokens

    ledger = UsageLedger(store.load_usage())
    total = ledger.total()
    exact = total.unpriced_calls == 0 and total.possibly_billed_calls == 0
    return UsageSummary(
        calls=total.calls,
        tokens=total_tokens(total),
        cost_usd=round(total.cost_usd, 6) if exact else None,
        cost_usd_at_least=round(total.cost_usd, 6),
        unpriced_calls=total.unpriced_calls,
        possibly_billed_calls=total.possibly_billed_calls,
        cost=describe_cost(total),
        models={name: usage.calls for name, usage in ledger.by_model().items()},
    )


def completeness(store: DebateStore, state: DebateState) -> dict[str, Any]:
    """``partial`` (and why) and how many failures the record holds."""
    from argue.engine import load_history

    history = load_history(store)
    # A synthesis on disk without its prose parts (the synthesis call failed) is partial.
    prose_missing = store.paths.synthesis.exists() and not store.paths.synthesis_prose.exists()
    reasons = history.partial_reasons(
        state, prose_missing=prose_missing and bool(history.all_claims())
    )
    return {"partial": bool(reasons), "partial_reasons": reasons, "failures": len(history.failures)}


def _conclusion(store: DebateStore) -> str | None:
    """The prose conclusion, unless it is missing, unreadable or the model declining."""
    from argue.records import SynthesisDraft
    from argue.store import StoreError

    try:
        prose = store.load(store.paths.synthesis_prose, SynthesisDraft)
    except StoreError:
        return None
    if prose is None or "conclusion" in prose.refusing_sections():
        return None
    return prose.conclusion.strip() or None


def outcome(store: DebateStore, state: DebateState) -> RunOutcome:
    from argue.app._report import strongest_document

    synthesis = store.paths.synthesis
    return RunOutcome(
        strongest=strongest_document(store) if synthesis.exists() else None,
        conclusion=_conclusion(store) if synthesis.exists() else None,
        id=store.debate_id,
        status=state.status,
        termination=state.termination,
        rounds=len(store.committed_rounds()),
        synthesis_path=str(synthesis) if synthesis.exists() else None,
        usage=usage_summary(store),
        exit_code=EXIT_BY_STATUS.get(state.status, 1),
        error=state.error,
        **completeness(store, state),
    )


def run_debate(
    store: DebateStore,
    chat_model: ChatModel,
    workspace: Workspace,
    *,
    reporter: Reporter = quiet,
    moderator: Moderator | None = None,
    command: str = "argue",
) -> RunOutcome:
    """Run the debate in this process until it ends or pauses.

    In the main thread, the first SIGINT asks for a stop at the next checkpoint and the second
    cancels (``Interrupted``); SIGTERM stops. A run that raises marks the debate failed."""
    import asyncio

    from argue.records.labels import label

    signals = threading.current_thread() is threading.main_thread()
    try:
        return asyncio.run(
            arun_debate(
                store,
                chat_model,
                workspace,
                reporter=reporter,
                moderator=moderator,
                command=command,
                signals=signals,
            )
        )
    except (asyncio.CancelledError, KeyboardInterrupt):
        resume = f"{command} resume {store.debate_id}"
        raise Interrupted(label("t_cancelled", store.config().language, command=resume)) from None


async def arun_debate(
    store: DebateStore,
    chat_model: ChatModel,
    workspace: Workspace,
    *,
    reporter: Reporter = quiet,
    moderator: Moderator | None = None,
    command: str = "argue",
    signals: bool = False,
) -> RunOutcome:
    """``run_debate`` in the caller's event loop. ``signals``: take SIGINT (the first pauses at
    the next checkpoint, the second cancels) and SIGTERM (stops) for the run's length, as the
    CLI does; a library caller keeps its loop's own handlers (the default).

    Cancelling the awaiting task cancels the run: the debate is left ``interrupted``
    (resumable) and ``CancelledError`` propagates, as asyncio expects."""
    import asyncio
    import signal

    from argue.app._seats import models_for_run, verifier_for_run
    from argue.engine import DebateRunner, SkillToolkit, memory_writer
    from argue.llm import mask_secrets
    from argue.records.labels import label
    from argue.store import DebateLocked, StoreWriteError

    config = store.config()
    lang = config.language
    persona_models = models_for_run(config, chat_model, workspace)
    verifier = verifier_for_run(config, chat_model, workspace, persona_models)
    toolkit = SkillToolkit(
        chat_model,
        sources=config.sources_in_use(),
        external=workspace.settings.external_skills,
        unused_sources=config.unused_sources,
    )
    runner = DebateRunner(
        store,
        chat_model,
        toolkit,
        reporter=reporter,
        memory_writer=memory_writer,
        moderator=moderator,
        persona_models=persona_models,
        verifier_model=verifier,
    )
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    presses = 0

    def on_sigint() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            reporter(label("t_ctrl_c", lang))
            runner.request_stop("interrupt")
        elif task is not None:
            task.cancel()

    if signals:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
        loop.add_signal_handler(signal.SIGTERM, lambda: runner.request_stop("stop"))
    try:
        state = await runner.run()
    except DebateLocked as exc:
        raise UsageError(str(exc)) from None
    except StoreWriteError as exc:
        raise OperationError(str(exc)) from None
    except Exception as exc:
        error = mask_secrets(f"{type(exc).__name__}: {exc}")
        store.update_state(status="failed", error=error, pid=None)
        end_report(store)
        raise OperationError(label("t_run_failed", lang, id=store.debate_id, error=error)) from None
    finally:
        if signals:
            loop.remove_signal_handler(signal.SIGINT)
            loop.remove_signal_handler(signal.SIGTERM)
        owned = (chat_model, *persona_models.values(), *([verifier] if verifier else []))
        for each in {id(m): m for m in owned}.values():
            close = getattr(each, "aclose", None)
            if close is not None:
                await close()
    path, problem = end_report(store)
    return outcome(store, state).model_copy(update={"report_path": path, "report_error": problem})


def end_report(store: DebateStore) -> tuple[str | None, str | None]:
    """Write ``report.html`` as a run ends, whatever the ending (a paused or failed debate's
    report is labelled partial): (its path, None), or (None, why not) — a report that cannot be
    written never changes the debate's outcome."""
    try:
        return str(write_report(store)), None
    except ArgueError as exc:
        return None, exc.message


def detach(
    store: DebateStore, *, reporter: Reporter = quiet, deadline_s: float = STARTUP_DEADLINE_S
) -> DetachedRun:
    """Run the debate in a background process (own session, output in ``run.log``) and return
    once that process owns it. The process is ``python -m argue resume ID``: the same run from
    the same config.json, so it outlives the caller."""
    root = store.paths.root.resolve()
    log_path = root / RUN_LOG
    command = [
        sys.executable,
        "-m",
        "argue",
        "resume",
        store.debate_id,
        "--debates-dir",
        str(root.parent),
    ]
    from argue.files import open_append
    from argue.store import StoreError

    try:
        # Inside the folder, no link, and never through a hard link to a file outside.
        fd = open_append(root, log_path)
    except StoreError as exc:
        raise OperationError(str(exc)) from None
    except OSError as exc:
        raise OperationError(f"cannot create {log_path}: {exc.strerror}") from None
    try:
        os.write(fd, f"argue: background run of {store.debate_id}\n".encode())
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=fd,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        raise OperationError(f"cannot start the background run: {exc}") from None
    finally:
        os.close(fd)
    code, started = _wait_until_running(store, process, reporter, deadline_s)
    state = store.state()
    if code not in (None, 0, 3) and not store.is_locked():
        raise OperationError(
            f"the background run of {store.debate_id} exited with code {code} "
            f"(status {state.status}); see {log_path}"
        )
    return DetachedRun(
        id=store.debate_id,
        pid=process.pid,
        status=state.status,
        log=str(log_path),
        started=started,
    )


def _wait_until_running(
    store: DebateStore, process: subprocess.Popen[bytes], reporter: Reporter, deadline_s: float
) -> tuple[int | None, bool]:
    """Until the background run holds the lock (None, True) or has exited (its code)."""
    deadline = time.monotonic() + deadline_s
    while not store.is_locked():
        code = process.poll()
        if code is not None:
            return code, False
        if time.monotonic() > deadline:
            reporter(f"The background run has not started within {deadline_s:g} s yet.")
            return None, False
        time.sleep(0.05)
    return None, True
