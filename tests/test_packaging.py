"""Packaging: an install name that is ours, no generic top-level package, declared metadata."""

from __future__ import annotations

import tomllib
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_distribution_is_argue_debate_and_installs_the_argue_command() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "argue-debate"  # "argue" on the index is someone else's
    assert project["scripts"] == {"argue": "argue.cli:main"}
    assert project["license"] == "MIT" and (ROOT / "LICENSE").is_file()
    assert any(
        c.startswith("Programming Language :: Python :: 3.11") for c in project["classifiers"]
    )
    installed = metadata.metadata("argue-debate")
    assert installed["Name"] == "argue-debate"


def test_no_generic_top_level_package_is_installed() -> None:
    assert find_spec("skills") is None
    assert find_spec("argue.skills") is not None
    files = metadata.files("argue-debate") or []
    tops = {Path(str(f)).parts[0] for f in files if not str(f).endswith((".dist-info", ".pth"))}
    assert "skills" not in tops
