"""What a call costs: USD per million tokens, per provider and model.

The table covers a handful of current Anthropic and OpenAI models. Anything it does not know
(Ollama, local llama.cpp, an unlisted model) costs 0 and says so through ``PriceTable.knows``;
``ARGUE_PRICES`` (a JSON file shaped like ``DEFAULT_PRICES``) adds or overrides entries.

Token semantics follow Usage: ``input_tokens`` are input tokens neither read from nor written
to the prompt cache; cache reads and writes are counted (and priced) separately.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from argue.domain import Usage
from argue.llm.base import ProviderNotConfigured

PER_MILLION = 1_000_000


class ModelPrice(BaseModel):
    """USD per million tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float = Field(default=0.0, ge=0)
    cache_write: float = Field(default=0.0, ge=0)


def _price(input: float, output: float, cache_read: float, cache_write: float = 0.0) -> ModelPrice:
    return ModelPrice(input=input, output=output, cache_read=cache_read, cache_write=cache_write)


# Published list prices (standard tier, 5-minute cache writes), checked November 2026.
DEFAULT_PRICES: dict[str, dict[str, ModelPrice]] = {
    "anthropic": {
        "claude-opus-5": _price(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4-8": _price(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4-7": _price(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4-6": _price(5.0, 25.0, 0.50, 6.25),
        "claude-opus-4-5": _price(5.0, 25.0, 0.50, 6.25),
        "claude-sonnet-4-6": _price(3.0, 15.0, 0.30, 3.75),
        "claude-sonnet-4-5": _price(3.0, 15.0, 0.30, 3.75),
        "claude-haiku-4-5": _price(1.0, 5.0, 0.10, 1.25),
    },
    "openai": {
        "gpt-5.5": _price(5.0, 30.0, 0.50),
        "gpt-5.4": _price(2.50, 15.0, 0.25),
        "gpt-5.4-mini": _price(0.75, 4.50, 0.075),
        "gpt-5.4-nano": _price(0.20, 1.25, 0.02),
        "gpt-5.2": _price(1.75, 14.0, 0.175),
        "gpt-5.1": _price(1.25, 10.0, 0.125),
        "gpt-4.1": _price(2.0, 8.0, 0.50),
        "gpt-4.1-mini": _price(0.40, 1.60, 0.10),
        "gpt-4o": _price(2.50, 10.0, 1.25),
        "gpt-4o-mini": _price(0.15, 0.60, 0.075),
    },
}
# A dated snapshot ("claude-haiku-4-5-20251001", "gpt-5.4-mini-2026-03-17") costs as its alias.
_SNAPSHOT_SUFFIX = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


class PriceTableError(ProviderNotConfigured):
    """``ARGUE_PRICES`` points at a file that cannot be used (the CLI exits 2 on it)."""


class PriceTable:
    def __init__(self, prices: Mapping[str, Mapping[str, ModelPrice]] | None = None) -> None:
        source = DEFAULT_PRICES if prices is None else prices
        self._prices: dict[str, dict[str, ModelPrice]] = {
            provider: dict(models) for provider, models in source.items()
        }

    def with_overrides(self, overrides: Mapping[str, Mapping[str, ModelPrice]]) -> PriceTable:
        merged = PriceTable(self._prices)
        for provider, models in overrides.items():
            merged._prices.setdefault(provider, {}).update(models)
        return merged

    def lookup(self, provider: str, model: str) -> ModelPrice | None:
        """The model's own entry, else its alias's when the name is a dated snapshot."""
        models = self._prices.get(provider, {})
        return models.get(model) or models.get(_SNAPSHOT_SUFFIX.sub("", model))

    def knows(self, provider: str, model: str) -> bool:
        return self.lookup(provider, model) is not None

    def cost(self, usage: Usage) -> float:
        """USD for one Usage record; 0.0 when the model is not in the table."""
        price = self.lookup(usage.provider, usage.model)
        if price is None:
            return 0.0
        return (
            usage.input_tokens * price.input
            + usage.output_tokens * price.output
            + usage.cache_read_tokens * price.cache_read
            + usage.cache_write_tokens * price.cache_write
        ) / PER_MILLION


def load_price_overrides(path: Path) -> dict[str, dict[str, ModelPrice]]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise PriceTableError(f"ARGUE_PRICES: cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise PriceTableError(f"ARGUE_PRICES: {path} is not valid JSON: {error.msg}") from None
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise PriceTableError(
            f"ARGUE_PRICES: {path} must map provider -> model -> "
            '{"input": ..., "output": ..., "cache_read": ..., "cache_write": ...}'
        )
    table: dict[str, dict[str, ModelPrice]] = {}
    for provider, models in raw.items():
        for name, entry in models.items():
            try:
                table.setdefault(provider, {})[name] = ModelPrice.model_validate(entry)
            except ValidationError as error:
                first = error.errors(include_url=False)[0]
                where = ".".join([provider, name, *(str(part) for part in first["loc"])])
                raise PriceTableError(
                    f"ARGUE_PRICES: {path}: bad price entry ({where}: {first['msg']})"
                ) from None
    return table


def load_price_table(env: Mapping[str, str] | None = None) -> PriceTable:
    """The built-in table, with ``ARGUE_PRICES`` applied when set."""
    source = os.environ if env is None else env
    table = PriceTable()
    override_path = source.get("ARGUE_PRICES")
    if override_path:
        table = table.with_overrides(load_price_overrides(Path(override_path).expanduser()))
    return table


def estimate_cost(usage: Usage, table: PriceTable | None = None) -> float:
    return (table or load_price_table()).cost(usage)
