"""The single-model warning (``warning: all personas use …``) is said once per ARGUE_HOME: the
usual set-up is not a reason to warn on every run. ``--dry-run`` still lists it.

Teeth: with the marker check (``if path.exists(): return False``) removed from
``argue.app.first_time`` (argue/app/_home.py), the second run warns again and the test fails.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from argue.app import SeatChoice
from argue.commands import plan
from argue.personas import load_catalog


def _announce() -> None:
    catalog = load_catalog()
    choices = [
        SeatChoice(letter, catalog.get(name), "openai", "gpt-4o-mini", "debate model")
        for letter, name in (("A", "embry"), ("B", "horus"))
    ]
    plan.announce_models(choices, SimpleNamespace(provider="openai", model="gpt-4o-mini"))  # type: ignore[arg-type]


def test_the_single_model_warning_is_said_once_per_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARGUE_HOME", str(tmp_path / "home"))
    _announce()
    assert "warning: all personas use openai/gpt-4o-mini" in capsys.readouterr().err
    assert (tmp_path / "home" / plan.SHARED_MODEL_SEEN).is_file()
    _announce()
    assert "all personas use" not in capsys.readouterr().err
    monkeypatch.setenv("ARGUE_HOME", str(tmp_path / "other"))  # another home: said once there
    _announce()
    assert "all personas use" in capsys.readouterr().err
