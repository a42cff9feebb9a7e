"""The public handle on one debate: ``start`` returns a ``Debate``; ``Debate(id)`` opens one.

A ``Debate`` names a folder under the debates folder, nothing more: every method reads or
writes that folder when it is called (another process may be running it), so a handle is cheap,
can be made again from the id at any time, and never holds a stale copy of the records.

    debate = argue.start("Is the Collatz conjecture decidable?", rounds=2)
    outcome = debate.run()              # or: await debate.arun()
    print(debate.status().termination, debate.synthesis().text)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from argue.app._errors import UsageError
from argue.app._workspace import Reporter, Workspace, quiet

if TYPE_CHECKING:
    from argue.app._debates import DebateStatus, InterjectResult, StatusList, SynthesisResult
    from argue.app._eval import EvalOutcome, EvalRequest
    from argue.app._run import DetachedRun, Moderator, RunOutcome
    from argue.app._start import DebatePlan, StartRequest
    from argue.llm import ChatModel
    from argue.store import DebateStore


def _request(request: StartRequest | str, fields: dict[str, Any]) -> StartRequest:
    """A ``StartRequest``, or a question with the request's fields as keywords."""
    from argue.app._start import StartRequest

    if isinstance(request, StartRequest):
        if fields:
            raise UsageError(
                f"give the fields in the StartRequest or as keywords, not both "
                f"({', '.join(sorted(fields))})"
            )
        return request
    if not isinstance(request, str):
        raise UsageError(f"a question (str) or a StartRequest, not {type(request).__name__}")
    return StartRequest(question=request, **fields)


def plan(
    request: StartRequest | str, workspace: Workspace | None = None, **fields: Any
) -> DebatePlan:
    """The dry run: the request checked and resolved (seating, models, sources, budget), with
    ``DebatePlan.estimate()`` for its calls, tokens and cost. Nothing is written and no model
    is called. ``request``: a ``StartRequest``, or the question with its fields as keywords."""
    from argue.app._start import prepare

    return prepare(_request(request, fields), workspace)


def start(
    request: StartRequest | str,
    workspace: Workspace | None = None,
    *,
    reporter: Reporter = quiet,
    command: str = "argue",
    **fields: Any,
) -> Debate:
    """Create a debate (its folder, config.json, state.json; no model is called yet) and
    return its handle; ``Debate.run()`` runs it here, ``Debate.detach()`` in the background.
    A request with ``detach=True`` is handed to the background at once (``Debate.detached``).

    ``request``: a ``StartRequest``, or the question with its fields as keywords
    (``start("Is P = NP?", rounds=2)``). ``reporter`` hears the progress lines of every call
    on the handle (default: nothing is said); ``command`` is how hints name argue."""
    from argue.app._start import create, prepare

    checked = _request(request, fields)
    debate_plan = prepare(checked, workspace)
    store = create(debate_plan, command=command)
    debate = Debate(
        store.debate_id, workspace=debate_plan.workspace, reporter=reporter, command=command
    )
    debate._plan = debate_plan
    debate._fresh_model = debate_plan.chat_model
    if checked.detach:
        debate.detach()
    return debate


def debates(*, full: bool = False, workspace: Workspace | None = None) -> StatusList:
    """Every debate in the debates folder, one row each (``full``: usage and completeness
    too, which reads each debate's whole record); a folder that cannot be read is named in
    ``skipped``."""
    from argue.app._debates import statuses

    return statuses(full=full, workspace=workspace)


def evaluate(
    request: EvalRequest,
    workspace: Workspace | None = None,
    *,
    reporter: Reporter = quiet,
    command: str = "argue",
) -> EvalOutcome:
    """Run an eval (debate vs a single answer vs a majority vote on questions with known
    answers) to its report; the same request again resumes it where it stopped."""
    from argue.app._eval import prepare_eval, run_eval

    return run_eval(prepare_eval(request, workspace), reporter=reporter, command=command)


class Debate:
    """One debate, by id: ``Debate("argue_20260212_153000")`` opens it (``NotFoundError`` if
    the folder holds no such debate) in ``workspace`` (default: the configured debates folder).

    ``reporter``: where the handle's calls say what they are doing, one line at a time
    (``print`` shows progress; default: nothing); ``command``: how hints name argue."""

    def __init__(
        self,
        debate_id: str,
        *,
        workspace: Workspace | None = None,
        reporter: Reporter = quiet,
        command: str = "argue",
    ) -> None:
        self._workspace = workspace or Workspace()
        self._store: DebateStore = self._workspace.open(debate_id)
        self._reporter = reporter
        self._command = command
        self._plan: DebatePlan | None = None
        self._fresh_model: ChatModel | None = None
        self.detached: DetachedRun | None = None
        """The background run ``detach()`` started, if it did."""

    def __repr__(self) -> str:
        return f"Debate({self.id!r})"

    @property
    def id(self) -> str:
        return self._store.debate_id

    @property
    def folder(self) -> Path:
        """``debates/<id>/``: config.json, state.json, transcript.md, synthesis.md, …"""
        return self._store.paths.root

    @property
    def plan(self) -> DebatePlan | None:
        """The plan the debate was started from (``start``), None for one opened by id."""
        return self._plan

    @property
    def workspace(self) -> Workspace:
        return self._workspace

    # ------------------------------------------------------------------ running

    def run(
        self,
        *,
        budget_usd: float | None = None,
        max_tokens: int | None = None,
        provider: str | None = None,
        model: str | None = None,
        moderator: Moderator | None = None,
    ) -> RunOutcome:
        """Run the debate in this process until it ends or pauses, from its last committed
        step (a completed debate is returned as it is). ``budget_usd``/``max_tokens`` replace
        the recorded budget; ``provider``/``model`` run it on another model.

        In the main thread the first Ctrl-C pauses at the next checkpoint and the second
        cancels (``Interrupted``). A run that fails is an ``OperationError`` and leaves the
        debate ``failed``; another process running it is a ``UsageError``."""
        from argue.app._run import run_debate

        ready = self._ready(budget_usd, max_tokens, provider, model)
        if not isinstance(ready, tuple):
            return ready
        store, chat_model, workspace = ready
        return run_debate(
            store,
            chat_model,
            workspace,
            reporter=self._reporter,
            moderator=moderator,
            command=self._command,
        )

    async def arun(
        self,
        *,
        budget_usd: float | None = None,
        max_tokens: int | None = None,
        provider: str | None = None,
        model: str | None = None,
        moderator: Moderator | None = None,
    ) -> RunOutcome:
        """``run`` in the caller's event loop: its signal handlers are left alone, and
        cancelling the task cancels the run (the debate is left interrupted, resumable, and
        ``CancelledError`` propagates). ``stop()`` from another task pauses it cleanly."""
        from argue.app._run import arun_debate

        ready = self._ready(budget_usd, max_tokens, provider, model)
        if not isinstance(ready, tuple):
            return ready
        store, chat_model, workspace = ready
        return await arun_debate(
            store,
            chat_model,
            workspace,
            reporter=self._reporter,
            moderator=moderator,
            command=self._command,
        )

    def _ready(
        self,
        budget_usd: float | None,
        max_tokens: int | None,
        provider: str | None,
        model: str | None,
    ) -> RunOutcome | tuple[DebateStore, ChatModel, Workspace]:
        from argue.app._debates import ready_to_run

        fresh, self._fresh_model = self._fresh_model, None  # a run closes the model it used
        return ready_to_run(
            self.id,
            provider=provider,
            model=model,
            budget_usd=budget_usd,
            max_tokens=max_tokens,
            workspace=self._workspace,
            reporter=self._reporter,
            chat_model=fresh,
            announce=fresh is None,
        )

    def detach(self) -> DetachedRun:
        """Run the debate in a background process of its own (output in ``run.log``) and
        return once that process owns it; ``status()`` follows it, ``stop()`` pauses it."""
        from argue.app._run import detach

        self._fresh_model = None  # the background process resolves its own
        self.detached = detach(self._store, reporter=self._reporter)
        return self.detached

    def stop(self) -> bool:
        """Ask the process running the debate to finish its current batch, checkpoint and
        exit (status ``stopped``, resumable). False: nothing was running it."""
        from argue.app._debates import stop

        (result,) = stop(self.id, workspace=self._workspace)
        return result.stop_requested

    def interject(self, note: str) -> InterjectResult:
        """Add a moderator note; it binds every round that starts after it (``first_round``
        says which; None: no later round will read it)."""
        from argue.app._debates import interject

        return interject(self.id, note, workspace=self._workspace)

    # ------------------------------------------------------------------ reading

    def status(self, *, full: bool = True) -> DebateStatus:
        """Where the debate stands (a debate marked running that no process holds is
        ``interrupted``); ``full=False`` reads config.json and state.json only."""
        from argue.app._debates import status

        return status(self.id, full=full, workspace=self._workspace)

    def transcript(self) -> str:
        """The transcript in Markdown, rendered from the saved records (also while it runs)."""
        from argue.app._debates import transcript

        return transcript(self.id, workspace=self._workspace)

    def synthesis(
        self,
        *,
        rewrite: bool = False,
        provider: str | None = None,
        model: str | None = None,
        wait_s: float = 0.0,
    ) -> SynthesisResult:
        """synthesis.md: as written when there is one, else written now (and the HTML report
        with it); ``rewrite`` writes it again. A debate that did not finish gets a synthesis
        labelled partial; its prose parts come from the debate's model (or ``provider``/
        ``model``), and without a model the synthesis is written without them."""
        from argue.app._debates import synthesize

        return synthesize(
            self.id,
            provider=provider,
            model=model,
            rewrite=rewrite,
            wait_s=wait_s,
            workspace=self._workspace,
            reporter=self._reporter,
        )

    async def asynthesis(
        self,
        *,
        rewrite: bool = False,
        provider: str | None = None,
        model: str | None = None,
        wait_s: float = 0.0,
    ) -> SynthesisResult:
        """``synthesis`` in the caller's event loop."""
        from argue.app._debates import asynthesize

        return await asynthesize(
            self.id,
            provider=provider,
            model=model,
            rewrite=rewrite,
            wait_s=wait_s,
            workspace=self._workspace,
            reporter=self._reporter,
        )

    def report(self, out: Path | str | None = None) -> Path:
        """Write the self-contained HTML report of the debate as it stands (default
        ``debates/<id>/report.html``; a running debate's is labelled partial); returns where."""
        from argue.app._debates import report

        return report(self.id, out=None if out is None else Path(out), workspace=self._workspace)
