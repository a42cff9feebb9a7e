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
    with tempfile.TemporaryDirectory() as tmp:
        result = run_soak(Path(tmp), rounds=args.rounds, min_kills=args.kills, seed=args.seed)
    resent = result.calls - result.reference_calls
    print(f"kills survived        : {result.kills} (in {result.runs} runs)")
    print(
        f"calls re-sent         : {resent} (calls in flight at the kills: "
        f"{result.in_flight_at_kills}, plus at most one per kill: {result.kills})"
    )
    print(
        f"usage recorded        : {result.usage_records} of {result.calls} answered "
        f"(uninterrupted run: {result.reference_calls})"
    )
    print(f"end state as reference: {result.end_state == result.reference_state}")
    print(f"folder problems       : {result.problems or 'none'}")


if __name__ == "__main__":
    main()
