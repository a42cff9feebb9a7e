"""Crash soak: run a debate, kill -9 it at random moments, resume, repeat until it completes,
and compare the end state with an uninterrupted run of the same scripted answers.

Used by ``tests/e2e/test_crash_soak.py`` (a short run) and ``bench/crash_soak.py`` (a long one).
The model is the loopback fake LLM; every run is ``python -m argue`` with a clean environment,
forked from a process that has already imported argue (``Zygote``): a run skips its imports.
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
    # The footer counts calls; "What did not work" lists each attempt, and a call a kill cut
    # short is attempted again on resume (recorded as such): both depend on the crashes.
    synthesis = synthesis.split("\n---\n")[0]
    state["synthesis"] = synthesis.split("\n## What did not work", 1)[0]
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


# A process that has imported what every run imports, and forks one child per run: each child
# is `python -m argue ARGS` (argue.cli.main with those arguments, in its own session, stdin
# from /dev/null, stdout and stderr to files) without paying the second of imports again. The
# zygote runs with the Cli's environment and folder, so its children have exactly what a fresh
# `python -m argue` would; kill -9 still lands on a real process mid-write.
_ZYGOTE = r"""
import json, os, sys, traceback
import argue.cli, argue.engine, argue.app
try:
    import openai  # noqa: F401  (the SDK the runs talk through)
except ImportError:
    pass
for line in sys.stdin:
    job = json.loads(line)
    if job["op"] == "run":
        pid = os.fork()
        if pid == 0:
            os.setsid()
            streams = (
                os.open(os.devnull, os.O_RDONLY),
                os.open(job["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
            )
            for target, fd in enumerate(streams):
                os.dup2(fd, target)
            sys.argv = ["argue", *job["args"]]
            code = 0
            try:
                argue.cli.main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        reply = {"pid": pid}
    else:
        done, status = os.waitpid(job["pid"], os.WNOHANG if job["op"] == "poll" else 0)
        reply = {"code": os.waitstatus_to_exitcode(status) if done else None}
    print(json.dumps(reply), flush=True)
"""


class Zygote:
    """Forks runs of argue for one Cli (its environment, its folder); see ``_ZYGOTE``."""

    def __init__(self, cli: Cli) -> None:
        self.cli = cli
        self.process = subprocess.Popen(
            [sys.executable, "-c", _ZYGOTE],
            cwd=cli.workdir,
            env=cli.env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.runs = 0

    def ask(self, **job: Any) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise AssertionError(f"the zygote died (exit {self.process.poll()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def run(self, *args: str) -> ForkedRun:
        self.runs += 1
        out = self.cli.workdir / f"run{self.runs}.out"
        err = self.cli.workdir / f"run{self.runs}.err"
        pid = self.ask(op="run", args=list(args), stdout=str(out), stderr=str(err))["pid"]
        return ForkedRun(self, pid, out, err)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)


class ForkedRun:
    """One run of argue, with what the soak asks of a subprocess.Popen."""

    def __init__(self, zygote: Zygote, pid: int, out: Path, err: Path) -> None:
        self.zygote, self.pid, self.out, self.err = zygote, pid, out, err
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.ask(op="poll", pid=self.pid)["code"]
        return self.returncode

    def communicate(self, timeout: float = 600) -> tuple[str, str]:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                os.killpg(self.pid, signal.SIGKILL)
                raise AssertionError(f"run {self.pid} still going after {timeout} s")
            time.sleep(0.02)
        return (
            self.out.read_text(encoding="utf-8", errors="replace"),
            self.err.read_text(encoding="utf-8", errors="replace"),
        )


def _wait_for_calls(
    process: ForkedRun, fake: FakeLLM, calls: int, rng: random.Random, delay_s: float
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
        ref_zygote = Zygote(ref_cli)
        try:
            done = ref_zygote.run("argue", QUESTION, "--rounds", str(rounds), *ARGS)
            out, err = done.communicate(timeout=600)
        finally:
            ref_zygote.close()
        assert done.returncode == 0, err[-3000:]
        reference_id = json.loads(out.strip().splitlines()[-1])["id"]
        reference = end_state(ref_cli.debate_dir(reference_id))
        reference_calls = reference_fake.count()
    finally:
        reference_fake.stop()

    fake = FakeLLM(_script()).start()
    zygote: Zygote | None = None
    try:
        fake.delay_s = delay_s
        cli = Cli(workdir / "soak", env_overrides=openai_env(fake.url))
        zygote = Zygote(cli)
        kills = runs = in_flight_at_kills = 0
        debate_id: str | None = None
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            args = (
                ("argue", QUESTION, "--rounds", str(rounds), *ARGS)
                if debate_id is None
                else ("resume", debate_id, "--json")
            )
            process = zygote.run(*args)
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
        if zygote is not None:
            zygote.close()
        fake.stop()
