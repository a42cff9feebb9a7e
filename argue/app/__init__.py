"""argue's application layer: what the CLI and the MCP server do, as plain functions.

Every function takes typed arguments (a ``StartRequest`` for a new debate), returns a typed
record, reports progress through an optional ``reporter`` callback and fails with an
``ArgueError`` carrying a one-line message and the exit code the CLI would use. Nothing here
prints, exits or knows about typer; the faces (``argue.commands``, ``argue.mcp``) parse, call
and print.

    from argue.app import StartRequest, prepare, create, run_debate

    plan = prepare(StartRequest(question="Is P = NP?", rounds=2))
    store = create(plan)
    outcome = run_debate(store, plan.chat_model, plan.workspace)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from argue.app._debates import (
        DebateStatus,
        InterjectResult,
        StatusList,
        StopResult,
        SynthesisResult,
        debate_status,
        interject,
        report,
        resume,
        status,
        statuses,
        stop,
        synthesize,
        transcript,
    )
    from argue.app._detached import (
        MAX_RUNNING,
        RunningCap,
        StartedDebate,
        check_debate_id,
        running_cap,
        synthesis_written,
    )
    from argue.app._doctor import (
        Diagnosis,
        Knobs,
        SourceRow,
        adiagnose,
        diagnose,
        judge,
        probe_sources,
    )
    from argue.app._errors import (
        ArgueError,
        Interrupted,
        NotFoundError,
        OperationError,
        UsageError,
    )
    from argue.app._eval import (
        EvalOutcome,
        EvalPlan,
        EvalRequest,
        merge_evals,
        prepare_eval,
        run_eval,
    )
    from argue.app._limits import (
        QUESTION_MAX_CHARS,
    )
    from argue.app._live import (
        LiveDebate,
        LiveRow,
        debate_ids,
        live_debate,
        live_row,
        report_html,
    )
    from argue.app._report import write_report
    from argue.app._requests import json_object_body
    from argue.app._run import (
        EXIT_BY_STATUS,
        RUN_LOG,
        DetachedRun,
        RunOutcome,
        UsageSummary,
        detach,
        outcome,
        run_debate,
        usage_summary,
    )
    from argue.app._seats import (
        SeatChoice,
        parse_model_spec,
        shared_model_warning,
    )
    from argue.app._settings import SettingEntry, effective_settings, key_variables, url_variables
    from argue.app._start import (
        DebatePlan,
        StartRequest,
        budget_note,
        check_question,
        create,
        dry_run_document,
        plan,
        prepare,
        start,
    )
    from argue.app._workspace import (
        Reporter,
        Workspace,
        notices_to_stderr,
        quiet,
        server_limits,
    )
    from argue.store import ArgueWarning

# Loaded on first use: the CLI imports this package for every command, ``--help`` included.
_WHERE = {
    "MAX_RUNNING": "argue.app._detached",
    "RunningCap": "argue.app._detached",
    "StartedDebate": "argue.app._detached",
    "check_debate_id": "argue.app._detached",
    "running_cap": "argue.app._detached",
    "synthesis_written": "argue.app._detached",
    "SettingEntry": "argue.app._settings",
    "effective_settings": "argue.app._settings",
    "key_variables": "argue.app._settings",
    "url_variables": "argue.app._settings",
    "Diagnosis": "argue.app._doctor",
    "Knobs": "argue.app._doctor",
    "SourceRow": "argue.app._doctor",
    "adiagnose": "argue.app._doctor",
    "diagnose": "argue.app._doctor",
    "judge": "argue.app._doctor",
    "probe_sources": "argue.app._doctor",
    "EvalRequest": "argue.app._eval",
    "EvalOutcome": "argue.app._eval",
    "EvalPlan": "argue.app._eval",
    "prepare_eval": "argue.app._eval",
    "run_eval": "argue.app._eval",
    "merge_evals": "argue.app._eval",
    "EXIT_BY_STATUS": "argue.app._run",
    "QUESTION_MAX_CHARS": "argue.app._limits",
    "RUN_LOG": "argue.app._run",
    "ArgueError": "argue.app._errors",
    "ArgueWarning": "argue.store",
    "notices_to_stderr": "argue.app._workspace",
    "json_object_body": "argue.app._requests",
    "DebatePlan": "argue.app._start",
    "DebateStatus": "argue.app._debates",
    "DetachedRun": "argue.app._run",
    "InterjectResult": "argue.app._debates",
    "Interrupted": "argue.app._errors",
    "NotFoundError": "argue.app._errors",
    "OperationError": "argue.app._errors",
    "Reporter": "argue.app._workspace",
    "RunOutcome": "argue.app._run",
    "SeatChoice": "argue.app._seats",
    "StartRequest": "argue.app._start",
    "StatusList": "argue.app._debates",
    "StopResult": "argue.app._debates",
    "SynthesisResult": "argue.app._debates",
    "UsageError": "argue.app._errors",
    "UsageSummary": "argue.app._run",
    "Workspace": "argue.app._workspace",
    "budget_note": "argue.app._start",
    "check_question": "argue.app._start",
    "create": "argue.app._start",
    "debate_status": "argue.app._debates",
    "detach": "argue.app._run",
    "dry_run_document": "argue.app._start",
    "interject": "argue.app._debates",
    "outcome": "argue.app._run",
    "parse_model_spec": "argue.app._seats",
    "plan": "argue.app._start",
    "prepare": "argue.app._start",
    "quiet": "argue.app._workspace",
    "report": "argue.app._debates",
    "resume": "argue.app._debates",
    "run_debate": "argue.app._run",
    "server_limits": "argue.app._workspace",
    "shared_model_warning": "argue.app._seats",
    "start": "argue.app._start",
    "status": "argue.app._debates",
    "statuses": "argue.app._debates",
    "stop": "argue.app._debates",
    "synthesize": "argue.app._debates",
    "transcript": "argue.app._debates",
    "usage_summary": "argue.app._run",
    "write_report": "argue.app._report",
    "LiveDebate": "argue.app._live",
    "LiveRow": "argue.app._live",
    "debate_ids": "argue.app._live",
    "live_debate": "argue.app._live",
    "live_row": "argue.app._live",
    "report_html": "argue.app._live",
}

__all__ = [
    "EXIT_BY_STATUS",
    "MAX_RUNNING",
    "QUESTION_MAX_CHARS",
    "RUN_LOG",
    "ArgueError",
    "ArgueWarning",
    "DebatePlan",
    "DebateStatus",
    "DetachedRun",
    "Diagnosis",
    "EvalOutcome",
    "EvalPlan",
    "EvalRequest",
    "InterjectResult",
    "Interrupted",
    "Knobs",
    "LiveDebate",
    "LiveRow",
    "NotFoundError",
    "OperationError",
    "Reporter",
    "RunOutcome",
    "RunningCap",
    "SeatChoice",
    "SettingEntry",
    "SourceRow",
    "StartRequest",
    "StartedDebate",
    "StatusList",
    "StopResult",
    "SynthesisResult",
    "UsageError",
    "UsageSummary",
    "Workspace",
    "adiagnose",
    "budget_note",
    "check_debate_id",
    "check_question",
    "create",
    "debate_ids",
    "debate_status",
    "detach",
    "diagnose",
    "dry_run_document",
    "effective_settings",
    "interject",
    "json_object_body",
    "judge",
    "key_variables",
    "live_debate",
    "live_row",
    "merge_evals",
    "notices_to_stderr",
    "outcome",
    "parse_model_spec",
    "plan",
    "prepare",
    "prepare_eval",
    "probe_sources",
    "quiet",
    "report",
    "report_html",
    "resume",
    "run_debate",
    "run_eval",
    "running_cap",
    "server_limits",
    "shared_model_warning",
    "start",
    "status",
    "statuses",
    "stop",
    "synthesis_written",
    "synthesize",
    "transcript",
    "url_variables",
    "usage_summary",
    "write_report",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'argue.app' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
