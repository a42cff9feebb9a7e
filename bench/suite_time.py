"""The whole suite's time at two or more commits, measured back to back on this machine.

    .venv/bin/python bench/suite_time.py f9d7982 HEAD [--runs 2] [--keep]

Each commit is cloned from this repository into a folder of its own and bootstrapped there once
(``./run.sh test --collect-only``: the .venv and its install are not timed). Before every timed
run the clone is put back to what a fresh clone has (no ``__pycache__``, ``.mypy_cache`` or
``.pytest_cache``), then ``./run.sh test -q`` runs as ``.ci/run`` runs it, with this shell's
environment. Runs alternate between the commits (A B A B …) so that a slow spell of the machine
lands on both. Printed: pytest's own figure ("N passed in S s") and the wall time of each run,
and each commit's median as a ratio of the first commit's.

Keep the machine otherwise idle: the llama.cpp server test's threads stall when something else
takes a core, and a busy run says more about the machine than about the suite.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTEST_SUMMARY = re.compile(r"(\d+) passed(?:, (\d+) skipped)?.* in ([\d.]+)s")
FRESH_CLONE_LEAVES_OUT = ("__pycache__", ".mypy_cache", ".pytest_cache", ".hypothesis")


@dataclass
class Commit:
    rev: str
    folder: Path
    runs: list[tuple[float, float, int]] = field(default_factory=list)  # pytest s, wall s, tests

    @property
    def median_pytest_s(self) -> float:
        return statistics.median(run[0] for run in self.runs)


def clone(rev: str, into: Path) -> Commit:
    sha = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folder = into / sha
    subprocess.run(["git", "clone", "-q", str(ROOT), str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "checkout", "-q", sha], check=True)
    print(f"{sha}: bootstrapping its .venv (not timed) …", flush=True)
    subprocess.run(
        ["./run.sh", "test", "--collect-only", "-q"],
        cwd=folder,
        env={**os.environ, "ARGUE_TEST_WORKERS": "0"},
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return Commit(sha, folder)


def as_fresh_clone(folder: Path) -> None:
    """Remove what running the suite leaves behind (the .venv stays)."""
    for name in FRESH_CLONE_LEAVES_OUT:
        for path in folder.rglob(name):
            if ".venv" not in path.relative_to(folder).parts and path.is_dir():
                shutil.rmtree(path, ignore_errors=True)


def timed_run(commit: Commit) -> None:
    as_fresh_clone(commit.folder)
    started = time.monotonic()
    done = subprocess.run(
        ["./run.sh", "test", "-q"], cwd=commit.folder, capture_output=True, text=True
    )
    wall = time.monotonic() - started
    match = PYTEST_SUMMARY.search(done.stdout.splitlines()[-1] if done.stdout else "")
    if done.returncode != 0 or match is None:
        tail = "\n".join(done.stdout.splitlines()[-15:])
        raise SystemExit(f"{commit.rev}: the suite failed (exit {done.returncode}):\n{tail}")
    passed, seconds = int(match.group(1)), float(match.group(3))
    commit.runs.append((seconds, wall, passed))
    print(f"{commit.rev}: {passed} passed, pytest {seconds:.0f} s, wall {wall:.0f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="+", help="commits; the first is the reference")
    parser.add_argument("--runs", type=int, default=1, help="timed runs per commit (default 1)")
    parser.add_argument("--keep", action="store_true", help="keep the clones (printed)")
    options = parser.parse_args()

    workspace = Path(tempfile.mkdtemp(prefix="argue-suite-time-"))
    try:
        commits = [clone(rev, workspace) for rev in options.revs]
        for _ in range(options.runs):
            for commit in commits:
                timed_run(commit)
        reference = commits[0].median_pytest_s
        print("\ncommit   tests  pytest s (each run)        median  ratio")
        for commit in commits:
            each = ", ".join(f"{run[0]:.0f}" for run in commit.runs)
            print(
                f"{commit.rev:8} {commit.runs[-1][2]:5}  {each:26} {commit.median_pytest_s:6.0f}"
                f"  {commit.median_pytest_s / reference:.2f}"
            )
    finally:
        if options.keep:
            print(f"clones kept in {workspace}")
        else:
            shutil.rmtree(workspace, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
