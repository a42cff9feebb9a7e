"""TOML numbers are bounded and finite before use (issue 39 item 2): ``max_rounds = 1``
followed by 5,000 zeros in config.toml or a persona file used to be a 12.7 KB traceback
(``Exceeds the limit (4300 digits)``, raised by ``tomllib`` itself) in status, config show,
doctor and a debate; ``budget_usd = inf`` was accepted by ``config show`` and became a pydantic
traceback at start. Each is now one line naming the file and the key.

Teeth (checked once each: the tests failed, then the code was restored):
- ``loads_toml`` in argue/files.py without ``_check_numbers``: the digit tests fail
  (the ``ValueError`` fallback still makes them one line, but without the key or the limit).
- ``loads_toml`` and ``load_settings`` both without their ``except ValueError`` fallback: the
  fallback test fails (the parser's ``ValueError`` escapes: a traceback); either one alone
  keeps it one line.
- ``Defaults`` in argue/config.py without ``allow_inf_nan=False``: the infinite-budget tests
  fail (``config show`` exits 0 and lists ``inf``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.config import ConfigError, load_settings
from argue.paths import config_file_path

HUGE = "1" + "0" * 5000


def _write_config(text: str) -> Path:
    path = config_file_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _one_line_error(args: list[str]) -> str:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, (args, result.exit_code, result.output[-500:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr[-800:])
    assert "Traceback" not in result.output and len(lines[0]) < 300, args
    return lines[0]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (f"[defaults]\nrounds = {HUGE}\n", "defaults.rounds (line 2)"),
        (f"[defaults]\nmax_rounds = {HUGE}\n", "defaults.max_rounds (line 2)"),
        (f"[defaults]\nrounds = -{HUGE[:40]}_000\n", "defaults.rounds (line 2)"),
        (f'[defaults]\nsources = [\n  "x",\n  {HUGE},\n]\n', "defaults.sources (line 4)"),
        (f"[providers.openai]\nslots = {HUGE}\n", "providers.openai.slots (line 2)"),
        (f"[defaults]\nbudget_usd = {HUGE}.5\n", "defaults.budget_usd (line 2)"),
    ],
)
def test_a_huge_number_is_one_line_naming_the_file_and_key(text: str, key: str) -> None:
    path = _write_config(text)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"{path}: {key}: a number of "), message
    assert "over the limit of 30" in message and "\n" not in message
    for args in (["status"], ["config", "show"], ["doctor"], ["argue", "Is it?", "--dry-run"]):
        line = _one_line_error(args)
        assert str(path) in line and key in line, (args, line)


def test_long_digits_in_strings_and_comments_are_left_alone() -> None:
    _write_config(f'[defaults]\nmodel = "{HUGE}"  # {HUGE}\nrounds = 2\n')
    settings = load_settings()
    assert settings.defaults.model == HUGE and settings.defaults.rounds == 2


def test_the_parser_s_own_value_error_is_one_line_naming_the_file(monkeypatch) -> None:
    import argue.files as bounded

    monkeypatch.setattr(bounded, "_check_numbers", lambda text, where: None)
    path = _write_config(f"[defaults]\nrounds = {HUGE}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings()
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and "\n" not in message and len(message) < 300


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "+inf", "1e999"])
@pytest.mark.parametrize(
    ("table", "key", "named"),
    [
        ("[defaults]", "budget_usd = {}", "defaults.budget_usd"),
        ("[providers.openai]", "request_timeout_s = {}", "providers.openai.request_timeout_s"),
        ("[prices.openai]", '"m" = {{ input = {}, output = 1.0 }}', "prices.openai.m.input"),
    ],
)
def test_an_infinite_or_nan_number_is_refused_naming_the_key(
    value: str, table: str, key: str, named: str
) -> None:
    path = _write_config(f"{table}\n{key.format(value)}\n")
    with pytest.raises(ConfigError, match="finite") as caught:
        load_settings()
    assert str(caught.value).startswith(f"{path}: {named}: "), caught.value
    line = _one_line_error(["config", "show"])
    assert named in line and "finite" in line, line


def test_a_persona_file_s_huge_number_is_one_line(tmp_path: Path) -> None:
    from argue.paths import user_personas_dir
    from argue.personas.catalog import PersonaFileError, parse_persona

    builtin = Path(__file__).resolve().parents[1] / "argue/personas/builtin/embry.toml"
    text = builtin.read_text(encoding="utf-8").replace('name = "embry"', 'name = "zed"')
    assert "precision = 0.85" in text
    text = text.replace("precision = 0.85", f"precision = {HUGE}")
    with pytest.raises(PersonaFileError) as caught:
        parse_persona(text, "zed.toml")
    assert "bridges.precision" in str(caught.value) and "\n" not in str(caught.value)
    folder = user_personas_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "zed.toml").write_text(text, encoding="utf-8")
    for args in (["personas", "list"], ["personas", "show", "zed"]):
        line = _one_line_error(args)
        assert "zed.toml" in line and "bridges.precision" in line, (args, line)
