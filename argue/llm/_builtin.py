"""The built-in rows of the provider table (``argue.llm._registry``), in detection order.

``ANTHROPIC_API_KEY`` → ``OPENAI_API_KEY`` → ``OPENAI_BASE_URL`` alone (an OpenAI-compatible
server that needs no key) → an Ollama server answering at ``OLLAMA_HOST`` → in-process
llama.cpp when installed (a fallback: a ``claude-…`` model without its key is refused first).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from argue.llm import _providers
from argue.llm._spec import BuildContext, ProbeOptions, ProviderSpec
from argue.llm.base import ChatModel, ProviderNotConfigured

if TYPE_CHECKING:
    from argue.llm.probe import ProbeReport

AUTO_PROBE_TIMEOUT_S = 0.3
# An Ollama the user asked for by name may live on another machine: give it longer to answer.
EXPLICIT_PROBE_TIMEOUT_S = 3.0


# ---------------------------------------------------------------- anthropic


def _build_anthropic(model: str | None, ctx: BuildContext) -> ChatModel:
    from argue.llm._anthropic import AnthropicModel

    connection = _providers.AnthropicProvider.from_env(ctx.env)
    retry, slots = ctx.policy(
        "anthropic", connection.base_url != _providers.ANTHROPIC_DEFAULT_BASE_URL
    )
    return AnthropicModel(
        model or ANTHROPIC.default_model or "",
        provider=connection,
        retry=retry,
        max_concurrency=slots,
        sleep=ctx.sleep,
        prices=ctx.prices,
    )


def _anthropic_endpoint(env: Mapping[str, str]) -> tuple[str, str] | None:
    url = (env.get("ANTHROPIC_BASE_URL") or "").strip()
    default_host = urlsplit(_providers.ANTHROPIC_DEFAULT_BASE_URL).hostname
    return (url, "ANTHROPIC_BASE_URL") if url and urlsplit(url).hostname != default_host else None


async def _probe_anthropic(model: ChatModel, options: ProbeOptions) -> ProbeReport:
    from argue.llm import probe

    return await probe.probe_anthropic(model, options)


# ---------------------------------------------------------------- openai (and compatible)


def _detect_openai(env: Mapping[str, str]) -> bool | None:
    if env.get("OPENAI_API_KEY"):
        return True
    base_url = env.get("OPENAI_BASE_URL")
    # A compatible server that needs no key: the SDK sends a placeholder one.
    return True if base_url and not _providers.is_official_openai(base_url) else None


def _build_openai(model: str | None, ctx: BuildContext) -> ChatModel:
    return ctx.openai_compat(
        _providers.OpenAICompatProvider.openai_from_env(ctx.env),
        model or OPENAI.default_model or "",
    )


async def _probe_openai_style(model: ChatModel, options: ProbeOptions) -> ProbeReport:
    from argue.llm import probe

    return await probe.probe_openai_style(model, options)


def _openai_endpoint(env: Mapping[str, str]) -> tuple[str, str] | None:
    url = (env.get("OPENAI_BASE_URL") or "").strip()
    return (url, "OPENAI_BASE_URL") if url and not _providers.is_official_openai(url) else None


# ---------------------------------------------------------------- ollama


def _detect_ollama(env: Mapping[str, str]) -> list[str] | None:
    return _providers.probe_ollama(_providers.ollama_host_url(env), AUTO_PROBE_TIMEOUT_S)


def _build_ollama(model: str | None, ctx: BuildContext) -> ChatModel:
    host_url = _providers.ollama_host_url(ctx.env)
    listed: list[str] | None = ctx.detected
    if listed is None:
        problems: list[str] = []
        listed = _providers.probe_ollama(host_url, EXPLICIT_PROBE_TIMEOUT_S, problems)
        if listed is None:
            raise ProviderNotConfigured(f"provider 'ollama': {'; '.join(problems)}")
    if model is None and not listed:
        raise ProviderNotConfigured(
            f"Ollama at {host_url} has no models: `ollama pull <model>` or set ARGUE_MODEL"
        )
    api = (ctx.env.get("ARGUE_OLLAMA_API") or "v1").strip().lower()
    if api not in ("v1", "openai", "native"):
        raise ProviderNotConfigured(
            f"ARGUE_OLLAMA_API must be v1 (the OpenAI-style API, default) or native "
            f"(/api/chat), got {api!r}"
        )
    if api == "native":
        from argue.llm._ollama import OllamaNativeModel, OllamaNativeProvider

        retry, slots = ctx.policy("ollama", True)
        return OllamaNativeModel(
            model or listed[0],
            provider=OllamaNativeProvider(host_url),
            retry=retry,
            max_concurrency=slots,
            sleep=ctx.sleep,
            prices=ctx.prices,
        )
    return ctx.openai_compat(_providers.OpenAICompatProvider.ollama(host_url), model or listed[0])


# ---------------------------------------------------------------- local (in-process llama.cpp)


def _detect_local(env: Mapping[str, str]) -> bool | None:
    return True if _providers.llama_cpp_installed() else None


def _build_local(model: str | None, ctx: BuildContext) -> ChatModel:
    from argue.llm._local import DEFAULT_MODEL_FILENAME, NOT_INSTALLED, LocalLlamaModel

    if not _providers.llama_cpp_installed():
        raise ProviderNotConfigured(NOT_INSTALLED)
    # For the local provider a model is a GGUF file: the argument/ARGUE_MODEL, else
    # ARGUE_LOCAL_MODEL, else the bundled smoke-test Gemma.
    path_text = model or ctx.env.get("ARGUE_LOCAL_MODEL")
    if path_text and path_text.removesuffix(".gguf") == DEFAULT_MODEL_FILENAME.removesuffix(
        ".gguf"
    ):
        path_text = None  # the bundled model, by the name a debate's config.json records
    path = Path(path_text).expanduser() if path_text else None
    if path is not None and not path.is_file():
        raise ProviderNotConfigured(f"local model file not found: {path}")
    return LocalLlamaModel(path)


async def _probe_local(model: ChatModel, options: ProbeOptions) -> ProbeReport:
    from argue.llm import probe

    return await probe.probe_local(model, options)


ANTHROPIC = ProviderSpec(
    name="anthropic",
    build=_build_anthropic,
    key_vars=("ANTHROPIC_API_KEY",),
    url_vars=("ANTHROPIC_BASE_URL",),
    default_model="claude-sonnet-4-6",
    detect=lambda env: True if env.get("ANTHROPIC_API_KEY") else None,
    probe=_probe_anthropic,
    endpoint=_anthropic_endpoint,
    setup="set ANTHROPIC_API_KEY",
    unreachable_fix="check the network (and ANTHROPIC_BASE_URL, if set)",
    help="ANTHROPIC_API_KEY",
    model_prefixes=("claude",),
)
OPENAI = ProviderSpec(
    name="openai",
    build=_build_openai,
    key_vars=("OPENAI_API_KEY",),
    url_vars=("OPENAI_BASE_URL",),
    default_model="gpt-5.4-mini",
    detect=_detect_openai,
    probe=_probe_openai_style,
    endpoint=_openai_endpoint,
    setup=(
        "set OPENAI_API_KEY, or OPENAI_BASE_URL (with ARGUE_MODEL) for any OpenAI-compatible server"
    ),
    unreachable_fix=(
        "start the server, or set OPENAI_BASE_URL to the URL it listens on (now {endpoint})"
    ),
    detected_because="OPENAI_BASE_URL is set",
    help="OPENAI_API_KEY or OPENAI_BASE_URL",
    model_prefixes=("gpt-", "chatgpt", "o1", "o3", "o4"),
)
OLLAMA = ProviderSpec(
    name="ollama",
    build=_build_ollama,
    url_vars=("OLLAMA_HOST",),
    detect=_detect_ollama,
    probe=_probe_openai_style,
    endpoint=lambda env: (_providers.ollama_host_url(env), "OLLAMA_HOST"),
    setup=f"start Ollama (OLLAMA_HOST, default {_providers.OLLAMA_DEFAULT_HOST})",
    unreachable_fix="start `ollama serve`, or set OLLAMA_HOST to where it listens",
    detected_because="an Ollama server answers at OLLAMA_HOST",
    help="a server at OLLAMA_HOST",
)
LOCAL = ProviderSpec(
    name="local",
    build=_build_local,
    detect=_detect_local,
    probe=_probe_local,
    setup=(
        "install the local extra (pip install 'argue-debate[local]') for in-process llama.cpp "
        "(ARGUE_LOCAL_MODEL=<file.gguf>)"
    ),
    unreachable_fix="set ARGUE_LOCAL_MODEL=<file.gguf>, or pip install 'argue-debate[local]'",
    detected_because="in-process llama.cpp is installed",
    help="in-process llama.cpp",
    fallback=True,
)
BUILTIN_PROVIDERS: tuple[ProviderSpec, ...] = (ANTHROPIC, OPENAI, OLLAMA, LOCAL)
