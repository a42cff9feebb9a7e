"""The package type-checks clean under mypy with the [tool.mypy] config in pyproject.toml.

mypy comes with the dev extra; without it the test is skipped, not passed. Its incremental cache
is .mypy_cache/ in the repo (gitignored): a clean clone runs it cold, later runs reuse it.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"


def test_the_config_flags_unused_ignores_and_checks_untyped_defs() -> None:
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["argue"]
    assert config["python_version"] == "3.11"
    for flag in ("warn_unused_ignores", "warn_redundant_casts", "check_untyped_defs"):
        assert config.get(flag) is True, flag
    assert "ignore-without-code" in config.get("enable_error_code", [])
    # Untyped third-party modules are let through one by one, never all at once.
    assert "ignore_missing_imports" not in config


def test_mypy_is_clean() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it comes with the dev extra: pip install -e '.[dev]')")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(PYPROJECT), "--no-pretty"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert result.returncode == 0 and not errors, (
        f"mypy found {len(errors)} error(s):\n"
        + "\n".join(errors or [result.stdout])
        + result.stderr
    )
