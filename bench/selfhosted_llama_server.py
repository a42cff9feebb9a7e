"""Seconds and prompt tokens evaluated per round on the real llama-cpp-python server, before and
after issue #43's self-hosted layout: the same debate, the same server process, one run each.

Run: ``.venv/bin/python bench/selfhosted_llama_server.py [--rounds 2]`` (needs llama-cpp-python
with its server extra; the bundled Gemma 3 270M is assembled into a temporary ARGUE_HOME).

One server (``python -m llama_cpp.server``, ``--n_ctx 8192 --chat_format gemma``, as
``tests/e2e/test_llama_server.py`` starts it) serves two debates in turn, a pair of personas for
``--rounds`` rounds with offline research (``tests.engine.script.ScriptedToolkit``), through
argue's OpenAI-compatible adapter with the dialect that server takes (``json_object_schema``,
forced so that neither run spends calls on its HTTP 500 to ``json_schema``):

- *before*: the adapter told nothing of the server (``ServerFacts()``), which is what argue did
  before issue #43: a 4,096-token window assumed, requests sent as the engine makes them;
- *after*: the adapter asks the server (``discover_server``: llama-cpp-python's refusal of an
  over-long prompt says its window) and, the server keeping one state for all, sends one
  request at a time, the one sharing most with the last first (``OneStateGate``).

Prompt tokens evaluated come from the server's own log (``Llama.generate: N prefix-match hit,
remaining M prompt tokens to eval``, else the whole prompt: ``prompt eval time = … / M tokens``
of llama.cpp's timings); seconds per round from the commit times of ``scoring/round_NNN.json``,
the first round counted from the end of the framing call. What the tiny model writes varies
from run to run (its answers depend on the prompt), so output tokens are printed beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.engine import DebateRunner, create_debate
from argue.llm._openai_compat import OpenAICompatModel
from argue.llm._providers import OpenAICompatProvider
from argue.llm._server_limits import ServerFacts
from argue.personas import load_catalog
from tests.e2e.test_llama_server import MODEL_NAME, LlamaServer, bundled_model
from tests.engine.script import ScriptedToolkit

QUESTION = "Is remote work good for productivity?"
_PREFIX_HIT = re.compile(r"(\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")
_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"\beval time =\s*([\d.]+) ms /\s*(\d+) runs")


def evaluated_per_request(log: str) -> list[tuple[int, int, int]]:
    """(prompt tokens evaluated, reused, output tokens) per completion, in the server's order:
    llama.cpp's timings line for each, with the prefix hit that came before it, if any."""
    found: list[tuple[int, int, int]] = []
    reused = 0
    prompt_n = 0
    for line in log.splitlines():
        hit = _PREFIX_HIT.search(line)
        if hit:
            reused = int(hit.group(1))
            continue
        prompt = _PROMPT_EVAL.search(line)
        if prompt:
            prompt_n = int(prompt.group(2))
            continue
        generated = _EVAL.search(line)
        if generated and "prompt" not in line:
            found.append((prompt_n, reused, int(generated.group(2))))
            reused = prompt_n = 0
    return found


class TimedModel(OpenAICompatModel):
    """The adapter, with the end time of each request it sent."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ended: list[float] = []

    async def _send_request(self, request: dict[str, Any], max_tokens: int) -> Any:
        try:
            return await super()._send_request(request, max_tokens)
        finally:
            self.ended.append(time.time())


def run_debate(
    server: LlamaServer, folder: Path, rounds: int, facts: ServerFacts | None
) -> dict[str, Any]:
    catalog = load_catalog()
    store = create_debate(
        folder,
        question=QUESTION,
        mode="adversarial",
        personas=[catalog.get("embry"), catalog.get("horus")],
        max_rounds=rounds,
        provider="openai",
        model=MODEL_NAME,
    )
    model = TimedModel(
        MODEL_NAME,
        provider=OpenAICompatProvider(name="openai", base_url=server.base_url),
        max_concurrency=4,
        dialect="json_object_schema",
        server_facts=facts,
    )
    log_start = len(server.log())
    started = time.time()

    async def debate() -> Any:
        try:
            return await DebateRunner(store, model, ScriptedToolkit()).run()
        finally:
            await model.aclose()

    state = asyncio.run(debate())
    wall = time.time() - started
    per_request = evaluated_per_request(server.log()[log_start:])
    ends = sorted(model.ended)
    commits = [
        store.paths.round_score(n).stat().st_mtime
        for n in range(1, rounds + 1)
        if store.paths.round_score(n).exists()
    ]
    bounds = [ends[0] if ends else started, *commits]
    seconds = [b - a for a, b in itertools.pairwise(bounds)]
    tokens_per_round: list[int] = []
    if len(per_request) == len(ends):
        for a, b in itertools.pairwise(bounds):
            tokens_per_round.append(
                sum(p for (p, _, _), end in zip(per_request, ends, strict=True) if a < end <= b)
            )
    return {
        "termination": state.termination,
        "status": state.status,
        "wall_s": wall,
        "requests": len(ends),
        "logged": len(per_request),
        "seconds_per_round": seconds,
        "evaluated_per_round": tokens_per_round,
        "evaluated_total": sum(p for p, _, _ in per_request),
        "reused_total": sum(r for _, r, _ in per_request),
        "output_total": sum(o for _, _, o in per_request),
        "notes": list(model.dialect_notes),
        "window": model.context_window,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", choices=("before", "after"), default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server = LlamaServer(bundled_model(root / "home"), root / "server.log")
        try:
            server.wait_ready()
            layouts = {"before": ServerFacts(), "after": None}
            for name, facts in layouts.items():
                if args.only and name != args.only:
                    continue
                got = run_debate(server, root / name, args.rounds, facts)
                per_round = ", ".join(f"{s:.0f}" for s in got["seconds_per_round"])
                tokens = ", ".join(str(t) for t in got["evaluated_per_round"]) or "n/a"
                print(
                    f"{name:6} {got['status']}/{got['termination']} · {got['requests']} requests "
                    f"({got['logged']} in the log) · window {got['window']} · wall "
                    f"{got['wall_s']:.0f} s · s/round [{per_round}] · prompt tokens evaluated "
                    f"per round [{tokens}] · total evaluated {got['evaluated_total']}, reused "
                    f"{got['reused_total']}, output {got['output_total']} · notes {got['notes']}",
                    flush=True,
                )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
