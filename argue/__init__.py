"""argue: structured debates between LLM personas that end in a nuanced synthesis.

The public Python API is the application layer (``argue.app``), re-exported here and loaded on
first use so that ``import argue`` (and ``argue --help``) stays fast::

    import argue

    plan = argue.plan(argue.StartRequest(question="Is P = NP?", rounds=2))
    outcome = argue.start(argue.StartRequest(question="Is P = NP?", rounds=2))
    print(argue.synthesize(outcome.id).text)
"""

from __future__ import annotations

import sys
import types
from typing import Any

from argue._version import __version__

__all__ = [
    "ArgueError",
    "ArgueWarning",
    "DebatePlan",
    "DebateStatus",
    "DetachedRun",
    "EvalOutcome",
    "EvalRequest",
    "Interrupted",
    "NotFoundError",
    "OperationError",
    "RunOutcome",
    "StartRequest",
    "SynthesisResult",
    "UsageError",
    "Workspace",
    "__version__",
    "create",
    "interject",
    "merge_evals",
    "plan",
    "prepare",
    "prepare_eval",
    "report",
    "resume",
    "run_debate",
    "run_eval",
    "start",
    "status",
    "statuses",
    "stop",
    "synthesize",
    "transcript",
]


def __getattr__(name: str) -> Any:
    if name in __all__ and name != "__version__":
        import argue.app

        value = getattr(argue.app, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'argue' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])


class _Api(types.ModuleType):
    """``argue`` keeps its word: importing a subpackage that shares a name with an API
    function (``argue.report``, the HTML report package, imported by ``argue.report()`` itself)
    does not rebind the function's name to the package (``import argue.report`` binds the
    attribute on its parent; the package stays in ``sys.modules``)."""

    def __setattr__(self, name: str, value: object) -> None:
        if isinstance(value, types.ModuleType) and name in __all__:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Api
