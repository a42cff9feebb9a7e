"""The eval folder, ``<debates>/evals/<name>/``: ``eval.json`` (what was asked, and the vote
matching once fixed), ``items.jsonl`` (one line per finished item and arm, fsynced as it
lands), ``usage.jsonl`` (every single/vote call) and ``debates/<item>/`` (the debate arm's
debates, ordinary debate folders). Re-running the same command finds it and resumes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from argue.domain import Usage
from argue.eval.arms import ItemResult
from argue.redact import redact
from argue.store._atomic import write_json_atomic

MANIFEST = "eval.json"
RESULTS = "items.jsonl"
USAGE = "usage.jsonl"


class EvalFolder:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.debates = root / "debates"

    # -- manifest

    def manifest(self) -> dict[str, Any]:
        path = self.root / MANIFEST
        if not path.is_file() or path.is_symlink():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_manifest(self, data: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        write_json_atomic(self.root / MANIFEST, data)

    # -- results

    def results(self) -> dict[tuple[str, str], ItemResult]:
        """Finished (item, arm) records; a torn or foreign line is skipped (re-run, not trusted)."""
        path = self.root / RESULTS
        if not path.is_file() or path.is_symlink():
            return {}
        found: dict[tuple[str, str], ItemResult] = {}
        with path.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                try:
                    record = ItemResult.model_validate_json(line)
                except (ValidationError, ValueError):
                    continue
                found.setdefault((record.item, record.arm), record)
        return found

    def append_result(self, result: ItemResult) -> None:
        # Secrets masked in every form (argue.redact): an answer or error may quote one.
        self._append(RESULTS, redact(result.model_dump_json()))

    def append_usage(self, usage: Usage) -> None:
        self._append(USAGE, usage.model_dump_json())

    def _append(self, name: str, line: str) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / name
        if path.is_symlink():
            raise OSError(f"{path}: a symbolic link: refused")
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())
