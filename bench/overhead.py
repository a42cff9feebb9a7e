"""argue's own overhead, black-box: the real CLI in a child process against the loopback model.

Run: ``.venv/bin/python bench/overhead.py [--latency 0.25] [--rounds 8] [--long 20]
[--profile DIR] [--tree PATH] [--slots 16] [--repeat N]``

An 8-round pair (embry, horus) and a 5-persona panel (embry, horus, brandon, mirela, vesper)
run as ``python -m argue argue QUESTION --personas … --rounds 8 --json`` against the e2e suite's
FakeLLM on 127.0.0.1 (OpenAI wire protocol, every answer held ``--latency`` seconds), in the e2e
harness's clean environment; the library holds one note per round that the round's queries
find (as in ``panel_50_rounds.py``), and claims are fresh words with a swinging confidence, so
both debates run all their rounds. The fake runs in this process, so the child's CPU
(``os.wait4``: user + system) is argue's alone:

- **CPU per model call**: the child's CPU over the requests the fake answered; and *in the
  debate*: the child's CPU from the first request's arrival to the last one's (read from
  /proc, 10 ms ticks) over the calls between them, i.e. without start-up (imports, the SDK's
  client, planning) and the ending (synthesis rendering, the HTML report), which are paid once
  a debate, however many calls it makes;
- **idle gap**: requests grouped into waves (a request that arrives after every earlier one
  was answered starts a wave); the median time between a wave's last answer and the next
  wave's first request, i.e. the time the model sat idle while argue worked;
- **waves per round** (framing and synthesis excluded), **panel/pair wall time** (and the
  same ratio from the first request to the last answer: the debate without start-up and
  ending); ``--repeat N`` runs pair and panel N times, alternating, and prints each figure's
  median and range (on a shared machine one run's ratio moves by ±0.1 with its speed);
- **prompt growth**: the mean size (characters of all messages) of the argument requests of
  round 8 against round 2; with ``--long N`` a pair and a panel of N rounds run in this
  process (``debate_schedule.run``, the engine tests' script) for round N against round 2:
  the record of closed rounds must stay inside the window.

The fake answers with TCP_NODELAY (``--nagle``: as before, when an answer's body waited for
the client's ACK of its headers). It is a self-hosted server to argue (a loopback base URL), so
the default is 8 requests in flight; ``--slots 16`` is what a hosted API gets.

``--profile DIR`` runs each child under cProfile (``DIR/pair.prof``, ``DIR/panel.prof``) and
prints its top functions by own time; its figures are inflated by the profiler, so the
overhead figures are only comparable between runs without it. ``--tree PATH`` runs another
checkout's ``argue`` (e.g. a ``git worktree`` of an older commit) with this bench, for a
before/after from one run on one machine.
"""

from __future__ import annotations

import argparse
import itertools
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.panel_50_rounds import NovelScript, _add_library, _swinging  # noqa: E402
from tests.e2e.fake_llm import OPENAI_PATH, FakeLLM  # noqa: E402
from tests.e2e.harness import QUESTION, Cli, openai_env  # noqa: E402
from tests.loopback import RecordedRequest, Reply  # noqa: E402

PAIR = "embry,horus"
PANEL = "embry,horus,brandon,mirela,vesper"
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Spans:
    """When each request arrived and when its answer left, seen from the fake's side."""

    child: int = 0
    startup_cpu_s: float | None = None
    last_cpu_s: float | None = None  # the child's CPU when the last request arrived
    spans: list[tuple[float, float, str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _cpu_of(pid: int) -> float | None:
    """A live process's CPU so far (user + system seconds), from /proc."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def _timed(fake: FakeLLM, spans: Spans) -> None:
    """Wrap the fake's handler: note each chat request's arrival, schema, prompt size and the
    moment its answer leaves (after the fake's delay)."""
    handle = fake.server.handler
    assert handle is not None

    def timed(request: RecordedRequest) -> Reply:
        if spans.child:
            spans.last_cpu_s = _cpu_of(spans.child)
            if spans.startup_cpu_s is None:
                spans.startup_cpu_s = spans.last_cpu_s
        reply = handle(request)
        if request.path.endswith(OPENAI_PATH):
            body = request.json()
            schema = ((body.get("response_format") or {}).get("json_schema") or {}).get(
                "name", "text"
            )
            size = sum(len(str(m.get("content") or "")) for m in body.get("messages", []))
            with spans.lock:
                spans.spans.append((request.at, time.monotonic() + reply.delay_s, schema, size))
        return reply

    fake.server.handler = timed


def _no_nagle(fake: FakeLLM) -> None:
    """Answer without Nagle's delay, as hosted APIs' front ends do: the loopback handler writes
    an answer's headers and its body in two writes, and with Nagle on the body waited for the
    client's delayed ACK of the headers (~40 ms on Linux), an idle gap that was the fake's,
    not argue's (``--nagle`` keeps it, for figures comparable with earlier runs)."""
    if os.environ.get("OVERHEAD_NAGLE"):
        return
    handler = fake.server._httpd.RequestHandlerClass
    handler.disable_nagle_algorithm = True  # type: ignore[attr-defined]


def _waves(spans: list[tuple[float, float, str, int]]) -> list[list[tuple[float, float]]]:
    waves: list[list[tuple[float, float]]] = []
    horizon = float("-inf")
    for start, end, _, _ in sorted(spans):
        if start >= horizon:
            waves.append([])
        waves[-1].append((start, end))
        horizon = max(horizon, end)
    return waves


def run(
    personas: str,
    rounds: int,
    latency: float,
    *,
    tree: Path = ROOT,
    profile: Path | None = None,
    slots: int | None = None,
) -> dict[str, float]:
    """One debate through the CLI of ``tree``; its figures (see the module docstring)."""
    fake = FakeLLM(NovelScript(names={}, confidence=_swinging), delay_s=latency).start()
    _no_nagle(fake)
    spans = Spans()
    _timed(fake, spans)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cli = Cli(Path(tmp))
            _add_library(cli, rounds)
            args = ["argue", QUESTION, "--personas", personas, "--rounds", str(rounds), "--json"]
            runner = [sys.executable]
            if profile is not None:
                runner += ["-m", "cProfile", "-o", str(profile)]
            env = cli.env(**openai_env(fake.url))
            if slots is not None:
                env["ARGUE_MAX_CONCURRENCY"] = str(slots)
            env["PYTHONPATH"] = os.pathsep.join(
                filter(None, [os.environ.get("OVERHEAD_EXTRA_PATH"), str(tree)])
            )
            log = Path(tmp) / "child.log"
            started = time.monotonic()
            with log.open("wb") as sink:
                child = subprocess.Popen(
                    [*runner, "-m", "argue", *args],
                    cwd=tmp,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=sink,
                )
                spans.child = child.pid
                _, status, usage = os.wait4(child.pid, 0)
            wall = time.monotonic() - started
            code = os.waitstatus_to_exitcode(status)
            if code != 0:
                sys.exit(f"the debate exited {code}:\n{log.read_text(errors='replace')[-3000:]}")
    finally:
        fake.stop()
    if os.environ.get("OVERHEAD_DUMP"):
        Path(os.environ["OVERHEAD_DUMP"]).write_text(
            "\n".join(f"{a:.3f} {b:.3f} {n} {z}" for a, b, n, z in sorted(spans.spans))
        )
    cpu = usage.ru_utime + usage.ru_stime
    calls = len(spans.spans)
    startup = spans.startup_cpu_s or 0.0
    loop = (spans.last_cpu_s or startup) - startup  # first request to last: the debate itself
    waves = _waves(spans.spans)
    gaps = [
        min(s for s, _ in after) - max(e for _, e in before)
        for before, after in itertools.pairwise(waves)
    ]
    # The argument requests of each round: "Round N of M" is in their material.
    sizes: dict[int, list[int]] = {}
    arguments = sorted(s for s in spans.spans if s[2] == "ArgumentDraft")
    per_round = len(personas.split(","))
    for index, span in enumerate(arguments):
        sizes.setdefault(index // per_round + 1, []).append(span[3])
    return {
        "calls": calls,
        "cpu_s": cpu,
        "cpu_ms_per_call": cpu * 1000 / calls,
        "startup_cpu_s": startup,
        "loop_cpu_ms_per_call": loop * 1000 / max(1, calls - 1),
        "ending_cpu_s": cpu - startup - loop,
        "waves_per_round": (len(waves) - 2) / rounds,
        "median_gap_ms": statistics.median(gaps) * 1000,
        "wall_s": wall,
        "span_s": max(e for _, e, _, _ in spans.spans) - min(s for s, _, _, _ in spans.spans),
        "prompt_growth": statistics.mean(sizes.get(rounds, [0])) / statistics.mean(sizes[2]),
        "prompt_r2": statistics.mean(sizes[2]),
        "prompt_last": statistics.mean(sizes.get(rounds, [0])),
    }


def compile_tree(tree: Path) -> None:
    """Write the tree's bytecode first, as an installed package has it: this image sets
    PYTHONDONTWRITEBYTECODE, and a child compiling argue from source each start would be
    measuring the compiler."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(tree / "argue")],
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    )


def _print_run(results: dict[str, dict[str, float]], rounds: int) -> None:
    for name, r in results.items():
        print(
            f"{name:6} {r['calls']:.0f} calls · CPU {r['cpu_ms_per_call']:.1f} ms/call, "
            f"{r['loop_cpu_ms_per_call']:.1f} in the debate (start-up {r['startup_cpu_s']:.2f} s, "
            f"ending {r['ending_cpu_s']:.2f} s) · "
            f"median gap {r['median_gap_ms']:.1f} ms · waves/round {r['waves_per_round']:.2f} · "
            f"prompt R{rounds}/R2 {r['prompt_growth']:.2f} · wall {r['wall_s']:.1f} s"
        )
    if len(results) == 2:
        wall = results["panel"]["wall_s"] / results["pair"]["wall_s"]
        span = results["panel"]["span_s"] / results["pair"]["span_s"]
        print(f"panel/pair wall time: {wall:.2f} (first request to last answer: {span:.2f})")


def _print_spread(runs: list[dict[str, dict[str, float]]]) -> None:
    """Median [lowest–highest] of each figure over the runs, and of the panel/pair ratios
    (each from a pair and the panel run right after it)."""

    def spread(values: list[float], digits: int = 1) -> str:
        return (
            f"{statistics.median(values):.{digits}f} "
            f"[{min(values):.{digits}f}–{max(values):.{digits}f}]"
        )

    print(f"over {len(runs)} runs, median [range]:")
    for name in runs[0]:
        figures = [r[name] for r in runs]
        print(
            f"{name:6} CPU in the debate {spread([f['loop_cpu_ms_per_call'] for f in figures])} "
            f"ms/call · median gap {spread([f['median_gap_ms'] for f in figures])} ms · "
            f"wall {spread([f['wall_s'] for f in figures])} s"
        )
    if len(runs[0]) == 2:
        walls = [r["panel"]["wall_s"] / r["pair"]["wall_s"] for r in runs]
        spans = [r["panel"]["span_s"] / r["pair"]["span_s"] for r in runs]
        print(
            f"panel/pair wall time {spread(walls, 2)} · first request to last answer "
            f"{spread(spans, 2)}"
        )


def _top(path: Path, count: int = 25) -> None:
    stats = pstats.Stats(str(path))
    stats.sort_stats("tottime").print_stats(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.25)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--long", type=int, default=0, help="also a pair of this many rounds")
    parser.add_argument("--profile", type=Path, default=None, help="folder for cProfile output")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose argue runs")
    parser.add_argument(
        "--slots",
        type=int,
        default=None,
        help="requests in flight (ARGUE_MAX_CONCURRENCY; default: argue's own, 8 for the "
        "loopback fake, a self-hosted server; 16 is a hosted API's default)",
    )
    parser.add_argument("--only", choices=("pair", "panel", "both", "none"), default="both")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run the pair and the panel this many times, alternating, and print the median "
        "and range of each figure (one run's ratio moves with a shared machine's speed)",
    )
    parser.add_argument(
        "--nagle",
        action="store_true",
        help="let the fake answer with Nagle's algorithm on (as this bench did before)",
    )
    args = parser.parse_args()
    if args.nagle:
        os.environ["OVERHEAD_NAGLE"] = "1"
    if args.rounds < 2:
        parser.error("--rounds must be at least 2 (round 2's prompt is the reference)")
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    tree = args.tree.resolve()
    compile_tree(tree)
    print(f"argue from {tree}")
    slots = args.slots or "argue's default"
    print(
        f"model latency {args.latency * 1000:.0f} ms, {args.rounds} rounds, loopback (OpenAI), "
        f"slots {slots}"
    )
    runs: list[dict[str, dict[str, float]]] = []
    for _ in range(max(1, args.repeat)):
        results = {}
        for name, personas in (("pair", PAIR), ("panel", PANEL)):
            if args.only not in (name, "both"):
                continue
            profile = None if args.profile is None else args.profile / f"{name}.prof"
            results[name] = run(
                personas, args.rounds, args.latency, tree=tree, profile=profile, slots=args.slots
            )
        _print_run(results, args.rounds)
        runs.append(results)
    if len(runs) > 1:
        _print_spread(runs)
    if args.long:
        # In this process (this tree's argue), with the engine tests' script, whose records
        # (longer claims, cited evidence) fill a round's block as real debates do.
        from bench.debate_schedule import run as run_in_process

        with tempfile.TemporaryDirectory() as tmp:
            for name, personas in (("pair", PAIR), ("panel", PANEL)):
                long = run_in_process(personas.split(","), args.long, 0.002, Path(tmp) / name)
                print(f"{name} of {args.long} rounds (in process): prompt R{args.long}/R2 "
                      f"{long['prompt_growth']:.2f}")  # fmt: skip
    if args.profile is not None:
        for name in results:
            print(f"\n--- {name}: top functions by own time (cProfile)")
            _top(args.profile / f"{name}.prof")


if __name__ == "__main__":
    main()
