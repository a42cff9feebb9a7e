from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from argue.commands.research import research_command
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.conftest import Routes


@pytest.fixture
def app() -> typer.Typer:
    app = typer.Typer(no_args_is_help=True, pretty_exceptions_show_locals=False)
    app.command("research")(research_command)

    @app.command("noop", hidden=True)
    def noop() -> None:  # a second command keeps "research" a subcommand, as in the real app
        pass

    return app


def test_json_output_is_one_document_with_every_source(routes: Routes, app: typer.Typer) -> None:
    result = CliRunner().invoke(app, ["research", "multiagent debate", "--json"])

    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["skill"] == "dogpile"
    assert document["status"] == "ok"
    assert [s["source"] for s in document["sources"]] == [
        "arxiv",
        "github",
        "brave",
        "perplexity",
        "youtube",
        "library",
    ]
    assert {s["status"] for s in document["sources"]} == {"ok"}
    assert document["items"][0]["id"] == "library:1:0"
    assert len(document["items"]) == 11


def test_refused_sources_still_exit_zero(
    routes: Routes, app: typer.Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRAVE_API_KEY")
    result = CliRunner().invoke(
        app, ["research", "debate", "--sources", "brave, arxiv", "--json", "--limit", "1"]
    )
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    # brave cannot answer without its key: not asked, named once (issue 35)
    assert [(s["source"], s["status"], s["note"]) for s in document["sources"]] == [
        ("arxiv", "ok", "2 result(s)"),
    ]
    assert "warning: brave not used: BRAVE_API_KEY not set" in result.stderr
    assert [item["id"] for item in document["items"]] == ["arxiv:2101.00001v2"]


def test_only_unusable_sources_is_a_usage_error(
    routes: Routes, app: typer.Typer, loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BRAVE_API_KEY")
    monkeypatch.delenv("YOUTUBE_API_KEY")
    result = CliRunner().invoke(app, ["research", "debate", "--sources", "brave,youtube"])
    assert result.exit_code == 2
    assert "no source can answer now (brave: BRAVE_API_KEY not set; youtube: YOUTUBE_API_KEY " in (
        result.stderr
    )
    assert not loopback.requests  # nothing was sent


def test_every_source_failing_exits_one(
    routes: Routes, app: typer.Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("YOUTUBE_API_KEY")
    routes.replies["/github/search/repositories"] = Reply(status=503, body="down")

    result = CliRunner().invoke(
        app, ["research", "debate", "--sources", "github,youtube", "--json"]
    )

    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["status"] == "failed"
    assert "no source could answer" in result.stderr
    assert "github failed: HTTP 503 from 127.0.0.1" in result.stderr


def test_table_output_lists_items_and_source_statuses(
    routes: Routes, app: typer.Typer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PERPLEXITY_API_KEY")
    monkeypatch.setenv("COLUMNS", "200")

    result = CliRunner().invoke(
        app, ["research", "debate", "--sources", "github,perplexity", "--limit", "5"]
    )

    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "octo/debate-kit" in out
    assert "https://github.com/octo/debate-kit" in out
    assert "Tools for structured multi-agent debate" in out
    # Perplexity cannot answer without its key: not asked, named once on stderr (issue 35).
    assert "warning: perplexity not used: PERPLEXITY_API_KEY not set" in result.stderr
    assert "perplexity" not in out


def test_nothing_found_prints_so_and_exits_zero(
    routes: Routes, app: typer.Typer, loopback: LoopbackServer
) -> None:
    routes.replies["/github/search/repositories"] = Reply(json={"total_count": 0, "items": []})
    result = CliRunner().invoke(app, ["research", "zzzz", "--sources", "github"])
    assert result.exit_code == 0, result.stderr
    assert "No results for: zzzz" in result.stdout


# Teeth check: make `aggregate_status` in skills/dogpile/__init__.py return "empty" whenever no item
# came back, and the two tests below fail (the command would print "No results" and exit 0).
def test_a_failed_source_with_the_rest_empty_is_reported_as_failed(
    routes: Routes, app: typer.Typer, fake_library, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    routes.replies["/github/search/repositories"] = Reply(status=503, body="down")
    fake_library.items = []

    result = CliRunner().invoke(app, ["research", "zzzz", "--sources", "github,library"])

    assert result.exit_code == 1
    assert "No results for" not in result.stdout
    note = "no results; github failed: HTTP 503 from 127.0.0.1; library empty"
    assert f"Research failed for: zzzz ({note})" in result.stdout
    assert f"research failed: {note}" in result.stderr
    assert "no source could answer" not in result.stderr  # the library did answer


def test_a_failed_source_with_the_rest_empty_is_failed_in_json(
    routes: Routes, app: typer.Typer, fake_library
) -> None:
    routes.replies["/github/search/repositories"] = Reply(status=503, body="down")
    fake_library.items = []

    result = CliRunner().invoke(app, ["research", "zzzz", "--sources", "github,library", "--json"])

    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert (document["status"], document["note"]) == (
        "failed",
        "no results; github failed: HTTP 503 from 127.0.0.1; library empty",
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["research", "debate", "--sources", "arxiv,google"], "unknown source(s): google"),
        (["research", "debate", "--sources", " , "], "--sources is empty"),
        (["research", "   "], "the query is empty"),
        (["research", "debate", "--limit", "0"], "must be at least 1"),
        (["research", "debate", "--timeout", "0"], "--timeout must be positive"),
    ],
)
def test_bad_input_exits_two_without_traceback(
    app: typer.Typer, loopback: LoopbackServer, args: list[str], message: str
) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert result.stdout == ""
    assert loopback.requests == []
