"""``import argue``: the README's Python example runs, and the library checks and records what
the CLI checks and records (the CLI is a face over it).

Teeth (checked once each): in ``argue/app/_workspace.py`` make ``research_sources`` skip
``check_sources``: the ``--sources`` case of the shared-validation test fails; in
``argue/commands/start.py`` pass ``rounds=None`` to the request: the CLI's config.json differs
from the library's and the same-records test fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import argue
from argue.cli import app as cli_app
from argue.commands._debate import cli_words
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def fake(library_fake: FakeLLM) -> FakeLLM:
    return library_fake


def readme_examples(heading: str) -> list[str]:
    """The ```python blocks under ``heading`` of README.md, up to the next heading."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(f"\n{heading}\n", 1)[1]
    section = re.split(r"\n#{2,3} ", section, maxsplit=1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_example_runs(fake: FakeLLM, tmp_path: Path, capsys) -> None:
    first, _ = readme_examples("## Use it from Python")
    exec(compile(first, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("adversarial ['embry', 'horus'] $"), lines
    status, rounds, calls, synthesis = lines[1].split()
    assert (status, rounds) == ("completed", "2") and int(calls) > 0
    assert Path(synthesis).is_file()
    assert lines[2] in ("max_rounds", "convergence", "synthesis_ready"), lines
    assert lines[3] == "completed"
    assert lines[4].startswith("# ")
    assert lines[5].startswith("2 unknown mode 'chaos'; choose one of: adversarial"), lines
    folders = list((tmp_path / "debates").iterdir())
    assert len(folders) == 1 and (folders[0] / "report.html").is_file()


def test_the_readme_async_example_runs_two_debates_side_by_side(
    fake: FakeLLM, tmp_path: Path, capsys
) -> None:
    _, second = readme_examples("## Use it from Python")
    exec(compile(second, "README.md", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    ids = sorted(p.name for p in (tmp_path / "debates").iterdir())
    assert len(ids) == 2
    assert sorted(line.split()[0] for line in lines[:2]) == ids
    assert [line.split()[1] for line in lines[:2]] == ["completed", "completed"], lines
    assert Path(lines[2]).name == "synthesis.md" and Path(lines[2]).is_file()


def test_the_library_says_nothing_unless_given_a_reporter(fake: FakeLLM, capsys) -> None:
    outcome = argue.start(argue.StartRequest(question=QUESTION, rounds=1)).run()
    assert isinstance(outcome, argue.RunOutcome) and outcome.status == "completed"
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "")
    heard: list[str] = []
    argue.Debate(outcome.id, reporter=heard.append).synthesis(rewrite=True)
    assert any(line.startswith("Synthesis written to ") for line in heard), heard


def _comparable(folder: Path) -> dict[str, object]:
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    for key in ("id", "created_at"):
        config.pop(key, None)
    files = sorted(
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and p.name not in ("debate.lock", "run.log")
    )
    return {"config": config, "files": files}


def test_the_library_and_the_cli_write_the_same_records(fake: FakeLLM, tmp_path: Path) -> None:
    flags = ["--personas", "embry,horus", "--rounds", "2", "--budget-usd", "5", "--lang", "fr"]
    result = CliRunner().invoke(cli_app, ["argue", QUESTION, *flags])
    assert result.exit_code == 0, result.output
    request = argue.StartRequest(
        question=QUESTION, personas=["embry", "horus"], rounds=2, budget_usd=5, lang="fr"
    )
    outcome = argue.start(request).run()
    assert outcome.exit_code == 0
    cli_folder, api_folder = sorted((tmp_path / "debates").iterdir())
    assert api_folder.name == outcome.id
    assert _comparable(cli_folder) == _comparable(api_folder)


BAD_REQUESTS = [
    (["--mode", "chaos"], {"mode": "chaos"}),
    (["--persona-a", "nobody-at-all"], {"persona_a": "nobody-at-all"}),
    (
        ["--personas", "embry,horus", "--persona-a", "embry"],
        {"personas": ["embry", "horus"], "persona_a": "embry"},
    ),
    (["--sources", "altavista"], {"sources": ["altavista"]}),
    (["--advocate", "embry"], {"advocate": "embry"}),
    (["--persona-model", "zed=gpt-4o"], {"persona_models": ["zed=gpt-4o"]}),
    (["--structured-output", "xml"], {"structured_output": "xml"}),
    (
        ["--provider", "openai", "--model", "no-price-model", "--budget-usd", "1"],
        {"provider": "openai", "model": "no-price-model", "budget_usd": 1.0},
    ),
]


@pytest.mark.parametrize(("flags", "fields"), BAD_REQUESTS, ids=[f[0][0] for f in BAD_REQUESTS])
def test_the_library_refuses_what_the_cli_refuses_in_the_same_words(
    fake: FakeLLM, tmp_path: Path, flags: list[str], fields: dict[str, object]
) -> None:
    result = CliRunner().invoke(cli_app, ["argue", QUESTION, "--dry-run", *flags])
    with pytest.raises(argue.UsageError) as caught:
        argue.plan(argue.StartRequest(question=QUESTION, **fields))  # type: ignore[arg-type]
    assert result.exit_code == caught.value.exit_code == 2
    # The same words, the request's fields said as the flags that set them.
    assert " ".join(result.stderr.split()) == f"error: {cli_words(caught.value.message)}"
    assert "--" not in caught.value.message
    assert not (tmp_path / "debates").exists() or not any((tmp_path / "debates").iterdir())
    assert fake.count() == 0


def test_an_empty_id_never_means_every_debate(fake: FakeLLM) -> None:
    with pytest.raises(argue.UsageError, match="no debate id given"):
        argue.Debate("")
    with pytest.raises(argue.NotFoundError, match="not a debate id"):
        argue.Debate("x" * 10_000)
    with pytest.raises(argue.NotFoundError, match="no debate 'argue_19990101_000000'"):
        argue.Debate("argue_19990101_000000")
    with pytest.warns(DeprecationWarning), pytest.raises(argue.UsageError, match="no debate id"):
        argue.stop("")


def test_the_mcp_server_imports_nothing_private_from_the_commands() -> None:
    import ast

    for path in sorted((ROOT / "argue" / "mcp").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("argue.commands"), (path.name, node.module)
                assert not node.module.startswith("argue.cli"), (path.name, node.module)


def test_a_config_naming_an_unknown_provider_is_one_line_from_the_library_and_the_cli(
    tmp_path: Path,
) -> None:
    import os

    config = Path(os.environ["ARGUE_HOME"]) / "config.toml"
    config.write_text("[providers.bogus]\nslots = 2\n", encoding="utf-8")
    with pytest.raises(argue.UsageError, match=r"providers\.bogus: unknown provider \(one of "):
        argue.debates(workspace=argue.Workspace(tmp_path))
    result = CliRunner().invoke(cli_app, ["status", "--debates-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "providers.bogus: unknown provider" in result.stderr


def test_synthesize_builds_its_model_with_the_configured_provider_limits(
    fake: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``argue synthesize`` once built its model without config.toml's ``[providers.X]``
    limits that ``resume`` applied; every model now comes from ``Workspace.resolve``.

    Teeth: ``configured_limits`` dropped from ``Workspace.resolve`` fails this test."""
    import os

    import argue.llm

    home = Path(os.environ["ARGUE_HOME"])
    (home / "config.toml").write_text(
        "[providers.openai]\nrequest_timeout_s = 77\n", encoding="utf-8"
    )
    outcome = argue.start(argue.StartRequest(question=QUESTION, rounds=1)).run()
    (Path(outcome.synthesis_path).parent / "synthesis.json").unlink()  # the prose: asked again
    seen: list[object] = []
    real = argue.llm.resolve_model

    def spy(*args: object, **kwargs: object) -> object:
        seen.append(kwargs.get("configured_limits"))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(argue.llm, "resolve_model", spy)
    argue.Debate(outcome.id).synthesis(rewrite=True)
    assert seen, "synthesize built no model"
    limits = seen[-1]["openai"]  # type: ignore[index]
    assert limits.request_timeout_s == 77


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"rounds": 99}, "rounds: "),
        ({"budget_usd": float("nan")}, "budget_usd: "),
        ({"budget_usd": float("inf")}, "budget_usd: "),
        ({"lang": "de"}, "lang: "),
        ({"colour": "red"}, "colour: "),
    ],
)
def test_a_bad_field_is_a_one_line_usage_error_when_the_request_is_built(
    fields: dict[str, object], where: str
) -> None:
    with pytest.raises(argue.UsageError) as caught:
        argue.StartRequest(question=QUESTION, **fields)  # type: ignore[arg-type]
    assert caught.value.exit_code == 2
    assert caught.value.message.startswith(where) and "\n" not in caught.value.message


def test_resuming_a_finished_debate_names_its_report(fake: FakeLLM) -> None:
    """Issue 40 item 6: ``resume`` of a completed debate said "no report (?)" although
    report.html was there. Teeth: returning ``outcome(store, state)`` alone again fails."""
    outcome = argue.start(argue.StartRequest(question=QUESTION, rounds=1)).run()
    again = argue.Debate(outcome.id).run()
    assert again.status == "completed"
    assert again.report_path and Path(again.report_path).is_file()


def test_argue_report_stays_the_function_after_it_imports_the_report_package(
    tmp_path: Path, run_scripted_debate
) -> None:
    """``argue.report()`` imports the HTML report package ``argue.report``, which used to
    rebind ``argue.report`` to the package: the second call was ``'module' object is not
    callable``.
    Teeth: without ``_Api.__setattr__`` in argue/__init__.py the second call fails."""
    import importlib
    import sys

    store = run_scripted_debate(tmp_path)
    workspace = argue.Workspace(debates_dir=tmp_path)
    with pytest.warns(DeprecationWarning, match=r"use argue\.Debate\(id\)\.report\(\)"):
        first = argue.report(store.debate_id, workspace=workspace)
        importlib.import_module("argue.report.html")  # any later import of the package
        second = argue.report(store.debate_id, workspace=workspace)
        assert first == second == argue.Debate(store.debate_id, workspace=workspace).report()
        assert second.is_file()
        assert callable(argue.report) and "argue.report" in sys.modules
        from argue import report

        assert report is argue.report


def test_status_says_nothing_and_takes_a_str_folder(
    tmp_path: Path, run_scripted_debate, capfd
) -> None:
    """A state.json rebuilt from the rounds is an ``argue.ArgueWarning`` through ``warnings``
    (the CLI prints it as a line), never a print on stderr; a str ``debates_dir`` works.
    Teeth: the store's default notice handler printing to stderr (``stderr_notice``) fails
    this test; ``Workspace`` without ``__post_init__`` fails the bad-argument test below."""
    from argue.store import set_notice_handler

    store = run_scripted_debate(tmp_path, rounds=2)
    store.paths.state.unlink()
    previous = set_notice_handler(None)  # the library's own default, whatever ran before
    try:
        capfd.readouterr()
        workspace = argue.Workspace(debates_dir=str(tmp_path))
        with pytest.warns(argue.ArgueWarning, match="rebuilt from the committed rounds"):
            row = argue.Debate(store.debate_id, workspace=workspace).status()
            listing = argue.debates(workspace=workspace)
        assert (row.status, row.round) == ("interrupted", 2)
        assert [r.id for r in listing.debates] == [store.debate_id]
        assert capfd.readouterr() == ("", "")
    finally:
        set_notice_handler(previous)


@pytest.mark.parametrize("bad", [42, b"/tmp", "", " ", "a\x00b", ["/tmp"]])
def test_a_bad_workspace_argument_is_an_argue_error(bad: object) -> None:
    with pytest.raises(argue.ArgueError, match="debates_dir"):
        argue.Workspace(debates_dir=bad)  # type: ignore[arg-type]
    with pytest.raises(argue.ArgueError, match="env"):
        argue.Workspace(env=["A=1"])  # type: ignore[arg-type]


def test_a_detached_start_is_followed_through_its_handle(fake: FakeLLM) -> None:
    """``start(..., detach=True)``: a background process owns the debate; the handle follows
    it by reading the folder (``status``) and reads what it ends with."""
    import time

    debate = argue.start(QUESTION, rounds=1, detach=True)
    assert debate.detached is not None and debate.detached.id == debate.id
    assert Path(debate.detached.log).name == "run.log"
    if debate.status(full=False).status == "running":  # not ended already
        with pytest.raises(argue.UsageError, match="being run by another process"):
            debate.run()
    deadline = time.monotonic() + 120
    while debate.status(full=False).status == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    assert debate.status().status == "completed"
    assert debate.synthesis().text.startswith("# ")


def test_the_cli_says_the_librarys_fields_as_its_flags(fake: FakeLLM) -> None:
    """Teeth: ``cli_words`` returning the message as it is fails this test."""
    with pytest.raises(argue.UsageError) as caught:
        argue.plan(QUESTION, personas=["embry", "horus"], persona_a="embry")
    assert caught.value.message == "use either `personas` or `persona_a`/`persona_b`, not both"
    flags = ["--personas", "embry,horus", "--persona-a", "embry", "--dry-run"]
    result = CliRunner().invoke(cli_app, ["argue", QUESTION, *flags])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: use either --personas or --persona-a/--persona-b, not both"
    )
