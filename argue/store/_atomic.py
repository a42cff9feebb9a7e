"""Atomic file writes: temp file in the same folder, fsync, os.replace."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def to_jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def write_json_atomic(path: Path, value: Any) -> None:
    write_text_atomic(path, json.dumps(to_jsonable(value), indent=2, ensure_ascii=False) + "\n")


def read_json(path: Path) -> Any:
    """A JSON file read within the bounds of ``argue.store._bounded`` (size, depth, a regular
    file); FileNotFoundError when it is missing, BoundedReadError (a ValueError) when refused."""
    from argue.store._bounded import MAX_SETTINGS_BYTES, loads_json, read_text

    text = read_text(path, cap=MAX_SETTINGS_BYTES)
    if text is None:
        raise FileNotFoundError(2, "No such file or directory", str(path))
    return loads_json(text, path)
