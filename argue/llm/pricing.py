"""What a call costs: USD per million tokens, per provider and model.

The table covers a handful of current Anthropic and OpenAI models and Perplexity's Sonar (the
research source, priced per token and per request); in-process llama.cpp
(provider ``local``) bills nothing. A ``[prices]`` table in config.toml and then ``ARGUE_PRICES``
(a JSON file shaped like ``DEFAULT_PRICES``: provider -> model -> USD per million tokens) add or
override entries. A model in none of these is looked up in the maintained price library
``genai-prices`` (its bundled data only: argue never starts its network updater), imported
lazily. Any other model (Ollama, an unknown one) has no known price: its calls are counted as
*unpriced* (``Usage.unpriced_calls``) and shown as "unknown", never as $0. ``price_source``
says where each price came from (``--dry-run`` shows it).

A call answered through a provider's batch engine (``Usage.batch_calls``: OpenAI's Batch API,
Anthropic's Message Batches) costs ``BATCH_PRICE_FACTOR`` of the list price, tokens and cache
alike: both providers bill batches at 50 % (genai-prices' batch variants say the same).

Token semantics follow Usage: ``input_tokens`` are input tokens neither read from nor written
to the prompt cache; cache reads and writes are counted (and priced) separately.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from argue.domain import Usage
from argue.llm.base import ProviderNotConfigured

PER_MILLION = 1_000_000


class ModelPrice(BaseModel):
    """USD per million tokens, plus ``request``: USD per request (answer engines such as
    Perplexity's Sonar charge a fee per request on top of the tokens). config.toml's
    ``[prices]`` arrive as ``argue.config.PriceEntry`` (the same fields)."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float = Field(default=0.0, ge=0)
    cache_write: float = Field(default=0.0, ge=0)
    request: float = Field(default=0.0, ge=0)


def _price(
    input: float,
    output: float,
    cache_read: float,
    cache_write: float = 0.0,
    request: float = 0.0,
) -> ModelPrice:
    return ModelPrice(
        input=input,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        request=request,
    )


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
    # The research source ``perplexity`` (argue/skills/dogpile/sources/perplexity.py): Sonar's
    # published prices, tokens plus the per-request fee at the "low" search context size (the
    # API's default, which argue does not change). A reply that states its own cost
    # (``usage.cost.total_cost``) is recorded at that cost instead.
    "perplexity": {
        "sonar": _price(1.0, 1.0, 0.0, request=0.005),
        "sonar-pro": _price(3.0, 15.0, 0.0, request=0.006),
        "sonar-reasoning": _price(1.0, 5.0, 0.0, request=0.005),
        "sonar-reasoning-pro": _price(2.0, 8.0, 0.0, request=0.006),
    },
}
# What a batched call costs, as a share of the list price (OpenAI and Anthropic: half).
BATCH_PRICE_FACTOR = 0.5
# Providers that bill nothing, whatever the model: in-process llama.cpp runs on this machine.
FREE_PROVIDERS = frozenset({"local"})
_FREE = ModelPrice(input=0.0, output=0.0)
# A dated snapshot ("claude-haiku-4-5-20251001", "gpt-5.4-mini-2026-03-17") costs as its alias.
_SNAPSHOT_SUFFIX = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


# Where a price came from, as ``price_source`` and ``--dry-run`` name it.
BUILT_IN = "built-in table"
CONFIG = "config.toml [prices]"
ENV = "ARGUE_PRICES"
FREE = "free (runs on this machine)"
LIBRARY_DIST = "genai-prices"


class PriceTableError(ProviderNotConfigured):
    """``ARGUE_PRICES`` points at a file that cannot be used (the CLI exits 2 on it)."""


class PriceTable:
    """Prices by provider and model. ``library=True`` (what ``load_price_table`` builds) falls
    back to ``genai-prices`` for a model the table does not have."""

    def __init__(
        self,
        prices: Mapping[str, Mapping[str, ModelPrice]] | None = None,
        *,
        library: bool = False,
        source: str = BUILT_IN,
    ) -> None:
        table = DEFAULT_PRICES if prices is None else prices
        self._prices: dict[str, dict[str, ModelPrice]] = {
            provider: dict(models) for provider, models in table.items()
        }
        self._sources: dict[tuple[str, str], str] = {
            (provider, model): source for provider, models in table.items() for model in models
        }
        self.library = library

    def with_overrides(
        self, overrides: Mapping[str, Mapping[str, ModelPrice]], *, source: str = ENV
    ) -> PriceTable:
        merged = PriceTable(self._prices, library=self.library)
        merged._sources = dict(self._sources)
        for provider, models in overrides.items():
            merged._prices.setdefault(provider, {}).update(models)
            merged._sources.update({(provider, model): source for model in models})
        return merged

    def _own(self, provider: str, model: str) -> tuple[ModelPrice, str] | None:
        models = self._prices.get(provider, {})
        for name in (model, _SNAPSHOT_SUFFIX.sub("", model)):
            if name in models:
                return models[name], self._sources.get((provider, name), BUILT_IN)
        return None

    def lookup_with_source(self, provider: str, model: str) -> tuple[ModelPrice, str] | None:
        """The price and where it came from: ARGUE_PRICES / config.toml, then the built-in
        table (a dated snapshot costs as its alias), then genai-prices."""
        own = self._own(provider, model)
        if own is not None:
            return own
        if provider in FREE_PROVIDERS:
            return _FREE, FREE
        if self.library:
            return library_price(provider, model)
        return None

    def lookup(self, provider: str, model: str) -> ModelPrice | None:
        found = self.lookup_with_source(provider, model)
        return found[0] if found else None

    def price_source(self, provider: str, model: str) -> str | None:
        """ "built-in table", "ARGUE_PRICES", "genai-prices 0.2.3"…; None without a price."""
        found = self.lookup_with_source(provider, model)
        return found[1] if found else None

    def knows(self, provider: str, model: str) -> bool:
        return self.lookup(provider, model) is not None

    def price(self, usage: Usage, *, tokens_known: bool = True) -> Usage:
        """``usage`` (one call) with its cost; a call of a model without a price, or whose
        answer carried no token counts (``tokens_known=False``), is marked unpriced."""
        if not tokens_known or not self.knows(usage.provider, usage.model):
            return usage.model_copy(update={"cost_usd": 0.0, "unpriced_calls": usage.calls})
        return usage.model_copy(update={"cost_usd": self.cost(usage), "unpriced_calls": 0})

    def cost(self, usage: Usage) -> float:
        """USD for one Usage record; 0.0 when the model is not in the table (see ``price``).
        A record whose calls were all batched (``batch_calls``) costs the batch price."""
        price = self.lookup(usage.provider, usage.model)
        if price is None:
            return 0.0
        list_price = (
            usage.input_tokens * price.input
            + usage.output_tokens * price.output
            + usage.cache_read_tokens * price.cache_read
            + usage.cache_write_tokens * price.cache_write
        ) / PER_MILLION + usage.calls * price.request
        batched = usage.calls > 0 and usage.batch_calls >= usage.calls
        return list_price * BATCH_PRICE_FACTOR if batched else list_price


@cache
def library_price(provider: str, model: str) -> tuple[ModelPrice, str] | None:
    """The price ``genai-prices`` ships for ``provider``/``model`` today, from the data bundled
    in the package (no network: its updater is never started), or None.

    A model priced in tiers (long prompts cost more) gets its base tier.
    """
    try:
        from importlib.metadata import version

        from genai_prices.data_snapshot import get_snapshot
    except ImportError:  # an install without the library: simply fewer prices
        return None
    try:
        _, info = get_snapshot().find_provider_model(model, None, provider, None)
        found = info.get_prices(datetime.now(UTC))
    except LookupError:
        return None

    def usd(key: str) -> float | None:
        value = getattr(found, key, None)
        value = getattr(value, "base", value)  # TieredPrices: the base tier
        return None if value is None else float(value)

    input_price, output_price = usd("input_mtok"), usd("output_mtok")
    if input_price is None or output_price is None:
        return None  # priced per request, per image…: not something argue can count
    price = ModelPrice(
        input=input_price,
        output=output_price,
        cache_read=usd("cache_read_mtok") or 0.0,
        cache_write=usd("cache_write_mtok") or 0.0,
        request=(usd("requests_kcount") or 0.0) / 1000,
    )
    return price, f"{LIBRARY_DIST} {version(LIBRARY_DIST)}"


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


def load_price_table(
    env: Mapping[str, str] | None = None,
    config: Mapping[str, Mapping[str, BaseModel]] | None = None,
) -> PriceTable:
    """The built-in table, with config.toml's ``[prices]`` (``config``) and then
    ``ARGUE_PRICES`` applied when set; genai-prices for the models none of them has."""
    source = os.environ if env is None else env
    table = PriceTable(library=True)
    if config:
        prices = {
            provider: {
                name: ModelPrice.model_validate(entry.model_dump())
                for name, entry in models.items()
            }
            for provider, models in config.items()
        }
        table = table.with_overrides(prices, source=CONFIG)
    override_path = source.get("ARGUE_PRICES")
    if override_path:
        table = table.with_overrides(
            load_price_overrides(Path(override_path).expanduser()), source=ENV
        )
    return table


def estimate_cost(usage: Usage, table: PriceTable | None = None) -> float:
    return (table or load_price_table()).cost(usage)


def missing_price_message(provider: str, model: str) -> str:
    """One line: ``--budget-usd`` cannot be enforced for a model without a price, and how to
    give it one."""
    return (
        f"--budget-usd needs a price for {provider}/{model}, which has none: set one "
        f'under [prices.{provider}] in $ARGUE_HOME/config.toml ("{model}" = '
        "{ input = USD_PER_MTOK, output = USD_PER_MTOK }) or in the JSON file ARGUE_PRICES "
        f'names ({{"{provider}": {{"{model}": {{"input": …, "output": …}}}}}}), '
        "or use --max-tokens instead"
    )


def describe_cost(usage: Usage, lang: str = "en") -> str:
    """A cost as people should read it (``lang``: "en" or "fr"): "$0.0123" when every call has
    a known price; "at least $0.0123 (3 unpriced calls)" when some calls have none, or "(1
    request unanswered, possibly billed)" when a request was sent and its answer never arrived
    (timed out, or the connection dropped: the provider may have computed and billed it);
    "unknown (…)" when no call has a known cost."""
    from argue.records.labels import label

    unpriced, possibly_billed = usage.unpriced_calls, usage.possibly_billed_calls
    if unpriced <= 0 and possibly_billed <= 0:
        return f"${usage.cost_usd:.4f}"
    notes = []
    if unpriced > 0:
        notes.append(label("cost_unpriced", lang, n=unpriced))
    if possibly_billed > 0:
        notes.append(label("cost_possibly_billed", lang, n=possibly_billed))
    why = ", ".join(notes)
    if unpriced + possibly_billed >= usage.calls and usage.cost_usd == 0:
        return f"{label('cost_unknown', lang)} ({why})"
    return f"{label('cost_at_least', lang, cost=f'${usage.cost_usd:.4f}')} ({why})"


def total_tokens(usage: Usage) -> int:
    """Every token sent and received (cache reads and writes included): what --max-tokens
    counts."""
    return (
        usage.input_tokens
        + usage.cache_read_tokens
        + usage.cache_write_tokens
        + usage.output_tokens
    )


def models_used(records: Iterable[Usage]) -> str:
    """Every provider/model that answered, in order of first use, with its calls:
    "anthropic/claude-a (12 calls), anthropic/claude-b (8 calls)"."""
    counts: dict[str, int] = {}
    for usage in records:
        name = f"{usage.provider}/{usage.model}" if usage.model else usage.provider or "?"
        counts[name] = counts.get(name, 0) + usage.calls
    if not counts:
        return "none"
    return ", ".join(f"{name} ({n} call{'s' if n != 1 else ''})" for name, n in counts.items())
