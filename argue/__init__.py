"""argue: structured debates between LLM personas that end in a nuanced synthesis.

The Python API is the list below (``argue.__all__``), loaded on first use so that
``import argue`` (and ``argue --help``) stays fast::

    import argue

    debate = argue.start("Is the Collatz conjecture decidable?", rounds=2)
    outcome = debate.run()                      # or: await debate.arun()
    print(outcome.status, debate.synthesis().text)

Errors form one tree: ``ArgueError`` (``message``: one line; ``exit_code``: what the CLI exits
with) with ``UsageError`` (2: the request cannot be carried out as given) and its
``NotFoundError`` (no such debate), ``OperationError`` (1: the request was fine, the work
failed) and ``Interrupted`` (130: cancelled; resumable). Notices are ``ArgueWarning`` through
``warnings``. ``argue.testing`` runs argue with no model; ``argue.app`` is the wider layer the
faces call.
"""

from __future__ import annotations

import sys
import types
import warnings
from importlib import import_module
from typing import TYPE_CHECKING, Any

from argue._lazy import type_only_names
from argue._version import __version__

if TYPE_CHECKING:
    # Start or open a debate, and what its handle's calls return.
    from argue.app import ArgueError as ArgueError
    from argue.app import ArgueWarning as ArgueWarning
    from argue.app import Debate as Debate
    from argue.app import DebatePlan as DebatePlan
    from argue.app import DebateStatus as DebateStatus
    from argue.app import DetachedRun as DetachedRun
    from argue.app import EvalOutcome as EvalOutcome
    from argue.app import EvalRequest as EvalRequest
    from argue.app import InterjectResult as InterjectResult
    from argue.app import Interrupted as Interrupted
    from argue.app import NotFoundError as NotFoundError
    from argue.app import OperationError as OperationError
    from argue.app import Reporter as Reporter
    from argue.app import RunOutcome as RunOutcome
    from argue.app import StartRequest as StartRequest
    from argue.app import StatusList as StatusList
    from argue.app import SynthesisResult as SynthesisResult
    from argue.app import UsageError as UsageError
    from argue.app import Workspace as Workspace
    from argue.app import debates as debates
    from argue.app import evaluate as evaluate
    from argue.app import merge_evals as merge_evals
    from argue.app import plan as plan
    from argue.app import start as start

_WHERE = type_only_names(__file__)
__all__ = ["__version__", *sorted(_WHERE)]

DEPRECATED = {
    "status": "argue.Debate(id).status()",
    "resume": "argue.Debate(id).run()",
    "synthesize": "argue.Debate(id).synthesis(rewrite=True)",
    "stop": "argue.Debate(id).stop()",
    "interject": "argue.Debate(id).interject(note)",
    "transcript": "argue.Debate(id).transcript()",
    "report": "argue.Debate(id).report()",
}
"""Names the README of 0.1 documented, kept as aliases of the ``argue.app`` functions: each
use warns (``DeprecationWarning``) and names its replacement."""

REMOVED = {
    "prepare": "argue.plan(request)",
    "statuses": "argue.debates()",
    "create": "argue.start(request)",
    "run_debate": "argue.start(request).run()",
    "prepare_eval": "argue.evaluate(request)",
    "run_eval": "argue.evaluate(request)",
}
"""Names ``argue`` exported but never documented: gone from ``argue`` (the faces' layer,
``argue.app``, still has them); asking for one says what replaces it."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(import_module(module), name)
        globals()[name] = value
        return value
    if name in DEPRECATED:
        warnings.warn(
            f"argue.{name} is deprecated; use {DEPRECATED[name]}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(import_module("argue.app"), name)
    if name in REMOVED:
        raise AttributeError(f"argue.{name} was removed from argue: use {REMOVED[name]}")
    raise AttributeError(f"module 'argue' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


class _Api(types.ModuleType):
    """``argue`` keeps its word: importing a subpackage that shares a name with an API
    function (``argue.report``, the HTML report package, imported by ``argue.report()`` itself)
    does not rebind the function's name to the package (``import argue.report`` binds the
    attribute on its parent; the package stays in ``sys.modules``)."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and (name in __all__ or name in DEPRECATED):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Api
