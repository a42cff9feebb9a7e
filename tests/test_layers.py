"""Layers point one way: records below engine, store and render; render reads records only."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("argue.render", "argue.engine"),
        ("argue.records", "argue.engine"),
        ("argue.records", "argue.store"),
        ("argue.records", "argue.render"),
        ("argue.store", "argue.engine"),
        ("argue.grounding", "skills"),
    ],
)
def test_a_lower_layer_imports_nothing_from_a_higher_one(module: str, forbidden: str) -> None:
    code = (
        f"import sys, {module}; "
        f"bad = sorted(m for m in sys.modules if m == {forbidden!r} "
        f"or m.startswith({forbidden!r} + '.')); print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imports {out.stdout.strip()}"
