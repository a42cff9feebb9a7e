"""Run ``./run.sh …`` the way a user does: in its own folder, with a clean environment.

Nothing from the developer's shell leaks in (no keys, no proxies, no ARGUE_* settings); every
network-facing URL points at the discard port, and the only model is a ``FakeLLM`` on loopback.

``Cli.run`` runs the CLI in this process by default (``in_process``): what ``./run.sh ARGS``
does after Python starts (``argue.cli.main()`` with ``sys.argv`` = ``argue ARGS``), with the
environment the subprocess would get (nothing else: every other variable is unset), the
variables ``run.sh`` exports, stdin empty, the working folder as cwd and stdout and stderr
captured apart. Everything it changes is put back after the run (environment, cwd, argv, the
standard streams, signal handlers, ``sys.excepthook``, the consoles' state). ``process=True``
(and ``popen``) run the real ``./run.sh`` in a subprocess: for what needs a process (Ctrl-C,
signals, ``--detach``'s pipes, ``run.sh`` itself).
"""

from __future__ import annotations

import _thread
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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

    def run(
        self, *args: str, timeout: float = TIMEOUT_S, process: bool = False, **env: str | None
    ) -> Result:
        """``./run.sh ARGS``: in this process (``in_process``), or as one when ``process``."""
        if not process:
            clean = {**_RUN_SH_DEFAULTS, **self.env(**env)}
            return in_process(args, cwd=self.workdir, env=clean, timeout=timeout)
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

    def ok(self, *args: str, process: bool = False, **env: str | None) -> Result:
        result = self.run(*args, process=process, **env)
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


# What run.sh exports before it starts Python, when the caller has not set them.
_RUN_SH_DEFAULTS = {"ARGUE_DEBATES_DIR": str(ROOT / "debates"), "ARGUE_LAUNCHER": "./run.sh"}


def in_process(
    args: tuple[str, ...], *, cwd: Path, env: dict[str, str], timeout: float = TIMEOUT_S
) -> Result:
    """``python -m argue ARGS`` run by ``argue.cli.main()`` in this process, isolated (module
    doc): ``cwd`` the working folder and ``env`` the whole environment.

    The exit code is the one Python's exit would give (``SystemExit``'s code; an uncaught
    exception prints its traceback on stderr, as the interpreter would, and is 1). A run longer
    than ``timeout`` is interrupted (as Ctrl-C would) and fails."""
    from argue.cli import main

    timer = threading.Timer(timeout, _thread.interrupt_main)
    with isolated(cwd=cwd, env=env) as (stdout, stderr):
        sys.argv = ["argue", *args]
        timer.start()
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except KeyboardInterrupt:
            if not timer.finished.is_set():
                raise
            command = " ".join(args)
            raise AssertionError(f"argue {command}: no exit after {timeout:g} s") from None
        except Exception as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)  # typer's hook, as at exit
            code = 1
        finally:
            timer.cancel()
            sys.stdout.flush()
            sys.stderr.flush()
        out, err = stdout.getvalue(), stderr.getvalue()
    return Result(args, code, _text(out), _text(err))


def _exit_code(code: object) -> int:
    """The process exit status ``sys.exit(code)`` gives (a message is printed, then 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _text(data: bytes) -> str:
    """What ``subprocess.run(text=True)`` reads: UTF-8, universal newlines."""
    return data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")


@contextmanager
def isolated(*, cwd: Path, env: dict[str, str]) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """This process made to look like a fresh ``python -m argue`` in ``cwd`` with exactly
    ``env``, stdin empty; yields the bytes written to stdout and stderr. Restores on exit what
    it changed and what a run may change: environment, cwd, argv, streams, signal handlers and
    the wakeup fd, ``sys.excepthook``, the consoles and click's help width."""
    from typer._click import formatting

    from argue.console import fresh_consoles

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_argv = sys.argv
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_hook = sys.excepthook
    saved_width = formatting.FORCED_WIDTH
    saved_signals = _signal_handlers()
    saved_wakeup = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(saved_wakeup)
    stdout, stderr = io.BytesIO(), io.BytesIO()
    columns = env.get("COLUMNS", "")
    lines = env.get("LINES", "")
    width = int(columns) if columns.isdigit() and int(columns) else 80  # stdout is no terminal
    height = int(lines) if lines.isdigit() and int(lines) else 25
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(stdout, encoding="utf-8", line_buffering=False)
        sys.stderr = io.TextIOWrapper(stderr, encoding="utf-8", errors="backslashreplace")
        formatting.FORCED_WIDTH = max(min(width, 80) - 2, 50)  # click's width on a pipe
        with fresh_consoles(width=width, height=height):
            yield stdout, stderr
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(ValueError):  # closed by the command
                stream.flush()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        sys.excepthook = saved_hook
        formatting.FORCED_WIDTH = saved_width
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        signal.set_wakeup_fd(saved_wakeup)
        for signum, handler in saved_signals.items():
            if signal.getsignal(signum) is not handler:
                signal.signal(signum, handler)


def _signal_handlers() -> dict[signal.Signals, Any]:
    """The handler of every signal that has one set from Python (``getsignal`` is not None)."""
    handlers = {}
    for signum in signal.valid_signals():
        try:
            handler = signal.getsignal(signum)
        except (OSError, ValueError):
            continue
        if handler is not None and signum not in (signal.SIGKILL, signal.SIGSTOP):
            handlers[signum] = handler
    return handlers


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
