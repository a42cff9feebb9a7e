from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from typer.testing import CliRunner

from argue.commands.personas import personas_app
from tests.personas.personas_toml import VALID_ZED, write_user_persona


def make_app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(personas_app, name="personas")
    return app


def run(*args: str) -> typer.testing.Result:
    return CliRunner().invoke(make_app(), ["personas", *args])


def test_list_json_prints_one_document_with_every_persona() -> None:
    result = run("list", "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    names = [entry["name"] for entry in document]
    assert names == [
        "aldous", "brandon", "embry", "hana", "horus", "lucien",
        "mirela", "noor", "odile", "priya", "tomas", "vesper",
    ]  # fmt: skip
    embry = next(entry for entry in document if entry["name"] == "embry")
    assert embry["bridges"]["precision"] == 0.85
    assert embry["source"] == "builtin"


def test_list_table_shows_names_and_dominant_bridges() -> None:
    result = run("list")
    assert result.exit_code == 0
    assert "embry" in result.stdout and "precision=0.85" in result.stdout
    assert "corruption=0.90" in result.stdout


def test_show_prints_fields_and_the_prompt_card() -> None:
    result = run("show", "Horus")
    assert result.exit_code == 0
    assert "computational/practical" in result.stdout
    assert "high Resilience (0.80)" in result.stdout

    as_json = json.loads(run("show", "horus", "--json").stdout)
    assert as_json["name"] == "horus"
    assert as_json["card"].startswith("You are Horus")


def test_show_unknown_persona_exits_2_listing_known_names() -> None:
    result = run("show", "nobody")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "unknown persona 'nobody'" in result.stderr
    assert "embry" in result.stderr and "vesper" in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_user_file_exits_2_naming_file_and_field() -> None:
    home = Path(os.environ["ARGUE_HOME"])
    write_user_persona(home, "zed.toml", VALID_ZED.replace("precision = 0.3", "precision = 1.7"))
    result = run("list")
    assert result.exit_code == 2
    stderr = " ".join(result.stderr.split())  # rich may wrap a long path
    assert "zed.toml: bridges.precision: Input should be less than or equal to 1" in stderr


def test_user_persona_appears_with_its_source() -> None:
    home = Path(os.environ["ARGUE_HOME"])
    path = write_user_persona(home, "zed.toml", VALID_ZED)
    document = json.loads(run("show", "zed", "--json").stdout)
    assert document["role"] == "marine biologist"
    assert document["source"] == str(path)
