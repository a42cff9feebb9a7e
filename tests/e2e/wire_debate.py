"""A debate run by argue's real Anthropic or OpenAI adapter against the loopback fake
(``tests/e2e/fake_llm.py``): what the wire-level prompt-cache tests and ``bench/prompt_cache.py``
send. The OpenAI side is addressed as api.openai.com (``prompt_cache_key``, ``json_object``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from argue.domain import DebateState
from argue.engine import DebateRunner, create_debate
from argue.llm._anthropic import AnthropicModel
from argue.llm._openai_compat import OpenAICompatModel
from argue.llm._providers import AnthropicProvider, OpenAICompatProvider
from argue.llm._spec import DEFAULT_MAX_CONCURRENCY
from argue.personas import load_catalog

QUESTION = "Is the Collatz conjecture decidable?"


class OfficialOnLoopback(OpenAICompatProvider):
    """api.openai.com as the adapter sees it, answering on loopback."""

    @property
    def official_openai(self) -> bool:
        return True


def wire_model(
    provider: str, model_name: str, url: str, slots: int = DEFAULT_MAX_CONCURRENCY
) -> AnthropicModel | OpenAICompatModel:
    """argue's adapter for ``provider`` ("anthropic" or "openai") with its base URL at ``url``
    and ``slots`` requests in flight at once (the adapters' default)."""
    if provider == "anthropic":
        return AnthropicModel(
            model_name,
            provider=AnthropicProvider(api_key="sk-ant-loopback", base_url=url),
            max_concurrency=slots,
        )
    return OpenAICompatModel(
        model_name,
        provider=OfficialOnLoopback(
            name="openai", base_url=f"{url}/v1", api_key="sk-proj-loopback-0123456789"
        ),
        max_concurrency=slots,
    )


def run_wire_debate(
    folder: Path,
    personas: list[str],
    rounds: int,
    provider: str,
    model_name: str,
    url: str,
    toolkit: Any,
    slots: int = DEFAULT_MAX_CONCURRENCY,
) -> DebateState:
    """Create the debate under ``folder`` and run it to its end through the adapter; a toolkit
    with a ``model`` attribute gets the same model (its ``ask`` calls are model calls)."""
    catalog = load_catalog()
    lineup = [catalog.get(name) for name in personas]
    store = create_debate(
        folder,
        question=QUESTION,
        mode="panel" if len(lineup) > 2 else "adversarial",
        personas=lineup,
        max_rounds=rounds,
        provider=provider,
        model=model_name,
    )
    model = wire_model(provider, model_name, url, slots)
    if hasattr(toolkit, "model"):
        toolkit.model = model

    async def debate() -> DebateState:
        try:
            return await DebateRunner(store, model, toolkit).run()
        finally:
            await model.aclose()

    return asyncio.run(debate())
