"""The debate's in-memory record now lives in :mod:`argue.records.history` (below engine, store
and render); kept so ``argue.engine.context`` imports keep working."""

from argue.records.history import DebateHistory, RoundRecord

__all__ = ["DebateHistory", "RoundRecord"]
