"""How long `argue --help` takes, as a ratio to a bare interpreter start (same machine, same run).

Run: .venv/bin/python bench/cli_startup.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time


def median_runtime(args: list[str], runs: int = 15) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, capture_output=True, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    bare = median_runtime([sys.executable, "-c", "pass"])
    help_time = median_runtime([sys.executable, "-m", "argue", "--help"])
    print(f"python -c pass      : {bare * 1000:7.1f} ms (median)")
    print(f"argue --help        : {help_time * 1000:7.1f} ms (median)")
    print(f"ratio help / bare   : {help_time / bare:7.2f}x")


if __name__ == "__main__":
    main()
