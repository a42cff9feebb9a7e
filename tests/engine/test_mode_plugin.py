"""A mode is one object and one call: a package in a temporary folder registers a mode with a
role field of its own (``register_mode``), and argue seats, plays and records it with no
other change: the role field takes its seat through the request's ``roles``, the help line
lists it, and a field of another mode is refused naming the modes that take it.

Teeth (checked once each): ``seated_by_role`` ignoring the roles (returning ``named``) fails
the seat test (the champion is not in seat A); ``register_mode`` not adding to ``MODES``
fails every test here (unknown mode).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import argue
import argue.testing
from argue.engine import modes

PLUGIN = """
from argue.engine.modes import DebateMode, _fixed, register_mode

DUEL = register_mode(
    DebateMode(
        name="duel",
        min_personas=2,
        max_personas=2,
        stances=_fixed("CHAMPION: holds the proposition", "CHALLENGER: attacks it"),
        role_hints=("As the champion, hold the line.", "As the challenger, attack it."),
        aliases=("joust",),
        opposed=True,
        role_flags=("champion",),
    )
)
"""


@pytest.fixture
def duel_mode(tmp_path: Path) -> Iterator[modes.DebateMode]:
    package = tmp_path / "plugin_pkg" / "argue_duel"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(PLUGIN, encoding="utf-8")
    sys.path.insert(0, str(package.parent))
    try:
        module = importlib.import_module("argue_duel")
        yield module.DUEL
    finally:
        sys.path.remove(str(package.parent))
        sys.modules.pop("argue_duel", None)
        modes.unregister_mode("duel")


def test_a_registered_mode_is_listed_and_resolved(duel_mode: modes.DebateMode) -> None:
    assert modes.resolve_mode_name("JOUST") == "duel"
    assert modes.modes_help().endswith("| duel")
    assert "champion" in modes.role_fields()
    with pytest.raises(ValueError, match="already taken"):
        modes.register_mode(duel_mode)


def test_a_registered_mode_seats_its_role_and_runs_a_debate(
    tmp_path: Path, duel_mode: modes.DebateMode
) -> None:
    with argue.testing.scripted_provider():
        debate = argue.start(
            "Is water wet?",
            argue.Workspace(tmp_path / "debates"),
            provider="scripted",
            sources=["none"],
            rounds=1,
            mode="joust",
            roles={"champion": "horus"},
            personas=["embry"],
        )
        assert debate.run().status == "completed"
    config = json.loads((debate.folder / "config.json").read_text(encoding="utf-8"))
    assert config["mode"] == "duel"
    assert config["personas"] == {"A": "horus", "B": "embry"}  # the champion takes seat A
    stances = config.get("stances") or {}
    assert not stances or stances["A"].startswith("CHAMPION")


def test_a_role_of_another_mode_is_refused_naming_the_modes_that_take_it(
    tmp_path: Path, duel_mode: modes.DebateMode
) -> None:
    with pytest.raises(argue.UsageError, match="`champion` only applies to `mode` duel"):
        argue.plan(
            argue.StartRequest(question="Q?", roles={"champion": "horus"}, sources=["none"]),
            argue.Workspace(tmp_path / "debates"),
        )
    with pytest.raises(argue.UsageError, match="`defender` needs `questioner` too"):
        argue.plan(
            argue.StartRequest(question="Q?", mode="socratic", defender="embry", sources=["none"]),
            argue.Workspace(tmp_path / "debates"),
        )


def test_a_commands_help_lists_a_registered_mode_and_source(duel_mode: modes.DebateMode) -> None:
    """``argue QUESTION --help`` reads ``--mode`` and ``--sources`` from their tables."""
    import typer.main

    from argue.cli import _help_from_the_provider_table, app
    from argue.skills.dogpile import registry as source_registry
    from tests.skills.test_source_table import acme_module

    group = typer.main.get_command(app)
    start = group.commands["argue"]  # type: ignore[attr-defined]
    before = {param.name: getattr(param, "help", None) for param in start.params}
    try:
        with source_registry.source_registered(acme_module()):
            _help_from_the_provider_table(group)  # type: ignore[arg-type]
            helps = {param.name: getattr(param, "help", "") for param in start.params}
    finally:
        for param in start.params:
            param.help = before[param.name]  # type: ignore[attr-defined]
    assert helps["mode"].endswith("| duel."), helps["mode"]
    assert ",acme;" in helps["sources"], helps["sources"]
