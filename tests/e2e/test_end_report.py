"""Every run ends with ``debates/<id>/report.html`` written and named in the run's last line
(issue 26: a debate used to have no report until ``report`` or ``synthesize`` was run).

Teeth (checked once each): drop the ``end_report`` call after a run in
``argue/app/_run.py``: the first two tests fail; drop the ``tail`` from ``finish`` in
``argue/commands/_debate.py``: the last-line tests fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import argue
from argue.app import OperationError, RunOutcome, UsageSummary
from argue.cli import app as cli_app
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION


@pytest.fixture
def fake(library_fake: FakeLLM) -> FakeLLM:
    return library_fake


def test_a_finished_debate_has_its_report_and_its_last_line_names_it(fake: FakeLLM) -> None:
    result = CliRunner().invoke(cli_app, ["argue", QUESTION, "--rounds", "1"])
    assert result.exit_code == 0, result.output
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Synthesis: ") and " · report: " in last, last
    report = Path(last.split(" · report: ", 1)[1])
    assert report.name == "report.html" and report.parent == Path(last[11:].split(" · ")[0]).parent
    html = report.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "Content-Security-Policy" in html


def test_the_library_returns_the_report_path(fake: FakeLLM, capsys) -> None:
    outcome = argue.start(argue.StartRequest(question=QUESTION, rounds=1, lang="fr")).run()
    assert outcome.status == "completed" and outcome.report_error is None
    assert outcome.report_path and Path(outcome.report_path).is_file()
    assert Path(outcome.report_path).parent.name == outcome.id
    assert '<html lang="fr">' in Path(outcome.report_path).read_text(encoding="utf-8")
    assert capsys.readouterr().err == ""


def test_a_report_that_cannot_be_written_changes_nothing_but_the_last_line(
    fake: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    import argue.app._run as run_module

    def refuse(store: object, out: object = None) -> Path:
        raise OperationError("cannot write the report: [Errno 28] No space left on device")

    monkeypatch.setattr(run_module, "write_report", refuse)
    result = CliRunner().invoke(cli_app, ["argue", QUESTION, "--rounds", "1", "--json"])
    assert result.exit_code == 0, result.output
    last = result.stderr.strip().splitlines()[-1]
    assert last.endswith(
        " · no report (cannot write the report: [Errno 28] No space left on device)"
    )
    assert '"status": "completed"' in result.stdout


def _outcome(status: str, **fields: object) -> RunOutcome:
    usage = UsageSummary(
        calls=0,
        tokens=0,
        cost_usd=0.0,
        cost_usd_at_least=0.0,
        unpriced_calls=0,
        possibly_billed_calls=0,
        cost="$0.0000",
        models={},
    )
    base: dict[str, object] = {
        "id": "argue_20261202_000000",
        "status": status,
        "termination": status,
        "rounds": 1,
        "synthesis_path": None,
        "usage": usage,
        "partial": False,
        "partial_reasons": [],
        "failures": 0,
        "exit_code": 3,
    }
    return RunOutcome.model_validate({**base, **fields})


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", " · partial report: /d/report.html"),
        ("fr", " · rapport partiel\u00a0: /d/report.html"),
    ],
)
def test_a_paused_debate_names_its_partial_report_after_the_resume_command(
    fake: FakeLLM, capsys, lang: str, words: str
) -> None:
    from argue.commands._debate import finish

    outcome = argue.start(argue.StartRequest(question=QUESTION, rounds=1, lang=lang)).run()
    store = argue.Workspace().open(outcome.id)
    with pytest.raises(typer.Exit) as exited:
        finish(store, _outcome("stopped", report_path="/d/report.html"), json_output=False)
    assert exited.value.exit_code == 3
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"resume {outcome.id}" in last and last.endswith(words), last
