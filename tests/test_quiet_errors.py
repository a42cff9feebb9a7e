"""Issue 21 item 4, "quiet and consistent", through the real CLI: every usage error is one line
(click's own too) with exit 2; a command given ``--json`` that fails prints one JSON document
on stdout; "not found" is exit 2 for every command that has such a path; a model server
nothing answers at fails in one line before a debate folder exists.

Teeth (each tried): with ``cls=_OneLineErrors`` dropped from the app in argue/cli.py, 9 tests
fail (click's 4-line "Usage: … Try … Error: …" block comes back); with ``error_document`` not
called in ``die`` (argue/console.py), the --json tests of the commands' own errors fail; with
``memory forget``'s exit code put back to 1, the not-found test fails; with the dead-server
``die`` in argue/commands/start.py skipped, the dead-server test fails (the run takes ~15 s,
creates a folder and fails in many lines).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.app._reach import first_unreachable, why_unreachable
from argue.cli import app

runner = CliRunner()


def _one_line(result, code: int = 2) -> str:
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines
    return lines[0]


USAGE_ERRORS = [
    (["argue", "Q?", "--rounds", "abc"], "--rounds", "argue argue --help"),
    (["argue", "Q?", "--no-such-flag"], "--no-such-flag", "argue argue --help"),
    (["library", "remove"], "Missing argument 'ID'", "argue library remove --help"),
    (["personas", "show"], "Missing argument", "argue personas show --help"),
    (["library", "nope"], "No such command 'nope'", "argue library --help"),
    (["status", "--bogus"], "--bogus", "argue status --help"),
    (["memory", "recall", "x", "--k", "many"], "--k", "argue memory recall --help"),
]


@pytest.mark.parametrize(("args", "said", "see"), USAGE_ERRORS)
def test_click_usage_errors_are_one_line_and_exit_2(args: list[str], said: str, see: str):
    result = runner.invoke(app, args)
    line = _one_line(result)
    assert said in line and line.endswith(f"(see {see})"), line
    assert "Usage:" not in result.output and "Try '" not in result.output
    assert result.stdout == ""  # no --json: nothing on stdout


def test_the_installed_entry_point_says_it_in_one_line_too():
    """``python -m argue --rounds abc "q"``: the default command and ``main`` included."""
    done = subprocess.run(
        [sys.executable, "-m", "argue", "--rounds", "abc", "Is remote work good?"],
        capture_output=True,
        text=True,
        env={**os.environ},
    )
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Invalid value for '--rounds'"), lines
    assert lines[0].endswith("(see argue argue --help)"), lines


def _error_document(result, code: int) -> dict:
    _one_line(result, code)
    document = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert document == {"error": document["error"], "exit_code": code}, document
    assert document["error"] in result.stderr
    return document


def test_json_usage_errors_are_json_on_stdout():
    result = runner.invoke(app, ["argue", "Q?", "--json", "--rounds", "abc"])
    assert "--rounds" in _error_document(result, 2)["error"]
    result = runner.invoke(app, ["status", "--json", "--bogus"])
    assert "--bogus" in _error_document(result, 2)["error"]


def test_json_failures_of_the_commands_own_are_json_on_stdout(tmp_path: Path):
    cases = [
        ["status", "argue_20200101_000000", "--json", "--debates-dir", str(tmp_path)],
        ["personas", "show", "nobody", "--json"],
        ["argue", "Q?", "--json", "--mode", "chaos"],
        ["memory", "recall", "x", "--json", "--k", "0"],
        ["library", "search", "!!!", "--json"],
    ]
    for args in cases:
        _error_document(runner.invoke(app, args), 2)


def test_a_json_command_that_printed_its_document_prints_no_second_one(monkeypatch):
    """A failed search under --json: its SkillResult is the document, the line on stderr."""
    import argue.skills.library as library
    from argue.skills.base import SkillResult

    async def failing(query: str, k: int) -> SkillResult:
        return SkillResult(skill="library", query=query, status="failed", note="disk on fire")

    monkeypatch.setattr(library, "search_library", failing)
    result = runner.invoke(app, ["library", "search", "fire", "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "failed"
    assert result.stderr.strip() == "error: disk on fire"


NOT_FOUND = [
    ["resume", "argue_20200101_000000"],
    ["status", "argue_20200101_000000"],
    ["stop", "argue_20200101_000000"],
    ["interject", "argue_20200101_000000", "a note"],
    ["transcript", "argue_20200101_000000"],
    ["synthesize", "argue_20200101_000000"],
    ["report", "argue_20200101_000000"],
    ["watch", "argue_20200101_000000"],
    ["personas", "show", "nobody"],
    ["library", "remove", "deadbeef"],
    ["memory", "forget", "mem:99"],
]


@pytest.mark.parametrize("args", NOT_FOUND, ids=lambda a: " ".join(a[:2]))
def test_not_found_is_exit_2_everywhere(args: list[str], tmp_path: Path):
    debates = (
        ["--debates-dir", str(tmp_path)] if args[0] not in ("personas", "library", "memory") else []
    )
    line = _one_line(runner.invoke(app, [*args, *debates]), 2)
    assert any(
        word in line for word in ("no debate", "unknown persona", "no document", "no memory")
    )


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def dead_server(monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    for name in [k for k in os.environ if k.lower().endswith("_proxy")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("ARGUE_MODEL", "gpt-4o-mini")
    return url


def test_a_dead_model_server_fails_in_one_line_and_creates_no_folder(dead_server, tmp_path):
    debates = tmp_path / "debates"
    args = ["argue", "Is remote work good?", "--debates-dir", str(debates)]
    result = runner.invoke(app, [*args, "--persona-a", "embry", "--persona-b", "horus"])
    line = _one_line(result, 2)
    assert line == (
        f"error: nothing answers at {dead_server} (OPENAI_BASE_URL: connection refused): "
        "start the server or fix the URL; `argue doctor` checks it"
    )
    assert not debates.exists() or not any(debates.iterdir())
    assert result.stdout == ""
    as_json = runner.invoke(app, [*args, "--json"])
    assert "nothing answers at" in _error_document(as_json, 2)["error"]
    assert not debates.exists() or not any(debates.iterdir())


def test_a_dry_run_says_it_and_does_not_fail(dead_server, tmp_path):
    args = ["argue", "Is remote work good?", "--dry-run", "--debates-dir", str(tmp_path / "d")]
    shown = runner.invoke(app, args)
    assert shown.exit_code == 0, shown.output
    assert f"warning: nothing answers at {dead_server}" in shown.stderr
    planned = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert any("nothing answers at" in warning for warning in planned["warnings"])


def test_the_check_is_one_connect_and_skips_what_it_should_not_judge(monkeypatch):
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        alive = f"http://127.0.0.1:{listening.getsockname()[1]}/v1"
        assert why_unreachable(alive, {}) is None
    dead = f"http://127.0.0.1:{_closed_port()}/v1"
    assert why_unreachable(dead, {}) == "connection refused"
    # A proxy would carry the requests: the server is not argue's to reach.
    assert why_unreachable(dead, {"HTTP_PROXY": "http://proxy:3128"}) is None
    no_proxy = {"HTTP_PROXY": "http://proxy:3128", "NO_PROXY": "127.0.0.1"}
    assert why_unreachable(dead, no_proxy) == "connection refused"
    # Hosted defaults, the scripted and in-process providers: nothing to check.
    env = {"OPENAI_BASE_URL": "https://api.openai.com/v1", "OLLAMA_HOST": "127.0.0.1:9"}
    assert first_unreachable({"openai", "anthropic", "scripted", "local"}, env) is None
    found = first_unreachable({"ollama"}, env)
    assert found is not None and found.endpoint.setting == "OLLAMA_HOST"
    anthropic = first_unreachable({"anthropic"}, {"ANTHROPIC_BASE_URL": dead})
    assert anthropic is not None and anthropic.endpoint.setting == "ANTHROPIC_BASE_URL"
