from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from argue.commands.memory import memory_app
from argue.skills.memory import MemoryStore

runner = CliRunner()


@pytest.fixture
def app() -> typer.Typer:
    root = typer.Typer()
    root.add_typer(memory_app, name="memory")
    return root


def test_learn_prints_the_id_and_stores_it(app: typer.Typer) -> None:
    result = runner.invoke(
        app, ["memory", "learn", "Caches hide latency.", "--persona", "embry", "--tag", "perf"]
    )
    assert result.exit_code == 0
    assert result.stdout.strip() == "mem:1"
    [record] = MemoryStore().list()
    assert (record.persona, record.scope, record.tags) == ("embry", "persona", ["perf"])

    shared = runner.invoke(
        app, ["memory", "learn", "Archive entry.", "--shared", "--kind", "debate"]
    )
    assert shared.stdout.strip() == "mem:2"
    assert MemoryStore().get("mem:2").scope == "shared"  # type: ignore[union-attr]


def test_learn_needs_an_owner_and_text(app: typer.Typer) -> None:
    orphan = runner.invoke(app, ["memory", "learn", "Nobody's memory."])
    assert orphan.exit_code == 2
    assert "--persona NAME, or --shared" in orphan.stderr
    assert runner.invoke(app, ["memory", "learn", "  ", "--persona", "x"]).exit_code == 2
    assert MemoryStore().list() == []


def test_recall_json_respects_persona_and_min_score(app: typer.Typer) -> None:
    runner.invoke(app, ["memory", "learn", "Glaciers retreat fast.", "--persona", "embry"])
    runner.invoke(app, ["memory", "learn", "Glaciers carve valleys.", "--persona", "horus"])
    runner.invoke(app, ["memory", "learn", "Fast trains save time.", "--persona", "embry"])

    result = runner.invoke(
        app, ["memory", "recall", "glaciers fast", "--persona", "embry", "--json"]
    )
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    assert payload["skill"] == "memory"
    assert [item["id"] for item in payload["items"]] == ["mem:1", "mem:3"]

    strict = runner.invoke(
        app,
        ["memory", "recall", "glaciers fast", "--persona", "embry", "--min-score", "0.9", "--json"],
    )
    assert [item["id"] for item in json.loads(strict.stdout)["items"]] == ["mem:1"]

    text = runner.invoke(app, ["memory", "recall", "glaciers", "--persona", "horus"])
    assert text.stdout.startswith("mem:2  note (horus; noted by the operator)  [score 1.00]")
    assert "Glaciers carve valleys." in text.stdout


def test_recall_empty_and_bad_input(app: typer.Typer) -> None:
    empty = runner.invoke(app, ["memory", "recall", "anything", "--persona", "embry"])
    assert empty.exit_code == 0
    assert empty.stdout == ""
    assert "no memories of embry or the shared archive match 'anything'" in empty.stderr

    assert runner.invoke(app, ["memory", "recall", "x", "--k", "0"]).exit_code == 2
    assert runner.invoke(app, ["memory", "recall", "x", "--min-score", "2"]).exit_code == 2
    assert runner.invoke(app, ["memory", "recall", "x", "--no-shared"]).exit_code == 2


def test_recall_on_unreadable_database_exits_1(app: typer.Typer) -> None:
    from argue.paths import memory_db_path

    memory_db_path().write_bytes(b"garbage" * 500)
    result = runner.invoke(app, ["memory", "recall", "anything", "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["status"] == "failed"


def test_list_and_forget(app: typer.Typer) -> None:
    assert "no memories stored" in runner.invoke(app, ["memory", "list"]).stderr
    runner.invoke(app, ["memory", "learn", "Alpha.", "--persona", "embry"])
    runner.invoke(app, ["memory", "learn", "Beta.", "--persona", "horus", "--tag", "t1"])

    listing = json.loads(runner.invoke(app, ["memory", "list", "--json"]).stdout)
    assert [m["id"] for m in listing["memories"]] == ["mem:2", "mem:1"]
    only_horus = json.loads(
        runner.invoke(app, ["memory", "list", "--persona", "horus", "--json"]).stdout
    )
    assert [m["text"] for m in only_horus["memories"]] == ["Beta."]
    assert "mem:2  horus  note" in runner.invoke(app, ["memory", "list"]).stdout

    assert runner.invoke(app, ["memory", "forget", "mem:2"]).exit_code == 0
    missing = runner.invoke(app, ["memory", "forget", "mem:2"])
    assert missing.exit_code == 2  # not found is exit 2 everywhere (issue 21)
    assert "no memory with id mem:2" in missing.stderr
    assert [m.id for m in MemoryStore().list()] == ["mem:1"]


def test_learn_for_an_unknown_persona_is_a_usage_error():
    import typer
    from typer.testing import CliRunner

    from argue.commands.memory import memory_app

    app = typer.Typer()
    app.add_typer(memory_app, name="memory")
    result = CliRunner().invoke(app, ["memory", "learn", "x", "--persona", "nobody"])
    assert result.exit_code == 2
    assert "unknown persona 'nobody'" in result.stderr
