"""One persona's turn in each phase: build the prompt, call the model, check every id.

Each function returns a record plus the failures met; it never writes files (the orchestrator
alone writes the store) and never raises for a model failure of one persona.
"""

from argue.engine.phases._common import (
    RESEARCH_BUDGET,
    PersonaSeat,
    PhaseFailed,
    PhaseOutcome,
    complete_for,
    model_failure,
    records_phase_failure,
)
from argue.engine.phases.argument import make_argument
from argue.engine.phases.judge import make_judgement
from argue.engine.phases.rebuttal import make_rebuttal, target_note
from argue.engine.phases.reflection import make_reflection, research_call_from_record
from argue.engine.phases.research import (
    AnsweredConsult,
    _research_failures,
    answer_consult,
    plan_research,
    run_research,
)
from argue.engine.phases.support import check_support, support_items, uses_rules

__all__ = [
    "RESEARCH_BUDGET",
    "AnsweredConsult",
    "PersonaSeat",
    "PhaseFailed",
    "PhaseOutcome",
    "_research_failures",
    "answer_consult",
    "check_support",
    "complete_for",
    "make_argument",
    "make_judgement",
    "make_rebuttal",
    "make_reflection",
    "model_failure",
    "plan_research",
    "records_phase_failure",
    "research_call_from_record",
    "run_research",
    "support_items",
    "target_note",
    "uses_rules",
]
