"""Seconds, prompt tokens evaluated and the server's CPU seconds per round on the real
llama-cpp-python server, before and after issue #43's self-hosted layout, runs alternated.

Run: ``nice -n 5 .venv/bin/python bench/selfhosted_llama_server.py [--rounds 1] [--pairs 2]``
(needs llama-cpp-python with its server extra; the bundled Gemma 3 270M is assembled into a
temporary ARGUE_HOME).

Each run gets a fresh server (``python -m llama_cpp.server``, ``--n_ctx 8192 --chat_format
gemma``, as ``tests/e2e/test_llama_server.py`` starts it, with one inference thread) and a debate
of a pair of personas for ``--rounds`` rounds with offline research
(``tests.engine.script.ScriptedToolkit``), through argue's OpenAI-compatible adapter with the
dialect that server takes (``json_object_schema``, forced so that neither run spends calls on its
HTTP 500 to ``json_schema``). Runs go before, after, before, after (``--pairs``):

- *before*: the adapter told nothing of the server (``ServerFacts()``), which is what argue did
  before issue #43: a 4,096-token window assumed, requests sent as the engine makes them;
- *after*: the adapter asks the server (``discover_server``: llama-cpp-python's refusal of an
  over-long prompt says its window) and, the server keeping one state for all, sends one
  request at a time, the one sharing most with the last first (``OneStateGate``).

Why these measures, and not the seconds alone: on a shared 2-core machine the wall clock says
how busy the other processes were. The server's CPU seconds (``/proc/PID/stat`` utime + stime;
one inference thread, so that no thread spins at llama.cpp's barriers waiting for a thread that
lost its core) count the work done, whatever the load. The server answers one request at a
time (llama-cpp-python holds a lock around its one ``Llama``), so the CPU seconds between one
reply and the next are that request's. Every request is sent with the same output cap
(``--max-tokens``), temperature 0 and a fixed seed, so that what the model writes differs only
where its prompt does.

The split into prompt evaluation and generation: llama.cpp's own ``prompt eval time`` line is
not usable from this server (llama-cpp-python 0.3.36 prints about 0 ms for hundreds of tokens in
many completions: its counters miss the prompt's batch), so the split is fitted: over every
request of every run, CPU seconds = a × prompt tokens evaluated + b × tokens generated + c
(least squares); a run's prompt CPU is a × its tokens evaluated, its generation CPU b × its
tokens generated, c × requests the rest (the schema's grammar built, the chat template, HTTP).
``eval time = Y ms / M runs`` (the forward passes of generation, which the counters do get) is
printed beside it.

Prompt tokens evaluated come from the server's log (``Llama.generate: N prefix-match hit,
remaining M prompt tokens to eval``, else the whole prompt); seconds per round from the commit
times of ``scoring/round_NNN.json``, the first round counted from the end of the framing call.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.engine import DebateRunner, create_debate
from argue.llm._dialects import Dialect
from argue.llm._openai_compat import OpenAICompatModel
from argue.llm._providers import OpenAICompatProvider
from argue.llm._server_limits import ServerFacts
from argue.personas import load_catalog
from tests.e2e.test_llama_server import (
    MODEL_NAME,
    LlamaServer,
    NativeLlamaServer,
    bundled_model,
    native_server_available,
)
from tests.engine.script import ScriptedToolkit

QUESTION = "Is remote work good for productivity?"
SEED = 7
_PREFIX_HIT = re.compile(r"(\d+) prefix-match hit, remaining (\d+) prompt tokens to eval")
_PROMPT_EVAL = re.compile(r"prompt eval time =\s*([\d.]+) ms /\s*(\d+) tokens")
_EVAL = re.compile(r"\beval time =\s*([\d.]+) ms /\s*(\d+) runs")


@dataclass(frozen=True)
class Completion:
    """One completion as the server's log tells it."""

    evaluated: int  # prompt tokens evaluated
    reused: int  # prompt tokens taken from the state the server held
    prompt_ms: float
    output: int  # tokens generated
    eval_ms: float


def completions_in(log: str) -> list[Completion]:
    """Each completion in the server's order: llama.cpp's timings lines for it, with the prefix
    hit that came before them, if any."""
    found: list[Completion] = []
    reused = prompt_n = 0
    prompt_ms = 0.0
    for line in log.splitlines():
        hit = _PREFIX_HIT.search(line)
        if hit:
            reused = int(hit.group(1))
            continue
        prompt = _PROMPT_EVAL.search(line)
        if prompt:
            prompt_ms, prompt_n = float(prompt.group(1)), int(prompt.group(2))
            continue
        generated = _EVAL.search(line)
        if generated and "prompt" not in line:
            found.append(
                Completion(
                    prompt_n, reused, prompt_ms, int(generated.group(2)), float(generated.group(1))
                )
            )
            reused = prompt_n = 0
            prompt_ms = 0.0
    return found


def evaluated_per_request(log: str) -> list[tuple[int, int, int]]:
    """(prompt tokens evaluated, reused, output tokens) per completion."""
    return [(c.evaluated, c.reused, c.output) for c in completions_in(log)]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process, all its threads (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the command's closing parenthesis: state is field 3, utime 14, stime 15 (man 5 proc).
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


class TimedModel(OpenAICompatModel):
    """The adapter, with the end time of each request it sent and the server's CPU seconds then
    (and when the first was sent); every request greedy (temperature 0) with a fixed seed, so
    that the two layouts' generation is comparable."""

    def __init__(self, *args: Any, server_pid: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.server_pid = server_pid
        self.ended: list[float] = []
        self.cpu_at_end: list[float] = []
        self.cpu_at_first_send: float | None = None
        # llama-server's ``timings`` of each reply, in the order they came back.
        self.replied: list[tuple[float, Completion]] = []

    async def _call(self, request: dict[str, Any]) -> Any:
        got = await super()._call(request)
        timings = (getattr(got[0], "model_extra", None) or {}).get("timings")
        if isinstance(timings, dict):
            done = Completion(
                evaluated=int(timings.get("prompt_n", 0)),
                reused=int(timings.get("cache_n", 0)),
                prompt_ms=float(timings.get("prompt_ms", 0.0)),
                output=int(timings.get("predicted_n", 0)),
                eval_ms=float(timings.get("predicted_ms", 0.0)),
            )
            self.replied.append((time.time(), done))
        return got

    async def _send_request(self, request: dict[str, Any], max_tokens: int) -> Any:
        request = {
            **request,
            "temperature": 0.0,
            "extra_body": {**request.get("extra_body", {}), "seed": SEED},
        }
        if self.cpu_at_first_send is None:
            self.cpu_at_first_send = cpu_seconds(self.server_pid)
        try:
            return await super()._send_request(request, max_tokens)
        finally:
            self.ended.append(time.time())
            self.cpu_at_end.append(cpu_seconds(self.server_pid))


def per_request_cpu(model: TimedModel) -> list[float]:
    """The server's CPU seconds of each request, in the order they ended: from the end of the
    one before (the first: from when it was sent, so that the window probe is not in it)."""
    ordered = [cpu for _, cpu in sorted(zip(model.ended, model.cpu_at_end, strict=True))]
    start = model.cpu_at_first_send if model.cpu_at_first_send is not None else 0.0
    return [b - a for a, b in itertools.pairwise([start, *ordered])]


def fit_costs(rows: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """Least squares of cpu = a × evaluated + b × generated + c over (evaluated, generated, cpu)
    rows: (a, b, c); zeros when the rows do not determine them."""
    columns = [(x, y, 1.0) for x, y, _ in rows]
    targets = [z for _, _, z in rows]
    normal = [[sum(r[i] * r[j] for r in columns) for j in range(3)] for i in range(3)]
    right = [sum(r[i] * t for r, t in zip(columns, targets, strict=True)) for i in range(3)]
    # Gaussian elimination with partial pivoting on the 3 x 3 normal equations.
    m = [[*normal[i], right[i]] for i in range(3)]
    for col in range(3):
        pivot = max(range(col, 3), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-12:
            return 0.0, 0.0, 0.0
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(3):
            if r != col:
                factor = m[r][col] / m[col][col]
                m[r] = [a - factor * b for a, b in zip(m[r], m[col], strict=True)]
    a, b, c = (m[i][3] / m[i][i] for i in range(3))
    return a, b, c


def run_debate(
    server: LlamaServer,
    folder: Path,
    rounds: int,
    facts: ServerFacts | None,
    max_tokens: int,
    dialect: Dialect = "json_object_schema",
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
        server_pid=server.process.pid,
        provider=OpenAICompatProvider(name="openai", base_url=server.base_url),
        max_concurrency=4,
        dialect=dialect,
        server_facts=facts,
    )
    model.output_cap = max_tokens
    log_start = len(server.log())
    cpu_before = cpu_seconds(server.process.pid)
    started = time.time()

    async def debate() -> Any:
        try:
            return await DebateRunner(store, model, ScriptedToolkit()).run()
        finally:
            await model.aclose()

    state = asyncio.run(debate())
    wall = time.time() - started
    cpu = cpu_seconds(server.process.pid) - cpu_before
    ends = sorted(model.ended)
    if model.replied:  # llama-server says its timings in each reply
        done = [c for _, c in sorted(model.replied, key=lambda r: r[0])]
        ends = sorted(t for t, _ in model.replied)
    else:
        done = completions_in(server.log()[log_start:])
    commits = [
        store.paths.round_score(n).stat().st_mtime
        for n in range(1, rounds + 1)
        if store.paths.round_score(n).exists()
    ]
    bounds = [ends[0] if ends else started, *commits]
    seconds = [b - a for a, b in itertools.pairwise(bounds)]
    tokens_per_round: list[int] = []
    if len(done) == len(ends):
        for a, b in itertools.pairwise(bounds):
            tokens_per_round.append(
                sum(c.evaluated for c, end in zip(done, ends, strict=True) if a < end <= b)
            )
    cpu_each = per_request_cpu(model)
    rows = (
        [(float(c.evaluated), float(c.output), t) for c, t in zip(done, cpu_each, strict=True)]
        # Requests one at a time only: a llama-server with slots batches them together.
        if len(done) == len(cpu_each) and not model.replied
        else []
    )
    return {
        "rows": rows,
        "termination": state.termination,
        "status": state.status,
        "wall_s": wall,
        "requests": len(ends),
        "logged": len(done),
        "seconds_per_round": seconds,
        "evaluated_per_round": tokens_per_round,
        "evaluated_total": sum(c.evaluated for c in done),
        "reused_total": sum(c.reused for c in done),
        "output_total": sum(c.output for c in done),
        "prompt_ms": sum(c.prompt_ms for c in done),
        "eval_ms": sum(c.eval_ms for c in done),
        "cpu_s": cpu,
        "notes": list(model.dialect_notes),
        "window": model.context_window,
    }


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f}/{five:.1f}/{fifteen:.1f}"


def describe(
    name: str, got: dict[str, Any], rounds: int, load: str, costs: tuple[float, float, float]
) -> str:
    a, b, c = costs
    if got["rows"]:
        split = (
            f"fitted: prompt {a * got['evaluated_total'] / rounds:.1f}, generation "
            f"{b * got['output_total'] / rounds:.1f}, "
            f"per request {c * got['requests'] / rounds:.1f}"
        )
    else:  # requests batched together: the server's own timings split it
        total_ms = got["prompt_ms"] + got["eval_ms"]
        share = got["prompt_ms"] / total_ms if total_ms else 0.0
        split = f"prompt evaluation's share by the server's timings {share:.0%}"
    per_round = ", ".join(f"{s:.0f}" for s in got["seconds_per_round"])
    tokens = ", ".join(str(t) for t in got["evaluated_per_round"]) or "n/a"
    return (
        f"{name:6} {got['status']}/{got['termination']} · {got['requests']} requests "
        f"({got['logged']} in the log) · window {got['window']} · load before {load}, after "
        f"{got['load_after']} · wall {got['wall_s']:.0f} s · s/round [{per_round}] · prompt tokens "
        f"evaluated per round [{tokens}] (total {got['evaluated_total']}, reused "
        f"{got['reused_total']}) · llama.cpp prompt eval (as it counts) "
        f"{got['prompt_ms'] / 1000 / rounds:.1f} s/round, eval {got['eval_ms'] / 1000 / rounds:.1f}"
        f" s/round for {got['output_total']} tokens generated · server CPU "
        f"{got['cpu_s'] / rounds:.1f} s/round, {split} · notes {got['notes']}"
    )


def summary(runs: dict[str, list[dict[str, Any]]], costs: tuple[float, float, float]) -> str:
    """Mean per layout of each measure, and after/before."""
    a, b, _ = costs
    for got in itertools.chain(*runs.values()):
        got["cpu_prompt_fitted_s"] = a * got["evaluated_total"]
        got["cpu_generation_fitted_s"] = b * got["output_total"]
        # The machine's speed taken out: where every run writes the same tokens, llama.cpp's
        # own time for writing them is the same work timed on the machine as it was then.
        got["cpu_per_generation_s"] = (
            got["cpu_s"] / (got["eval_ms"] / 1000) if got["eval_ms"] else 0.0
        )
    keys = (
        "wall_s",
        "requests",
        "evaluated_total",
        "output_total",
        "eval_ms",
        "cpu_s",
        "cpu_prompt_fitted_s",
        "cpu_generation_fitted_s",
        "cpu_per_generation_s",
    )
    lines = []
    for key in keys:
        means = {name: statistics.mean(r[key] for r in got) for name, got in runs.items() if got}
        if len(means) == 2 and means["before"]:
            ratio = means["after"] / means["before"]
            lines.append(
                f"{key:24} before {means['before']:10.2f}  after {means['after']:10.2f}  "
                f"after/before {ratio:.3f}"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=2, help="before/after pairs, alternated")
    parser.add_argument("--max-tokens", type=int, default=512, help="output cap of every call")
    parser.add_argument("--threads", type=int, default=1, help="the server's inference threads")
    parser.add_argument("--only", choices=("before", "after"), default=None)
    parser.add_argument(
        "--server",
        choices=("llama-cpp-python", "llama-server"),
        default="llama-cpp-python",
        help="llama-server: llama.cpp's own server as the xllamacpp wheel ships it, 4 slots",
    )
    args = parser.parse_args()
    if args.server == "llama-server" and not native_server_available():
        parser.exit(
            2, "--server llama-server needs the xllamacpp package (pip install xllamacpp)\n"
        )
    layouts: dict[str, ServerFacts | None] = {"before": ServerFacts(), "after": None}
    order = [n for _ in range(args.pairs) for n in layouts if args.only in (None, n)]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in layouts}
    loads: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        model_file = bundled_model(root / "home")
        for index, name in enumerate(order):
            # A fresh server per run: no state left by the other layout's run, and its CPU
            # seconds are this run's alone.
            log = root / f"server-{index}.log"
            server = (
                NativeLlamaServer(model_file, log, threads=args.threads, first_claim=False)
                if args.server == "llama-server"
                else LlamaServer(model_file, log, threads=args.threads, first_claim=False)
            )
            # llama-server takes json_schema (a grammar from the schema); llama-cpp-python
            # answers it with HTTP 500 and takes the schema in json_object.
            dialect: Dialect = (
                "json_schema" if args.server == "llama-server" else "json_object_schema"
            )
            try:
                server.wait_ready()
                load = load_average()
                got = run_debate(
                    server,
                    root / f"{name}-{index}",
                    args.rounds,
                    layouts[name],
                    args.max_tokens,
                    dialect,
                )
            finally:
                server.stop()
            got["load_after"] = load_average()
            runs[name].append(got)
            loads.append(load)
            print(describe(name, got, args.rounds, load, fit_costs(got["rows"])), flush=True)
    costs = fit_costs([row for got in itertools.chain(*runs.values()) for row in got["rows"]])
    print(
        f"fitted over every request of every run: {costs[0] * 1000:.2f} ms CPU per prompt token "
        f"evaluated, {costs[1] * 1000:.1f} ms per token generated, {costs[2]:.2f} s per request",
        flush=True,
    )
    for index, name in enumerate(order):
        got = runs[name][order[: index + 1].count(name) - 1]
        print(describe(name, got, args.rounds, loads[index], costs), flush=True)
    print(summary(runs, costs), flush=True)


if __name__ == "__main__":
    main()
