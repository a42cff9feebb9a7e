"""The long crash soak: kill -9 a debate at random moments (≥ 200 times), resume each time,
and check the end state equals an uninterrupted run of the same scripted answers.

Run: ``.venv/bin/python bench/crash_soak.py [--kills 200] [--rounds 20] [--seed 7]``

Prints kills survived, calls re-sent against the calls in flight at the kills, and usage
recorded against the calls the fake provider answered. The short version (30 kills) runs in
the test suite: tests/e2e/test_crash_soak.py.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.soak import run_soak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    # One debate ends (it converges) before it can take 200 kills: debates are soaked one after
    # another, each with its own seed and its own end-state check, until the kills add up.
    totals = {"kills": 0, "runs": 0, "resent": 0, "in_flight": 0, "usage": 0, "answered": 0}
    debates = same = 0
    problems: list[str] = []
    seed = args.seed
    while totals["kills"] < args.kills:
        with tempfile.TemporaryDirectory() as tmp:
            result = run_soak(
                Path(tmp),
                rounds=args.rounds,
                min_kills=args.kills - totals["kills"],
                seed=seed,
            )
        debates += 1
        seed += 1
        same += result.end_state == result.reference_state
        problems += result.problems
        totals["kills"] += result.kills
        totals["runs"] += result.runs
        totals["resent"] += result.calls - result.reference_calls
        totals["in_flight"] += result.in_flight_at_kills
        totals["usage"] += result.usage_records
        totals["answered"] += result.calls
        print(
            f"debate {debates}: {result.kills} kills, end state as reference: "
            f"{result.end_state == result.reference_state}",
            flush=True,
        )
    print(
        f"kills survived        : {totals['kills']} (in {totals['runs']} runs, {debates} debates)"
    )
    print(
        f"calls re-sent         : {totals['resent']} (calls in flight at the kills: "
        f"{totals['in_flight']}, plus at most one per kill: {totals['kills']})"
    )
    print(
        f"usage recorded        : {totals['usage']} records; the provider answered "
        f"{totals['answered']} requests, some to processes already killed"
    )
    print(f"end state as reference: {same} of {debates} debates")
    print(f"folder problems       : {problems or 'none'}")


if __name__ == "__main__":
    main()
