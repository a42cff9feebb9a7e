"""Research sources beyond the built-in table: ``register_source`` and the ``argue.sources``
entry-point group.

An entry point names a ``ResearchSource`` row, or a module that declares its own facts the way
the built-in ones do (``SOURCE``, ``async search(query, *, client, limit)``, and optionally
``KEY_ENV``, ``OPTIONAL_KEY_ENV``, ``URL_ENV``, ``RANK``, ``PACED``). Entry points are loaded
lazily, once; one that cannot be loaded is left out with a one-line reason
(``plugin_problems``), said once on stderr.
"""

from __future__ import annotations

import importlib.metadata
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING

from argue.redact import register_secret_variables, unregister_secret_variables

if TYPE_CHECKING:
    from argue.skills.dogpile import ResearchSource

ENTRY_POINT_GROUP = "argue.sources"
DEFAULT_RANK = 10  # after every built-in source in the merge
_EXTRA: dict[str, ResearchSource] = {}
_PROBLEMS: dict[str, str] = {}
_loaded: list[bool] = []


def extra_sources() -> tuple[ResearchSource, ...]:
    if not _loaded:
        _loaded.append(True)
        load_plugin_sources()
    return tuple(_EXTRA.values())


def register_source(source: ResearchSource | ModuleType) -> ResearchSource:
    """Add a row (or a module's row); its key and URL variables are masked from now on."""
    from argue.skills.dogpile import SOURCES, ResearchSource

    row = source if isinstance(source, ResearchSource) else _row_of_module(source, "code")
    if any(s.name == row.name for s in SOURCES) or row.name in _EXTRA:
        raise ValueError(f"the source name {row.name!r} is already taken")
    if not callable(getattr(row.module, "search", None)):
        raise TypeError(f"source {row.name!r}: its module has no search(query, *, client, limit)")
    _EXTRA[row.name] = row
    register_secret_variables(keys=row.secret_variables, urls=[row.url_env or ""])
    return row


def unregister_source(name: str) -> None:
    row = _EXTRA.pop(name, None)
    if row is not None:
        unregister_secret_variables(keys=row.secret_variables, urls=[row.url_env or ""])


@contextmanager
def source_registered(source: ResearchSource | ModuleType) -> Iterator[ResearchSource]:
    """``register_source`` for the length of a ``with`` block (tests)."""
    row = register_source(source)
    try:
        yield row
    finally:
        unregister_source(row.name)


def plugin_problems() -> dict[str, str]:
    extra_sources()
    return dict(_PROBLEMS)


def load_plugin_sources() -> dict[str, str]:
    """Register every ``argue.sources`` entry point; never raises."""
    try:
        points = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # unreadable metadata: the built-in sources still work
        points = []
        _PROBLEMS[ENTRY_POINT_GROUP] = f"cannot list the source plugins: {_one_line(exc)}"
    for point in points:
        try:
            loaded = point.load()
            if isinstance(loaded, ModuleType):
                loaded = _row_of_module(loaded, point.value)
            register_source(loaded)
        except (Exception, SystemExit) as exc:
            _PROBLEMS[point.name] = (
                f"source plugin {point.name} ({point.value}) left out: {_one_line(exc)}"
            )
    for problem in _PROBLEMS.values():
        print(f"warning: {problem}", file=sys.stderr)
    return dict(_PROBLEMS)


def _row_of_module(module: ModuleType, origin: str) -> ResearchSource:
    from argue.skills.dogpile import ResearchSource

    if not isinstance(getattr(module, "SOURCE", None), str):
        raise TypeError(f"module {module.__name__} names no SOURCE")
    rank = getattr(module, "RANK", DEFAULT_RANK)
    paced = bool(getattr(module, "PACED", False))
    return ResearchSource.of(module, rank=rank, paced=paced, origin=origin)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__
