"""Which model argue talks to (ARCHITECTURE §5): the provider named (argument or
``ARGUE_PROVIDER``), else the first row of the provider table (``argue.llm._registry``) whose
``detect`` finds it (the built-in order is in ``argue.llm._builtin``).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

from pydantic import BaseModel

from argue.concurrency import parse_max_concurrency
from argue.llm import _providers as _providers  # tests patch it here
from argue.llm import _registry
from argue.llm._builtin import AUTO_PROBE_TIMEOUT_S as AUTO_PROBE_TIMEOUT_S
from argue.llm._builtin import EXPLICIT_PROBE_TIMEOUT_S as EXPLICIT_PROBE_TIMEOUT_S
from argue.llm._dialects import DialectMemory, DialectSettingError, forced_dialect
from argue.llm._retry import RetryPolicy, Sleep
from argue.llm._server_limits import ServerLimits, limits_from_env
from argue.llm.base import ChatModel, ProviderNotConfigured
from argue.llm.pricing import PriceTable, load_price_table

# Kept here for the modules that import them from this one; the table owns them.
PROVIDER_NAMES = _registry.PROVIDER_NAMES
DEFAULT_MODELS = _registry.DEFAULT_MODELS
DEFAULT_MAX_CONCURRENCY = _registry.DEFAULT_MAX_CONCURRENCY
SELF_HOSTED_MAX_CONCURRENCY = _registry.SELF_HOSTED_MAX_CONCURRENCY


def resolve_model(
    provider: str | None = None,
    model: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    max_concurrency: int | None = None,
    retry: RetryPolicy | None = None,
    sleep: Sleep | None = None,
    prices: PriceTable | None = None,
    limits: ServerLimits | None = None,
    configured_limits: Mapping[str, BaseModel] | None = None,
    dialects: DialectMemory | None = None,
) -> ChatModel:
    """Build the ChatModel the settings point at; ProviderNotConfigured says what is missing.

    ``prices`` defaults to the built-in table with ``ARGUE_PRICES`` applied. Limits: ``limits``
    (flags) over the ``ARGUE_*`` variables over ``configured_limits[provider]`` (config.toml)
    over the defaults for a hosted or self-hosted server; ``retry`` and ``max_concurrency``,
    when given, replace them (tests). ``dialects`` defaults to ``$ARGUE_HOME/dialects.json``."""
    env = os.environ if env is None else env
    name = (provider or env.get("ARGUE_PROVIDER") or "").strip().lower()
    model = model or env.get("ARGUE_MODEL") or None
    _max_concurrency_from_env(env)  # its own message for a bad value
    try:
        forced_dialect(env)
    except DialectSettingError as error:
        raise ProviderNotConfigured(str(error)) from None
    ctx = _registry.BuildContext(
        env=env,
        limits=(limits or ServerLimits()).over(limits_from_env(env)),
        configured_limits=configured_limits or {},
        max_concurrency=max_concurrency,
        retry=retry,
        sleep=sleep or asyncio.sleep,
        prices=prices if prices is not None else load_price_table(env),
        dialects=dialects,
    )
    if name:
        spec = _registry.provider_spec(name)
        if spec is None:
            raise ProviderNotConfigured(
                f"unknown provider {name!r}: choose one of {', '.join(PROVIDER_NAMES)}"
            )
        return spec.build(model, ctx)
    hosted_checked = False
    for spec in _registry.provider_specs():
        if spec.fallback and not hosted_checked:
            hosted_checked = True
            _refuse_a_hosted_model_without_its_key(model)
        if spec.detect is None:
            continue
        found = spec.detect(env)
        if found is not None:
            ctx.detected = found
            return spec.build(model, ctx)
    if not hosted_checked:
        _refuse_a_hosted_model_without_its_key(model)
    raise ProviderNotConfigured(_registry.how_to_configure())


def _refuse_a_hosted_model_without_its_key(model: str | None) -> None:
    """`--model claude-…` with no key: say which key is missing, not "file not found"."""
    hosted = _hosted_provider_of(model)
    if hosted is not None:
        key = " or ".join(hosted.key_vars) or "its key"
        raise ProviderNotConfigured(
            f"model {model!r} is served by {hosted.name}, but {key} is not set "
            f"(set it, or pass --provider to use another server)"
        )


def _hosted_provider_of(model: str | None) -> _registry.ProviderSpec | None:
    """The hosted provider a model name belongs to, when it is unmistakable (not a file)."""
    if not model or model.endswith(".gguf") or "/" in model or os.sep in model:
        return None
    name = model.strip().lower()
    return next(
        (
            spec
            for spec in _registry.provider_specs()
            if any(name.startswith(prefix) for prefix in spec.model_prefixes)
        ),
        None,
    )


def _max_concurrency_from_env(env: Mapping[str, str]) -> int:
    try:
        return parse_max_concurrency(env, DEFAULT_MAX_CONCURRENCY)
    except ValueError as error:
        raise ProviderNotConfigured(str(error)) from None
