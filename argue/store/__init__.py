"""Persistence for debates: the debates/<id>/ layout, lock, stop flag, inbox; its atomic writes
and boundary checks are :mod:`argue.files` (re-exported here: ``write_text_atomic``,
``write_json_atomic``)."""

from argue.files import write_json_atomic, write_text_atomic
from argue.store.debate_store import (
    DEBATE_ID_PATTERN,
    ArgueWarning,
    DebateLocked,
    DebateStore,
    StoreError,
    StoreWriteError,
    iter_debates,
    new_debate_id,
    set_notice_handler,
    stderr_notice,
)
from argue.store.layout import DebatePaths, persona_letter

__all__ = [
    "DEBATE_ID_PATTERN",
    "ArgueWarning",
    "DebateLocked",
    "DebatePaths",
    "DebateStore",
    "StoreError",
    "StoreWriteError",
    "iter_debates",
    "new_debate_id",
    "persona_letter",
    "set_notice_handler",
    "stderr_notice",
    "write_json_atomic",
    "write_text_atomic",
]
