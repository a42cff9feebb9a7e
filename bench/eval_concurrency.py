"""How many concurrent items one ``argue eval`` process sustains: the eval runner against the
loopback fake LLM (a real HTTP server in a child process, answering every call after a fixed
``--delay``), at concurrency 1, 4 and 16, through the real OpenAI-compatible adapter.

Run: ``.venv/bin/python bench/eval_concurrency.py [--delay 0.2] [--items 64] [--arms single]``

Printed per concurrency: items/s, its ratio to concurrency 1 (ideal: the concurrency), and the
eval process's own CPU per model call (the fake LLM's CPU is in its own process, not counted).
Ratios and per-call CPU from one run; no absolute wall time is a claim.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CONCURRENCIES = (1, 4, 16)


def serve(delay: float, urls: Any, done: Any) -> None:
    """The child process: the fake LLM until ``done`` is set, then its request count."""
    from argue.eval.arms import ShortAnswer
    from argue.llm._structured import tool_name_for
    from tests.e2e import fake_llm
    from tests.e2e.fake_llm import FakeLLM
    from tests.eval.script import EvalScript

    fake_llm.SCHEMAS[tool_name_for(ShortAnswer)] = ShortAnswer
    server = FakeLLM(EvalScript(names={}), delay_s=delay).start()
    # socketserver listens with a backlog of 5: 16 simultaneous connects would wait for SYN
    # retransmits (1 s), measuring the fake's accept queue instead of the eval.
    server.server._httpd.socket.listen(128)
    urls.put(server.url)
    done.wait()
    urls.put(server.count())
    server.stop()


async def measure(url: str, items: int, arms: list[str], root: Path) -> dict[int, dict]:
    """One model (one HTTP client, as in one ``argue eval`` process) for every run; a warm-up
    at the highest concurrency first (imports, 16 open connections), not measured."""
    from argue.eval.arms import ArmSettings
    from argue.eval.datasets import arithmetic
    from argue.eval.folder import EvalFolder
    from argue.eval.runner import run_eval
    from argue.llm import resolve_model
    from argue.personas import load_catalog

    env = {**os.environ, "OPENAI_API_KEY": "bench-key-0123456789", "OPENAI_BASE_URL": url}
    model = resolve_model("openai", "gpt-5.4-mini", env=env, max_concurrency=max(CONCURRENCIES))
    catalog = load_catalog()

    async def one_run(name: str, concurrency: int, count: int, seed: int) -> dict:
        folder = EvalFolder(root / name)
        folder.save_manifest({"key": "bench", "dataset": "arithmetic", "provider": "openai"})
        settings = ArmSettings(
            model=model,
            debates_dir=folder.debates,
            personas=[catalog.get("embry"), catalog.get("horus")],
            mode="adversarial",
            rounds=1,
            record_usage=folder.append_usage,
        )
        data = arithmetic(count, seed=seed)
        cpu, wall = time.process_time(), time.monotonic()
        results = await run_eval(data.items, arms, settings, folder, concurrency=concurrency)
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        calls = sum(r.calls for r in results.values())
        assert len(results) == count * len(arms), "an item did not finish"
        return {"items_per_s": count / wall, "calls": calls, "cpu_ms_per_call": 1000 * cpu / calls}

    try:
        top = max(CONCURRENCIES)
        await one_run("warm-up", top, top, seed=99)
        return {c: await one_run(f"c{c}", c, items, seed=c) for c in CONCURRENCIES}
    finally:
        await model.aclose()  # type: ignore[attr-defined]  # the OpenAI-compatible adapter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per model call")
    parser.add_argument("--items", type=int, default=64)
    parser.add_argument("--arms", default="single", help="single, or debate (1 round, a pair)")
    args = parser.parse_args()
    arms = [a for a in args.arms.split(",") if a]

    spawn = multiprocessing.get_context("spawn")
    urls, done = spawn.Queue(), spawn.Event()
    child = spawn.Process(target=serve, args=(args.delay, urls, done), daemon=True)
    child.start()
    url = urls.get(timeout=60) + "/v1"
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(ARGUE_HOME=tmp, ARGUE_ALLOW_PRIVATE_ADDRESSES="1", NO_PROXY="127.0.0.1")
        runs = asyncio.run(measure(url, args.items, arms, Path(tmp)))
    done.set()
    served = urls.get(timeout=60)
    child.join(timeout=60)

    calls = sum(r["calls"] for r in runs.values())  # the warm-up's calls are served too
    print(
        f"eval concurrency bench: {args.items} items x {','.join(arms)}, model delay "
        f"{args.delay * 1000:.0f} ms/call, {os.cpu_count()} CPUs; {calls} calls ({served} served)"
    )
    base = runs[1]["items_per_s"]
    for c, r in runs.items():
        print(
            f"  concurrency {c:>2}: throughput x{r['items_per_s'] / base:5.2f} of concurrency 1 "
            f"(ideal x{c}) · eval process CPU {r['cpu_ms_per_call']:.1f} ms/call"
        )


if __name__ == "__main__":
    main()
