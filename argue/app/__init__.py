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

An error of a layer below (a debate folder's ``StoreError``, an unusable ``ARGUE_HOME``) is
the application's to name: ``app_error(exc)`` gives the ``ArgueError`` it is, so a face
catches application errors alone (``at_the_boundary`` makes a function raise only those).

The names below are written once: the type checker reads these imports, and at run time
``argue._lazy`` reads the same lines to load each name from its module on first use (the CLI
imports this package for every command, ``--help`` included).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from argue._lazy import type_only_names

if TYPE_CHECKING:
    from argue.app._catalog import PersonaView as PersonaView
    from argue.app._catalog import classify as classify
    from argue.app._catalog import persona_catalog as persona_catalog
    from argue.app._catalog import persona_view as persona_view
    from argue.app._checks import BOUNDS as BOUNDS
    from argue.app._checks import bounds_error as bounds_error
    from argue.app._checks import check_bounds as check_bounds
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
    from argue.app._detached import MAX_RUNNING as MAX_RUNNING
    from argue.app._detached import RunningCap as RunningCap
    from argue.app._detached import StartedDebate as StartedDebate
    from argue.app._detached import check_debate_id as check_debate_id
    from argue.app._detached import running_cap as running_cap
    from argue.app._detached import synthesis_written as synthesis_written
    from argue.app._doctor import Diagnosis as Diagnosis
    from argue.app._doctor import Knobs as Knobs
    from argue.app._doctor import SourceRow as SourceRow
    from argue.app._doctor import adiagnose as adiagnose
    from argue.app._doctor import diagnose as diagnose
    from argue.app._doctor import judge as judge
    from argue.app._doctor import probe_sources as probe_sources
    from argue.app._documents import COMPACT_FIELDS as COMPACT_FIELDS
    from argue.app._documents import MAX_RUNNING_ENV as MAX_RUNNING_ENV
    from argue.app._documents import configured_running_cap as configured_running_cap
    from argue.app._documents import listing_document as listing_document
    from argue.app._documents import status_document as status_document
    from argue.app._errors import ArgueError as ArgueError
    from argue.app._errors import Interrupted as Interrupted
    from argue.app._errors import NotFoundError as NotFoundError
    from argue.app._errors import OperationError as OperationError
    from argue.app._errors import UsageError as UsageError
    from argue.app._errors import app_error as app_error
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
    from argue.app._home import first_time as first_time
    from argue.app._library import AddedFile as AddedFile
    from argue.app._library import RemovedDocument as RemovedDocument
    from argue.app._library import add_to_library as add_to_library
    from argue.app._library import library_documents as library_documents
    from argue.app._library import remove_from_library as remove_from_library
    from argue.app._library import search_library as search_library
    from argue.app._limits import NOTE_MAX_CHARS as NOTE_MAX_CHARS
    from argue.app._limits import QUESTION_MAX_CHARS as QUESTION_MAX_CHARS
    from argue.app._listen import is_loopback as is_loopback
    from argue.app._listen import listen_error as listen_error
    from argue.app._live import LiveDebate as LiveDebate
    from argue.app._live import LiveRow as LiveRow
    from argue.app._live import debate_ids as debate_ids
    from argue.app._live import live_debate as live_debate
    from argue.app._live import live_row as live_row
    from argue.app._live import report_html as report_html
    from argue.app._memory import forget as forget
    from argue.app._memory import learn as learn
    from argue.app._memory import memories as memories
    from argue.app._memory import recall as recall
    from argue.app._model import configured_model as configured_model
    from argue.app._question import question_text as question_text
    from argue.app._question import read_question as read_question
    from argue.app._report import write_report as write_report
    from argue.app._requests import json_object_body as json_object_body
    from argue.app._research import ResearchOutcome as ResearchOutcome
    from argue.app._research import research as research
    from argue.app._research import source_names as source_names
    from argue.app._roles import role_assignments as role_assignments
    from argue.app._roles import roles_help as roles_help
    from argue.app._roles import roles_listing as roles_listing
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
    from argue.app._settings import SettingEntry as SettingEntry
    from argue.app._settings import effective_settings as effective_settings
    from argue.app._settings import key_variables as key_variables
    from argue.app._settings import url_variables as url_variables
    from argue.app._start import DebatePlan as DebatePlan
    from argue.app._start import StartRequest as StartRequest
    from argue.app._start import budget_note as budget_note
    from argue.app._start import check_question as check_question
    from argue.app._start import create as create
    from argue.app._start import dry_run_document as dry_run_document
    from argue.app._start import prepare as prepare
    from argue.app._watch import follow as follow
    from argue.app._workspace import Reporter as Reporter
    from argue.app._workspace import Workspace as Workspace
    from argue.app._workspace import notices_to_stderr as notices_to_stderr
    from argue.app._workspace import quiet as quiet
    from argue.app._workspace import server_limits as server_limits

    # Types and printing helpers of the layers below, for the faces (argue.app is their door).
    from argue.concurrency import run_in_daemon_thread as run_in_daemon_thread
    from argue.config import Settings as Settings
    from argue.domain import BRIDGE_MEANINGS as BRIDGE_MEANINGS
    from argue.domain import BRIDGES as BRIDGES
    from argue.engine.estimate import ASSUMPTION as ASSUMPTION
    from argue.engine.estimate import TYPICAL_CALLS as TYPICAL_CALLS
    from argue.engine.modes import modes_help as modes_help
    from argue.engine.modes import modes_taking as modes_taking
    from argue.engine.modes import role_fields as role_fields
    from argue.eval.report import judged_lines as judged_lines
    from argue.eval.report import run_lines as run_lines
    from argue.eval.report import table_caption as table_caption
    from argue.llm import ChatModel as ChatModel
    from argue.llm import PriceTable as PriceTable
    from argue.llm import ServerLimits as ServerLimits
    from argue.llm import mask_secrets as mask_secrets
    from argue.llm import provider_help as provider_help
    from argue.llm.probe import Check as Check
    from argue.paths import ArgueHomeError as ArgueHomeError
    from argue.personas import PersonaCatalog as PersonaCatalog
    from argue.redact import redact as redact
    from argue.skills.base import SkillItem as SkillItem
    from argue.skills.base import SkillResult as SkillResult
    from argue.skills.library import EMPTY_LIBRARY_NOTE as EMPTY_LIBRARY_NOTE
    from argue.skills.memory import MemoryRecord as MemoryRecord
    from argue.store import ArgueWarning as ArgueWarning
    from argue.store import DebateStore as DebateStore

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
