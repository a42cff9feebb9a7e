"""The debate script the tests use: ``argue.testing`` ships it (and its prompt readers), so a
user and a plugin can run argue with no model; this module keeps the tests' imports short."""

from __future__ import annotations

from argue.testing._script import (
    CLAIM_ID,
    EVIDENCE_ID,
    EVIDENCE_ROW,
    NEXT_ASK,
    OFFERED_COLLEAGUES,
    OFFERED_FREE,
    PHASE_ROUND,
    SUPPORT_ITEM,
    WORDS,
    DebateScript,
    ScriptedToolkit,
    asked,
    claim_words,
    names_of,
    quotes_shown,
    round_of,
    support_verdicts,
)

__all__ = [
    "CLAIM_ID",
    "EVIDENCE_ID",
    "EVIDENCE_ROW",
    "NEXT_ASK",
    "OFFERED_COLLEAGUES",
    "OFFERED_FREE",
    "PHASE_ROUND",
    "SUPPORT_ITEM",
    "WORDS",
    "DebateScript",
    "ScriptedToolkit",
    "asked",
    "claim_words",
    "names_of",
    "quotes_shown",
    "round_of",
    "support_verdicts",
]
