"""Lower bounds on the 8-round pair's cost at Anthropic list prices, whatever the prompt layout.

Run: ``.venv/bin/python bench/cost_floor.py``

Both count only what each call must be shown, once per call that needs it: each persona's
system text, its brief and, in the calls of a round, that round's material and claims messages;
no record of earlier rounds, no phase instructions, no schemas, no re-asks. The judge,
colleague, framing and synthesis callers: each of their messages. Output is the scripted
replies' length, which no layout changes.

- *First sends*: each piece once, at the plain input price, as if reuse were free.
- *Reuse priced*: a piece used by ``n`` calls costs what Anthropic's cache charges at least:
  once plain when ``n`` is 1, else one write (1.25x the input price) and ``n - 1`` reads
  (0.1x), or ``n`` plain sends if that is less. The cache minimum (1,024 tokens) is ignored,
  which can only lower the bound.

The second is the floor that binds: issue 23's target (half of the $0.336 the debate cost
before issue 23) is below it, so no layout meets the target with these replies.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.llm.base import Message
from argue.llm.pricing import PriceTable
from bench import prompt_cache

TARGET_USD = 0.336 / 2
MATERIAL = re.compile(r"Round \d+ of \d+: your research\.")


def needed_pieces(messages: list[Message]) -> list[str]:
    """What this call must be shown: for a persona, system, brief, round material and claims
    (the messages from the material to the phase's instruction); else every message."""
    system = [m.content for m in messages if m.role == "system"]
    starts = [i for i, m in enumerate(messages) if m.role == "user" and MATERIAL.match(m.content)]
    if not starts:
        return system + [m.content for m in messages if m.role != "system"]
    at = starts[0]
    return [*system, messages[1].content, *(m.content for m in messages[at:-1])]


def floors(captured: list[list[Message]], input_price: float) -> tuple[float, float]:
    """(first sends, reuse priced) in dollars for the input side."""
    uses: dict[tuple[str, str], int] = {}
    for messages in captured:
        caller = "\n\n".join(m.content for m in messages if m.role == "system")
        for piece in set(needed_pieces(messages)):
            uses[caller, piece] = uses.get((caller, piece), 0) + 1
    once = priced = 0.0
    for (_caller, piece), n in uses.items():
        tokens = len(piece) / prompt_cache.CHARS_PER_TOKEN
        once += tokens
        # Under the cache minimum a caller could still pad its prompt to be cached: counted as
        # if it could cache with no minimum, which can only lower the bound.
        priced += tokens * (1 if n == 1 else min(n, 1.25 + 0.1 * (n - 1)))
    return once * input_price / 1e6, priced * input_price / 1e6


def main() -> None:
    price = PriceTable().lookup("anthropic", prompt_cache.ANTHROPIC_MODEL)
    assert price is not None
    captured: list[list[Message]] = []
    as_sent = prompt_cache.as_sent

    def spy(messages: list[Message]) -> tuple[str, str, list[int]]:
        captured.append(messages)
        return as_sent(messages)

    prompt_cache.as_sent = spy
    with tempfile.TemporaryDirectory() as tmp:
        measured = prompt_cache.run(["embry", "horus"], 8, 0.0, Path(tmp))
    output = sum(r.output_chars for r in measured.requests) / prompt_cache.CHARS_PER_TOKEN
    output_usd = output * price.output / 1e6
    once_usd, priced_usd = floors(captured, price.input)
    print(f"{len(measured.requests)} requests; output {output:,.0f} tokens = ${output_usd:.4f}")
    print(f"first sends: input ${once_usd:.4f} → floor ${output_usd + once_usd:.4f}")
    print(f"reuse priced: input ${priced_usd:.4f} → floor ${output_usd + priced_usd:.4f}")
    print(f"target ${TARGET_USD:.4f}")


if __name__ == "__main__":
    main()
