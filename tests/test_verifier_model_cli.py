"""Issue 36 item 6 at the command line: ``--verifier-model`` (and config ``verifier_model``)
chooses the support check's model, the judge's (the debate's model) by default; config.json
records it and the run sends the support checks to it. In process, against the fake LLM.

Teeth: ``prepare`` ignoring the flag (``choose_verifier(None, …)``) fails
``test_the_verifier_model_comes_from_the_flag_then_the_config``; ``run_debate`` not passing
``verifier_model`` to the runner fails ``test_a_run_sends_its_support_checks_to_the_verifier``.
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


@pytest.fixture
def fake(monkeypatch) -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-verifier-0123456789")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("ARGUE_MODEL", "gpt-4o-mini")
    try:
        yield server
    finally:
        server.stop()


def _dry_run(debates: Path, *args: str) -> dict:
    result = CliRunner().invoke(
        app, ["argue", QUESTION, "--debates-dir", str(debates), "--dry-run", "--json", *args]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def _support_steps(plan: dict) -> set[str]:
    return {s["model"] for s in plan["estimate"]["steps"] if s["step"] == "support check"}


def test_the_verifier_model_comes_from_the_flag_then_the_config(tmp_path, fake):
    plain = _dry_run(tmp_path / "d")
    assert plain["verifier_model"] == "openai/gpt-4o-mini"  # the judge's: the debate's model
    assert _support_steps(plain) == {"openai/gpt-4o-mini"}

    (tmp_path / "argue_home").mkdir(exist_ok=True)
    (tmp_path / "argue_home" / "config.toml").write_text(
        '[defaults]\nverifier_model = "gpt-4.1-mini"\n'
    )
    configured = _dry_run(tmp_path / "d")
    assert configured["verifier_model"] == "openai/gpt-4.1-mini"
    flagged = _dry_run(tmp_path / "d", "--verifier-model", "openai:gpt-4.1")
    assert flagged["verifier_model"] == "openai/gpt-4.1"
    assert _support_steps(flagged) == {"openai/gpt-4.1"}
    assert fake.count() == 0


def test_a_run_sends_its_support_checks_to_the_verifier(tmp_path, fake):
    from tests.e2e.harness import LIBRARY_NOTE

    note = tmp_path / "collatz_notes.md"
    note.write_text(LIBRARY_NOTE, encoding="utf-8")
    added = CliRunner().invoke(app, ["library", "add", str(note)])
    assert added.exit_code == 0, added.output
    debates = tmp_path / "debates"
    result = CliRunner().invoke(
        app,
        [
            "argue",
            QUESTION,
            "--debates-dir",
            str(debates),
            "--rounds",
            "1",
            "--sources",
            "library",
            "--verifier-model",
            "gpt-4.1-mini",
        ],
    )
    assert result.exit_code == 0, result.output
    (folder,) = [p for p in debates.iterdir() if (p / "config.json").is_file()]
    config = json.loads((folder / "config.json").read_text())
    assert config["verifier_model"] == {"provider": "openai", "model": "gpt-4.1-mini"}
    models = {body["model"] for call, _, body in fake.openai_log if call.schema == "SupportDraft"}
    checks = list((folder / "persona_a" / "arguments").glob("round_001.support.json"))
    assert checks, "no support record"
    record = json.loads(checks[0].read_text())
    assert record["checked_by"] == "openai/gpt-4.1-mini"
    assert record["checks"]  # the library note was quoted, and checked
    assert models == {"gpt-4.1-mini"}  # by the verifier, and by nobody else
