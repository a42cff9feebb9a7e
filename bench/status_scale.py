"""`argue status` over many debate folders (issue 13, item 7): seconds for 1,000 and 10,000
folders, and their ratio.

Run: ``.venv/bin/python bench/status_scale.py [--runs 3] [--no-json]``

One real debate (a pair, 3 rounds, scripted model) is the template. The folders are either
minimal (its config.json and state.json, ids and statuses varied, a quarter "running" with a lock
no process holds) or whole copies of it (66 files: every round's records, usage, personas). Each
figure is the median wall time of ``python -m argue status --debates-dir …`` in a subprocess,
start-up included (an empty folder is the baseline), output to /dev/null. The plain table reads
config.json, state.json and the lock of a running debate, whatever a debate holds; ``--json``
adds usage, partial and failures, which read every record, so it is shown on the whole copies.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STATUSES = ("completed", "running", "stopped", "budget_exhausted")


def _template(folder: Path) -> Path:
    from argue.engine import DebateRunner, create_debate
    from argue.llm import ScriptedModel
    from argue.personas import load_catalog
    from tests.engine.script import DebateScript, ScriptedToolkit, names_of

    catalog = load_catalog()
    lineup = [catalog.get("embry"), catalog.get("horus")]
    store = create_debate(
        folder,
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=lineup,
        max_rounds=3,
        provider="scripted",
        model="scripted-1",
    )
    script = DebateScript(names=names_of(lineup), confidence=lambda _, r: 0.3 + 0.5 * (r % 2))
    asyncio.run(DebateRunner(store, ScriptedModel(script), ScriptedToolkit()).run())
    return store.paths.root


def _folders(template: Path, root: Path, count: int, *, whole: bool) -> Path:
    config = json.loads((template / "config.json").read_text(encoding="utf-8"))
    state = json.loads((template / "state.json").read_text(encoding="utf-8"))
    root.mkdir(parents=True)
    for i in range(count):
        folder = root / f"argue_20260101_{i:06d}"
        if whole:
            shutil.copytree(template, folder)
        else:
            folder.mkdir()
        status = STATUSES[i % len(STATUSES)]
        config.update(id=folder.name, question=f"Question number {i}: is it decidable?")
        state.update(status=status)
        (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
        (folder / "state.json").write_text(json.dumps(state), encoding="utf-8")
        if status == "running":
            (folder / ".lock").write_text("99999999", encoding="utf-8")
    return root


def _seconds(root: Path, runs: int, *extra: str) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "argue", "status", "--debates-dir", str(root), *extra],
            stdout=subprocess.DEVNULL,
            check=True,
            env={**os.environ, "COLUMNS": "120"},
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-json", action="store_true", help="skip the slow --json figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        os.environ.setdefault("ARGUE_HOME", str(base / "home"))
        template = _template(base / "template")
        empty = base / "empty"
        empty.mkdir()
        small = _folders(template, base / "d1000", 1000, whole=False)
        large = _folders(template, base / "d10000", 10000, whole=False)
        whole = _folders(template, base / "w1000", 1000, whole=True)
        t0 = _seconds(empty, args.runs)
        t1 = _seconds(small, args.runs)
        t10 = _seconds(large, args.runs)
        tw = _seconds(whole, args.runs)
        tj = None if args.no_json else _seconds(whole, 1, "--json")
    print(f"argue status, median of {args.runs} runs (start-up included)")
    print(f"  no debate           {t0:6.2f} s  (start-up)")
    print(f"  1,000 folders       {t1:6.2f} s")
    print(f"  10,000 folders      {t10:6.2f} s")
    print(f"  1,000 whole debates {tw:6.2f} s  (3 rounds, 66 files each)")
    print(f"ratio 10,000 / 1,000: {t10 / t1:.2f} (past start-up: {(t10 - t0) / (t1 - t0):.2f})")
    print(f"whole / minimal folders (1,000): {tw / t1:.2f}")
    if tj is not None:
        print(f"status --json over 1,000 whole debates: {tj:.2f} s (reads every record)")


if __name__ == "__main__":
    main()
