"""argue's application layer: what the CLI, the MCP server and ``argue serve`` do, as plain
functions; ``argue`` re-exports its public part (``argue.__all__``).

Every function takes typed arguments (a ``StartRequest`` for a new debate), returns a typed
record, reports progress through an optional ``reporter`` callback and fails with an
``ArgueError`` carrying a one-line message and the exit code the CLI would use. Nothing here
prints, exits or knows about typer or flags; the faces (``argue.commands``, ``argue.mcp``,
``argue.web``) parse, call and print, and add their own hints (a flag's name) to an error.

    from argue.app import StartRequest, prepare, create, run_debate

    plan = prepare(StartRequest(question="Is P = NP?", rounds=2))
    store = create(plan)
    outcome = run_debate(store, plan.chat_model, plan.workspace)

The names below are written once: the type checker reads these imports, and at run time
``argue._lazy`` reads the same lines to load each name from its module on first use (the CLI
imports this package for every command, ``--help`` included).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from argue._lazy import type_only_names

if TYPE_CHECKING:
    from argue.app._debates import DebateStatus as DebateStatus
    from argue.app._debates import InterjectResult as InterjectResult
    from argue.app._debates import StatusList as StatusList
    from argue.app._debates import StopResult as StopResult
    from argue.app._debates import SynthesisResult as SynthesisResult
    from argue.app._debates import aresume as aresume
    from argue.app._debates import asynthesize as asynthesize
    from argue.app._debates import debate_status as debate_status
    from argue.app._debates import interject as interject
    from argue.app._debates import report as report
    from argue.app._debates import resume as resume
    from argue.app._debates import status as status
    from argue.app._debates import statuses as statuses
    from argue.app._debates import stop as stop
    from argue.app._debates import synthesize as synthesize
    from argue.app._debates import transcript as transcript
    from argue.app._errors import ArgueError as ArgueError
    from argue.app._errors import Interrupted as Interrupted
    from argue.app._errors import NotFoundError as NotFoundError
    from argue.app._errors import OperationError as OperationError
    from argue.app._errors import UsageError as UsageError
    from argue.app._eval import EvalOutcome as EvalOutcome
    from argue.app._eval import EvalPlan as EvalPlan
    from argue.app._eval import EvalRequest as EvalRequest
    from argue.app._eval import merge_evals as merge_evals
    from argue.app._eval import prepare_eval as prepare_eval
    from argue.app._eval import run_eval as run_eval
    from argue.app._handle import Debate as Debate
    from argue.app._handle import debates as debates
    from argue.app._handle import evaluate as evaluate
    from argue.app._handle import plan as plan
    from argue.app._handle import start as start
    from argue.app._limits import QUESTION_MAX_CHARS as QUESTION_MAX_CHARS
    from argue.app._live import LiveDebate as LiveDebate
    from argue.app._live import LiveRow as LiveRow
    from argue.app._live import debate_ids as debate_ids
    from argue.app._live import live_debate as live_debate
    from argue.app._live import live_row as live_row
    from argue.app._live import report_html as report_html
    from argue.app._report import write_report as write_report
    from argue.app._requests import json_object_body as json_object_body
    from argue.app._run import EXIT_BY_STATUS as EXIT_BY_STATUS
    from argue.app._run import RUN_LOG as RUN_LOG
    from argue.app._run import DetachedRun as DetachedRun
    from argue.app._run import RunOutcome as RunOutcome
    from argue.app._run import UsageSummary as UsageSummary
    from argue.app._run import arun_debate as arun_debate
    from argue.app._run import detach as detach
    from argue.app._run import outcome as outcome
    from argue.app._run import run_debate as run_debate
    from argue.app._run import usage_summary as usage_summary
    from argue.app._seats import SeatChoice as SeatChoice
    from argue.app._seats import parse_model_spec as parse_model_spec
    from argue.app._seats import shared_model_warning as shared_model_warning
    from argue.app._start import DebatePlan as DebatePlan
    from argue.app._start import StartRequest as StartRequest
    from argue.app._start import budget_note as budget_note
    from argue.app._start import check_question as check_question
    from argue.app._start import create as create
    from argue.app._start import dry_run_document as dry_run_document
    from argue.app._start import prepare as prepare
    from argue.app._workspace import Reporter as Reporter
    from argue.app._workspace import Workspace as Workspace
    from argue.app._workspace import notices_to_stderr as notices_to_stderr
    from argue.app._workspace import quiet as quiet
    from argue.app._workspace import server_limits as server_limits
    from argue.store import ArgueWarning as ArgueWarning

_WHERE = type_only_names(__file__)
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'argue.app' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
