"""The model layer: one ``ChatModel`` protocol, its adapters, provider resolution, accounting.

Heavy SDKs (anthropic, openai, llama_cpp) are imported inside the adapters, never here.
"""

from argue.llm import _registry
from argue.llm._anthropic import AnthropicModel
from argue.llm._dialects import DIALECTS, Dialect, DialectMemory
from argue.llm._ledger import UsageLedger
from argue.llm._local import LocalLlamaModel
from argue.llm._openai_compat import OpenAICompatModel
from argue.llm._providers import AnthropicProvider, OpenAICompatProvider
from argue.llm._registry import (
    BuildContext,
    ProbeOptions,
    ProviderSpec,
    probe_model,
    provider_help,
    provider_registered,
    provider_spec,
    provider_specs,
    register_provider,
    unregister_provider,
)
from argue.llm._resolve import (
    DEFAULT_MAX_CONCURRENCY,
    DEFAULT_MODELS,
    PROVIDER_NAMES,
    SELF_HOSTED_MAX_CONCURRENCY,
    resolve_model,
)
from argue.llm._retry import RetryPolicy
from argue.llm._scripted import ScriptedModel, ScriptedRequest, ScriptExhausted
from argue.llm._secrets import SECRET_ENV_VARS, mask_secrets
from argue.llm._server_limits import ServerLimits
from argue.llm._structured import schema_instruction
from argue.llm._wrapped import WrappedModel
from argue.llm.base import (
    ChatModel,
    ChatResult,
    Message,
    ModelAuthError,
    ModelError,
    ModelOutputError,
    ModelRequestError,
    ModelUnavailableError,
    ProviderNotConfigured,
)
from argue.llm.pricing import (
    ModelPrice,
    PriceTable,
    PriceTableError,
    estimate_cost,
    load_price_table,
)

__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MODELS",
    "DIALECTS",
    "PROVIDER_NAMES",
    "SECRET_ENV_VARS",
    "SELF_HOSTED_MAX_CONCURRENCY",
    "AnthropicModel",
    "AnthropicProvider",
    "BuildContext",
    "ChatModel",
    "ChatResult",
    "Dialect",
    "DialectMemory",
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
    "ProbeOptions",
    "ProviderNotConfigured",
    "ProviderSpec",
    "RetryPolicy",
    "ScriptExhausted",
    "ScriptedModel",
    "ScriptedRequest",
    "ServerLimits",
    "UsageLedger",
    "WrappedModel",
    "estimate_cost",
    "load_price_table",
    "mask_secrets",
    "probe_model",
    "provider_help",
    "provider_registered",
    "provider_spec",
    "provider_specs",
    "register_provider",
    "resolve_model",
    "schema_instruction",
    "unregister_provider",
]

_registry._ensure_builtin()  # the built-in rows' key variables are masked from the start
