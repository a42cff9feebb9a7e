"""Which batch engine a model has (``argue eval --batch``), or in one line why it has none.

OpenAI's Batch API for the ``openai`` provider at api.openai.com (or at another
``OPENAI_BASE_URL`` said to implement it, ``ARGUE_BATCH_AT_BASE_URL=1``: a gateway), Anthropic's
Message Batches for the ``anthropic`` provider; nothing for the others (Ollama, llama.cpp,
self-hosted OpenAI-compatible servers, the scripted model): their calls go direct.
"""

from __future__ import annotations

from collections.abc import Mapping

from argue.llm._batch import BatchClient
from argue.llm.base import ChatModel

# The variable that says an OpenAI-compatible server other than api.openai.com (a gateway)
# implements the Batch API (/v1/files and /v1/batches).
BATCH_AT_BASE_URL_ENV = "ARGUE_BATCH_AT_BASE_URL"


def batch_client_for(model: ChatModel, env: Mapping[str, str]) -> BatchClient | str:
    """The batch engine of ``model``'s provider, or the one line saying why there is none."""
    from argue.llm._anthropic import AnthropicModel
    from argue.llm._openai_compat import OpenAICompatModel

    if isinstance(model, AnthropicModel):
        from argue.llm._batch_anthropic import AnthropicBatchClient

        return AnthropicBatchClient(model)
    if isinstance(model, OpenAICompatModel):
        connection = model._connection
        trusted = (env.get(BATCH_AT_BASE_URL_ENV) or "").strip().lower() in ("1", "true", "yes")
        if connection.official_openai or (connection.name == "openai" and trusted):
            from argue.llm._batch_openai import OpenAIBatchClient

            return OpenAIBatchClient(model)
        return (
            f"the batch engine is not available for provider {model.provider} (an "
            f"OpenAI-compatible server at {connection.base_url}, not api.openai.com; set "
            f"{BATCH_AT_BASE_URL_ENV}=1 if it implements the Batch API): direct calls are used"
        )
    return (
        f"the batch engine is not available for provider {model.provider} (only OpenAI's "
        "Batch API and Anthropic's Message Batches are): direct calls are used"
    )
