"""Run ``./run.sh …`` the way a user does: a subprocess in its own folder, with a clean environment.

Nothing from the developer's shell leaks in (no keys, no proxies, no ARGUE_* settings); every
network-facing URL points at the discard port, and the only model is a ``FakeLLM`` on loopback.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RUN_SH = ROOT / "run.sh"
DISCARD_URL = "http://127.0.0.1:9"  # nothing listens on the discard port
API_KEY = "test-key-e2e-0123456789"
QUESTION = "Is the Collatz conjecture decidable?"
TIMEOUT_S = 120.0

_DROPPED_NAMES = {
    "ARGUE_PROVIDER",
    "ARGUE_MODEL",
    "ARGUE_LOCAL_MODEL",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "OLLAMA_HOST",
    "COLUMNS",
    "LINES",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
}
_DROPPED_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET")  # credentials of any provider or source

LIBRARY_NOTE = """\
# Notes on the Collatz conjecture

The Collatz conjecture states that iterating n -> n/2 for even n and n -> 3n+1 for odd n
reaches 1 from every positive integer. Terras proved that almost all integers have a finite
stopping time. Tao showed in 2019 that almost all Collatz orbits attain almost bounded values.

## Decidability

Conway proved that generalised Collatz problems (FRACTRAN programs) are undecidable, so no
algorithm decides every generalised Collatz-type question. The original conjecture is a single
Pi-2 sentence; whether it is provable in Peano arithmetic is open.
"""


@dataclass
class Result:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def describe(self) -> str:
        return (
            f"./run.sh {' '.join(self.args)} -> exit {self.returncode}\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )

    def last_json(self) -> Any:
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        assert lines, self.describe()
        return json.loads(lines[-1])


@dataclass
class Cli:
    """One user's workspace: a working folder, ARGUE_HOME and a debates folder."""

    workdir: Path
    env_overrides: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.home = self.workdir / "argue_home"
        self.debates = self.workdir / "debates"
        self.home.mkdir(parents=True, exist_ok=True)

    def env(self, **overrides: str | None) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("ARGUE_")
            and k.upper() not in _DROPPED_NAMES
            and not k.upper().endswith(_DROPPED_SUFFIXES)
        }
        env.update(
            ARGUE_HOME=str(self.home),
            ARGUE_DEBATES_DIR=str(self.debates),
            ARGUE_RESEARCH_SOURCES="library",
            ARGUE_ARXIV_URL=DISCARD_URL,
            ARGUE_GITHUB_URL=DISCARD_URL,
            ARGUE_BRAVE_URL=DISCARD_URL,
            ARGUE_PERPLEXITY_URL=DISCARD_URL,
            ARGUE_YOUTUBE_URL=DISCARD_URL,
            ARGUE_ALLOW_PRIVATE_ADDRESSES="1",  # the discard port and loopback servers
            OLLAMA_HOST="127.0.0.1:9",
            NO_PROXY="127.0.0.1,localhost",
            no_proxy="127.0.0.1,localhost",
        )
        for key in [k for k in env if k.lower().endswith("_proxy") and k.lower() != "no_proxy"]:
            del env[key]
        merged = {**self.env_overrides, **overrides}
        for key, value in merged.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env

    def run(self, *args: str, timeout: float = TIMEOUT_S, **env: str | None) -> Result:
        done = subprocess.run(
            [str(RUN_SH), *args],
            cwd=self.workdir,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        return Result(args, done.returncode, done.stdout, done.stderr)

    def ok(self, *args: str, **env: str | None) -> Result:
        result = self.run(*args, **env)
        assert result.returncode == 0, result.describe()
        return result

    def popen(self, *args: str, **env: str | None) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [str(RUN_SH), *args],
            cwd=self.workdir,
            env=self.env(**env),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )

    def debate_dir(self, debate_id: str) -> Path:
        return self.debates / debate_id

    def add_library_note(self) -> None:
        note = self.workdir / "collatz_notes.md"
        note.write_text(LIBRARY_NOTE, encoding="utf-8")
        self.ok("library", "add", str(note))


def openai_env(url: str) -> dict[str, str]:
    return {"OPENAI_API_KEY": API_KEY, "OPENAI_BASE_URL": f"{url}/v1"}


def anthropic_env(url: str) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": API_KEY, "ANTHROPIC_BASE_URL": url}


def wait_for(
    condition: Callable[[], Any], *, deadline_s: float, what: str, every_s: float = 0.05
) -> Any:
    """Poll until ``condition()`` is truthy; fail with ``what`` after a generous deadline."""
    end = time.monotonic() + deadline_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {deadline_s:g} s waiting for {what}")
        time.sleep(every_s)


def all_json_files(folder: Path) -> dict[Path, Any]:
    """Every JSON file under ``folder``, parsed (a file that does not parse fails the test)."""
    parsed = {}
    for path in sorted(folder.rglob("*.json")):
        try:
            parsed[path] = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise AssertionError(f"{path} is not valid JSON: {exc}") from None
    return parsed
