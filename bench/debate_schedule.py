"""The round schedule: model waves per round, idle gaps between waves, engine CPU per call,
a 5-persona panel's wall time against a pair's, and prompt growth from round 2 to round 8.

Run: ``.venv/bin/python bench/debate_schedule.py [--latency 0.25] [--rounds 8]``

The model is the scripted model answering after ``--latency`` seconds (no concurrency limit),
with the research skills scripted too, so what is measured is the engine: how many waves the
data forces, how long the engine idles between them, and the CPU it spends per model call.
Figures are ratios and counts from one run; wall times only as a panel/pair ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import itertools

from argue.engine import DebateRunner, create_debate
from argue.llm import ScriptedModel
from argue.personas import load_catalog
from tests.engine.script import DebateScript, ScriptedToolkit, names_of


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges: every debate runs all its rounds


def run(personas: list[str], rounds: int, latency: float, folder: Path) -> dict[str, float]:
    catalog = load_catalog()
    lineup = [catalog.get(name) for name in personas]
    store = create_debate(
        folder,
        question="Is the Collatz conjecture decidable?",
        mode="panel" if len(lineup) > 2 else "adversarial",
        personas=lineup,
        max_rounds=rounds,
        provider="scripted",
        model="scripted-1",
    )
    script = DebateScript(names=names_of(lineup), confidence=_swinging)
    spans: list[tuple[float, float, str]] = []
    prompt_chars: dict[int, list[int]] = {}

    async def responder(messages, output):
        started = time.monotonic()
        reply = script(messages, output)
        name = output.__name__ if output else "text"
        if name == "ArgumentDraft":
            rnd = int(script.log[-1].split(":")[1])
            prompt_chars.setdefault(rnd, []).append(sum(len(m.content) for m in messages))
        await asyncio.sleep(latency)
        spans.append((started, time.monotonic(), name))
        return reply

    cpu = time.process_time()
    wall = time.monotonic()
    asyncio.run(
        DebateRunner(store, ScriptedModel(responder, provider="bench"), ScriptedToolkit()).run()
    )
    wall = time.monotonic() - wall
    cpu = time.process_time() - cpu

    waves: list[list[tuple[float, float, str]]] = []
    horizon = float("-inf")
    for span in sorted(spans):
        if span[0] >= horizon:
            waves.append([])
        waves[-1].append(span)
        horizon = max(horizon, span[1])
    gaps = [
        min(s for s, _, _ in after) - max(e for _, e, _ in before)
        for before, after in itertools.pairwise(waves)
    ]
    in_rounds = len(waves) - 2  # framing and synthesis excluded
    return {
        "calls": len(spans),
        "waves_per_round": in_rounds / rounds,
        "median_gap_ms": statistics.median(gaps) * 1000,
        "cpu_ms_per_call": cpu * 1000 / len(spans),
        "wall_s": wall,
        "prompt_growth": statistics.mean(prompt_chars.get(rounds, [0]))
        / statistics.mean(prompt_chars.get(2, [1])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.25)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pair = run(["embry", "horus"], args.rounds, args.latency, Path(tmp) / "pair")
        panel = run(
            ["embry", "horus", "brandon", "mirela", "vesper"],
            args.rounds,
            args.latency,
            Path(tmp) / "panel",
        )
    print(f"model latency {args.latency * 1000:.0f} ms, {args.rounds} rounds")
    for name, r in (("pair (2)", pair), ("panel (5)", panel)):
        print(
            f"{name:10} waves/round {r['waves_per_round']:.2f} · median gap "
            f"{r['median_gap_ms']:.1f} ms · engine CPU {r['cpu_ms_per_call']:.1f} ms/call · "
            f"{r['calls']:.0f} calls · prompt R{args.rounds}/R2 {r['prompt_growth']:.2f}"
        )
    print(f"panel/pair wall time: {panel['wall_s'] / pair['wall_s']:.2f}")


if __name__ == "__main__":
    main()
