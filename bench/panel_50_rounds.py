"""A 50-round, 6-persona panel through the real CLI on the loopback model (issue 13, item 7):
resident memory after 10 rounds against after 50, the largest prompt of rounds 41-50 against
rounds 5-10, and the wall time of a late round against an early one.

Run: ``.venv/bin/python bench/panel_50_rounds.py [--rounds 50] [--personas embry,horus,…]``

The debate runs in a child process (``python -m argue argue QUESTION --personas … --rounds 50``)
against the e2e suite's FakeLLM on 127.0.0.1 (OpenAI wire protocol), in the e2e harness's clean
environment (no keys, web sources on the discard port); the library holds one note per round
that the round's queries find, so every round brings new documents, and claims are fresh words,
so the debate runs all its rounds. The parent polls the child's ``/proc/<pid>/status`` (VmRSS,
VmHWM) every 20 ms and notes them when ``scoring/round_010.json`` appears and when the last
round's does; the child's ``ru_maxrss`` comes from ``os.wait4``. Prompt sizes (characters of
all messages) are read from the requests the fake received. Figures are ratios and sizes from
one run; wall times only as ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.engine import schemas
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION, Cli, openai_env
from tests.engine.script import DebateScript

PERSONAS = "embry,horus,brandon,mirela,vesper,odile"
_ROUND = re.compile(r"Round (\d+)")


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges: the debate runs all its rounds


class NovelScript(DebateScript):
    """Claims of fresh pseudo-words every round, so the debate never ends on null production
    (no novel claim, no new evidence) before its last round."""

    def __call__(self, messages, output):  # type: ignore[no-untyped-def]
        value = super().__call__(messages, output)
        if output is not None and issubclass(output, schemas.ArgumentDraft):
            letter, rnd, _ = self.log[-1].split(":")
            for i, claim in enumerate(value["claims"]):
                rng = random.Random(f"{letter}:{rnd}:{i}")
                syllables = [rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(24)]
                claim["text"] = " ".join("".join(syllables[k : k + 3]) for k in range(0, 24, 3))
        return value


def _add_library(cli: Cli, rounds: int) -> None:
    """One note per round that the round's research queries ("A query 0 round 7") find, so
    every round brings new documents, as real research does."""
    notes = []
    for n in range(1, rounds + 1):
        rng = random.Random(n)
        words = " ".join(
            "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(3))
            for _ in range(60)
        )
        note = cli.workdir / f"round_{n:03d}_notes.md"
        note.write_text(
            f"# Notes for round {n}\n\nQuery 0 round {n}, query 1 round {n}, query 2 round {n}: "
            f"{words}.\n",
            encoding="utf-8",
        )
        notes.append(str(note))
    cli.ok("library", "add", *notes)


def _memory_kb(pid: int) -> dict[str, int]:
    fields = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0])
    return fields


def _prompt_sizes(fake: FakeLLM) -> dict[str, dict[int, int]]:
    """schema -> round -> the largest prompt (characters) the fake received."""
    sizes: dict[str, dict[int, int]] = defaultdict(dict)
    for request in fake.server.requests:
        body = request.json()
        if not isinstance(body, dict) or not body.get("messages"):
            continue
        messages = body["messages"]
        texts = [m.get("content") or "" for m in messages]
        texts = [t if isinstance(t, str) else json.dumps(t) for t in texts]
        user = next((t for m, t in zip(messages, texts, strict=True) if m["role"] == "user"), "")
        match = _ROUND.search(user)
        if not match:
            continue
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("name", "text")
        rnd = int(match.group(1))
        sizes[schema][rnd] = max(sizes[schema].get(rnd, 0), sum(len(t) for t in texts))
    return sizes


def run(rounds: int, personas: str) -> None:
    early, late = range(5, 11), range(rounds - 9, rounds + 1)
    fake = FakeLLM(NovelScript(names={}, confidence=_swinging)).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            cli = Cli(Path(tmp))
            _add_library(cli, rounds)
            args = ["argue", QUESTION, "--personas", personas, "--rounds", str(rounds), "--json"]
            log = Path(tmp) / "child.log"
            started = time.monotonic()
            with log.open("wb") as sink:
                child = subprocess.Popen(
                    [sys.executable, "-m", "argue", *args],
                    cwd=tmp,
                    env=cli.env(**openai_env(fake.url)),
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=sink,
                )
            seen: dict[int, float] = {}
            at_round: dict[int, dict[str, int]] = {}
            while True:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    break
                folders = list(cli.debates.glob("argue_*"))
                if folders:
                    for n in range(len(seen) + 1, rounds + 1):
                        if not (folders[0] / "scoring" / f"round_{n:03d}.json").exists():
                            break
                        seen[n] = time.monotonic()
                        if n in (10, rounds):
                            with contextlib.suppress(OSError):  # the child just ended
                                at_round[n] = _memory_kb(child.pid)
                time.sleep(0.02)
            wall = time.monotonic() - started
            code = os.waitstatus_to_exitcode(status)
            if code != 0 or 10 not in at_round:
                sys.exit(f"the debate exited {code}:\n{log.read_text(errors='replace')[-3000:]}")
    finally:
        fake.stop()

    first, last = at_round[10], at_round.get(rounds, {})
    print(f"{personas.count(',') + 1}-persona panel, {rounds} rounds, loopback model")
    print(f"  {len(fake.server.requests)} model calls, wall {wall:.0f} s, exit {code}")
    print(
        f"  RSS after round 10 {first['VmRSS'] / 1024:.0f} MB, after round {rounds} "
        f"{last.get('VmRSS', 0) / 1024:.0f} MB (ratio {last.get('VmRSS', 0) / first['VmRSS']:.2f})"
    )
    print(
        f"  peak RSS after round 10 {first['VmHWM'] / 1024:.0f} MB, whole run "
        f"{usage.ru_maxrss / 1024:.0f} MB (ratio {usage.ru_maxrss / first['VmHWM']:.2f})"
    )
    for schema, by_round in sorted(_prompt_sizes(fake).items()):
        a = max((by_round[r] for r in early if r in by_round), default=0)
        b = max((by_round[r] for r in late if r in by_round), default=0)
        if a and b:
            print(f"  largest {schema} prompt R{late[0]}-{late[-1]} / R5-10: {b / a:.3f}"
                  f" ({b} / {a} chars)")  # fmt: skip
    spans = {n: seen[n] - seen[n - 1] for n in seen if n - 1 in seen}
    a = [spans[n] for n in early if n in spans]
    b = [spans[n] for n in late if n in spans]
    if a and b:
        ratio = (sum(b) / len(b)) / (sum(a) / len(a))
        print(f"  mean round wall time R{late[0]}-{late[-1]} / R5-10: {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--personas", default=PERSONAS)
    args = parser.parse_args()
    if args.rounds < 20:
        parser.error("--rounds must be at least 20 (rounds 5-10 are compared with the last ten)")
    run(args.rounds, args.personas)


if __name__ == "__main__":
    main()
