"""Issue 24 item 4: JSON and TOML from debate folders and ARGUE_HOME are parsed within bounds.

A file nested too deep is one line naming it and ``status`` lists the other debates; a FIFO
config.toml, dialects.json or persona file is refused without waiting for a writer; values out
of range (``max_rounds``, round numbers, budgets) are refused; a folder whose ``config.id``
names another folder is named as such; a rebuilt state.json says so in one line; a full disk
under the memory database is said to be one.

Teeth (checked once on main before the change): the nested config.json makes plain ``status``
raise RecursionError; ``load_settings``, ``DialectMemory.get`` and ``load_catalog`` block on
the FIFO (the timeout fails them); ``max_rounds`` -3 and a NaN budget validate; a config.id
mismatch is listed as a debate; the rebuilt state prints nothing; the full disk is reported as
"cannot rollback".
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from typer.testing import CliRunner

from argue.cli import app
from argue.domain import DebateConfig, DebateState
from argue.files import MAX_DEPTH, BoundedReadError, loads_json, loads_toml

NESTED = "[" * 100_000 + "]" * 100_000


def _status(debates: Path) -> tuple[int, list[dict[str, object]], str]:
    result = CliRunner().invoke(app, ["status", "--json", "--debates-dir", str(debates)])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    return result.exit_code, json.loads(result.stdout), result.stderr


@pytest.fixture
def two_debates(tmp_path, run_scripted_debate) -> tuple[Path, Path, Path]:
    debates = tmp_path / "debates"
    good = run_scripted_debate(debates).paths.root
    bad = debates / "argue_20990101_000000"
    shutil.copytree(good, bad)
    config = json.loads((bad / "config.json").read_text())
    (bad / "config.json").write_text(json.dumps({**config, "id": bad.name}))
    return debates, good, bad


def test_a_nested_config_leaves_status_working_for_the_others(two_debates):
    debates, good, bad = two_debates
    (bad / "config.json").write_text(NESTED)
    code, rows, stderr = _status(debates)
    assert code == 0
    assert [row["id"] for row in rows] == [good.name]
    assert f"skipped {bad.name}:" in stderr and "config.json" in stderr
    assert f"over the limit of {MAX_DEPTH}" in stderr
    assert "Traceback" not in stderr


@pytest.mark.parametrize("record", ["state.json", "scoring/round_001.json"])
def test_a_nested_record_is_one_line_naming_it(two_debates, record):
    debates, good, bad = two_debates
    (bad / record).write_text('{"a": ' + NESTED + "}")
    result = CliRunner().invoke(
        app, ["transcript", bad.name, "--raw", "--debates-dir", str(debates)]
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    if result.exit_code:  # a committed round must read back: one line naming it
        assert result.stderr.strip().splitlines() == [
            f"error: {bad / record}: unreadable record (nested 100001 deep, over the limit "
            f"of {MAX_DEPTH})"
        ]
    else:  # state.json is rebuilt from the rounds, and says so
        assert "rebuilt" in result.stderr
    code, rows, _ = _status(debates)
    assert code == 0 and good.name in [row["id"] for row in rows]


def test_a_config_id_naming_another_folder_is_named_as_such(two_debates):
    debates, good, bad = two_debates
    config = json.loads((bad / "config.json").read_text())
    (bad / "config.json").write_text(json.dumps({**config, "id": good.name}))
    code, rows, stderr = _status(debates)
    assert code == 0 and [row["id"] for row in rows] == [good.name]
    assert f"skipped {bad.name}:" in stderr and "the folder is named" in stderr


def test_a_rebuilt_state_says_so_in_one_line(two_debates):
    debates, _good, bad = two_debates
    (bad / "state.json").write_text("{not json")
    result = CliRunner().invoke(app, ["status", bad.name, "--json", "--debates-dir", str(debates)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "rebuilt" in line]
    assert len(lines) == 1 and str(bad / "state.json") in lines[0], result.stderr


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("max_rounds", -3),
        ("max_rounds", 10**9),
        ("budget_usd", math.nan),
        ("budget_usd", math.inf),
        ("budget_usd", -1.0),
        ("budget_tokens", -5),
    ],
)
def test_config_values_out_of_range_are_refused(field, value):
    base = {
        "id": "x",
        "question": "Q?",
        "mode": "adversarial",
        "personas": {"A": "embry", "B": "horus"},
        "max_rounds": 3,
        "provider": "scripted",
        "model": "m",
    }
    DebateConfig.model_validate(base)
    with pytest.raises(ValidationError):
        DebateConfig.model_validate({**base, field: value})


def test_round_numbers_out_of_range_are_refused():
    with pytest.raises(ValidationError):
        DebateState.model_validate({"round": -1})
    with pytest.raises(ValidationError):
        DebateState.model_validate({"round": 10**9})


# ------------------------------------------------------------------ ARGUE_HOME files


@pytest.mark.timeout(10)
def test_a_fifo_config_toml_is_refused_without_waiting(tmp_path):
    from argue.config import ConfigError, load_settings

    path = tmp_path / "config.toml"
    os.mkfifo(path)
    with pytest.raises(ConfigError, match="not a regular file"):
        load_settings(path)


@pytest.mark.timeout(10)
def test_a_fifo_dialects_json_is_ignored_without_waiting(tmp_path):
    from argue.llm._dialects import DialectMemory

    path = tmp_path / "dialects.json"
    os.mkfifo(path)
    assert DialectMemory(path).get("http://127.0.0.1:1/v1", "m") is None


@pytest.mark.timeout(10)
def test_a_fifo_persona_file_is_refused_without_waiting(tmp_path):
    from argue.personas import PersonaFileError, load_catalog

    folder = tmp_path / "personas"
    folder.mkdir()
    os.mkfifo(folder / "fifo.toml")
    with pytest.raises(PersonaFileError, match="not a regular file"):
        load_catalog(folder)


def test_nested_toml_and_dialects_are_one_line(tmp_path):
    from argue.config import ConfigError, load_settings
    from argue.llm._dialects import DialectMemory
    from argue.personas import PersonaFileError, load_catalog

    config = tmp_path / "config.toml"
    config.write_text("[defaults]\nsources = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="over the limit"):
        load_settings(config)
    dialects = tmp_path / "dialects.json"
    dialects.write_text(NESTED)
    assert DialectMemory(dialects).get("http://127.0.0.1:1/v1", "m") is None
    folder = tmp_path / "personas"
    folder.mkdir()
    (folder / "deep.toml").write_text("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n")
    with pytest.raises(PersonaFileError, match="over the limit"):
        load_catalog(folder)


def test_the_depth_scan_ignores_brackets_in_strings_and_comments():
    assert loads_json('{"a": "' + "[" * 1000 + '"}', "x") == {"a": "[" * 1000}
    assert loads_toml('a = "' + "[" * 1000 + '" # ' + "{" * 1000 + "\n", "x") == {"a": "[" * 1000}
    with pytest.raises(BoundedReadError):
        loads_json("[" * (MAX_DEPTH + 1), "x")  # unclosed counts too: the parser would recurse


def test_a_full_disk_under_the_memory_database_says_so(tmp_path, monkeypatch):
    from argue.skills import _sqlite
    from argue.skills.memory import MemoryStore, MemoryStoreError

    def full(conn: sqlite3.Connection, script: str) -> None:
        conn.execute("ROLLBACK")  # what sqlite does itself on SQLITE_FULL
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(_sqlite, "_run_script", full)
    with pytest.raises(MemoryStoreError) as caught:
        MemoryStore(tmp_path / "memory.sqlite3").list()
    assert "disk is full" in str(caught.value) and "cannot rollback" not in str(caught.value)


# ------------------------------------------------------------------ fuzzing ARGUE_HOME files


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    which=st.sampled_from(["config.toml", "dialects.json", "personas/x.toml"]),
    kind=st.sampled_from(["nested", "garbage", "fifo", "folder", "huge"]),
    data=st.binary(max_size=200),
)
def test_any_argue_home_file_is_one_clear_error_or_ignored(tmp_path, which, kind, data):
    from argue.config import ConfigError, load_settings
    from argue.llm._dialects import DialectMemory
    from argue.personas import PersonaFileError, load_catalog

    home = tmp_path / f"home-{os.urandom(4).hex()}"
    target = home / which
    target.parent.mkdir(parents=True)
    if kind == "nested":
        target.write_text(("x = " if which.endswith(".toml") else "") + "[" * 3000 + "]" * 3000)
    elif kind == "garbage":
        target.write_bytes(b"\xff" + data)
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    else:
        with target.open("wb") as handle:
            handle.truncate(64 * 1024 * 1024)  # sparse: over every cap, nothing allocated
    try:
        if which == "config.toml":
            load_settings(target)
        elif which == "dialects.json":
            DialectMemory(target).get("http://h/v1", "m")
        else:
            load_catalog(target.parent)
    except (ConfigError, PersonaFileError) as exc:
        assert "\n" not in str(exc) and str(target) in str(exc)
