"""The batch price: a call answered through a provider's batch engine (``Usage.batch_calls``)
costs half the list price, tokens and cache alike; sums keep the count; a record without
batched calls is written as before (the field left out).

Teeth check (done once): drop ``batch_calls=...`` from ``Usage.__add__``: the sum test fails.
"""

from __future__ import annotations

import json

import pytest

from argue.domain import Usage
from argue.llm.pricing import BATCH_PRICE_FACTOR, PriceTable


def call(batched: bool) -> Usage:
    return Usage(
        provider="anthropic",
        model="claude-haiku-4-5",
        input_tokens=1000,
        output_tokens=200,
        cache_read_tokens=3000,
        cache_write_tokens=500,
        batch_calls=1 if batched else 0,
    )


def test_a_batched_call_costs_half_the_list_price():
    table = PriceTable()
    direct, batched = table.price(call(False)), table.price(call(True))
    # claude-haiku-4-5: $1 in, $5 out, $0.10 cache read, $1.25 cache write per million
    listed = (1000 * 1.0 + 200 * 5.0 + 3000 * 0.10 + 500 * 1.25) / 1_000_000
    assert direct.cost_usd == pytest.approx(listed)
    assert (
        batched.cost_usd == pytest.approx(listed * BATCH_PRICE_FACTOR) == pytest.approx(listed / 2)
    )


def test_sums_count_the_batched_calls_and_old_records_are_unchanged():
    total = call(True) + call(True) + call(False)
    assert (total.calls, total.batch_calls) == (3, 2)
    assert "batch_calls" not in json.loads(call(False).model_dump_json())
    assert json.loads(call(True).model_dump_json())["batch_calls"] == 1
