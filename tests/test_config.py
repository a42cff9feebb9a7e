"""Settings precedence: flags > environment > $ARGUE_HOME/config.toml > defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.config import ConfigError, load_settings
from argue.paths import config_file_path


def _write_config(text: str) -> Path:
    path = config_file_path()
    path.write_text(text)
    return path


def test_defaults_without_a_config_file():
    settings = load_settings()
    assert settings.defaults.rounds == 3
    assert settings.defaults.mode == "adversarial"
    from argue.paths import argue_home

    assert settings.debates_dir(None, {}) == argue_home() / "debates"
    assert settings.sources(None, {}) == []


def test_precedence_flag_env_file():
    _write_config(
        '[defaults]\nprovider = "anthropic"\nmodel = "m-file"\nsources = ["library"]\n'
        'debates_dir = "/tmp/from-file"\nrounds = 5\n'
        '[skills.external]\nwiki = ["python3", "wiki.py"]\n'
    )
    settings = load_settings()
    assert settings.defaults.rounds == 5
    assert settings.external_skills == {"wiki": ["python3", "wiki.py"]}
    assert settings.provider(None, {}) == "anthropic"
    assert settings.provider(None, {"ARGUE_PROVIDER": "openai"}) is None  # env wins downstream
    assert settings.provider("local", {"ARGUE_PROVIDER": "openai"}) == "local"
    assert settings.model(None, {}) == "m-file"
    assert settings.sources(None, {}) == ["library"]
    assert settings.sources(None, {"ARGUE_RESEARCH_SOURCES": "arxiv"}) == ["arxiv"]
    assert settings.sources("github", {"ARGUE_RESEARCH_SOURCES": "arxiv"}) == ["github"]
    assert settings.debates_dir(None, {}) == Path("/tmp/from-file")
    assert settings.debates_dir(None, {"ARGUE_DEBATES_DIR": "/tmp/env"}) == Path("/tmp/env")
    assert settings.debates_dir(Path("/tmp/flag"), {"ARGUE_DEBATES_DIR": "/x"}) == Path("/tmp/flag")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[defaults]\nrounds = 0\n", "defaults.rounds"),
        ('[defaults]\nmode = "brawl"\n', "defaults.mode"),
        ('[defaults]\napi_key = "sk-123"\n', "defaults.api_key"),
        ("[defauts]\n", "unknown section(s) defauts"),
        ("[defaults\n", "config.toml"),
    ],
)
def test_a_bad_config_names_the_file_and_field(text, expected):
    path = _write_config(text)
    with pytest.raises(ConfigError) as error:
        load_settings()
    assert str(path) in str(error.value)
    assert expected in str(error.value)
    result = CliRunner().invoke(app, ["status"])
    assert result.exit_code == 2
    assert expected in result.stderr and "Traceback" not in result.output


def test_config_defaults_reach_a_new_debate(tmp_path):
    _write_config(f'[defaults]\nrounds = 7\nmode = "panel"\ndebates_dir = "{tmp_path}"\n')
    # panel needs 3 personas: proves the mode default was applied before provider resolution
    result = CliRunner().invoke(app, ["argue", "Q?", "--personas", "embry,horus"])
    assert result.exit_code == 2
    assert "panel mode needs 3 or more personas" in result.stderr


def test_config_structured_output_names_the_model_layers_dialects() -> None:
    """config.py loads nothing, so it spells the dialect names itself; they must stay the llm's."""
    from typing import get_args

    from argue.config import StructuredOutput
    from argue.llm._dialects import DIALECTS

    assert get_args(StructuredOutput) == ("auto", *DIALECTS)
