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
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from argue.llm.base import ChatModel
from argue.redact import LiveNames, register_secret_variables, unregister_secret_variables

if TYPE_CHECKING:
    from argue.llm._dialects import DialectMemory
    from argue.llm._providers import OpenAICompatProvider
    from argue.llm._retry import RetryPolicy, Sleep
    from argue.llm._server_limits import ServerLimits
    from argue.llm.pricing import PriceTable
    from argue.llm.probe import ProbeReport

ENTRY_POINT_GROUP = "argue.providers"
DEFAULT_MAX_CONCURRENCY = 4


@dataclass(frozen=True)
class ProbeOptions:
    """What ``argue doctor`` asks of a probe hook."""

    timeout_s: float
    call_local: bool
    memory: DialectMemory | None


@dataclass
class BuildContext:
    """What a row's ``build`` gets besides the model name: the environment, the price table,
    the limits (flags > ``ARGUE_*`` > config.toml's ``[providers.X]`` > defaults) and, when
    ``detect`` found the provider, what it found (``detected``)."""

    env: Mapping[str, str]
    limits: ServerLimits
    configured_limits: Mapping[str, ServerLimits]
    max_concurrency: int | None
    retry: RetryPolicy | None
    sleep: Sleep
    prices: PriceTable
    dialects: DialectMemory | None
    detected: Any = None

    def limits_for(self, provider: str) -> ServerLimits:
        return self.limits.over(self.configured_limits.get(provider))

    def policy(self, provider: str, self_hosted: bool) -> tuple[RetryPolicy, int]:
        """The retry policy and the slots for ``provider``."""
        limits = self.limits_for(provider)
        retry = self.retry or limits.retry_policy(self_hosted)
        return retry, self.max_concurrency or limits.slots or DEFAULT_MAX_CONCURRENCY

    def openai_compat(self, provider: OpenAICompatProvider, model: str) -> ChatModel:
        """An ``OpenAICompatModel`` for any OpenAI-style server (a row for vLLM, LM Studio…
        needs only a base URL and this)."""
        from argue.llm._dialects import default_dialect_memory
        from argue.llm._openai_compat import OpenAICompatModel

        retry, slots = self.policy(provider.name, not provider.official_openai)
        return OpenAICompatModel(
            model,
            provider=provider,
            retry=retry,
            max_concurrency=slots,
            sleep=self.sleep,
            prices=self.prices,
            dialects=self.dialects or default_dialect_memory(),
            dialect=self.limits_for(provider.name).dialect,
            dialect_setting=(
                f"ARGUE_STRUCTURED_OUTPUT (or [providers.{provider.name}] structured_output)"
            ),
        )


Build = Callable[[str | None, BuildContext], ChatModel]
Detect = Callable[[Mapping[str, str]], Any]
# The server a user pointed the provider at: (url, the variable that says so), or None.
Endpoint = Callable[[Mapping[str, str]], tuple[str, str] | None]
Probe = Callable[[ChatModel, ProbeOptions], Awaitable["ProbeReport"]]


@dataclass(frozen=True)
class ProviderSpec:
    """One provider. ``build(model, ctx)`` raises ``ProviderNotConfigured`` saying what is
    missing. ``detect(env)`` returns None when the provider is not there, anything else when it
    is (handed to ``build`` as ``ctx.detected``: Ollama's list of models, so the server is asked
    once); rows are tried in table order, a ``fallback`` row only after every other row and
    after a model named for a hosted provider (``model_prefixes``) was refused for its missing
    key. ``probe``: ``argue doctor``'s checks (None: one tiny call and one structured call)."""

    name: str
    build: Build
    key_vars: tuple[str, ...] = ()
    url_vars: tuple[str, ...] = ()
    default_model: str | None = None
    detect: Detect | None = None
    probe: Probe | None = None
    endpoint: Endpoint | None = None  # checked for a TCP answer before a debate starts
    setup: str = ""  # how to set it up, in a clause: "set ANTHROPIC_API_KEY"
    # doctor's fix when the server does not answer; "{endpoint}" becomes the URL it tried
    unreachable_fix: str = "check the server"
    detected_because: str = ""  # config show's "auto-detected: …" when no key variable is set
    help: str = ""  # a few words for --provider's help, e.g. "ANTHROPIC_API_KEY"
    model_prefixes: tuple[str, ...] = ()  # model names only this provider serves ("claude")
    fallback: bool = False
    origin: str = field(default="built-in", compare=False)

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.strip().lower():
            raise ValueError(f"a provider name is lower-case, without spaces: {self.name!r}")


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
