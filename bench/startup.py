"""Start-up: ``import argue.cli`` and ``argue --help``, this tree against another, one run.

Run: ``.venv/bin/python bench/startup.py [--before PATH] [--runs 15]``

``--before`` is another checkout's root (e.g. ``git archive <commit> argue | tar -x -C DIR``);
each tree's bytecode is written first (as an installed package has it; this image sets
PYTHONDONTWRITEBYTECODE), then the runs alternate between the trees so that a busy machine
weighs on both alike. Each figure is the median wall time of ``--runs`` fresh interpreters
and their CPU time: for ``import argue.cli`` the import alone, timed inside the child; for
``argue --help`` the whole process (user + system). The CPU ratio after/before is the figure
to read on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_TIMED_IMPORT = (
    "import time; w, c = time.perf_counter(), time.process_time(); import argue.cli; "
    "print(time.perf_counter() - w, time.process_time() - c)"
)
COMMANDS = {
    "import argue.cli": ["-c", _TIMED_IMPORT],  # the import alone, timed inside the child
    "argue --help": ["-m", "argue", "--help"],  # the whole process
}


def compile_tree(tree: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(tree / "argue")], check=True, env=env
    )


def once(tree: Path, args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh interpreter running ``args`` with ``tree`` first."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # From a neutral folder: the current one comes first on sys.path, before PYTHONPATH.
    done = subprocess.run(
        [sys.executable, *args],
        env=env,
        capture_output=True,
        check=True,
        cwd=tempfile.gettempdir(),
        text=True,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if args[-1] == _TIMED_IMPORT:
        inside_wall, inside_cpu = (float(x) for x in done.stdout.split())
        return inside_wall, inside_cpu
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    trees = {"after": ROOT}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    for tree in trees.values():
        compile_tree(tree)
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.runs):
        for what, command in COMMANDS.items():
            for name, tree in trees.items():
                samples.setdefault((what, name), []).append(once(tree, command))
    bare = [once(ROOT, ["-c", "pass"]) for _ in range(args.runs)]
    print(f"python -c pass: {statistics.median(w for w, _ in bare) * 1000:6.0f} ms wall (median)")
    for what in COMMANDS:
        row = []
        for name in trees:
            walls = [w for w, _ in samples[(what, name)]]
            cpus = [c for _, c in samples[(what, name)]]
            row.append(
                f"{name} {statistics.median(walls) * 1000:4.0f} ms wall, "
                f"{statistics.median(cpus) * 1000:4.0f} ms CPU"
            )
        ratio = ""
        if len(trees) == 2:
            b = statistics.median(c for _, c in samples[(what, "before")])
            a = statistics.median(c for _, c in samples[(what, "after")])
            ratio = f" · CPU after/before {a / b:.2f}"
        print(f"{what:17}: " + " · ".join(row) + ratio)


if __name__ == "__main__":
    main()
