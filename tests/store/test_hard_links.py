"""Issue 39 item 6: no write follows a hard link out of a folder argue owns, and ``evals/``
itself is checked like the eval folder.

A debate's ``usage.jsonl`` (which resume appends to), an eval's ``items.jsonl`` and
``usage.jsonl``, and the background run's ``run.log``, hard-linked to a file outside, are
replaced by a private copy before the append: the outside file keeps its bytes, the folder's
file has the old lines and the new one. A hard-linked lock (argue writes its pid into it) is
refused in one line naming it. ``<debates>/evals`` a symlink: the eval is refused, nothing
written behind it.

Teeth (each broken once and seen failing, then restored): with the ``st_nlink`` check removed
from ``open_append`` the outside files gain the appended lines; without ``refuse_hard_links``
in the locks the outside file is truncated to a pid; without ``within=`` in ``prepare_eval``
the eval writes its records behind the symlinked ``evals/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argue.app import EvalRequest, UsageError, Workspace, prepare_eval, run_eval
from argue.domain import Usage
from argue.eval.arms import ItemResult
from argue.eval.folder import EvalFolder, EvalFolderError
from argue.files import open_append
from argue.llm import ScriptedModel
from argue.store import StoreError
from tests.engine.conftest import new_store, personas

__all__ = ["new_store", "personas"]

OUTSIDE = b'{"keep": "these bytes"}\n'


def _outside(tmp_path: Path, name: str = "outside.jsonl") -> Path:
    victim = tmp_path / "elsewhere" / name
    victim.parent.mkdir(exist_ok=True)
    victim.write_bytes(OUTSIDE)
    return victim


def test_resume_s_usage_append_never_reaches_a_hard_linked_file_outside(tmp_path, new_store):
    store = new_store("debates")
    store.append_usage(Usage(provider="p", model="first"))
    victim = _outside(tmp_path)
    usage = store.paths.usage_log
    victim.unlink()
    os.link(usage, victim)  # the folder's usage.jsonl is also a file outside
    before = victim.read_bytes()
    store.append_usage(Usage(provider="p", model="second"))
    assert victim.read_bytes() == before  # the outside name kept its bytes
    assert os.stat(usage).st_nlink == 1 and os.stat(victim).st_nlink == 1
    assert [u.model for u in store.load_usage()] == ["first", "second"]


def test_a_hard_linked_debate_lock_is_refused_in_one_line(tmp_path, new_store):
    store = new_store("debates")
    victim = _outside(tmp_path, "precious.txt")
    store.paths.lock.unlink(missing_ok=True)
    os.link(victim, store.paths.lock)
    with pytest.raises(StoreError, match="hard links") as caught:
        store.acquire_lock()
    assert str(store.paths.lock) in str(caught.value) and "\n" not in str(caught.value)
    assert victim.read_bytes() == OUTSIDE


@pytest.mark.parametrize("name", ["items.jsonl", "usage.jsonl"])
def test_an_eval_append_never_reaches_a_hard_linked_file_outside(tmp_path, name):
    folder = EvalFolder(tmp_path / "debates" / "evals" / "e")
    folder.root.mkdir(parents=True)
    victim = _outside(tmp_path)
    os.link(victim, folder.root / name)
    with folder.running():
        folder.append_usage(Usage(provider="p", model="m"))
        folder.append_result(
            ItemResult(
                item="i1", arm="single", answer="4", expected="4", started_at=1, finished_at=2
            )
        )
    assert victim.read_bytes() == OUTSIDE
    lines = (folder.root / name).read_bytes().splitlines(keepends=True)
    assert lines[0] == OUTSIDE and len(lines) == 2  # the old line, then the new one
    assert os.stat(folder.root / name).st_nlink == 1


def test_a_hard_linked_eval_lock_is_refused_in_one_line(tmp_path):
    folder = EvalFolder(tmp_path / "e")
    folder.root.mkdir()
    victim = _outside(tmp_path, "precious.txt")
    os.link(victim, folder.root / ".lock")
    with pytest.raises(EvalFolderError, match="hard links") as caught:
        folder.lock()
    assert "\n" not in str(caught.value)
    assert victim.read_bytes() == OUTSIDE


def test_the_background_run_log_is_never_a_hard_linked_file_outside(tmp_path):
    root = tmp_path / "debates" / "argue_20260101_000000"
    root.mkdir(parents=True)
    victim = _outside(tmp_path, "run.log")
    os.link(victim, root / "run.log")
    fd = open_append(root, root / "run.log")
    try:
        os.write(fd, b"argue: background run\n")
    finally:
        os.close(fd)
    assert victim.read_bytes() == OUTSIDE
    assert (root / "run.log").read_bytes() == OUTSIDE + b"argue: background run\n"


def test_a_symlinked_evals_folder_is_refused_and_nothing_is_written_behind_it(
    tmp_path, scripted_provider
):
    scripted_provider(
        ScriptedModel(lambda m, o: {"reasoning": "r", "answer": "4"}, provider="scripted")
    )
    debates = tmp_path / "debates"
    debates.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (debates / "evals").symlink_to(outside, target_is_directory=True)
    request = EvalRequest(
        dataset="mixed-arithmetic", n=2, arms=["single"], provider="scripted", concurrency=1
    )
    plan = prepare_eval(request, Workspace(debates_dir=debates))
    with pytest.raises(UsageError, match="symbolic link") as caught:
        run_eval(plan)
    assert caught.value.exit_code == 2 and "evals" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert list(outside.iterdir()) == []
