"""Crash soak: run a debate, kill -9 it at random moments, resume, repeat until it completes,
and compare the end state with an uninterrupted run of the same scripted answers.

Used by ``tests/e2e/test_crash_soak.py`` (a short run) and ``bench/crash_soak.py`` (a long one).
The model is the loopback fake LLM; every process is ``python -m argue`` with a clean environment.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.fake_llm import FakeLLM, ResearchingScript
from tests.e2e.harness import QUESTION, Cli, openai_env

ARGS = ("--persona-a", "embry", "--persona-b", "horus", "--json")


@dataclass
class SoakResult:
    kills: int
    in_flight_at_kills: int  # requests the fake was still answering when each kill landed
    runs: int
    calls: int
    reference_calls: int
    usage_records: int
    end_state: dict[str, Any]
    reference_state: dict[str, Any]
    problems: list[str]


def end_state(folder: Path) -> dict[str, Any]:
    """What must not depend on crashes: claims, concessions, confidences, scores, synthesis."""
    state: dict[str, Any] = {"rounds": {}}
    for path in sorted(folder.glob("scoring/round_[0-9][0-9][0-9].json")):
        number = path.stem
        score = json.loads(path.read_text(encoding="utf-8"))
        state["rounds"][number] = {
            "totals": {k: v["total"] for k, v in score["personas"].items()},
            "novel": score["novel_claims"],
        }
    for persona in sorted(folder.glob("persona_*")):
        claims = [
            [c["text"] for c in json.loads(p.read_text(encoding="utf-8"))["claims"]]
            for p in sorted((persona / "arguments").glob("round_[0-9][0-9][0-9].json"))
        ]
        state[persona.name] = {
            "claims": claims,
            "concessions": [
                (c["round"], c["claim_id"], c["valid_target"])
                for c in json.loads((persona / "concessions.json").read_text(encoding="utf-8"))
            ],
            "confidence": json.loads((persona / "confidence.json").read_text(encoding="utf-8")),
        }
    debate_state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
    state["status"] = (debate_state["status"], debate_state["termination"])
    synthesis = (folder / "synthesis.md").read_text(encoding="utf-8")
    state["synthesis"] = synthesis.split("\n---\n")[0]  # the footer counts calls
    return state


def folder_problems(folder: Path) -> list[str]:
    problems = []
    for path in folder.rglob("*"):
        if path.name.endswith(".tmp"):
            problems.append(f"temp file left: {path.relative_to(folder)}")
        if path.suffix == ".json" and path.is_file():
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                problems.append(f"does not parse: {path.relative_to(folder)}")
    for ledger in folder.glob("persona_*/concessions.json"):
        entries = [json.dumps(c, sort_keys=True) for c in json.loads(ledger.read_text())]
        if len(entries) != len(set(entries)):
            problems.append(f"duplicate ledger entries: {ledger.relative_to(folder)}")
    return problems


def _script() -> ResearchingScript:
    """Confidences that swing every round: the debate never converges, it runs all its rounds."""
    return ResearchingScript(names={}, confidence=lambda letter, rnd: 0.3 + 0.5 * (rnd % 2))


def _python(cli: Cli, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "argue", *args],
        cwd=cli.workdir,
        env=cli.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def _wait_for_calls(
    process: subprocess.Popen[str], fake: FakeLLM, calls: int, rng: random.Random, delay_s: float
) -> bool:
    """Wait until the fake has received ``calls`` more requests (then a random part of one
    reply's delay); False when the process ended first."""
    target = fake.count() + calls
    while fake.count() < target:
        if process.poll() is not None:
            return False
        time.sleep(0.005)
    time.sleep(rng.uniform(0, delay_s))
    return process.poll() is None


def run_soak(
    workdir: Path, *, rounds: int, min_kills: int, seed: int, delay_s: float = 0.05
) -> SoakResult:
    rng = random.Random(seed)
    reference_fake = FakeLLM(_script()).start()
    try:
        reference_fake.delay_s = delay_s
        ref_cli = Cli(workdir / "reference", env_overrides=openai_env(reference_fake.url))
        done = _python(ref_cli, "argue", QUESTION, "--rounds", str(rounds), *ARGS)
        out, err = done.communicate(timeout=600)
        assert done.returncode == 0, err[-3000:]
        reference_id = json.loads(out.strip().splitlines()[-1])["id"]
        reference = end_state(ref_cli.debate_dir(reference_id))
        reference_calls = reference_fake.count()
    finally:
        reference_fake.stop()

    fake = FakeLLM(_script()).start()
    try:
        fake.delay_s = delay_s
        cli = Cli(workdir / "soak", env_overrides=openai_env(fake.url))
        kills = runs = in_flight_at_kills = 0
        debate_id: str | None = None
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            args = (
                ("argue", QUESTION, "--rounds", str(rounds), *ARGS)
                if debate_id is None
                else ("resume", debate_id, "--json")
            )
            process = _python(cli, *args)
            runs += 1
            if kills < min_kills and _wait_for_calls(
                process, fake, rng.randint(1, 6), rng, delay_s
            ):
                # Killed mid-debate, at a random moment after a random number of new calls.
                os.killpg(process.pid, signal.SIGKILL)
                in_flight_at_kills += fake.server.in_flight
                process.communicate()
                kills += 1
                if debate_id is None:
                    found = sorted(cli.debates.glob("argue_*"))
                    debate_id = found[0].name if found else None
                continue
            out, err = process.communicate(timeout=600)
            if process.returncode == 0:
                debate_id = json.loads(out.strip().splitlines()[-1])["id"]
                break
            if debate_id is None:
                found = sorted(cli.debates.glob("argue_*"))
                debate_id = found[0].name if found else None
            if process.returncode not in (1, 2, 3, 130) or "Traceback" in err:
                raise AssertionError(f"run {runs} exited {process.returncode}: {err[-3000:]}")
        assert debate_id is not None
        folder = cli.debate_dir(debate_id)
        usage_lines = [
            line
            for line in (folder / "usage.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        return SoakResult(
            kills=kills,
            in_flight_at_kills=in_flight_at_kills,
            runs=runs,
            calls=fake.count(),
            reference_calls=reference_calls,
            usage_records=len(usage_lines),
            end_state=end_state(folder),
            reference_state=reference,
            problems=folder_problems(folder),
        )
    finally:
        fake.stop()
