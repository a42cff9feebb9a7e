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
    from argue.app._catalog import PersonaView, classify, persona_catalog, persona_view
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
    from argue.app._home import first_time
    from argue.app._library import (
        AddedFile,
        RemovedDocument,
        add_to_library,
        library_documents,
        remove_from_library,
        search_library,
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
    from argue.app._memory import forget, learn, memories, recall
    from argue.app._report import write_report
    from argue.app._requests import json_object_body
    from argue.app._research import ResearchOutcome, research, source_names
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
    from argue.concurrency import run_in_daemon_thread
    from argue.config import Settings
    from argue.domain import BRIDGE_MEANINGS, BRIDGES
    from argue.engine.estimate import ASSUMPTION, TYPICAL_CALLS
    from argue.eval.report import judged_lines, run_lines, table_caption
    from argue.llm import ChatModel, PriceTable, ServerLimits, mask_secrets
    from argue.llm.probe import Check
    from argue.personas import PersonaCatalog
    from argue.redact import redact
    from argue.skills.base import SkillItem, SkillResult
    from argue.skills.library import EMPTY_LIBRARY_NOTE
    from argue.skills.memory import MemoryRecord
    from argue.store import ArgueWarning, DebateStore

# Loaded on first use: the CLI imports this package for every command, ``--help`` included.
_WHERE = {
    "follow": "argue.app._watch",
    "first_time": "argue.app._home",
    "Settings": "argue.config",
    "ChatModel": "argue.llm",
    "PriceTable": "argue.llm",
    "ServerLimits": "argue.llm",
    "mask_secrets": "argue.llm",
    "Check": "argue.llm.probe",
    "DebateStore": "argue.store",
    "run_in_daemon_thread": "argue.concurrency",
    "judged_lines": "argue.eval.report",
    "run_lines": "argue.eval.report",
    "table_caption": "argue.eval.report",
    "ASSUMPTION": "argue.engine.estimate",
    "TYPICAL_CALLS": "argue.engine.estimate",
    "redact": "argue.redact",
    "AddedFile": "argue.app._library",
    "RemovedDocument": "argue.app._library",
    "add_to_library": "argue.app._library",
    "library_documents": "argue.app._library",
    "remove_from_library": "argue.app._library",
    "search_library": "argue.app._library",
    "forget": "argue.app._memory",
    "learn": "argue.app._memory",
    "memories": "argue.app._memory",
    "recall": "argue.app._memory",
    "ResearchOutcome": "argue.app._research",
    "research": "argue.app._research",
    "source_names": "argue.app._research",
    "PersonaView": "argue.app._catalog",
    "classify": "argue.app._catalog",
    "persona_catalog": "argue.app._catalog",
    "persona_view": "argue.app._catalog",
    "BRIDGES": "argue.domain",
    "BRIDGE_MEANINGS": "argue.domain",
    "EMPTY_LIBRARY_NOTE": "argue.skills.library",
    "SkillItem": "argue.skills.base",
    "SkillResult": "argue.skills.base",
    "MemoryRecord": "argue.skills.memory",
    "PersonaCatalog": "argue.personas",
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
    "ASSUMPTION",
    "BRIDGES",
    "BRIDGE_MEANINGS",
    "EMPTY_LIBRARY_NOTE",
    "EXIT_BY_STATUS",
    "MAX_RUNNING",
    "QUESTION_MAX_CHARS",
    "RUN_LOG",
    "TYPICAL_CALLS",
    "AddedFile",
    "ArgueError",
    "ArgueWarning",
    "ChatModel",
    "Check",
    "DebatePlan",
    "DebateStatus",
    "DebateStore",
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
    "MemoryRecord",
    "NotFoundError",
    "OperationError",
    "PersonaCatalog",
    "PersonaView",
    "PriceTable",
    "RemovedDocument",
    "Reporter",
    "ResearchOutcome",
    "RunOutcome",
    "RunningCap",
    "SeatChoice",
    "ServerLimits",
    "SettingEntry",
    "Settings",
    "SkillItem",
    "SkillResult",
    "SourceRow",
    "StartRequest",
    "StartedDebate",
    "StatusList",
    "StopResult",
    "SynthesisResult",
    "UsageError",
    "UsageSummary",
    "Workspace",
    "add_to_library",
    "adiagnose",
    "budget_note",
    "check_debate_id",
    "check_question",
    "classify",
    "create",
    "debate_ids",
    "debate_status",
    "detach",
    "diagnose",
    "dry_run_document",
    "effective_settings",
    "first_time",
    "follow",
    "forget",
    "interject",
    "json_object_body",
    "judge",
    "judged_lines",
    "key_variables",
    "learn",
    "library_documents",
    "live_debate",
    "live_row",
    "mask_secrets",
    "memories",
    "merge_evals",
    "notices_to_stderr",
    "outcome",
    "parse_model_spec",
    "persona_catalog",
    "persona_view",
    "plan",
    "prepare",
    "prepare_eval",
    "probe_sources",
    "quiet",
    "recall",
    "redact",
    "remove_from_library",
    "report",
    "report_html",
    "research",
    "resume",
    "run_debate",
    "run_eval",
    "run_in_daemon_thread",
    "run_lines",
    "running_cap",
    "search_library",
    "server_limits",
    "shared_model_warning",
    "source_names",
    "start",
    "status",
    "statuses",
    "stop",
    "synthesis_written",
    "synthesize",
    "table_caption",
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
