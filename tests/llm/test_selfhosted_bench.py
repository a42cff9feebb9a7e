"""What bench/selfhosted_llama_server.py reads from a real server, checked on known input: the
completions in llama-cpp-python's log, a process's CPU seconds, and the fitted split of a
request's CPU seconds into prompt evaluation and generation (its figures go in the README)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "selfhosted_llama_server.py"

# Two completions as llama-cpp-python 0.3.36's server logs them (verbose), with a request line
# between: the first with no prefix hit, the second after one.
LOG = """\
llama_perf_context_print:        load time =       1.86 ms
llama_perf_context_print: prompt eval time =       0.12 ms /    89 tokens (    0.00 ms per token)
llama_perf_context_print:        eval time =    2139.46 ms /    24 runs   (   89.14 ms per token)
llama_perf_context_print:       total time =   12018.80 ms /   113 tokens
INFO:     127.0.0.1:42188 - "POST /v1/chat/completions HTTP/1.1" 200 OK
Llama.generate: 79 prefix-match hit, remaining 268 prompt tokens to eval
llama_perf_context_print: prompt eval time =    3845.15 ms /   268 tokens (   14.35 ms per token)
llama_perf_context_print:        eval time =    2963.71 ms /    50 runs   (   59.27 ms per token)
llama_perf_context_print:       total time =   12315.69 ms /   318 tokens
"""


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("selfhosted_llama_server", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_each_completion_is_read_with_its_prefix_hit(bench: ModuleType):
    done = bench.completions_in(LOG)

    assert [(c.evaluated, c.reused, c.output) for c in done] == [(89, 0, 24), (268, 79, 50)]
    assert [c.prompt_ms for c in done] == [0.12, 3845.15]
    assert [c.eval_ms for c in done] == [2139.46, 2963.71]


def test_a_process_cpu_seconds_grow_with_its_work(bench: ModuleType):
    before = bench.cpu_seconds(os.getpid())
    total = 0
    while bench.cpu_seconds(os.getpid()) - before < 0.05:
        total += sum(range(10_000))
    assert total > 0
    assert bench.cpu_seconds(os.getpid()) - before >= 0.05


def test_the_fit_finds_the_cost_of_a_prompt_token_and_of_a_generated_one(bench: ModuleType):
    rows = [
        (float(x), float(y), 0.004 * x + 0.09 * y + 0.7 + noise)
        for (x, y), noise in zip(
            [(100, 10), (300, 50), (800, 20), (50, 100), (400, 70), (1200, 40)],
            [0.01, -0.01, 0.0, 0.02, -0.02, 0.0],
            strict=True,
        )
    ]
    a, b, c = bench.fit_costs(rows)

    assert a == pytest.approx(0.004, rel=0.05)
    assert b == pytest.approx(0.09, rel=0.05)
    assert c == pytest.approx(0.7, abs=0.05)


def test_rows_that_do_not_determine_the_fit_give_zeros(bench: ModuleType):
    assert bench.fit_costs([(100.0, 10.0, 1.0), (100.0, 10.0, 1.2)]) == (0.0, 0.0, 0.0)


def test_the_summary_takes_the_machine_s_speed_out_by_the_same_writing(bench: ModuleType):
    """The 2026-12-04 runs: the same 1,709 tokens written each time, the after runs on a
    slower machine (llama.cpp's time for that writing 36.8 s -> 39.6 s): raw CPU says after is
    6 % dearer, CPU per second of that writing says 1 % cheaper."""

    def run(cpu_s: float, eval_s: float) -> dict[str, float]:
        return {
            "wall_s": cpu_s,
            "requests": 11,
            "evaluated_total": 4000,
            "output_total": 1709,
            "eval_ms": eval_s * 1000,
            "cpu_s": cpu_s,
        }

    runs = {
        "before": [run(136.8, 32.5), run(174.0, 41.2)],
        "after": [run(171.6, 41.2), run(159.3, 38.1)],
    }
    lines = {
        line.split()[0]: line for line in bench.summary(runs, (0.0046, 0.084, 0.0)).splitlines()
    }

    assert lines["cpu_s"].endswith("after/before 1.065")
    assert lines["cpu_per_generation_s"].endswith("after/before 0.990")
