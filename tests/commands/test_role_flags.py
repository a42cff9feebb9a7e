"""A mode's roles reach the CLI from the mode table: ``--role ROLE=PERSONA`` (repeatable),
with ``--questioner``/``--defender``/``--advocate`` kept as the README's aliases. A mode a
package registers in a temporary folder gets its role through the CLI with no CLI code changed;
an unknown role, a role of another mode, a persona not found and a malformed value are one
line each, exit 2.

Teeth (each broken once, the test named failed):
- ``roles=app.role_assignments(role or [])`` dropped from commands/start.py →
  ``test_a_registered_modes_role_takes_its_seat_through_the_cli`` (horus not in seat A);
- ``ROLE_HELP: roles_help()`` dropped from cli.py's table words →
  ``test_the_role_help_lists_a_registered_modes_role``;
- ``check_role`` a no-op → ``test_bad_roles_are_one_line_and_exit_2`` (unknown role said as
  "only applies to no mode");
- ``role_names`` letting the ``questioner`` field overwrite ``roles`` with "" (as it did) →
  ``test_a_builtin_role_given_by_role_seats_as_its_alias_does``.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import argue.testing
from argue.cli import app
from argue.engine import modes
from tests.engine.test_mode_plugin import PLUGIN


@pytest.fixture
def duel(tmp_path: Path) -> Iterator[None]:
    """A package in a temporary folder that registers the mode ``duel`` (role ``champion``)."""
    package = tmp_path / "plugin_pkg" / "argue_duel_cli"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PLUGIN, encoding="utf-8")
    sys.path.insert(0, str(package.parent))
    try:
        importlib.import_module("argue_duel_cli")
        yield
    finally:
        sys.path.remove(str(package.parent))
        sys.modules.pop("argue_duel_cli", None)
        modes.unregister_mode("duel")


def _dry_run(*args: str) -> dict[str, object]:
    with argue.testing.scripted_provider():
        result = CliRunner().invoke(
            app,
            [
                *("argue", "Is water wet?", "--provider", "scripted", "--sources", "none"),
                *("--dry-run", "--json", *args),
            ],
        )
    assert result.exit_code == 0, result.output
    document: dict[str, object] = json.loads(result.stdout)
    return document


def _seats(document: dict[str, object]) -> dict[str, str]:
    personas = document["personas"]
    assert isinstance(personas, list)
    return {seat["letter"]: seat["name"] for seat in personas}


def _run_duel(tmp_path: Path) -> dict[str, object]:
    debates = tmp_path / "debates"
    args = ["argue", "Is water wet?", "--mode", "joust", "--role", "champion=horus"]
    args += ["--personas", "embry", "--provider", "scripted", "--sources", "none"]
    args += ["--rounds", "1", "--debates-dir", str(debates), "--quiet"]
    with argue.testing.scripted_provider():
        result = CliRunner().invoke(app, args)
    if isinstance(result.exception, KeyError):
        raise result.exception  # a crash, not an exit code
    assert result.exit_code == 0, result.output
    (folder,) = debates.iterdir()
    config: dict[str, object] = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return config


def test_a_registered_modes_role_takes_its_seat_through_the_cli(
    tmp_path: Path, duel: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from argue.records import labels

    # The README's "Add a mode": a [family.mode] entry gives it a word in each language.
    for lang in ("en", "fr"):
        monkeypatch.setitem(labels.catalog(lang)["family"]["mode"], "duel", "Duel")
    config = _run_duel(tmp_path)
    assert config["mode"] == "duel"
    assert config["personas"] == {"A": "horus", "B": "embry"}  # the champion takes seat A
    seats = _seats(_dry_run("--mode", "duel", "--role", "champion=horus", "--personas", "embry"))
    assert seats == {"A": "horus", "B": "embry"}


def test_a_registered_mode_without_a_label_runs_from_the_cli(tmp_path: Path, duel: None) -> None:
    """Without a word in the catalog its name is shown (a KeyError in the start line before)."""
    assert _run_duel(tmp_path)["mode"] == "duel"


def test_the_role_help_lists_a_registered_modes_role(duel: None) -> None:
    import typer.main

    from argue.cli import _help_from_the_provider_table

    group = typer.main.get_command(app)
    start = group.commands["argue"]  # type: ignore[attr-defined]
    before = {param.name: getattr(param, "help", None) for param in start.params}
    try:
        _help_from_the_provider_table(group)  # type: ignore[arg-type]
        helps = {param.name: getattr(param, "help", "") for param in start.params}
    finally:
        for param in start.params:
            param.help = before[param.name]  # type: ignore[attr-defined]
    assert "questioner, defender (socratic); advocate (devils-advocate)" in helps["role"]
    assert helps["role"].endswith("; champion (duel)."), helps["role"]
    assert "--role questioner=NAME" in helps["questioner"]  # the alias says what it stands for


def test_the_built_in_role_help_is_the_tables(duel: None) -> None:
    """The words ``--help`` shows before the table is read are the built-in table's own."""
    from argue.app import roles_help
    from argue.commands.start import ROLE_HELP

    modes.unregister_mode("duel")
    try:
        assert roles_help() == ROLE_HELP
    finally:
        modes.register_mode(sys.modules["argue_duel_cli"].DUEL)


def test_a_builtin_role_given_by_role_seats_as_its_alias_does() -> None:
    by_alias = _dry_run("--mode", "socratic", "--questioner", "embry", "--defender", "horus")
    by_role = _dry_run(
        "--mode", "socratic", "--role", "questioner=embry", "--role", "Defender=horus"
    )
    assert _seats(by_alias) == _seats(by_role) == {"A": "embry", "B": "horus"}
    advocate = _dry_run("--mode", "devils-advocate", "--role", "advocate=horus")
    assert _seats(advocate)["A"] == "horus"


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--role", "judge=embry"],
            "error: --role: unknown role 'judge'; the modes' roles: questioner, defender "
            "(socratic); advocate (devils-advocate); champion (duel)",
        ),
        (["--role", "champion=horus"], "error: --role champion only applies to --mode duel"),
        (
            ["--mode", "duel", "--role", "champion=nobody"],
            "error: unknown persona 'nobody'",
        ),
        (["--role", "champion"], "error: --role: 'champion' is not ROLE=PERSONA"),
        (["--role", "=horus"], "error: --role: '=horus' is not ROLE=PERSONA"),
        (
            ["--mode", "duel", "--role", "champion=horus", "--role", "champion=embry"],
            "error: --role: champion is given twice (horus, embry)",
        ),
        (
            ["--mode", "socratic", "--questioner", "horus", "--role", "questioner=embry"],
            "error: --questioner is horus but --role gives questioner to embry: name it once",
        ),
        (
            ["--mode", "socratic", "--role", "defender=horus"],
            "error: --defender needs --questioner too",
        ),
    ],
)
def test_bad_roles_are_one_line_and_exit_2(duel: None, args: list[str], line: str) -> None:
    with argue.testing.scripted_provider():
        result = CliRunner().invoke(
            app, ["argue", "Q?", "--provider", "scripted", "--sources", "none", *args]
        )
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(line), result.stderr


def test_the_python_roles_field_is_checked_against_the_table(tmp_path: Path) -> None:
    """The same check behind the CLI, the MCP tool and a Python caller."""
    with pytest.raises(argue.UsageError, match="unknown role 'judge'"):
        argue.plan(
            argue.StartRequest(question="Q?", roles={"judge": "horus"}, sources=["none"]),
            argue.Workspace(tmp_path / "debates"),
        )
