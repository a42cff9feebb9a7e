"""How structured output is asked of an OpenAI-style server, and which way worked before.

Servers that speak ``chat.completions`` disagree on structured output. argue tries these
dialects in order and steps down when a server rejects one (a deterministic rejection, never
retried as an outage):

1. ``json_schema``: ``response_format: {type: json_schema, json_schema: {schema}}`` (OpenAI,
   vLLM, llama.cpp's llama-server, LM Studio, Ollama ≥ 0.5);
2. ``json_object_schema``: ``response_format: {type: json_object, schema}`` (llama-cpp-python's
   server turns that schema into a grammar);
3. ``json_object``: ``response_format: {type: json_object}`` with the schema in the prompt;
4. ``text``: no ``response_format``; the schema in the prompt, the JSON taken out of the reply.

The dialect that worked is remembered per (base URL, model) in ``$ARGUE_HOME/dialects.json``,
so later calls and debates start there; ``ARGUE_STRUCTURED_OUTPUT`` forces one.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import tempfile
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ValidationError

Dialect = Literal["json_schema", "json_object_schema", "json_object", "text"]
DIALECTS: tuple[Dialect, ...] = get_args(Dialect)
DIALECT_WORDS: dict[Dialect, str] = {
    "json_schema": "response_format json_schema",
    "json_object_schema": "response_format json_object with the schema in response_format.schema",
    "json_object": "response_format json_object, the schema in the prompt",
    "text": "plain text, the schema in the prompt and the JSON taken from the reply",
}
DIALECT_ENV = "ARGUE_STRUCTURED_OUTPUT"
# Words in a rejection that say the structured-output request is what the server refused.
_STRUCTURED_OUTPUT_MARKERS = (
    "response_format",
    "json_schema",
    "json_object",
    "schema",
    "grammar",
)
# llama.cpp expands ``maxLength: n`` into n nested optional rules; a few thousand levels overflow
# its parser's stack (a segfault). Shorter strings still validate against the pydantic model.
MAX_GRAMMAR_STRING = 400


class DialectSettingError(ValueError):
    """``ARGUE_STRUCTURED_OUTPUT`` (or the config key) names no dialect."""


def forced_dialect(env: Mapping[str, str]) -> Dialect | None:
    raw = (env.get(DIALECT_ENV) or "").strip().lower().replace("+", "_")
    if not raw or raw == "auto":
        return None
    if raw not in DIALECTS:
        raise DialectSettingError(
            f"{DIALECT_ENV} must be auto or one of {', '.join(DIALECTS)}, got {raw!r}"
        )
    return raw


def next_dialect(dialect: Dialect) -> Dialect | None:
    index = DIALECTS.index(dialect)
    return DIALECTS[index + 1] if index + 1 < len(DIALECTS) else None


def names_structured_output(message: str) -> bool:
    """Whether a rejection's words point at the structured-output part of the request."""
    lowered = message.lower()
    return any(marker in lowered for marker in _STRUCTURED_OUTPUT_MARKERS)


def compact_schema(output: type[BaseModel]) -> dict[str, Any]:
    """The output model's JSON schema as servers take it best: ``$defs`` inlined (no ``$ref``
    for a grammar compiler to chase), titles dropped but the root's (it names the answer),
    long string bounds tightened. Built once per model class (pydantic's schema generation
    was ~5 ms of CPU a request, issue 43 item 4); each caller gets a fresh copy to change."""
    return json.loads(_compact_schema_json(output))


@functools.lru_cache(maxsize=512)
def _compact_schema_json(output: type[BaseModel]) -> str:
    schema = output.model_json_schema()
    definitions = schema.pop("$defs", {})
    root_title = schema.get("title")

    def inline(node: Any, seen: frozenset[str]) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                name = ref.removeprefix("#/$defs/")
                if name in seen or name not in definitions:  # recursive: leave it open
                    return {"type": "object"}
                merged = {**definitions[name], **{k: v for k, v in node.items() if k != "$ref"}}
                return inline(merged, seen | {name})
            cleaned = {
                key: inline(value, seen)
                for key, value in node.items()
                if not (key == "title" and isinstance(value, str))
            }
            if isinstance(cleaned.get("maxLength"), int):
                cleaned["maxLength"] = min(cleaned["maxLength"], MAX_GRAMMAR_STRING)
            return cleaned
        if isinstance(node, list):
            return [inline(item, seen) for item in node]
        return node

    compact = inline(schema, frozenset())
    if isinstance(root_title, str):
        compact = {"title": root_title, **compact}
    return json.dumps(compact)


def server_key(base_url: str, model: str) -> str:
    """``base_url model`` with any user:password taken out of the URL (never stored)."""
    parts = urlsplit(base_url.rstrip("/"))
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{urlunsplit((parts.scheme, host, parts.path, '', ''))} {model}"


class RememberedDialect(BaseModel):
    dialect: Dialect
    reason: str = ""
    at: str = ""


class DialectMemory:
    """``dialects.json``: the dialect that worked per server and model, with why it was chosen.

    A damaged file is ignored (argue negotiates again) and replaced on the next write; writes
    are atomic. ``path`` None keeps the memory in this process only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._cache: dict[str, RememberedDialect] | None = None

    def _load(self) -> dict[str, RememberedDialect]:
        if self._cache is not None:
            return self._cache
        entries: dict[str, RememberedDialect] = {}
        if self.path is not None:
            from argue.files import read_json

            # Bounded (a FIFO is refused unopened, size and depth checked before parsing); a
            # refused file is a damaged one: ignored, replaced on the next write.
            with contextlib.suppress(OSError, ValueError):
                raw = read_json(self.path)
                servers = raw.get("servers", {}) if isinstance(raw, dict) else {}
                for key, value in servers.items() if isinstance(servers, dict) else ():
                    with contextlib.suppress(ValidationError):
                        entries[str(key)] = RememberedDialect.model_validate(value)
        self._cache = entries
        return entries

    def get(self, base_url: str, model: str) -> RememberedDialect | None:
        with self._lock:
            return self._load().get(server_key(base_url, model))

    def remember(self, base_url: str, model: str, dialect: Dialect, reason: str) -> None:
        with self._lock:
            entries = self._load()
            key = server_key(base_url, model)
            if key in entries and entries[key].dialect == dialect:
                return
            entries[key] = RememberedDialect(
                dialect=dialect, reason=reason, at=datetime.now(UTC).isoformat(timespec="seconds")
            )
            if self.path is not None:
                with contextlib.suppress(OSError):  # a read-only home: negotiate again next time
                    self._write(entries)

    def forget(self, base_url: str, model: str) -> None:
        with self._lock:
            entries = self._load()
            if entries.pop(server_key(base_url, model), None) is not None and self.path:
                with contextlib.suppress(OSError):
                    self._write(entries)

    def _write(self, entries: dict[str, RememberedDialect]) -> None:
        assert self.path is not None
        payload = {
            "version": 1,
            "servers": {key: value.model_dump() for key, value in sorted(entries.items())},
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(prefix=".dialects.", dir=self.path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(payload, stream, indent=2)
                stream.write("\n")
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise


def default_dialect_memory() -> DialectMemory:
    from argue.paths import ArgueHomeError, argue_home

    try:
        return DialectMemory(argue_home() / "dialects.json")
    except ArgueHomeError:
        return DialectMemory(None)
