"""The CLI's shape: fast to import (no SDKs at load time), every documented command present."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from argue.cli import app
from tests.e2e.harness import Result, in_process


def test_importing_the_cli_loads_no_sdk():
    code = (
        "import sys, argue.cli; "
        "heavy = {'anthropic', 'openai', 'llama_cpp', 'httpx', 'jinja2', 'pypdf', "
        "'genai_prices', 'httpx2', 'starlette', 'uvicorn', 'sse_starlette'}; "
        "heavy &= set(sys.modules); "
        "print(sorted(heavy)); sys.exit(1 if heavy else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_help_lists_every_command():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for command in (
        "argue",
        "resume",
        "stop",
        "status",
        "transcript",
        "synthesize",
        "report",
        "watch",
        "serve",
        "interject",
        "doctor",
        "personas",
        "library",
        "memory",
        "research",
        "taxonomy",
    ):
        assert f" {command} " in result.stdout


def test_status_of_an_empty_folder(tmp_path):
    result = CliRunner().invoke(app, ["status", "--json", "--debates-dir", str(tmp_path)])
    assert result.exit_code == 0
    assert result.stdout.strip() == "[]"


def test_usage_errors_exit_2_with_one_line(tmp_path):
    runner = CliRunner()
    cases = [
        ["argue", "Q?", "--mode", "chaos"],
        ["argue", "Q?", "--persona-a", "nobody", "--persona-b", "horus"],
        ["argue", "Q?", "--mode", "panel", "--personas", "embry,horus"],
        ["argue", "Q?", "--personas", "embry,embry"],
        ["argue", "Q?", "--advocate", "embry"],
        ["argue", "Q?", "--sources", "arxiv,nowhere"],
        ["resume", "argue_20200101_000000", "--debates-dir", str(tmp_path)],
        ["transcript", "../etc", "--debates-dir", str(tmp_path)],
    ]
    for args in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert len(result.stderr.strip().splitlines()) == 1, (args, result.stderr)


def test_conflicting_persona_flags_are_usage_errors():
    runner = CliRunner()
    cases = {
        (
            "argue",
            "Q?",
            "--mode",
            "devils-advocate",
            "--advocate",
            "embry",
            "--persona-a",
            "horus",
            "--persona-b",
            "brandon",
        ): "mode seats exactly 2 personas: --advocate and the other persona fields name 3",
        (
            "argue",
            "Q?",
            "--mode",
            "socratic",
            "--questioner",
            "embry",
            "--defender",
            "horus",
            "--persona-a",
            "brandon",
        ): "socratic mode seats exactly 2 personas: --questioner/--defender and the other",
        ("argue", "Q?", "--personas", ",,"): "--personas is empty",
        ("argue", "Q?", "--personas", "embry,horus", "--persona-a", "vesper"): "not both",
        ("argue", "Q?", "--questioner", "embry"): "only applies to --mode socratic",
    }
    for args, expected in cases.items():
        result = runner.invoke(app, list(args))
        assert result.exit_code == 2, (args, result.output)
        assert expected in result.stderr, (args, result.stderr)


def test_a_damaged_debate_folder_never_gives_a_traceback(tmp_path, run_scripted_debate):
    store = run_scripted_debate(tmp_path)
    (store.paths.state).write_text('{"status": "runn')
    runner = CliRunner()
    result = runner.invoke(
        app, ["status", store.debate_id, "--json", "--debates-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert '"status": "interrupted"' in result.stdout
    broken = tmp_path / "argue_20200101_000000"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    listing = runner.invoke(app, ["status", "--json", "--debates-dir", str(tmp_path)])
    assert listing.exit_code == 0
    assert store.debate_id in listing.stdout
    assert "skipped argue_20200101_000000" in listing.stderr
    # through the real entry point (main() turns a damaged record into one line, exit 1)
    shown = _argue("transcript", "argue_20200101_000000", "--debates-dir", str(tmp_path))
    assert shown.returncode == 1
    assert "Traceback" not in shown.stderr
    assert shown.stderr.strip().splitlines() == [
        f"error: {broken / 'config.json'}: unreadable record (JSONDecodeError)"
    ]


def _argue(*args: str, env: dict[str, str] | None = None) -> Result:
    """``python -m argue ARGS`` with this environment (and ``env``), run in-process by
    ``argue.cli.main()``: the real entry point, without the interpreter's start-up."""
    return in_process(args, cwd=Path.cwd(), env={**os.environ, **(env or {})})


def test_damaged_moderator_notes_and_a_bad_argue_home_are_one_line_errors(
    tmp_path, run_scripted_debate
):
    store = run_scripted_debate(tmp_path)
    store.paths.moderator_notes.write_text("[{")
    shown = _argue("transcript", store.debate_id, "--debates-dir", str(tmp_path))
    assert shown.returncode == 1
    assert shown.stderr.strip().splitlines() == [
        f"error: {store.paths.moderator_notes}: unreadable record (JSONDecodeError)"
    ]
    not_a_dir = tmp_path / "home-file"
    not_a_dir.write_text("x")
    listed = _argue("library", "list", env={"ARGUE_HOME": str(not_a_dir)})
    assert listed.returncode == 2
    assert listed.stderr.strip().splitlines() == [
        f"error: ARGUE_HOME {not_a_dir} is not a directory"
    ]


def test_a_missing_state_file_is_rebuilt_from_the_committed_rounds(tmp_path, run_scripted_debate):
    store = run_scripted_debate(tmp_path, rounds=2)
    store.paths.state.unlink()
    result = CliRunner().invoke(
        app, ["status", store.debate_id, "--json", "--debates-dir", str(tmp_path)]
    )
    assert result.exit_code == 0
    row = json.loads(result.stdout)
    assert (row["status"], row["round"]) == ("interrupted", 2)


def test_the_question_alone_is_the_default_command():
    from argue.cli import with_default_command

    assert with_default_command(["Is it?", "--rounds", "2"]) == ["argue", "Is it?", "--rounds", "2"]
    assert with_default_command(["argue", "Is it?"]) == ["argue", "Is it?"]
    assert with_default_command(["status", "--json"]) == ["status", "--json"]
    # `./run.sh argue status` (the README's `./run.sh argue "Q"` invites it) is the command,
    # never a debate on the question "status"; a longer question is still a question.
    assert with_default_command(["argue", "status", "--json"]) == ["status", "--json"]
    assert with_default_command(["argue", "stop"]) == ["stop"]
    assert with_default_command(["argue", "status of P vs NP?"]) == ["argue", "status of P vs NP?"]
    assert with_default_command(["--version"]) == ["--version"]
    assert with_default_command(["--help"]) == ["--help"]
    assert with_default_command([]) == []
    # An option of the start command first: `argue --question-file q.txt` starts a debate.
    assert with_default_command(["--question-file", "q.txt"]) == [
        "argue",
        "--question-file",
        "q.txt",
    ]


def test_version_and_completion_are_offered():
    from argue import __version__

    version = _argue("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"argue {__version__}"
    help_text = CliRunner().invoke(app, ["--help"]).stdout
    assert "--install-completion" in help_text
    assert 'argue "Your question?"' in help_text


def test_a_hosted_model_without_its_key_names_the_missing_key(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(ARGUE_HOME=str(tmp_path), OLLAMA_HOST="127.0.0.1:9")
    result = in_process(("Is it?", "--model", "claude-sonnet-4-6"), cwd=tmp_path, env=env)
    assert result.returncode == 2
    assert "ANTHROPIC_API_KEY is not set" in result.stderr
    assert "not found" not in result.stderr
    assert "Traceback" not in result.stderr
