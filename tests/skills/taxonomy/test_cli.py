from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from argue.commands.taxonomy import taxonomy_command


def make_app() -> typer.Typer:
    app = typer.Typer()
    app.command("taxonomy")(taxonomy_command)
    app.command("noop", hidden=True)(lambda: None)  # keeps "taxonomy" a sub-command
    return app


def test_taxonomy_json_is_one_document() -> None:
    result = CliRunner().invoke(
        make_app(), ["taxonomy", "A hidden assumption breaks the proof", "--json"]
    )
    assert result.exit_code == 0
    document = json.loads(result.stdout)
    assert document["method"] == "keywords"
    assert document["tags"] == ["stealth", "precision"]
    assert set(document["confidence"]) == {"stealth", "precision"}


def test_taxonomy_text_output_lists_tags_with_confidence() -> None:
    result = CliRunner().invoke(make_app(), ["taxonomy", "an edge case crash"])
    assert result.exit_code == 0
    first_line = result.stdout.splitlines()[0]
    assert first_line.startswith("fragility") and "0.64" in first_line
    assert "method: keywords" in result.stdout


def test_taxonomy_without_tags_says_so_and_empty_text_exits_2() -> None:
    result = CliRunner().invoke(make_app(), ["taxonomy", "pleasant weather"])
    assert result.exit_code == 0
    assert "no bridge applies" in result.stdout
    empty = CliRunner().invoke(make_app(), ["taxonomy", "  "])
    assert empty.exit_code == 2
    assert "empty" in empty.stderr
