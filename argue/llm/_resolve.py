"""Which model argue talks to (ARCHITECTURE §5).

Explicit provider (argument or ``ARGUE_PROVIDER``) → ``ANTHROPIC_API_KEY`` → ``OPENAI_API_KEY``
→ ``OPENAI_BASE_URL`` alone (an OpenAI-compatible server that needs no key) → an Ollama server
answering at ``OLLAMA_HOST`` → in-process llama.cpp when installed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path

from argue.concurrency import parse_max_concurrency
from argue.llm import _providers
from argue.llm._dialects import DialectMemory, DialectSettingError, forced_dialect
from argue.llm._retry import RetryPolicy, Sleep
from argue.llm._server_limits import ServerLimits, limits_from_env
from argue.llm.base import ChatModel, ProviderNotConfigured
from argue.llm.pricing import PriceTable, load_price_table

PROVIDER_NAMES: tuple[str, ...] = ("anthropic", "openai", "ollama", "local")
DEFAULT_MODELS: dict[str, str] = {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4-mini"}
DEFAULT_MAX_CONCURRENCY = 4
AUTO_PROBE_TIMEOUT_S = 0.3
# An Ollama the user asked for by name may live on another machine: give it longer to answer.
EXPLICIT_PROBE_TIMEOUT_S = 3.0
HOW_TO_CONFIGURE = (
    "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or OPENAI_BASE_URL "
    "(with ARGUE_MODEL) for any OpenAI-compatible server, start Ollama (OLLAMA_HOST, default "
    f"{_providers.OLLAMA_DEFAULT_HOST}), or install the local extra "
    "(pip install 'argue-debate[local]') for in-process llama.cpp (ARGUE_LOCAL_MODEL=<file.gguf>)"
)


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
    configured_limits: Mapping[str, ServerLimits] | None = None,
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
    builder = _ModelBuilder(
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
        if name not in PROVIDER_NAMES:
            raise ProviderNotConfigured(
                f"unknown provider {name!r}: choose one of {', '.join(PROVIDER_NAMES)}"
            )
        return builder.build(name, model)
    if env.get("ANTHROPIC_API_KEY"):
        return builder.build("anthropic", model)
    if env.get("OPENAI_API_KEY"):
        return builder.build("openai", model)
    base_url = env.get("OPENAI_BASE_URL")
    if base_url and not _providers.is_official_openai(base_url):
        # A compatible server that needs no key: the SDK sends a placeholder one.
        return builder.build("openai", model)
    host_url = _providers.ollama_host_url(env)
    listed = _providers.probe_ollama(host_url, AUTO_PROBE_TIMEOUT_S)
    if listed is not None:
        return builder.ollama(host_url, listed, model)
    hosted = _hosted_provider_of(model)
    if hosted is not None:
        # `--model claude-…` with no key: say which key is missing, not "file not found".
        key = "ANTHROPIC_API_KEY" if hosted == "anthropic" else "OPENAI_API_KEY"
        raise ProviderNotConfigured(
            f"model {model!r} is served by {hosted}, but {key} is not set "
            f"(set it, or pass --provider to use another server)"
        )
    if _providers.llama_cpp_installed():
        return builder.build("local", model)
    raise ProviderNotConfigured(HOW_TO_CONFIGURE)


_HOSTED_PREFIXES: tuple[tuple[str, str], ...] = (
    ("claude", "anthropic"),
    ("gpt-", "openai"),
    ("chatgpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
)


def _hosted_provider_of(model: str | None) -> str | None:
    """The hosted provider a model name belongs to, when it is unmistakable (not a file)."""
    if not model or model.endswith(".gguf") or "/" in model or os.sep in model:
        return None
    name = model.strip().lower()
    return next(
        (provider for prefix, provider in _HOSTED_PREFIXES if name.startswith(prefix)), None
    )


class _ModelBuilder:
    def __init__(
        self,
        *,
        env: Mapping[str, str],
        limits: ServerLimits,
        configured_limits: Mapping[str, ServerLimits],
        max_concurrency: int | None,
        retry: RetryPolicy | None,
        sleep: Sleep,
        prices: PriceTable,
        dialects: DialectMemory | None,
    ) -> None:
        self.env = env
        self.limits = limits
        self.configured_limits = configured_limits
        self.max_concurrency = max_concurrency
        self.retry = retry
        self.sleep = sleep
        self.prices = prices
        self.dialects = dialects

    def limits_for(self, provider: str) -> ServerLimits:
        return self.limits.over(self.configured_limits.get(provider))

    def policy(self, provider: str, self_hosted: bool) -> tuple[RetryPolicy, int]:
        """The retry policy and the slots for ``provider``."""
        limits = self.limits_for(provider)
        retry = self.retry or limits.retry_policy(self_hosted)
        return retry, self.max_concurrency or limits.slots or DEFAULT_MAX_CONCURRENCY

    def build(self, name: str, model: str | None) -> ChatModel:
        if name == "anthropic":
            from argue.llm._anthropic import AnthropicModel

            connection = _providers.AnthropicProvider.from_env(self.env)
            retry, slots = self.policy(
                "anthropic", connection.base_url != _providers.ANTHROPIC_DEFAULT_BASE_URL
            )
            return AnthropicModel(
                model or DEFAULT_MODELS["anthropic"],
                provider=connection,
                retry=retry,
                max_concurrency=slots,
                sleep=self.sleep,
                prices=self.prices,
            )
        if name == "openai":
            return self._openai_compat(
                _providers.OpenAICompatProvider.openai_from_env(self.env),
                model or DEFAULT_MODELS["openai"],
            )
        if name == "ollama":
            host_url = _providers.ollama_host_url(self.env)
            problems: list[str] = []
            listed = _providers.probe_ollama(host_url, EXPLICIT_PROBE_TIMEOUT_S, problems)
            if listed is None:
                raise ProviderNotConfigured(f"provider 'ollama': {'; '.join(problems)}")
            return self.ollama(host_url, listed, model)
        return self._local(model)

    def ollama(self, host_url: str, listed: list[str], model: str | None) -> ChatModel:
        if model is None and not listed:
            raise ProviderNotConfigured(
                f"Ollama at {host_url} has no models: `ollama pull <model>` or set ARGUE_MODEL"
            )
        api = (self.env.get("ARGUE_OLLAMA_API") or "v1").strip().lower()
        if api not in ("v1", "openai", "native"):
            raise ProviderNotConfigured(
                f"ARGUE_OLLAMA_API must be v1 (the OpenAI-style API, default) or native "
                f"(/api/chat), got {api!r}"
            )
        if api == "native":
            from argue.llm._ollama import OllamaNativeModel, OllamaNativeProvider

            retry, slots = self.policy("ollama", True)
            return OllamaNativeModel(
                model or listed[0],
                provider=OllamaNativeProvider(host_url),
                retry=retry,
                max_concurrency=slots,
                sleep=self.sleep,
                prices=self.prices,
            )
        return self._openai_compat(
            _providers.OpenAICompatProvider.ollama(host_url), model or listed[0]
        )

    def _openai_compat(self, provider: _providers.OpenAICompatProvider, model: str) -> ChatModel:
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

    def _local(self, model: str | None) -> ChatModel:
        from argue.llm._local import DEFAULT_MODEL_FILENAME, NOT_INSTALLED, LocalLlamaModel

        if not _providers.llama_cpp_installed():
            raise ProviderNotConfigured(NOT_INSTALLED)
        # For the local provider a model is a GGUF file: the argument/ARGUE_MODEL, else
        # ARGUE_LOCAL_MODEL, else the bundled smoke-test Gemma.
        path_text = model or self.env.get("ARGUE_LOCAL_MODEL")
        if path_text and path_text.removesuffix(".gguf") == DEFAULT_MODEL_FILENAME.removesuffix(
            ".gguf"
        ):
            path_text = None  # the bundled model, by the name a debate's config.json records
        path = Path(path_text).expanduser() if path_text else None
        if path is not None and not path.is_file():
            raise ProviderNotConfigured(f"local model file not found: {path}")
        return LocalLlamaModel(path)


def _max_concurrency_from_env(env: Mapping[str, str]) -> int:
    try:
        return parse_max_concurrency(env, DEFAULT_MAX_CONCURRENCY)
    except ValueError as error:
        raise ProviderNotConfigured(str(error)) from None
