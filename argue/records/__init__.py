"""The debate's records: what code writes and every layer reads (engine, store, render).

``argue.domain`` holds the per-item records (config, state, evidence, claims, scores);
:mod:`argue.records.history` the in-memory view of a whole debate; :mod:`argue.records.prose`
the synthesis prose. Nothing here imports the engine, the store or render.
"""

from argue.records.history import DebateHistory, RoundRecord
from argue.records.prose import SynthesisDraft

__all__ = ["DebateHistory", "RoundRecord", "SynthesisDraft"]
