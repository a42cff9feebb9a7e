"""The debate's records: what code writes and every layer reads (engine, store, render).

``argue.domain`` holds the per-item records (config, state, evidence, claims, scores) and says
them through :mod:`argue.records.reasons` and :mod:`argue.records.labels`;
:mod:`argue.records.history` is the in-memory view of a whole debate (it reads ``argue.domain``,
so this package does not import it: the ground may load the labels without a cycle);
:mod:`argue.records.prose` the synthesis prose. Nothing here imports the engine, the store or
render.
"""

from argue.records.prose import SynthesisDraft

__all__ = ["SynthesisDraft"]
