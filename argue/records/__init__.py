"""The debate's records: what code writes and every layer reads (engine, store, render).

``argue.domain`` holds the per-item records (config, state, evidence, claims, scores) and says
them through :mod:`argue.records.reasons` and :mod:`argue.records.labels`;
:mod:`argue.records.history` is the in-memory view of a whole debate (it reads ``argue.domain``,
so this package does not import it: the ground may load the labels without a cycle);
:mod:`argue.records.prose` the synthesis prose. Nothing here imports the engine, the store or
render.

The package itself imports nothing: ``argue.records.labels`` is what the CLI's faces load at
start-up (``argue --help``), and the pydantic models of :mod:`argue.records.prose` cost about
as much as the rest of start-up together, so :data:`SynthesisDraft` is loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from argue.records.prose import SynthesisDraft

__all__ = ["SynthesisDraft"]


def __getattr__(name: str) -> Any:
    if name == "SynthesisDraft":
        from argue.records.prose import SynthesisDraft

        return SynthesisDraft
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
