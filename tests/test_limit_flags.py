"""Limit flags reach the model: flags > environment > config.toml (see argue.llm._server_limits).

Teeth: dropping the ``_limits(...)`` argument in start.py's ``_resolve`` call makes the first
test fail; accepting any dialect name makes the second fail.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from argue.cli import app


@pytest.fixture
def server_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ARGUE_MODEL", "gemma-3-270m")
    monkeypatch.setenv("ARGUE_REQUEST_TIMEOUT_S", "45")


def test_flags_win_over_the_environment_and_reach_the_model(
    server_env: None, monkeypatch: pytest.MonkeyPatch
):
    import argue.llm

    built = []
    real = argue.llm.resolve_model

    def spy(*args, **kwargs):
        model = real(*args, **kwargs)
        built.append(model)
        return model

    monkeypatch.setattr(argue.llm, "resolve_model", spy)
    args = ["argue", "Is remote work good?", "--dry-run", "--slots", "1"]
    result = CliRunner().invoke(
        app, [*args, "--request-timeout", "900", "--structured-output", "json_object"]
    )

    assert result.exit_code == 0, result.output
    model = built[0]
    assert model.max_concurrency == 1
    assert model._retry.request_timeout_s == 900  # the flag, not ARGUE_REQUEST_TIMEOUT_S=45
    assert model.dialect == "json_object" and model.dialect_forced

    built.clear()
    result = CliRunner().invoke(app, ["argue", "Is remote work good?", "--dry-run"])
    assert result.exit_code == 0, result.output
    assert built[0]._retry.request_timeout_s == 45  # no flag: the environment


def test_an_unknown_dialect_is_a_usage_error(server_env: None):
    args = ["argue", "Is remote work good?", "--dry-run", "--structured-output", "yaml"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert "unknown dialect 'yaml'" in result.output
    assert "Traceback" not in result.output
