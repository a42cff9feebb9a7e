"""Issue 13 item 7: plain `status` over 1,000 debate folders reads a small, bounded amount per
folder, the same for a debate of many rounds as for an empty one.

What is counted, not timed (timings are in bench/status_scale.py): every file opened and every
folder listed under the debates folder, seen by an audit hook. A debate's row may open only
config.json, state.json and (for a debate marked running) .lock, each once; no folder inside a
debate is listed. Every debate is listed, a running one whose process is gone as interrupted.

Teeth: in argue/commands/debates.py call ``_status_row(store)`` (the full row, as ``--json``
does) in the listing, and the deep folders open usage.jsonl, failures.json, every persona
snapshot and every round's records: this test fails.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections import defaultdict
from pathlib import Path

from typer.testing import CliRunner

from argue.cli import app

FOLDERS = 1000
DEEP_EVERY = 50  # every 50th folder is a whole finished debate (rounds, personas, usage)
ALLOWED = {"config.json", "state.json", ".lock"}
STATUSES = ("completed", "running", "stopped", "budget_exhausted")

_seen: list[tuple[str, str]] | None = None  # (event, path) while a test listens
_hooked = False


def _audit(event: str, args: tuple) -> None:
    if _seen is None or event not in ("open", "os.listdir", "os.scandir"):
        return
    path = args[0] if args else None
    if isinstance(path, (str, bytes, os.PathLike)):
        _seen.append((event, os.fsdecode(path)))


def _listen() -> list[tuple[str, str]]:
    global _seen, _hooked
    if not _hooked:
        sys.addaudithook(_audit)  # audit hooks cannot be removed: it is idle when _seen is None
        _hooked = True
    _seen = []
    return _seen


def _stop() -> None:
    global _seen
    _seen = None


def _make_folders(template: Path, debates: Path) -> dict[str, str]:
    """1,000 debates: every 50th a copy of a real finished one, the others only its config.json
    and state.json (all a row needs). Returns id -> the status `status` should show."""
    config = json.loads((template / "config.json").read_text(encoding="utf-8"))
    state = json.loads((template / "state.json").read_text(encoding="utf-8"))
    expected = {}
    debates.mkdir()
    for i in range(FOLDERS):
        debate_id = f"argue_20260101_{i:06d}"
        folder = debates / debate_id
        if i % DEEP_EVERY == 0:
            shutil.copytree(template, folder)
        else:
            folder.mkdir()
        status = STATUSES[i % len(STATUSES)]
        config.update(id=debate_id, question=f"Question number {i}?")
        state.update(status=status, termination=None if status == "running" else "max_rounds")
        (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
        (folder / "state.json").write_text(json.dumps(state), encoding="utf-8")
        if status == "running":
            (folder / ".lock").write_text("99999999", encoding="utf-8")  # no process holds it
        expected[debate_id] = "interrupted" if status == "running" else status
    return expected


def test_status_over_1000_folders_reads_only_config_state_and_lock(tmp_path, run_scripted_debate):
    template = run_scripted_debate(tmp_path / "template", rounds=3).paths.root
    assert len(list((template / "persona_a" / "arguments").glob("round_*.json"))) >= 3
    debates = tmp_path / "debates"
    expected = _make_folders(template, debates)

    seen = _listen()
    try:
        result = CliRunner().invoke(app, ["status", "--debates-dir", str(debates)])
    finally:
        _stop()
    assert result.exit_code == 0, result.output

    shown = {}
    for line in result.stdout.splitlines():
        if match := re.match(r"(argue_\d{8}_\d{6})\s+(\S+)\s+(\d+)/(\d+)", line):
            assert match.group(1) not in shown, line
            shown[match.group(1)] = match.group(2)
    assert shown == expected

    opened: dict[str, list[str]] = defaultdict(list)
    listed: list[str] = []
    for event, raw in seen:
        try:
            parts = Path(raw).relative_to(debates).parts
        except ValueError:
            continue  # not under the debates folder (settings, modules…)
        if event == "open":
            assert len(parts) == 2, raw  # a file at the top of a debate folder, nothing deeper
            opened[parts[0]].append(parts[1])
        elif parts:
            listed.append(raw)  # listing the debates folder itself is how they are found
    assert listed == []
    assert set(opened) == set(expected)
    for debate_id, names in opened.items():
        assert set(names) <= ALLOWED, (debate_id, names)
        assert len(names) == len(set(names)), (debate_id, names)  # each file once
        assert (".lock" in names) == (expected[debate_id] == "interrupted"), (debate_id, names)
    # A whole debate of three rounds costs its row what a two-file folder does.
    deep = [f"argue_20260101_{i:06d}" for i in range(0, FOLDERS, DEEP_EVERY)]
    for debate_id in deep:
        twin = f"argue_20260101_{int(debate_id[-6:]) + len(STATUSES):06d}"  # same status
        assert sorted(opened[debate_id]) == sorted(opened[twin]), (debate_id, twin)


def test_the_table_prints_no_escape_sequence_from_a_debate_folder(tmp_path, run_scripted_debate):
    """A folder may come from someone else: what its config says is printed inert. Teeth: the
    table as it was before, a rich Table of the raw values (SafeConsole only cleans plain
    strings), prints the id's clear-screen and the question's window title as sent."""
    store = run_scripted_debate(tmp_path / "debates")
    config = json.loads(store.paths.config.read_text(encoding="utf-8"))
    config.update(id="argue\x1b[2J_hostile", question="\x1b]0;pwned\x07\x9b31mQ?\x1b[0m")
    store.paths.config.write_text(json.dumps(config), encoding="utf-8")
    # The folder is named like its id (a config.id naming another folder is refused).
    store.paths.root.rename(store.paths.root.with_name(config["id"]))
    result = CliRunner().invoke(app, ["status", "--debates-dir", str(tmp_path / "debates")])
    assert result.exit_code == 0, result.output
    for escape in ("\x1b", "\x07", "\x9b"):
        assert escape not in result.stdout, repr(result.stdout)
    assert "argue[2J_hostile" in result.stdout and "Q?" in result.stdout
