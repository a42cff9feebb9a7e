"""The provider table: one row (``ProviderSpec``) per provider says everything argue knows of it.

A row holds the provider's name, the variables its key and its URL live in, its default model,
how it is auto-detected, how its ``ChatModel`` is built, how ``argue doctor`` probes it and what
to tell a user who has not set it up. Everything else is derived from the table: the provider
names, the default models, the secret variables ``argue.redact`` masks, the ``--provider`` help,
``argue config show`` and ``argue doctor``.

The built-in rows live in ``argue.llm._builtin``; a package adds a row through the entry-point
group ``argue.providers`` (an entry point names a ``ProviderSpec`` or a no-argument callable
returning one), loaded lazily, once; code (a test) calls ``register_provider``.

Nothing here imports an SDK: a row's ``build`` imports its adapter when it is called.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from argue.llm._spec import (
    DEFAULT_MAX_CONCURRENCY,
    SELF_HOSTED_MAX_CONCURRENCY,
    BuildContext,
    ProbeOptions,
    ProviderSpec,
)
from argue.redact import LiveNames, register_secret_variables, unregister_secret_variables

if TYPE_CHECKING:
    from argue.llm._dialects import DialectMemory
    from argue.llm.base import ChatModel
    from argue.llm.probe import ProbeReport

__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MODELS",
    "ENTRY_POINT_GROUP",
    "PROVIDER_NAMES",
    "SELF_HOSTED_MAX_CONCURRENCY",
    "BuildContext",
    "ProbeOptions",
    "ProviderSpec",
    "default_models",
    "how_to_configure",
    "load_plugin_providers",
    "plugin_problems",
    "probe_model",
    "provider_help",
    "provider_names",
    "provider_registered",
    "provider_spec",
    "provider_specs",
    "register_provider",
    "unregister_provider",
]

ENTRY_POINT_GROUP = "argue.providers"


_TABLE: dict[str, ProviderSpec] = {}
_PROBLEMS: dict[str, str] = {}
_loaded = {"builtin": False, "plugins": False}


def register_provider(spec: ProviderSpec, *, replace: bool = False) -> ProviderSpec:
    """Add ``spec`` to the table (after the rows already there, before the fallback rows);
    its key and URL variables are masked from now on. A taken name is refused unless
    ``replace``."""
    _ensure_builtin()
    if not isinstance(spec, ProviderSpec):
        raise TypeError(f"register_provider takes a ProviderSpec, not {type(spec).__name__}")
    if spec.name in _TABLE and not replace:
        raise ValueError(f"the provider name {spec.name!r} is already taken")
    _TABLE[spec.name] = spec
    register_secret_variables(keys=spec.key_vars, urls=spec.url_vars)
    return spec


def unregister_provider(name: str) -> None:
    """Remove a row (a test's provider); its variables stop being masked unless another row
    names them."""
    spec = _TABLE.pop(name, None)
    if spec is None:
        return
    still = {v for s in _TABLE.values() for v in (*s.key_vars, *s.url_vars)}
    unregister_secret_variables(
        keys=[v for v in spec.key_vars if v not in still],
        urls=[v for v in spec.url_vars if v not in still],
    )


@contextmanager
def provider_registered(spec: ProviderSpec) -> Iterator[ProviderSpec]:
    """``register_provider`` for the length of a ``with`` block (tests)."""
    previous = _TABLE.get(spec.name)
    register_provider(spec, replace=True)
    try:
        yield spec
    finally:
        unregister_provider(spec.name)
        if previous is not None:
            register_provider(previous)


def provider_specs() -> tuple[ProviderSpec, ...]:
    """Every row in detection order: registered rows first, fallback rows last."""
    _ensure_loaded()
    rows = list(_TABLE.values())
    return tuple([s for s in rows if not s.fallback] + [s for s in rows if s.fallback])


def provider_spec(name: str) -> ProviderSpec | None:
    _ensure_loaded()
    return _TABLE.get(name)


def provider_names() -> tuple[str, ...]:
    return tuple(spec.name for spec in provider_specs())


def default_models() -> dict[str, str]:
    return {s.name: s.default_model for s in provider_specs() if s.default_model}


def provider_help() -> str:
    """The ``--provider`` help, from the table: 'anthropic (ANTHROPIC_API_KEY) | … (default:
    auto-detect, in this order)'."""
    words = [f"{s.name} ({s.help})" if s.help else s.name for s in provider_specs()]
    return " | ".join(words) + " (default: auto-detect, in this order)."


def how_to_configure() -> str:
    """ProviderNotConfigured's message when auto-detection found nothing."""
    ways = [s.setup for s in provider_specs() if s.setup]
    return "no model provider configured: " + ", or ".join(ways)


async def probe_model(
    model: ChatModel,
    *,
    timeout_s: float = 30.0,
    call_local: bool = False,
    memory: DialectMemory | None = None,
) -> ProbeReport:
    """Probe ``model`` (as ``resolve_model`` built it) with its row's probe hook, or with one
    tiny call and one structured call when the row has none (``argue.llm.probe``); never
    raises for a failure of the server or the model: each is a row of the report."""
    spec = provider_spec(model.provider)
    if spec is not None and spec.probe is not None:
        return await spec.probe(model, ProbeOptions(timeout_s, call_local, memory))
    from argue.llm.probe import probe_generic

    return await probe_generic(model, timeout_s)


def plugin_problems() -> dict[str, str]:
    """Entry points of ``argue.providers`` that were left out, and why (one line each)."""
    _ensure_loaded()
    return dict(_PROBLEMS)


def _ensure_builtin() -> None:
    if not _loaded["builtin"]:
        _loaded["builtin"] = True
        from argue.llm._builtin import BUILTIN_PROVIDERS

        for spec in BUILTIN_PROVIDERS:
            _TABLE.setdefault(spec.name, spec)
            register_secret_variables(keys=spec.key_vars, urls=spec.url_vars)


def _ensure_loaded() -> None:
    _ensure_builtin()
    if not _loaded["plugins"]:
        _loaded["plugins"] = True
        load_plugin_providers()


def load_plugin_providers() -> dict[str, str]:
    """Register every ``argue.providers`` entry point. Never raises: one that cannot be loaded
    or is not a ``ProviderSpec`` is left out, its reason (one line) kept in ``plugin_problems``
    and said once on stderr."""
    try:
        points = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # unreadable package metadata: the built-ins still work
        points = []
        _PROBLEMS[ENTRY_POINT_GROUP] = f"cannot list the provider plugins: {_one_line(exc)}"
    for point in points:
        try:
            loaded = point.load()
            spec = loaded() if callable(loaded) and not isinstance(loaded, ProviderSpec) else loaded
            if not isinstance(spec, ProviderSpec):
                raise TypeError(f"it gave a {type(spec).__name__}, not a ProviderSpec")
            if spec.name in _TABLE and _TABLE[spec.name].origin != point.value:
                raise ValueError(f"the provider name {spec.name!r} is already taken")
            register_provider(dataclasses.replace(spec, origin=point.value), replace=True)
        except (Exception, SystemExit) as exc:
            _PROBLEMS[point.name] = (
                f"provider plugin {point.name} ({point.value}) left out: {_one_line(exc)}"
            )
    for problem in _PROBLEMS.values():
        print(f"warning: {problem}", file=sys.stderr)
    return dict(_PROBLEMS)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


PROVIDER_NAMES = LiveNames(provider_names)


class _LiveDefaults(Mapping[str, str]):
    """``DEFAULT_MODELS`` as a mapping that follows the table."""

    def __getitem__(self, name: str) -> str:
        return default_models()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(default_models())

    def __len__(self) -> int:
        return len(default_models())

    def __repr__(self) -> str:
        return repr(default_models())


DEFAULT_MODELS: Mapping[str, str] = _LiveDefaults()
