"""The spec's commands as written (issue 9): a panel by count, French headings for a French
question, and a debate ended by `stop` that leaves a synthesis (see test_cli.py for stop)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

# Teeth: make argue.console.terminal_safe return its input unchanged and the escape test fails.
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import Cli, openai_env

pytestmark = pytest.mark.e2e

FRENCH_HEADINGS = (
    "# Synthèse du débat",
    "## Points d'accord",
    "## Points de désaccord authentique",
    "## Journal des concessions",
    "## Arguments les plus forts",
    "## Questions ouvertes",
    "## Conclusion nuancée",
    "## Sources",
)


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cli(tmp_path: Path, fake: FakeLLM) -> Cli:
    return Cli(tmp_path, env_overrides=openai_env(fake.url))


def test_the_spec_panel_command_runs_as_written(cli: Cli):
    result = cli.run(
        "argue", "Meilleure approche pour l'alignement de l'AGI",
        "--personas", "embry,horus,brandon", "--rounds", "1", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.describe()
    assert "Mode Panel\u00a0: 3 personas nommés" in result.stderr  # a French question: French words
    summary = result.last_json()
    config = (cli.debate_dir(summary["id"]) / "config.json").read_text(encoding="utf-8")
    assert '"mode": "panel"' in config
    synthesis = Path(summary["synthesis_path"]).read_text(encoding="utf-8")
    for heading in FRENCH_HEADINGS:
        assert heading in synthesis, heading
    assert "## Points of agreement" not in synthesis
    transcript = (cli.debate_dir(summary["id"]) / "transcript.md").read_text(encoding="utf-8")
    assert "# Transcription du débat" in transcript and "## Round 1" in transcript


def test_lang_overrides_the_detected_language(cli: Cli):
    result = cli.run(
        "argue", "Faut-il utiliser des microservices ou un monolithe ?",
        "--rounds", "1", "--lang", "en", "--json",
    )  # fmt: skip
    assert result.returncode == 0, result.describe()
    synthesis = Path(result.last_json()["synthesis_path"]).read_text(encoding="utf-8")
    assert "# Debate synthesis" in synthesis and "## Points of agreement" in synthesis
    bad = cli.run("argue", "Q?", "--lang", "de")
    assert bad.returncode == 2 and "unknown language 'de'" in bad.stderr


def test_escape_sequences_never_reach_the_terminal_or_the_files(cli: Cli):
    hostile = "Is \x1b]0;pwned\x07 this \x1b[2J\x1b[31mred\x1b[0m \u202edecidable?"
    result = cli.run("argue", hostile, "--rounds", "1", "--json")
    assert result.returncode == 0, result.describe()
    for stream in (result.stdout, result.stderr):
        assert "\x1b" not in stream and "\x07" not in stream and "\u202e" not in stream
    folder = cli.debate_dir(result.last_json()["id"])
    for name in ("transcript.md", "synthesis.md"):
        text = (folder / name).read_text(encoding="utf-8")
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    shown = cli.run("transcript", result.last_json()["id"], "--raw")
    assert "\x1b" not in shown.stdout
