"""The faces catch the application's errors alone: an error of a layer below (a debate
folder's ``StoreError``, an unusable ``ARGUE_HOME``) is named by ``argue.app.app_error``, and
the CLI (its root and ``app_errors``) and the MCP tools say it as one line with the
application's exit code; neither imports the store to tell it apart.

Teeth (each broken once, the test named failed):
- ``app_error`` not knowing ``StoreError`` (returning None) →
  ``test_app_error_names_the_lower_layers_errors`` and the CLI/MCP ones (a traceback, an
  "internal error" line);
- ``@at_the_boundary`` taken off ``prepare`` → ``test_prepare_raises_application_errors_only``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import typer

from argue.app import ArgueError, OperationError, UsageError, app_error
from argue.app._errors import at_the_boundary
from argue.paths import ArgueHomeError
from argue.store import DebateLocked, StoreError


def test_app_error_names_the_lower_layers_errors() -> None:
    folder = app_error(StoreError("debates/x/state.json: unreadable record"))
    assert isinstance(folder, OperationError) and folder.exit_code == 1
    assert folder.message == "debates/x/state.json: unreadable record"
    assert isinstance(app_error(DebateLocked("x is locked")), OperationError)
    home = app_error(ArgueHomeError("ARGUE_HOME /x is not a directory"))
    assert isinstance(home, UsageError) and home.exit_code == 2
    own = UsageError("rounds: must be …", field="rounds")
    assert app_error(own) is own
    assert app_error(KeyError("a bug")) is None  # a bug stays a bug


def test_at_the_boundary_turns_them_into_argue_errors() -> None:
    @at_the_boundary
    def read() -> None:
        raise StoreError("debates/x: behind a symbolic link: refused")

    @at_the_boundary
    async def aread() -> None:
        raise StoreError("debates/x: behind a symbolic link: refused")

    @at_the_boundary
    def buggy() -> None:
        raise KeyError("a bug")

    with pytest.raises(OperationError, match="symbolic link") as caught:
        read()
    assert isinstance(caught.value.__cause__, StoreError)
    with pytest.raises(OperationError, match="symbolic link"):
        asyncio.run(aread())
    with pytest.raises(KeyError):
        buggy()
    assert read.__name__ == "read" and asyncio.iscoroutinefunction(aread)


def test_prepare_raises_application_errors_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from argue.app import StartRequest, prepare

    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x", encoding="utf-8")
    monkeypatch.setenv("ARGUE_HOME", str(not_a_folder))
    with pytest.raises(ArgueError, match="is not a directory") as caught:
        prepare(StartRequest(question="Is it?", provider="openai"))
    assert caught.value.exit_code == 2


def test_a_store_error_in_a_command_is_one_line_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    from argue.commands._debate import app_errors

    with pytest.raises(typer.Exit) as exit_, app_errors():
        raise StoreError("debates/x/state.json: unreadable record")
    assert exit_.value.exit_code == 1
    assert capsys.readouterr().err.strip() == "error: debates/x/state.json: unreadable record"
    with pytest.raises(KeyError), app_errors():
        raise KeyError("a bug is not swallowed")


def test_an_mcp_tool_says_a_store_error_as_a_tool_error() -> None:
    pytest.importorskip("mcp")
    from argue.mcp.capture import run_tool

    def work() -> dict[str, str]:
        raise StoreError("debates/x/state.json: unreadable record")

    result = run_tool(work, lambda value: value)
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert text == "error: debates/x/state.json: unreadable record", text
