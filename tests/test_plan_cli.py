"""Issue 9 item 6 at the command line: --dry-run, --persona-model (and a persona file's model),
`config show`. In process; the only "model" is the fake LLM on loopback, which must see nothing.

Teeth: in argue/commands/config_cmd.py make ``MASKED`` the key's value (``env.get(name)``) and
``test_config_show_names_each_source_and_masks_keys`` fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.cli import app
from tests.e2e.fake_llm import FakeLLM

QUESTION = "Is the Collatz conjecture decidable?"
SECRET = "sk-test-QWXZ-never-print-me-KVPJ"


@pytest.fixture
def fake(monkeypatch) -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("ARGUE_MODEL", "gpt-4o-mini")
    try:
        yield server
    finally:
        server.stop()


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def _dry_run_json(debates: Path, *args: str) -> dict:
    result = _invoke("argue", QUESTION, "--debates-dir", str(debates), "--dry-run", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_dry_run_plans_without_a_folder_or_a_model_call(tmp_path, fake):
    debates = tmp_path / "debates"
    plan = _dry_run_json(debates, "--persona-a", "embry", "--persona-b", "horus", "--rounds", "4")
    assert fake.count() == 0
    assert not debates.exists()
    assert plan["dry_run"] is True and plan["mode"] == "adversarial"
    assert [(p["letter"], p["name"]) for p in plan["personas"]] == [("A", "embry"), ("B", "horus")]
    assert plan["seating_reason"] == "named on the command line"
    assert (plan["provider"], plan["model"]) == ("openai", "gpt-4o-mini")
    estimate = plan["estimate"]
    assert estimate["rounds"] == 4
    # 2 personas x 4 rounds x (argument, rebuttal, reflection) + 4 judges + framing + synthesis
    # + the 2 plans of round 1, at least
    assert estimate["calls"]["min"] == 2 * 4 * 3 + 4 + 1 + 1 + 2
    assert estimate["calls"]["max"] > estimate["calls"]["min"]
    assert 0 < estimate["tokens"]["min"] < estimate["tokens"]["max"]
    assert 0 < estimate["cost_usd"]["min"] < estimate["cost_usd"]["max"]  # gpt-4o-mini is priced
    assert "typical" in estimate["assumptions"]
    assert plan["warnings"] and "all personas use openai/gpt-4o-mini" in plan["warnings"][0]

    human = _invoke("argue", QUESTION, "--debates-dir", str(debates), "--dry-run")
    assert human.exit_code == 0, human.output
    for expected in ("Dry run", "Seating (auto-selected:", "model calls", "tokens", "cost"):
        assert expected in human.stdout, (expected, human.stdout)
    assert "all personas use" in human.stderr
    assert fake.count() == 0 and not debates.exists()


def test_dry_run_of_an_unpriced_model_says_unknown(tmp_path, fake):
    plan = _dry_run_json(tmp_path / "d", "--model", "fake-unpriced-1")
    assert plan["estimate"]["cost_usd"] is None
    assert plan["estimate"]["cost"].startswith("unknown")
    assert fake.count() == 0


def test_persona_models_by_name_letter_and_persona_file(tmp_path, fake):
    personas_dir = Path(tmp_path / "argue_home" / "personas")
    personas_dir.mkdir(parents=True)
    horus = (Path(__file__).parents[1] / "argue/personas/builtin/horus.toml").read_text()
    # a top-level key goes before the first [table]
    (personas_dir / "horus.toml").write_text('model = "openai:gpt-4.1-mini"\n' + horus)

    plan = _dry_run_json(tmp_path / "d", "--persona-a", "embry", "--persona-b", "horus")
    seats = {p["letter"]: p for p in plan["personas"]}
    assert (seats["B"]["model"], seats["B"]["model_source"]) == ("gpt-4.1-mini", "persona file")
    assert (seats["A"]["model"], seats["A"]["model_source"]) == ("gpt-4o-mini", "debate model")
    assert plan["warnings"] == []
    steps = {(s["step"], s["model"]) for s in plan["estimate"]["steps"]}
    assert ("argument", "openai/gpt-4.1-mini") in steps and ("judge", "openai/gpt-4o-mini") in steps
    assert ("judge", "openai/gpt-4.1-mini") not in steps

    # the flag wins over the file; a letter works as a name
    plan = _dry_run_json(
        tmp_path / "d",
        "--persona-a",
        "embry",
        "--persona-b",
        "horus",
        "--persona-model",
        "B=gpt-4o",
        "--persona-model",
        "embry=openai:gpt-4.1",
    )
    seats = {p["letter"]: p for p in plan["personas"]}
    assert (seats["B"]["model"], seats["B"]["model_source"]) == ("gpt-4o", "--persona-model")
    assert (seats["A"]["provider"], seats["A"]["model"]) == ("openai", "gpt-4.1")
    assert fake.count() == 0


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        ("nobody=gpt-4o", "not a seated persona"),
        ("horus", "expects NAME=MODEL"),
        ("horus=", "expects NAME=MODEL"),
        ("C=gpt-4o", "not a seated persona"),
    ],
)
def test_bad_persona_models_are_one_line_usage_errors(tmp_path, fake, flag, expected):
    result = _invoke(
        "argue",
        QUESTION,
        "--persona-a",
        "embry",
        "--persona-b",
        "horus",
        "--debates-dir",
        str(tmp_path / "d"),
        "--persona-model",
        flag,
    )
    assert result.exit_code == 2, result.output
    assert expected in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert fake.count() == 0 and not (tmp_path / "d").exists()


def test_a_persona_named_twice_and_detach_with_interactive_are_usage_errors(tmp_path, fake):
    base = ("argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus")
    twice = _invoke(*base, "--persona-model", "horus=a", "--persona-model", "B=b")
    assert twice.exit_code == 2 and "twice" in twice.stderr
    both = _invoke(*base, "--debates-dir", str(tmp_path / "d"), "--detach", "--interactive")
    assert both.exit_code == 2 and "--interactive" in both.stderr
    assert fake.count() == 0 and not (tmp_path / "d").exists()


def test_a_budget_with_an_unpriced_persona_model_is_a_usage_error(tmp_path, fake):
    result = _invoke(
        "argue",
        QUESTION,
        "--debates-dir",
        str(tmp_path / "d"),
        "--budget-usd",
        "1",
        "--persona-model",
        "A=fake-unpriced-2",
        "--dry-run",
    )
    assert result.exit_code == 2, result.output
    assert "fake-unpriced-2" in result.stderr and "[prices.openai]" in result.stderr


def test_config_show_names_each_source_and_masks_keys(tmp_path, fake, monkeypatch):
    home = tmp_path / "argue_home"
    (home / "config.toml").write_text('[defaults]\nrounds = 6\nmode = "panel"\nmodel = "gpt-4o"\n')
    monkeypatch.setenv("ARGUE_RESEARCH_SOURCES", "library")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:hunter2pass@127.0.0.1:9/v1?key=abc")
    result = _invoke("config", "show", "--json", "--mode", "socratic")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert (shown["rounds"]["value"], shown["rounds"]["source"]) == (6, "config file")
    assert str(home / "config.toml") in shown["rounds"]["detail"]
    assert (shown["mode"]["value"], shown["mode"]["source"]) == ("socratic", "flag")
    # ARGUE_MODEL (set by the fixture) wins over the file
    assert (shown["model"]["value"], shown["model"]["source"]) == ("gpt-4o-mini", "env")
    assert shown["model"]["detail"] == "ARGUE_MODEL"
    assert (shown["provider"]["value"], shown["provider"]["source"]) == ("openai", "auto-detected")
    assert (shown["sources"]["value"], shown["sources"]["source"]) == (["library"], "env")
    assert shown["budget_usd"]["source"] == "default"
    assert shown["openai_api_key"] == {
        "value": "set (masked)",
        "source": "env",
        "detail": "OPENAI_API_KEY",
    }
    assert shown["anthropic_api_key"]["value"] == "not set"
    assert shown["openai_base_url"]["value"] == "http://***@127.0.0.1:9/v1?***"

    human = _invoke("config", "show")
    assert human.exit_code == 0, human.output
    assert "config file" in human.stdout and "set (masked)" in human.stdout
    for output in (result.stdout, human.stdout, result.stderr, human.stderr):
        assert SECRET not in output and SECRET[-4:] not in output
        assert "hunter2pass" not in output and "key=abc" not in output
    assert fake.count() == 0


def test_config_is_listed_in_the_help():
    result = _invoke("--help")
    assert " config " in result.stdout


def test_dry_run_shows_where_each_price_comes_from(tmp_path, fake):
    plan = _dry_run_json(tmp_path / "d", "--model", "o3")  # priced only by genai-prices
    price = plan["estimate"]["prices"]["openai/o3"]
    assert price["source"].startswith("genai-prices ") and price["output_per_mtok"] > 0
    assert plan["estimate"]["cost_usd"] is not None

    human = _invoke("argue", QUESTION, "--debates-dir", str(tmp_path / "d"), "--dry-run")
    assert human.exit_code == 0, human.output
    assert "Prices (source of each):" in human.stdout
    assert "openai/gpt-4o-mini  $0.15 in / $0.60 out per Mtok  (built-in table)" in human.stdout
