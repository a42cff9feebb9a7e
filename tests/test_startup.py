"""Start-up (issue 42 item 4, issue 43 item 4): ``import argue.cli`` and ``argue --help`` load
no pydantic models that help does not need; the help of a command still reads the provider
table; a store error is still one line without the CLI importing the store up front.

Each is checked by the modules a fresh interpreter has loaded (timings belong in
bench/startup.py).

Teeth (each broken on purpose once, the test named failed):
- ``from argue.records.prose import SynthesisDraft`` put back at the top of
  argue/records/__init__.py → ``test_importing_the_cli_loads_no_pydantic`` (and the help one);
- ``_helps_a_command`` always True (root help reads the provider table) →
  ``test_root_help_loads_neither_the_store_nor_the_providers`` (argue.llm loaded);
- ``argue.app._errors.app_error`` returning None for a FolderError →
  ``test_a_store_error_is_one_line_without_a_traceback``
  (the StoreError reached pytest as itself instead of exit 1).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile

from typer.testing import CliRunner

from argue.cli import _OneLineErrors, app


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after ``code`` (from a neutral folder)."""
    script = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return set(done.stdout.split())


def _pydantic(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m == "pydantic" or m.startswith("pydantic."))


def test_importing_the_cli_loads_no_pydantic():
    modules = _loaded_after("import argue.cli")
    assert "argue.records.labels" in modules  # what the faces do need
    assert not _pydantic(modules), _pydantic(modules)[:5]
    assert "argue.records.prose" not in modules


def test_root_help_loads_neither_the_store_nor_the_providers():
    code = (
        "import sys\nsys.argv = ['argue', '--help']\nimport argue.cli\n"
        "try:\n    argue.cli.main()\nexcept SystemExit:\n    pass"
    )
    modules = _loaded_after(code)
    for heavy in ("argue.store", "argue.llm", "argue.domain", "argue.records.prose"):
        assert heavy not in modules, heavy
    assert not _pydantic(modules), _pydantic(modules)[:5]


def test_a_commands_help_still_lists_the_providers_from_their_table():
    result = CliRunner().invoke(app, ["argue", "--help"], prog_name="argue")
    assert result.exit_code == 0
    # Click's own main (not _OneLineErrors.main) in CliRunner: call the hook as main does.
    from argue.cli import _help_from_the_provider_table, _helps_a_command
    from argue.llm import provider_help

    assert _helps_a_command(["argue", "Q?", "--help"]) and not _helps_a_command(["--help"])
    group = __import__("typer.main").main.get_command(app)
    assert isinstance(group, _OneLineErrors)
    _help_from_the_provider_table(group)
    helped = CliRunner().invoke(app, ["argue", "--help"], prog_name="argue", terminal_width=400)
    assert " ".join(provider_help().split()) in " ".join(helped.stdout.split())


def test_a_store_error_is_one_line_without_a_traceback(capsys):
    """The CLI tells a StoreError apart without importing the store: one that reaches the root
    group is still one line on stderr and exit 1 (and any other error is not swallowed)."""
    import pytest
    import typer

    from argue.store import StoreError

    face = typer.Typer(cls=_OneLineErrors)

    @face.command()
    def broken(kind: str) -> None:
        raise (
            StoreError("debates/x/state.json: unreadable record")
            if kind == "store"
            else (KeyError(kind))
        )

    @face.command()
    def other() -> None:  # two commands: ``broken`` keeps its name
        pass

    with pytest.raises(SystemExit) as exit_:
        face(args=["broken", "store"], prog_name="argue")
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert err.strip() == "error: debates/x/state.json: unreadable record", err
    with pytest.raises(KeyError):
        face(args=["broken", "other"], prog_name="argue")
