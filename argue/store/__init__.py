"""Persistence for debates: the debates/<id>/ layout, atomic writes, lock, stop flag, inbox."""

from argue.store._atomic import read_json, write_json_atomic, write_text_atomic
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
    "read_json",
    "set_notice_handler",
    "stderr_notice",
    "write_json_atomic",
    "write_text_atomic",
]
