from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from argue.commands.library import library_app
from argue.skills.library import LibraryStore


@pytest.fixture
def app() -> typer.Typer:
    root = typer.Typer()
    root.add_typer(library_app, name="library")
    return root


runner = CliRunner()


def test_add_reports_each_file_and_fails_if_any_failed(
    app: typer.Typer, sample_files: dict[str, Path], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 nothing else")
    args = ["library", "add", str(sample_files["md"]), str(broken), str(sample_files["vtt"])]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("added ") and "Variance Study (md, utf-8, 3 chunks)" in lines[0]
    assert lines[1].startswith("added ") and "lecture (vtt" in lines[1]
    assert "error" in result.stderr and "broken.pdf: not a readable PDF" in result.stderr
    assert "1 of 3 file(s) could not be added" in result.stderr
    assert len(LibraryStore().list_documents()) == 2

    again = runner.invoke(app, ["library", "add", str(sample_files["md"])])
    assert again.exit_code == 0
    assert again.stdout.startswith("duplicate ") and "already in the library" in again.stdout


def test_add_json_and_clear_errors(
    app: typer.Typer, sample_files: dict[str, Path], tmp_path: Path
) -> None:
    odd = tmp_path / "slides.pptx"
    odd.write_bytes(b"x")
    args = [
        "library",
        "add",
        "--json",
        str(sample_files["pdf"]),
        str(odd),
        str(tmp_path / "no.txt"),
    ]
    result = runner.invoke(app, args)
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    statuses = [(entry["status"], entry.get("kind")) for entry in payload["results"]]
    assert statuses == [("added", "pdf"), ("error", None), ("error", None)]
    assert "unsupported file type .pptx" in payload["results"][1]["error"]
    assert payload["results"][2]["error"].endswith("no.txt: no such file")


def test_search_text_and_json(app: typer.Typer, sample_files: dict[str, Path]) -> None:
    runner.invoke(app, ["library", "add", *map(str, sample_files.values())])

    text = runner.invoke(app, ["library", "search", "zebra migration"])
    assert text.exit_code == 0
    assert text.stdout.startswith("1. Savanna Atlas — p. 2")

    as_json = runner.invoke(app, ["library", "search", "second", "--k", "2", "--json"])
    assert as_json.exit_code == 0
    payload = json.loads(as_json.stdout)
    assert payload["skill"] == "library" and payload["status"] == "ok"
    assert len(payload["items"]) == 2

    hostile = runner.invoke(app, ["library", "search", 'NEAR("zebra" *', "--json"])
    assert hostile.exit_code == 0
    assert json.loads(hostile.stdout)["items"][0]["locator"] == "p. 2"


def test_search_empty_and_bad_input(app: typer.Typer) -> None:
    empty = runner.invoke(app, ["library", "search", "anything"])
    assert empty.exit_code == 0
    assert empty.stdout == ""
    assert "library is empty" in empty.stderr

    assert runner.invoke(app, ["library", "search", "x", "--k", "0"]).exit_code == 2
    no_words = runner.invoke(app, ["library", "search", "--", "--- ***"])
    assert no_words.exit_code == 2
    assert "no searchable words" in no_words.stderr


def test_search_on_unreadable_database_exits_1(app: typer.Typer) -> None:
    from argue.paths import library_db_path

    library_db_path().write_bytes(b"not sqlite at all" * 300)
    result = runner.invoke(app, ["library", "search", "anything", "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "failed"
    assert "unreadable" in result.stderr


def test_list_and_remove(app: typer.Typer, sample_files: dict[str, Path]) -> None:
    assert "library is empty" in runner.invoke(app, ["library", "list"]).stderr
    runner.invoke(app, ["library", "add", str(sample_files["epub"]), str(sample_files["srt"])])

    listing = json.loads(runner.invoke(app, ["library", "list", "--json"]).stdout)
    titles = sorted(doc["title"] for doc in listing["documents"])
    assert titles == ["Voyages", "interview"]
    epub_id = next(d["doc_id"] for d in listing["documents"] if d["kind"] == "epub")
    assert epub_id in runner.invoke(app, ["library", "list"]).stdout

    removed = runner.invoke(app, ["library", "remove", epub_id[:8]])
    assert removed.exit_code == 0
    assert removed.stdout.strip() == f"removed    {epub_id}  Voyages"
    assert [d.kind for d in LibraryStore().list_documents()] == ["srt"]

    unknown = runner.invoke(app, ["library", "remove", epub_id])
    assert unknown.exit_code == 2  # not found is exit 2 everywhere (issue 21)
    assert f"no document with id {epub_id}" in unknown.stderr


def test_no_arguments_shows_help(app: typer.Typer) -> None:
    result = runner.invoke(app, ["library"])
    assert "add" in result.output and "search" in result.output and "remove" in result.output
