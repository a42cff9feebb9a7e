"""What the faces computed and now ask ``argue.app`` for (issue 42 item 1): the question read
from a file or stdin, the MCP documents (a status with its synthesis, the compact listing) and
running cap as configured, the model ``argue doctor`` probes, and where ``argue serve`` may
listen. Each is checked here at the application layer, in a caller's words (no flag), and the
faces still say them as before.

Teeth (each broken once, the test named failed):
- ``read_question`` reading the whole stream (``.read()``) →
  ``test_the_question_is_read_with_a_bounded_read`` (more bytes read than the cap allows);
- ``listing_document`` ignoring ``compact`` →
  ``test_the_status_documents_come_from_the_app``;
- ``configured_running_cap`` ignoring the environment →
  ``test_the_running_cap_is_the_option_then_the_environment``;
- ``configured_model`` passing ``provider`` without the environment's default →
  ``test_the_doctors_model_is_resolved_as_a_debates``;
- ``listen_error`` returning None → ``test_serve_listens_on_loopback_unless_allowed``.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import argue.testing
from argue import app
from argue.app import QUESTION_MAX_CHARS, UsageError
from argue.cli import app as cli


class CountingStream(io.BytesIO):
    """A stream that says how many bytes were asked of it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked = 0

    def read(self, size: int | None = -1, /) -> bytes:
        self.asked += size if size is not None and size >= 0 else 10**12
        return super().read(size)


def test_the_question_is_read_with_a_bounded_read(tmp_path: Path) -> None:
    endless = CountingStream(b"x" * (5 * 4 * QUESTION_MAX_CHARS))
    with pytest.raises(UsageError, match="stdin: the question is over the limit of 15,000"):
        app.question_text(None, "-", stdin=endless)
    assert endless.asked <= 4 * QUESTION_MAX_CHARS + 1
    assert app.question_text(None, "-", stdin=io.BytesIO(b"\xef\xbb\xbf Is it? \n")) == "Is it?"
    path = tmp_path / "q.txt"
    path.write_text("Is P = NP?", encoding="utf-8")
    assert app.read_question(str(path)) == "Is P = NP?"
    assert app.question_text("Given?") == "Given?"


@pytest.mark.parametrize(
    ("question", "path", "interactive", "words"),
    [
        (None, None, False, "give a question, or `question_file` PATH"),
        ("Q?", "q.txt", False, "give either a question or `question_file`, not both"),
        (None, "-", True, "`question_file` - reads stdin, which `interactive` needs"),
    ],
)
def test_the_question_sources_are_checked_in_the_callers_words(
    question: str | None, path: str | None, interactive: bool, words: str
) -> None:
    with pytest.raises(UsageError, match="^" + words.replace("(", r"\(")) as caught:
        app.question_text(question, path, interactive=interactive, stdin=io.BytesIO(b"Q?"))
    assert "--" not in caught.value.message  # a Python caller has no flags


def test_the_cli_says_them_as_flags_and_a_bad_language_is_one_line() -> None:
    result = CliRunner().invoke(cli, ["argue", "--dry-run"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: give a question, or --question-file PATH ('-' reads stdin)"
    )
    result = CliRunner().invoke(cli, ["argue", "Q?", "--lang", "de", "--dry-run"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --lang: unknown language 'de' (one of: en, fr)"


def test_the_status_documents_come_from_the_app(tmp_path: Path, run_scripted_debate: Any) -> None:
    store = run_scripted_debate(tmp_path / "debates")
    workspace = app.Workspace(tmp_path / "debates")
    row = app.status_document(store.debate_id, workspace)
    assert row["id"] == store.debate_id and row["status"] == "completed"
    assert row["synthesis_available"] is True and row["folder"] == str(store.paths.root)
    whole = app.listing_document(workspace)
    compact = app.listing_document(workspace, compact=True)
    assert [r["id"] for r in compact["debates"]] == [store.debate_id]
    assert tuple(compact["debates"][0]) == app.COMPACT_FIELDS
    assert set(whole["debates"][0]) > set(app.COMPACT_FIELDS)  # usage, failures…
    assert compact["debates_dir"] == whole["debates_dir"] and compact["skipped"] == []
    with pytest.raises(UsageError, match="not a debate id"):
        app.status_document("../etc", workspace)


def test_the_running_cap_is_the_option_then_the_environment() -> None:
    env = {app.MAX_RUNNING_ENV: "7"}
    assert app.configured_running_cap(None, env) == 7
    assert app.configured_running_cap("2", env) == 2  # the option wins
    assert app.configured_running_cap(None, {}) == app.MAX_RUNNING
    with pytest.raises(UsageError, match=r"^max_running: a whole number from 1 to 64"):
        app.configured_running_cap(None, {app.MAX_RUNNING_ENV: "0"})


def test_the_doctors_model_is_resolved_as_a_debates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Flag > environment > config.toml > auto-detection, as a debate's."""
    import os

    home = Path(os.environ["ARGUE_HOME"])
    (home / "config.toml").write_text('[defaults]\nprovider = "other"\n', encoding="utf-8")
    with argue.testing.scripted_provider(), argue.testing.scripted_provider(name="other"):
        assert app.configured_model().provider == "other"  # config.toml
        assert app.configured_model("scripted").provider == "scripted"
        monkeypatch.setenv("ARGUE_PROVIDER", "other")
        assert app.configured_model().provider == "other"  # the environment, no flag
        assert app.configured_model("scripted").provider == "scripted"  # the flag wins
    with pytest.raises(UsageError, match="nowhere"):
        app.configured_model("nowhere")


def test_serve_listens_on_loopback_unless_allowed() -> None:
    assert app.listen_error("127.0.0.1", allow_remote=False) is None
    assert app.listen_error("[::1]", allow_remote=False) is None
    assert app.listen_error("0.0.0.0", allow_remote=True) is None
    refused = app.listen_error("0.0.0.0", allow_remote=False)
    assert refused is not None and refused.exit_code == 2 and "--" not in refused.message
    result = CliRunner().invoke(cli, ["serve", "--host", "192.168.1.2"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: --host 192.168.1.2 is not a loopback address"
    ), lines
    assert "pass --allow-remote" in lines[0]


def test_the_mcp_roles_description_is_the_mode_tables() -> None:
    pytest.importorskip("mcp")
    from argue.mcp import server

    server.build_server()
    assert server._TABLE_WORDS["roles"].endswith(f": {app.roles_listing()}.")
    assert "questioner, defender (socratic)" in server._TABLE_WORDS["roles"]
