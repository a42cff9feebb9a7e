from __future__ import annotations

import json
from pathlib import Path

import pytest

from argue.domain import Usage
from argue.llm import (
    ModelPrice,
    PriceTable,
    PriceTableError,
    UsageLedger,
    estimate_cost,
    load_price_table,
)


def usage(provider: str, model: str, **tokens: int) -> Usage:
    return Usage(provider=provider, model=model, **tokens)


def test_cost_counts_every_kind_of_token():
    table = PriceTable(
        {"acme": {"m1": ModelPrice(input=2, output=10, cache_read=0.2, cache_write=2.5)}}
    )
    record = usage(
        "acme",
        "m1",
        input_tokens=1_000_000,
        output_tokens=500_000,
        cache_read_tokens=2_000_000,
        cache_write_tokens=400_000,
    )
    assert table.cost(record) == pytest.approx(2 + 5 + 0.4 + 1.0)


def test_builtin_prices_and_dated_snapshots():
    table = PriceTable()
    record = usage("anthropic", "claude-haiku-4-5-20251001", input_tokens=1000, output_tokens=1000)
    assert table.cost(record) == pytest.approx((1000 * 1.0 + 1000 * 5.0) / 1e6)
    snapshot = usage("openai", "gpt-5.4-mini-2026-03-17", output_tokens=1_000_000)
    assert table.cost(snapshot) == pytest.approx(4.50)


def test_unknown_and_local_models_cost_nothing_and_say_so():
    table = PriceTable()
    assert table.cost(usage("ollama", "llama3.2", input_tokens=10**6)) == 0.0
    assert table.cost(usage("local", "gemma-3-270m-q4_k_m", input_tokens=10**6)) == 0.0
    # A variant is not its base model: no guessing from a prefix.
    assert not table.knows("openai", "gpt-5.4-pro")
    assert table.knows("openai", "gpt-5.4")


def test_argue_prices_overrides_and_extends(tmp_path: Path):
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps(
            {
                "openai": {"gpt-5.4-mini": {"input": 1.0, "output": 2.0}},
                "ollama": {"llama3.2": {"input": 0.5, "output": 0.5}},
            }
        )
    )
    table = load_price_table({"ARGUE_PRICES": str(prices)})

    assert table.cost(usage("openai", "gpt-5.4-mini", output_tokens=10**6)) == pytest.approx(2.0)
    assert table.cost(usage("ollama", "llama3.2", input_tokens=10**6)) == pytest.approx(0.5)
    assert table.knows("anthropic", "claude-sonnet-4-6")  # built-ins kept


def test_estimate_cost_reads_argue_prices(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"acme": {"m1": {"input": 4, "output": 0}}}))
    monkeypatch.setenv("ARGUE_PRICES", str(prices))
    assert estimate_cost(usage("acme", "m1", input_tokens=250_000)) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "is not valid JSON"),
        ('["a"]', "must map provider -> model"),
        ('{"openai": {"m": {"input": -1, "output": 1}}}', "openai.m.input"),
        ('{"openai": {"m": {"output": 1}}}', "openai.m.input: Field required"),
    ],
)
def test_a_broken_price_file_is_a_one_line_configuration_error(
    tmp_path: Path, content: str, expected: str
):
    prices = tmp_path / "prices.json"
    prices.write_text(content)
    with pytest.raises(PriceTableError, match=expected) as caught:
        load_price_table({"ARGUE_PRICES": str(prices)})
    assert "\n" not in str(caught.value)


def test_a_missing_price_file_is_reported(tmp_path: Path):
    with pytest.raises(PriceTableError, match="cannot read"):
        load_price_table({"ARGUE_PRICES": str(tmp_path / "absent.json")})


def test_ledger_totals_and_groups():
    ledger = UsageLedger()
    ledger.record(
        usage(
            "anthropic",
            "claude-sonnet-4-6",
            input_tokens=100,
            output_tokens=10,
            cost_usd=0.5,
            purpose="A/R1/argument",
        )
    )
    ledger.record(
        usage(
            "anthropic",
            "claude-sonnet-4-6",
            input_tokens=50,
            output_tokens=5,
            cost_usd=0.25,
            purpose="B/R1/argument",
        )
    )
    ledger.record(
        usage(
            "openai",
            "gpt-5.4-mini",
            input_tokens=10,
            cache_read_tokens=7,
            cost_usd=0.125,
            purpose="A/R1/argument",
        )
    )

    total = ledger.total()
    assert (total.calls, total.input_tokens, total.output_tokens) == (3, 160, 15)
    assert total.cache_read_tokens == 7
    assert total.cost_usd == pytest.approx(0.875)
    assert total.provider == "mixed"
    assert ledger.by_model()["anthropic/claude-sonnet-4-6"].calls == 2


def test_empty_ledger():
    assert UsageLedger().total().calls == 0
    assert UsageLedger().by_model() == {}
