from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import argue.skills.external
from argue.config import parse_external_skills
from argue.skills.external import run_external

ECHO_SEARCH = """
import json, sys
request = json.load(sys.stdin)
print(json.dumps({
    "items": [
        {"title": "Result for " + request["query"], "url": "https://example.org/1",
         "snippet": "depth=" + str(request.get("depth"))},
        {"title": "Second", "id": "paper-42", "locator": "p. 3", "score": 0.5},
    ],
    "note": "2 hits from the echo tool",
}))
"""


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


async def test_success_parses_items_and_passes_query_and_extra_on_stdin() -> None:
    result = await run_external("echo", python(ECHO_SEARCH), "collatz", extra={"depth": 2})
    assert result.status == "ok", result.note
    assert result.skill == "ext:echo"
    assert result.note == "2 hits from the echo tool"
    first, second = result.items
    assert first.id == "ext:echo:1"
    assert first.title == "Result for collatz"
    assert first.url == "https://example.org/1"
    assert first.snippet == "depth=2"
    assert first.source == "ext:echo"
    assert second.id == "paper-42" and second.locator == "p. 3" and second.score == 0.5


async def test_no_items_is_empty_not_ok() -> None:
    code = "import json; print(json.dumps({'items': []}))"  # never reads stdin
    result = await run_external("quiet", python(code), "anything")
    assert result.status == "empty"
    assert result.items == []


async def test_non_zero_exit_is_failed_with_the_last_stderr_line() -> None:
    code = "import sys; print('warming up', file=sys.stderr); sys.exit('API key rejected')"
    result = await run_external("keyed", python(code), "q")
    assert result.status == "failed"
    assert result.note == "keyed: exited with status 1: API key rejected"


async def test_timeout_kills_the_process(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    code = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    result = await run_external("slow", python(code), "q", timeout_s=2.0)
    assert result.status == "failed"
    assert "timed out after 2s (process killed)" in result.note
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("print('not json at all')", "invalid JSON on stdout"),
        ("print('')", "printed nothing on stdout"),
        ("print('[1, 2]')", "wrong output shape: expected a JSON object, got list"),
        ("print('{\"items\": 3}')", "wrong output shape: 'items' must be a list"),
        (
            'print(\'{"items": [{"url": "https://x"}]}\')',
            "wrong output shape: item 1: 'title' must be a non-empty string",
        ),
        (
            'print(\'{"items": [{"title": "t", "url": 5}]}\')',
            "wrong output shape: item 1: 'url' must be a string",
        ),
        (
            'print(\'{"items": [{"title": "t"}, {"title": "u", "score": true}]}\')',
            "wrong output shape: item 2: 'score' must be a number",
        ),
        (
            'print(\'{"items": [{"title": "t", "provenance": "gossip"}]}\')',
            "wrong output shape: item 1: 'provenance' must be one of document, testimony",
        ),
        ('print(\'{"items": ["t"]}\')', "wrong output shape: item 1 must be an object"),
        ('print(\'{"items": [], "note": 3}\')', "wrong output shape: 'note' must be a string"),
    ],
)
async def test_bad_output_is_failed_with_the_reason(code: str, reason: str) -> None:
    result = await run_external("bad", python(code), "q")
    assert result.status == "failed"
    assert reason in result.note


async def test_missing_command_is_failed() -> None:
    result = await run_external("ghost", ["/nonexistent/argue-skill-binary"], "q")
    assert result.status == "failed"
    assert result.note == "ghost: command not found: /nonexistent/argue-skill-binary"


async def test_empty_command_is_refused() -> None:
    result = await run_external("blank", [], "q")
    assert result.status == "refused"


async def test_oversized_output_is_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(argue.skills.external, "MAX_STDOUT_BYTES", 1000)
    code = "import sys; sys.stdout.write('x' * 200000); sys.stdout.flush()"
    result = await run_external("chatty", python(code), "q")
    assert result.status == "failed"
    assert "output exceeded 1000 bytes" in result.note


def test_parse_external_skills_reads_lists_and_strings() -> None:
    config = {
        "skills": {
            "external": {
                "papers": ["python3", "/opt/papers.py", "--fast"],
                "notes": "python3 '/home/me/my notes.py'",
            }
        }
    }
    assert parse_external_skills(config) == {
        "papers": ["python3", "/opt/papers.py", "--fast"],
        "notes": ["python3", "/home/me/my notes.py"],
    }
    assert parse_external_skills({}) == {}
    assert parse_external_skills({"skills": {}}) == {}


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"skills": ["x"]}, "[skills] must be a table"),
        ({"skills": {"external": ["x"]}}, "[skills.external] must be a table"),
        ({"skills": {"external": {"p": []}}}, "skills.external.p: must be a non-empty list"),
        ({"skills": {"external": {"p": ["ok", 3]}}}, "skills.external.p: must be a non-empty"),
        ({"skills": {"external": {"p": 7}}}, "skills.external.p: must be a non-empty list"),
        ({"skills": {"external": {"bad name": ["x"]}}}, "skills.external.bad name: the name"),
    ],
)
def test_parse_external_skills_rejects_bad_shapes(config: dict, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        parse_external_skills(config)
    assert message in str(raised.value)


async def test_the_query_wins_over_an_extra_key_and_bad_extra_is_refused() -> None:
    result = await run_external("echo", python(ECHO_SEARCH), "real", extra={"query": "spoofed"})
    assert result.items[0].title == "Result for real"
    refused = await run_external("echo", python(ECHO_SEARCH), "q", extra={"when": object()})
    assert refused.status == "refused"
    assert "extra input is not JSON" in refused.note


async def test_cancelling_the_skill_kills_the_program(tmp_path):
    import asyncio
    import contextlib
    import os
    import sys

    from argue.skills.external import run_external

    pid_file = tmp_path / "pid"
    script = tmp_path / "sleepy.py"
    script.write_text(
        "import os, sys, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "sys.stdin.read()\n"
        "time.sleep(60)\n"
    )
    task = asyncio.ensure_future(run_external("sleepy", [sys.executable, str(script)], "q"))
    for _ in range(500):
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.01)
    pid = int(pid_file.read_text())
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    for _ in range(500):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        await asyncio.sleep(0.01)
    else:
        raise AssertionError(f"external skill process {pid} outlived its cancelled task")
