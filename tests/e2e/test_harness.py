"""The harness itself: an in-process run (``Cli.run``'s default) sees what ``./run.sh`` in a
subprocess sees, prints what it prints, and leaves nothing behind for the next test.

Teeth: in ``harness.isolated`` drop the environment's restore (``os.environ.clear()`` /
``update(saved_env)`` in ``finally``) and the leak test fails; drop the signal handlers' restore
and the SIGINT test fails (asyncio puts ``default_int_handler`` back, not the handler that was
there); drop ``fresh_consoles`` and the in-process table is 200 columns wide, in colour.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import argue.cli
from argue.console import stderr_console, stdout_console
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION, Cli, isolated, openai_env

PROBE = "ARGUE_HARNESS_PROBE"


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


def _sentinel(signum: int, frame: object) -> None:  # never called: only compared
    raise AssertionError("the sentinel handler ran")


def test_in_process_output_is_the_subprocess_output(tmp_path: Path, monkeypatch):
    """Same exit code, stdout and stderr, byte for byte, in-process and through ./run.sh, even
    with a wide COLUMNS and a key in the test's own environment (both are dropped) and consoles
    that fixed a width and colours when they were made (COLUMNS=200 and a colour terminal at
    import: ``fresh_consoles`` makes them again)."""
    from rich.color import ColorSystem

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-outer-0123456789")
    for console in (stdout_console, stderr_console):
        monkeypatch.setattr(console, "_width", 200)
        monkeypatch.setattr(console, "_color_system", ColorSystem.TRUECOLOR)
    cli = Cli(tmp_path)
    for args in (
        ("personas", "list"),  # a rich table, as wide as the console
        ("--help",),  # click's help, as wide as click's formatter
        ("Q?", "--rounds", "abc"),  # a usage error through _OneLineErrors
        ("status", "argue_20200101_000000", "--json"),  # an error and its JSON document
    ):
        inside, outside = cli.run(*args), cli.run(*args, process=True)
        assert (inside.returncode, inside.stdout, inside.stderr) == (
            outside.returncode,
            outside.stdout,
            outside.stderr,
        ), f"{inside.describe()}\n=== subprocess ===\n{outside.describe()}"
    assert cli.run("status", "argue_20200101_000000").stdout == ""  # stderr kept apart
    assert "error:" in cli.run("status", "argue_20200101_000000").stderr


def test_an_in_process_run_leaks_no_environment_cwd_or_streams(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("ARGUE_MODEL", "outer-model")  # dropped inside, back afterwards
    monkeypatch.delenv(PROBE, raising=False)
    before = dict(os.environ)
    cwd, streams, hook = os.getcwd(), (sys.stdin, sys.stdout, sys.stderr), sys.excepthook
    consoles = [dict(c.__dict__) for c in (stdout_console, stderr_console)]
    cli = Cli(tmp_path, env_overrides={PROBE: "1", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    shown = cli.ok("config", "show")
    assert "outer-model" not in shown.stdout + shown.stderr
    assert dict(os.environ) == before and PROBE not in os.environ
    assert os.environ["ARGUE_MODEL"] == "outer-model"
    assert (os.getcwd(), (sys.stdin, sys.stdout, sys.stderr), sys.excepthook) == (
        cwd,
        streams,
        hook,
    )
    assert [dict(c.__dict__) for c in (stdout_console, stderr_console)] == consoles

    # What a command itself changes is put back too.
    with isolated(cwd=tmp_path, env={"PATH": os.environ.get("PATH", "")}) as _:
        assert os.getcwd() == str(tmp_path.resolve()) and set(os.environ) <= {"PATH"}
        os.environ[PROBE] = "set by the command"
        os.chdir("/")
        sys.excepthook = _sentinel
    assert PROBE not in os.environ and dict(os.environ) == before
    assert os.getcwd() == cwd and sys.excepthook is hook


def test_an_in_process_debate_leaves_the_signal_handlers_it_found(tmp_path: Path, fake: FakeLLM):
    """A debate installs SIGINT/SIGTERM handlers on its loop; asyncio's clean-up would leave
    ``default_int_handler`` and ``SIG_DFL`` behind, not what was installed before the run."""
    cli = Cli(tmp_path, env_overrides=openai_env(fake.url))
    previous = {s: signal.signal(s, _sentinel) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        done = cli.ok("argue", QUESTION, "--rounds", "1", "--json")
        assert done.last_json()["status"] == "completed"
        assert fake.count() > 0  # the debate really ran (its loop had the handlers)
        assert signal.getsignal(signal.SIGINT) is _sentinel
        assert signal.getsignal(signal.SIGTERM) is _sentinel
        with isolated(cwd=tmp_path, env={}):
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        assert signal.getsignal(signal.SIGINT) is _sentinel
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def test_an_uncaught_exception_is_a_traceback_and_exit_1(tmp_path: Path, monkeypatch):
    def broken(args: list[str]) -> list[str]:
        raise RuntimeError("harness probe")

    monkeypatch.setattr(argue.cli, "with_default_command", broken)
    result = Cli(tmp_path).run("status")
    assert result.returncode == 1
    assert "RuntimeError" in result.stderr and "harness probe" in result.stderr
