"""How much of each request a self-hosted server reuses, before and after issue #43's layout.

Run: ``.venv/bin/python bench/selfhosted_share.py [--rounds 4]``

The same debate (the engine's scripted replies, offline research) is sent by argue's real
OpenAI-compatible adapter to the loopback self-hosted server of ``tests/e2e/selfhosted_fake.py``
(llama-server's slots, its slot choice by prompt similarity, ``cache_prompt``; or
llama-cpp-python's one state), with an 8,192-token window:

- *before*: the adapter told nothing of the server (``ServerFacts()``): what argue sent before
  (a 4,096-token window assumed, the instructions in each request, no slot named);
- *after*: the adapter asks the server (``/props``, ``/slots``; llama-cpp-python's refusal of an
  over-long prompt) and lays requests out for what it said.

Printed for each: the share of request characters reused from a prefix of at least 1,024 tokens
(4 characters a token) that the request's slot held, the characters evaluated per round (not
reused), the largest request in tokens against the window, and what the terminal was told.
Counts from one run; no wall-clock figures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.llm._server_limits import ServerFacts
from tests.e2e.selfhosted_fake import (
    SelfHostedServer,
    figures,
    run_selfhosted_debate,
    selfhosted_model,
)
from tests.engine.script import DebateScript, ScriptedToolkit

PAIR = ["embry", "horus"]
PANEL = ["embry", "horus", "brandon", "mirela", "vesper"]


def measure(
    folder: Path, personas: list[str], rounds: int, kind: str, slots: int, after: bool
) -> str:
    script = DebateScript(names={}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    server = SelfHostedServer(script, kind=kind, slots=slots, window=8192)  # type: ignore[arg-type]
    server.start()
    try:
        model = selfhosted_model(server, None if after else ServerFacts())
        state, notes = run_selfhosted_debate(folder, personas, rounds, model, ScriptedToolkit())
    finally:
        server.stop()
    assert not server.errors, server.errors
    got = figures(server)
    total = sum(a.chars for a in server.accounts)
    evaluated = total - sum(a.reused_chars for a in server.accounts)
    told = "; ".join(n for n in notes if "share slots" in n) or "-"
    return (
        f"share {got.share:.1%} · evaluated {evaluated / rounds:,.0f} chars/round "
        f"(of {total / rounds:,.0f}) · largest request {got.max_tokens} tokens of "
        f"{got.window} · over the window {got.over_window} · {state.termination} · told: {told}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    cases = [
        ("pair, llama-server 4 slots", PAIR, "llama-server", 4),
        ("panel 5, llama-server 8 slots", PANEL, "llama-server", 8),
        ("panel 5, llama-server 4 slots", PANEL, "llama-server", 4),
        ("pair, llama-cpp-python", PAIR, "llama-cpp-python", 1),
    ]
    print(f"{args.rounds} rounds, window 8,192 tokens, scripted replies")
    with tempfile.TemporaryDirectory() as tmp:
        for index, (name, personas, kind, slots) in enumerate(cases):
            for after in (False, True):
                folder = Path(tmp) / f"{index}-{after}"
                line = measure(folder, personas, args.rounds, kind, slots, after)
                print(f"{name:30} {'after' if after else 'before':6} {line}", flush=True)


if __name__ == "__main__":
    main()
