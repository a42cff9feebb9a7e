"""A lower bound on the 8-round pair's cost at Anthropic list prices, whatever the prompt layout.

Run: ``.venv/bin/python bench/cost_floor.py``

Counts only what a caller has never been sent before: each persona's system text and brief
once, each round's material and claims messages once (no record blocks, no phase instructions,
no re-asks); the judge, colleague, framing and synthesis callers: each distinct message once.
Priced at the cheapest first-send price (the plain input price, below the cache-write price),
with no cache reads at all, plus the scripted replies' output tokens (which no layout changes).
The figure says how much room issue 23's target (half of $0.335) leaves to a better layout.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.llm.base import Message
from argue.llm.pricing import PriceTable
from bench import prompt_cache

TARGET_USD = 0.335 / 2


def first_sends(captured: list[list[Message]]) -> int:
    """Characters of information each caller is sent for the first time."""
    distinct: dict[str, set[str]] = {}
    for messages in captured:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        seen = distinct.setdefault(system, set())
        persona = any("closed so far" in m.content for m in messages if m.role == "user")
        for message in messages:
            if message.role == "system":
                seen.add(message.content)
            elif persona and "closed so far" in message.content:
                seen.add(message.content.split("The rounds closed so far")[0])
            elif not persona or message.cache_point:
                seen.add(message.content)
    return sum(len(text) for texts in distinct.values() for text in texts)


def main() -> None:
    price = PriceTable().lookup("anthropic", "claude-sonnet-4-6")
    assert price is not None
    captured: list[list[Message]] = []
    as_sent = prompt_cache.as_sent

    def spy(messages: list[Message]) -> tuple[str, str, list[int]]:
        captured.append(messages)
        return as_sent(messages)

    prompt_cache.as_sent = spy
    with tempfile.TemporaryDirectory() as tmp:
        measured = prompt_cache.run(["embry", "horus"], 8, 0.0, Path(tmp))
    figures = prompt_cache.analyse(measured, 8)
    output = sum(r.output_chars for r in measured.requests) / prompt_cache.CHARS_PER_TOKEN
    once = first_sends(captured) / prompt_cache.CHARS_PER_TOKEN
    output_usd = output * price.output / 1e6
    once_usd = once * price.input / 1e6
    print(f"{len(measured.requests)} requests; output {output:,.0f} tokens = ${output_usd:.4f}")
    print(f"information sent once: {once:,.0f} tokens = ${once_usd:.4f} at the input price")
    print(
        f"floor ${output_usd + once_usd:.4f} (no cache reads counted); today, cached "
        f"${figures['anthropic_cached']:.4f}; target ${TARGET_USD:.4f}"
    )


if __name__ == "__main__":
    main()
