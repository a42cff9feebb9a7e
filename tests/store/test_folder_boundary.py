"""A debate folder is a boundary (issue 13 item 2): whatever was done to a file of it —
truncated, filled with bytes that are not UTF-8, given the wrong JSON type, replaced by a
symbolic link to a file or folder outside, by a folder, or by a FIFO — nothing outside the
folder is read, written or deleted, and every command answers with a result or one clear error.

Teeth: make ``argue.files.guard`` return ``os.path.lexists(path)`` without its checks and
the symlink examples fail (the outside canary is read into a record or the outside file is
overwritten).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from argue.cli import app
from argue.engine import DebateRunner, create_debate, resynthesize
from argue.llm import ScriptedModel
from argue.personas import load_catalog
from argue.store import DebateStore, StoreError
from argue.store.history import load_history
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}
CANARY = "OUTSIDE-CANARY-7c1f"
MUTATIONS = ("truncate", "garbage", "wrong_type", "link_file", "link_dir", "folder", "fifo")


def _template(base: Path) -> Path:
    """A debate stopped after round 1 of 2: records of every kind on disk, resumable."""
    catalog = load_catalog()
    store = create_debate(
        base,
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[catalog.get("embry"), catalog.get("horus")],
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
    )

    def stop_in_round_two(letter: str, rnd: int, phase: str):
        if rnd == 2 and phase == "ArgumentDraft":
            store.request_stop()
        return None

    script = DebateScript(
        names=NAMES, confidence=lambda k, r: 0.3 + 0.5 * (r % 2), fail=stop_in_round_two
    )
    state = asyncio.run(DebateRunner(store, ScriptedModel(script), ScriptedToolkit()).run())
    assert state.status == "stopped"
    store.post_note("A moderator note.")
    return store.paths.root


@pytest.fixture(scope="module")
def template() -> Path:
    base = Path(tempfile.mkdtemp(prefix="argue-boundary-"))
    os.environ.setdefault("ARGUE_HOME", str(base / "home"))
    root = _template(base / "debates")
    yield root
    shutil.rmtree(base, ignore_errors=True)


def _entries(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def _snapshot(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _mutate(target: Path, mutation: str, outside: Path, data: bytes) -> None:
    if target.is_dir() and mutation not in ("link_dir", "link_file"):
        mutation = "link_dir"
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists() or target.is_symlink():
        target.unlink()
    if mutation == "truncate":
        target.write_bytes(data[: len(data) // 3])
    elif mutation == "garbage":
        target.write_bytes(b"\xff\xfe\x00" + data)
    elif mutation == "wrong_type":
        target.write_text(json.dumps([1, "two", None]) if len(data) % 2 else '"a string"')
    elif mutation == "link_file":
        target.symlink_to(outside / "canary.json")
    elif mutation == "link_dir":
        target.symlink_to(outside / "folder", target_is_directory=True)
    elif mutation == "folder":
        target.mkdir()
    else:
        os.mkfifo(target)


def _commands(debates: Path, debate_id: str) -> list[str]:
    """Run every command on the damaged debate; return what they printed."""
    printed: list[str] = []
    runner = CliRunner()
    for args in (
        ["status", "--json", "--debates-dir", str(debates)],
        ["status", debate_id, "--json", "--debates-dir", str(debates)],
        ["transcript", debate_id, "--raw", "--debates-dir", str(debates)],
        ["interject", debate_id, "Only discuss 3n+1.", "--debates-dir", str(debates)],
        ["stop", debate_id, "--debates-dir", str(debates)],
    ):
        result = runner.invoke(app, args)
        printed.append(result.output)
        error = result.exception
        assert error is None or isinstance(error, SystemExit | StoreError), (args, repr(error))
        if isinstance(error, SystemExit):
            assert error.code in (0, 1, 2, 3), (args, error.code)
    try:
        store = DebateStore.open(debates, debate_id)
        load_history(store)
        printed.append(asyncio.run(resynthesize(store, None)))
        model = ScriptedModel(
            DebateScript(names=NAMES, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
        )
        asyncio.run(DebateRunner(store, model, ScriptedToolkit()).run())
    except StoreError as error:
        assert "\n" not in str(error)
        printed.append(str(error))
    return printed


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(which=st.integers(min_value=0), mutation=st.sampled_from(MUTATIONS), data=st.binary())
def test_nothing_outside_a_damaged_debate_folder_is_touched(
    template: Path, which: int, mutation: str, data: bytes
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        debates = base / "debates"
        root = debates / template.name
        shutil.copytree(template, root, symlinks=True)
        outside = base / "outside"
        (outside / "folder").mkdir(parents=True)
        (outside / "canary.json").write_text(
            json.dumps({"text": CANARY, "status": "completed", "claims": [], "round": 1})
        )
        (outside / "folder" / "round_001.json").write_text(json.dumps({"text": CANARY}))
        before = _snapshot(outside)
        entries = _entries(root)
        target = root / entries[which % len(entries)]
        original = target.read_bytes() if target.is_file() else b"{}"
        _mutate(target, mutation, outside, original or data)

        printed = _commands(debates, root.name)

        assert _snapshot(outside) == before, (target, mutation)
        assert not any(CANARY in text for text in printed), (target, mutation)
        for path in root.rglob("*"):
            if path.is_file() and not path.is_symlink():
                assert CANARY.encode() not in path.read_bytes(), (path, target, mutation)


def test_a_planted_lock_link_is_refused_and_the_target_kept(template: Path, tmp_path: Path):
    root = tmp_path / "debates" / template.name
    shutil.copytree(template, root, symlinks=True)
    victim = tmp_path / "precious.txt"
    victim.write_text("do not truncate me")
    lock = root / ".lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(victim)
    store = DebateStore.open(tmp_path / "debates", template.name)
    with pytest.raises(StoreError, match="symbolic link"):
        store.acquire_lock()
    assert victim.read_text() == "do not truncate me"


def test_status_lists_the_others_and_marks_the_bad_one(template: Path, tmp_path: Path):
    debates = tmp_path / "debates"
    good = debates / template.name
    shutil.copytree(template, good, symlinks=True)
    bad = debates / "argue_20990101_000000"
    shutil.copytree(template, bad, symlinks=True)
    (bad / "state.json").write_bytes(b"\xff\xfe not utf-8")
    (bad / "config.json").write_bytes(b"\xff\xfe not utf-8")
    result = CliRunner().invoke(app, ["status", "--json", "--debates-dir", str(debates)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["id"] for row in rows] == [template.name]
    assert "skipped argue_20990101_000000" in result.stderr
    assert "not UTF-8" in result.stderr
