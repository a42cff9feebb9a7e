"""Issue 24 item 5: the eval folder is a boundary, and a dataset is read within bounds.

A symlinked ``evals/<name>`` (or a link inside it) is refused, nothing written behind it; a
second eval on one folder is refused at once, in one line, exit 2 through argue.app; each
record is one ``os.write``; a FIFO dataset is refused without waiting; a line over the cap is
refused once the cap is read (never read whole); a huge integer, NaN, infinities and NUL in an
answer are DatasetErrors naming ``file:line:``.

Teeth (checked once on main before the change): the symlinked folder is followed (items and
usage land outside), the second eval runs (no lock), the FIFO dataset blocks (the timeout fails
it), the long line is read whole (the read-size audit fails), the 5,000-digit answer is a
ValueError traceback and NaN, 1e999 and NUL are accepted.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argue.app import EvalRequest, UsageError, Workspace, prepare_eval, run_eval
from argue.domain import Usage
from argue.eval import datasets
from argue.eval.datasets import DatasetError, load_jsonl
from argue.eval.folder import EvalFolder, EvalFolderError, EvalFolderLocked
from argue.llm import ScriptedModel

ANSWER = {"reasoning": "I computed it.", "answer": "4"}


def _plan(tmp_path: Path, scripted_provider):
    scripted_provider(ScriptedModel(lambda messages, output: ANSWER, provider="scripted"))
    request = EvalRequest(
        dataset="mixed-arithmetic", n=2, arms=["single"], provider="scripted", concurrency=1
    )
    return prepare_eval(request, Workspace(debates_dir=tmp_path / "debates"))


def test_a_symlinked_eval_folder_is_refused(tmp_path, scripted_provider):
    plan = _plan(tmp_path, scripted_provider)
    outside = tmp_path / "outside"
    outside.mkdir()
    plan.folder.root.parent.mkdir(parents=True)
    plan.folder.root.symlink_to(outside, target_is_directory=True)
    with pytest.raises(UsageError, match="symbolic link") as caught:
        run_eval(plan)
    assert caught.value.exit_code == 2 and "\n" not in str(caught.value)
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("name", ["items.jsonl", "usage.jsonl", "eval.json", "debates"])
def test_a_link_inside_the_eval_folder_is_refused(tmp_path, name):
    folder = EvalFolder(tmp_path / "evals" / "e")
    folder.root.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.mkdir() if name == "debates" else victim.write_text("keep\n")
    (folder.root / name).symlink_to(victim)
    with pytest.raises(EvalFolderError, match="symbolic link"), folder.running():
        folder.manifest()
        folder.results()
        folder.append_usage(Usage(provider="p", model="m"))
        folder.save_manifest({"k": 1})
    assert victim.is_dir() or victim.read_text() == "keep\n"


def test_a_second_eval_on_one_folder_is_refused_at_once(tmp_path, scripted_provider):
    plan = _plan(tmp_path, scripted_provider)
    holder = EvalFolder(plan.folder.root)
    with holder.running():
        with pytest.raises(UsageError, match="another eval is running") as caught:
            run_eval(plan)
        assert caught.value.exit_code == 2 and str(os.getpid()) in str(caught.value)
        with pytest.raises(EvalFolderLocked):
            EvalFolder(plan.folder.root).lock()
    assert not (plan.folder.root / "items.jsonl").exists()
    assert run_eval(plan).exit_code == 0  # released: the same command runs


def test_each_record_is_one_write_on_an_append_descriptor(tmp_path, monkeypatch):
    folder = EvalFolder(tmp_path / "e")
    writes: list[tuple[int, bytes]] = []
    real_write = os.write

    def spy(fd: int, data: bytes) -> int:
        writes.append((fd, bytes(data)))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", spy)
    folder.append_usage(Usage(provider="p", model="m"))
    folder.append_usage(Usage(provider="p", model="m"))
    assert len(writes) == 2 and all(data.endswith(b"\n") for _, data in writes)
    assert len((folder.root / "usage.jsonl").read_text().splitlines()) == 2


# ------------------------------------------------------------------ datasets


@pytest.mark.timeout(10)
def test_a_fifo_dataset_is_refused_without_waiting(tmp_path):
    path = tmp_path / "data.jsonl"
    os.mkfifo(path)
    with pytest.raises(DatasetError, match="not a regular file"):
        load_jsonl(path)


def test_a_long_line_is_refused_without_reading_it_whole(tmp_path, monkeypatch):
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"question": "Q?", "answer": 1}\n{"question": "')
        handle.truncate(50 * 1024 * 1024)  # sparse: a 50 MB second line, nothing allocated
    largest: list[int] = []
    real_readline = io.BufferedReader.readline

    class Audited(io.BufferedReader):
        def readline(self, size: int | None = -1) -> bytes:
            line = real_readline(self, size)
            largest.append(len(line))
            return line

    real_fdopen = os.fdopen
    monkeypatch.setattr(
        datasets.os,
        "fdopen",
        lambda fd, mode="r", *a, **k: (
            Audited(real_fdopen(fd, "rb", buffering=0))
            if mode == "rb"
            else real_fdopen(fd, mode, *a, **k)
        ),
    )
    with pytest.raises(DatasetError, match=rf"{path}:2: line longer than 1000 characters"):
        load_jsonl(path, max_line_chars=1000)
    assert max(largest) <= 4 * 1000 + 3, largest


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("9" * 5000, "digits"),
        ('"' + "9" * 5000 + '"', "digits"),
        ("NaN", "not a finite number"),
        ("Infinity", "not a finite number"),
        ("-Infinity", "not a finite number"),
        ("1e999", "not a finite number"),
        ('"inf"', "not a finite number"),
        ('"4\\u0000"', "NUL"),
    ],
)
def test_bad_answers_are_usage_errors_naming_the_line(tmp_path, answer, problem):
    path = tmp_path / "d.jsonl"
    path.write_text(
        '{"question": "Q?", "answer": 1}\n{"question": "Q?", "answer": ' + answer + "}\n"
    )
    with pytest.raises(DatasetError, match=rf"^{path}:2: .*{problem}"):
        load_jsonl(path)


# ------------------------------------------------------------------ fuzzing the eval folder


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.sampled_from(["eval.json", "items.jsonl", "usage.jsonl", ".lock", "debates", "."]),
    kind=st.sampled_from(["link_file", "link_dir", "fifo", "folder", "garbage", "nested"]),
    data=st.binary(max_size=100),
)
def test_a_damaged_eval_folder_is_one_clear_error_and_nothing_outside_changes(
    tmp_path, name, kind, data
):
    base = tmp_path / os.urandom(4).hex()
    root = base / "evals" / "e"
    root.mkdir(parents=True)
    (root / "items.jsonl").write_text("")
    outside = base / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "file").write_text("precious\n")
    target = root if name == "." else root / name
    if target.is_dir():
        shutil.rmtree(target)
    elif target.exists():
        target.unlink()
    if kind == "link_file":
        target.symlink_to(outside / "file")
    elif kind == "link_dir":
        target.symlink_to(outside / "folder", target_is_directory=True)
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "folder":
        target.mkdir()
    elif kind == "garbage":
        target.write_bytes(b"\xff" + data)
    else:
        target.write_text("[" * 5000)
    folder = EvalFolder(root)
    try:
        with folder.running():
            folder.manifest()
            folder.results()
            folder.append_usage(Usage(provider="p", model="m"))
            folder.save_manifest({"key": "k"})
    except EvalFolderError as exc:
        assert "\n" not in str(exc)
    assert (outside / "file").read_text() == "precious\n"
    assert list((outside / "folder").iterdir()) == []
