"""Prices from genai-prices, behind ARGUE_PRICES / config.toml and the built-in table.

Offline: the library's bundled data is used and any socket connection fails the test.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from argue.domain import Usage
from argue.llm import ModelPrice, PriceTable, load_price_table
from argue.llm.pricing import BUILT_IN, CONFIG, ENV, library_price

# Known to genai-prices, absent from argue's built-in table.
LIBRARY_ONLY = ("anthropic", "claude-3-5-haiku-20241022")


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the price lookup tried the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    library_price.cache_clear()


def test_a_model_only_the_library_knows_gets_its_price() -> None:
    table = load_price_table({})
    assert PriceTable().lookup(*LIBRARY_ONLY) is None  # not in the built-in table
    price = table.lookup(*LIBRARY_ONLY)
    assert price is not None and price.input > 0 and price.output > price.input
    assert (table.price_source(*LIBRARY_ONLY) or "").startswith("genai-prices ")
    cost = table.cost(Usage(provider=LIBRARY_ONLY[0], model=LIBRARY_ONLY[1], output_tokens=10**6))
    assert cost == pytest.approx(price.output)


def test_the_built_in_table_wins_over_the_library() -> None:
    table = load_price_table({})
    assert table.price_source("anthropic", "claude-haiku-4-5") == BUILT_IN
    assert table.lookup("anthropic", "claude-haiku-4-5") == ModelPrice(
        input=1.0, output=5.0, cache_read=0.10, cache_write=1.25
    )


def test_argue_prices_and_config_win_over_both(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"anthropic": {LIBRARY_ONLY[1]: {"input": 9, "output": 99}}}))
    config = {"anthropic": {"claude-haiku-4-5": ModelPrice(input=7, output=77)}}
    table = load_price_table({"ARGUE_PRICES": str(prices)}, config)
    assert table.lookup(*LIBRARY_ONLY) == ModelPrice(input=9, output=99)
    assert table.price_source(*LIBRARY_ONLY) == ENV
    assert table.lookup("anthropic", "claude-haiku-4-5") == ModelPrice(input=7, output=77)
    assert table.price_source("anthropic", "claude-haiku-4-5") == CONFIG


def test_unknown_providers_and_models_stay_unpriced() -> None:
    table = load_price_table({})
    assert table.price_source("ollama", "llama3.2") is None
    assert table.price_source("openai", "no-such-model-xyz") is None
    assert table.price_source("local", "gemma-3-270m-q4_k_m") == "free (runs on this machine)"
