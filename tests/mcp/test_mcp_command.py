"""``argue mcp`` as a command: listed, lazy (no SDK import for --help), and one line without
the extra."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from argue.cli import app


def test_mcp_is_a_command_and_the_cli_does_not_import_the_sdk():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0 and " mcp " in result.stdout
    code = "import sys, argue.cli; print(sorted(m for m in sys.modules if m.startswith('mcp')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_without_the_extra_it_says_how_to_install_it():
    # `sys.modules["mcp"] = None` makes `import mcp` fail as if the SDK were not installed.
    code = (
        "import sys; sys.modules['mcp'] = None; sys.argv = ['argue', 'mcp']; "
        "from argue.cli import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and done.stdout == "", done
    assert "pip install 'argue-debate[mcp]'" in lines[0]


def test_a_bad_running_cap_is_one_line_before_serving():
    """``--max-running`` and ``ARGUE_MCP_MAX_RUNNING`` take 1 to 64 (issue 24, item 2).
    Teeth: without the option (before it) ``--max-running`` is typer's "No such option"."""
    import os

    for args, env in (
        (["--max-running", "0"], {}),
        (["--max-running", "many"], {}),
        ([], {"ARGUE_MCP_MAX_RUNNING": "1e9"}),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "argue", "mcp", *args],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env={**os.environ, **env},
            timeout=60,
        )
        assert done.returncode == 2, done
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "--max-running" in lines[0] and "1 to 64" in lines[0], done


def test_an_unexpected_exception_is_one_line_logged_once():
    """A bug in a tool: ``internal error: <type>: <message>``, short, logged once without a
    traceback. Teeth: without the ``except Exception`` in ``run_tool`` the exception escapes
    (the SDK then logs its traceback, with the message, on stderr)."""
    import logging

    import pytest

    pytest.importorskip("mcp.types", reason="needs the mcp extra")
    from argue.mcp.capture import ERROR_MAX_CHARS, _text, run_tool

    def crash() -> str:
        raise RuntimeError("boom\n" + "x" * 10_000_000)

    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign,assignment]
    logger = logging.getLogger("argue.mcp")
    logger.addHandler(handler)
    try:
        result = run_tool(crash, _text)
    finally:
        logger.removeHandler(handler)
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and text.startswith("internal error: RuntimeError: boom x")
    assert "\n" not in text and len(text) <= ERROR_MAX_CHARS
    assert len(records) == 1 and records[0].getMessage() == text and records[0].exc_info is None


def test_the_server_logs_an_internal_error_as_one_line_on_stderr():
    """With the server built (the SDK's rich handler on the root logger), a crash in a tool is
    exactly one line on stderr, however long its message. Teeth: without ``log_plainly`` the
    rich handler wraps it over several lines at 80 columns."""
    import pytest

    pytest.importorskip("mcp.server.mcpserver", reason="needs the mcp extra (2.x)")
    code = (
        "from argue.mcp.server import build_server\n"
        "from argue.mcp.capture import run_tool, _text\n"
        "build_server()\n"
        "def crash():\n"
        "    raise KeyError('k' * 10_000 + '\\n' + 'more')\n"
        "result = run_tool(crash, _text)\n"
        "print(result.content[0].text)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[:2000]
    answer = done.stdout.strip()
    assert answer.startswith("internal error: KeyError: 'kkk") and len(answer) <= 500
    assert lines[0] == f"argue mcp: ERROR {answer}"
