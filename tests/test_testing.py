"""``argue.testing``: argue runs with no model, for a user (README "Try argue with no model"),
for the project's own tests (their helpers are its names) and for a third-party provider
plugin, installed here as a package in a temporary folder with a real entry point.

Teeth (checked once each): ``DebateScript._letter`` returning "-" for a name it has not been
given (no learning) fails the letters test; ``scripted_spec``'s build without a model returning
an "ok" responder again (as tests/providers.py did) fails the README and letters tests (every
phase is invalid output).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import argue
import argue.testing
from argue.llm import _registry
from tests.test_python_api import readme_examples

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_example_runs_with_no_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARGUE_DEBATES_DIR", str(tmp_path / "debates"))
    (example,) = readme_examples("### Try argue with no model")
    exec(compile(example, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    status, rounds, calls = lines[0].split()
    assert (status, rounds) == ("completed", "2") and int(calls) > 10, lines
    assert lines[1].startswith("# "), lines
    (folder,) = (tmp_path / "debates").iterdir()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert (config["provider"], config["model"]) == ("scripted", "scripted-1")
    assert config["research_sources"] == []
    assert _registry.provider_spec("scripted") is None  # the block removed its row


def test_a_script_without_names_seats_personas_in_the_order_it_meets_them(tmp_path: Path) -> None:
    """A provider knows no lineup: the script learns each persona's letter from the first
    round's research plans (asked in seat order), so claim ids and texts agree."""
    with argue.testing.scripted_provider():
        debate = argue.start(
            "Is water wet?",
            argue.Workspace(tmp_path),
            provider="scripted",
            sources=["none"],
            rounds=1,
            personas=["embry", "horus"],
        )
        assert debate.run().status == "completed"
    claims = {
        letter: json.loads(
            (
                debate.folder / f"persona_{letter.lower()}" / "arguments" / "round_001.json"
            ).read_text(encoding="utf-8")
        )
        for letter in "AB"
    }
    for letter, argument in claims.items():
        texts = [claim["text"] for claim in argument["claims"]]
        assert texts and all(text.startswith(f"{letter} round 1 claim ") for text in texts), texts


def test_the_tests_helpers_are_argue_testing() -> None:
    import tests.engine.script
    import tests.providers

    assert tests.engine.script.DebateScript is argue.testing.DebateScript
    assert tests.engine.script.ScriptedToolkit is argue.testing.ScriptedToolkit
    assert issubclass(tests.providers.ScriptedProviders, argue.testing.ScriptedProviders)
    spec = tests.providers.scripted_spec()
    assert (spec.help, spec.origin) == ("tests only", "tests")


# ---------------------------------------------------------------- a third-party plugin

PLUGIN = '''
"""acme-argue: a provider plugin that tests itself with argue.testing."""
from argue.testing import DebateScript, debate_model, scripted_spec


def spec():
    def build(model, ctx):
        return debate_model(DebateScript(concede=False), provider="acme", model=model or "acme-1")

    return scripted_spec(build, name="acme", default_model="acme-1", help="acme, offline")
'''


@pytest.fixture
def acme_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A distribution installed on the fly: a module plus ``*.dist-info`` with an entry point
    in ``argue.providers``; the provider table reads its plugins afresh, and forgets them."""
    module = f"acme_argue_{uuid.uuid4().hex[:8]}"
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{module}.py").write_text(PLUGIN, encoding="utf-8")
    dist = site / f"{module}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        f"[argue.providers]\nacme = {module}:spec\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setitem(_registry._loaded, "plugins", False)
    monkeypatch.setattr(_registry, "_PROBLEMS", {})
    importlib.invalidate_caches()
    try:
        yield site
    finally:
        _registry.unregister_provider("acme")


def test_a_plugin_built_on_argue_testing_runs_a_debate_in_the_cli(
    acme_plugin: Path, tmp_path: Path
) -> None:
    from argue.cli import app

    found = [
        point.value
        for point in importlib.metadata.entry_points(group=_registry.ENTRY_POINT_GROUP)
        if point.name == "acme"
    ]
    assert found and found[0].endswith(":spec")
    debates = tmp_path / "debates"
    args = ["argue", "Is water wet?", "--provider", "acme", "--sources", "none", "--rounds", "1"]
    result = CliRunner().invoke(app, [*args, "--debates-dir", str(debates), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "completed"
    (folder,) = debates.iterdir()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert (config["provider"], config["model"]) == ("acme", "acme-1")
    rebuttal = folder / "persona_a" / "arguments" / "round_001.rebuttal.json"
    assert json.loads(rebuttal.read_text(encoding="utf-8"))["counters"]
    assert not (folder / "concessions.json").exists()  # the plugin's DebateScript(concede=False)
    assert _registry.provider_spec("acme").origin.endswith(":spec")  # type: ignore[union-attr]


def test_a_plugin_built_on_argue_testing_runs_in_a_process_of_its_own(
    acme_plugin: Path, tmp_path: Path
) -> None:
    """As a user runs it: ``python -m argue`` in a subprocess finds the plugin through its
    entry point alone (no test code in that process)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(acme_plugin), str(ROOT)]),
        "ARGUE_DEBATES_DIR": str(tmp_path / "debates"),
    }
    command = [sys.executable, "-m", "argue", "Is water wet?", "--provider", "acme"]
    result = subprocess.run(
        [*command, "--sources", "none", "--rounds", "1", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["status"] == "completed" and document["usage"]["calls"] > 5
    assert "acme" in document["usage"]["models"].__repr__()
