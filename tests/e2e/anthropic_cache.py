"""Anthropic's prompt cache as its documentation describes it, for the loopback fake.

What a Messages API request reads from and writes to the cache follows from its blocks alone
(https://docs.claude.com/en/docs/build-with-claude/prompt-caching):

- The prefix is, in order, ``tools``, ``system``, ``messages``; each text block is one unit. The
  output format (``output_config``) and ``tool_choice`` key the cache too: a request whose
  schema differs shares nothing with an earlier one.
- An entry is written at each block carrying ``cache_control`` (at most four a request) whose
  prefix is at least ``MIN_TOKENS`` long; a shorter breakpoint caches nothing.
- A hit is an entry an earlier request wrote for exactly the same blocks. The API looks for one
  at each breakpoint and at the block boundaries up to ``LOOKBACK`` blocks before it, and reads
  the longest it finds. A block whose text grew is a different block: nothing inside it hits.
- ``cache_read_input_tokens`` is the hit's length, ``cache_creation_input_tokens`` what lies
  between it and the last breakpoint, ``input_tokens`` the rest.

Tokens are estimated at four characters each, as argue's own cache estimates are.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from typing import Any, ClassVar

MIN_TOKENS = 1024
LOOKBACK = 20
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class CacheUsage:
    input_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int


def request_blocks(body: dict[str, Any]) -> list[tuple[str, int, bool]]:
    """The request as (block key, tokens, carries cache_control), in cache order. The first
    block stands for what keys the cache without being text: tools and the output format."""
    keyed = {k: body.get(k) for k in ("tools", "tool_choice", "output_config", "model")}
    blocks = [(json.dumps(keyed, sort_keys=True), 0, False)]
    for tool in body.get("tools") or []:
        text = json.dumps(tool, sort_keys=True)
        blocks.append((text, len(text) // CHARS_PER_TOKEN, "cache_control" in tool))
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    for block in system:
        blocks.append(_text_block("system", block))
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            blocks.append(_text_block(message["role"], block))
    return blocks


def _text_block(role: str, block: dict[str, Any]) -> tuple[str, int, bool]:
    text = str(block.get("text", json.dumps(block, sort_keys=True)))
    return (f"{role}\x00{text}", len(text) // CHARS_PER_TOKEN, "cache_control" in block)


@dataclass
class AnthropicPromptCache:
    """Entries written so far (prefix digests); ``account`` answers one request's usage."""

    entries: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def account(self, body: dict[str, Any]) -> CacheUsage:
        blocks = request_blocks(body)
        digests: list[str] = []
        running = hashlib.sha256()
        ends: list[int] = []  # tokens up to and including each block
        total = 0
        for key, tokens, _ in blocks:
            running.update(hashlib.sha256(key.encode()).digest())
            digests.append(running.copy().hexdigest())
            total += tokens
            ends.append(total)
        points = [i for i, (_, _, flagged) in enumerate(blocks) if flagged]
        with self._lock:
            read_end = -1
            for point in points:
                for index in range(point, max(point - LOOKBACK, 0) - 1, -1):
                    if digests[index] in self.entries:
                        read_end = max(read_end, index)
                        break
            written = [p for p in points if ends[p] >= MIN_TOKENS]
            for point in written:
                self.entries.add(digests[point])
        read = ends[read_end] if read_end >= 0 else 0
        last_write = max((ends[p] for p in written), default=0)
        write = max(last_write - read, 0)
        return CacheUsage(
            input_tokens=max(total - read - write, 0),
            cache_read_input_tokens=read,
            cache_creation_input_tokens=write,
        )


# ------------------------------------------------------------ structured outputs' schemas
# What ``output_config.format`` takes, as the structured-outputs documentation lists it
# (https://platform.claude.com/docs/en/build-with-claude/structured-outputs, "JSON Schema
# limitations"; the SDK's ``transform_schema`` writes only these): other keywords (minimum,
# maxLength, maxItems, pattern properties, ...) are refused with a 400, as are an object that
# does not close itself (``additionalProperties: false``), ``minItems`` other than 0 or 1, a
# recursive ``$ref`` and a root that is not an object. A schema is also refused past the
# documented complexity limits: optional properties and properties that are unions (``anyOf``
# or a list of types), counted over the whole schema.

SUPPORTED_KEYWORDS = frozenset(
    {
        "type",
        "description",
        "title",
        "enum",
        "const",
        "default",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "minItems",
        "anyOf",
        "allOf",
        "$ref",
        "$defs",
        "definitions",
        "format",
    }
)
STRING_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
)
MAX_OPTIONAL_PROPERTIES = 24
MAX_UNION_PROPERTIES = 16


def schema_rejection(schema: Any) -> str | None:
    """The 400 message the API gives for ``output_config.format.schema``, None when it takes it."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return "output_config.format.schema: the root schema must be of type 'object'"
    problems: list[str] = []
    counts = {"optional": 0, "union": 0}
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}

    def walk(node: Any, where: str, refs: tuple[str, ...]) -> None:
        if not isinstance(node, dict):
            problems.append(f"{where}: a schema must be an object")
            return
        for key in node:
            if key not in SUPPORTED_KEYWORDS:
                problems.append(f"{where}: '{key}' is not supported")
        if "$ref" in node:
            ref = str(node["$ref"])
            name = ref.rsplit("/", 1)[-1]
            if not ref.startswith(("#/$defs/", "#/definitions/")) or name not in defs:
                problems.append(f"{where}: only local $ref are supported ({ref})")
            elif name in refs:
                problems.append(f"{where}: recursive schemas are not supported ({ref})")
            else:
                walk(defs[name], f"#/$defs/{name}", (*refs, name))
            return
        kind = node.get("type")
        if "enum" in node and not all(
            v is None or isinstance(v, str | int | float | bool) for v in node["enum"]
        ):
            problems.append(f"{where}: enum values must be strings, numbers, booleans or null")
        if kind == "object":
            if node.get("additionalProperties") is not False:
                problems.append(
                    f"{where}: for 'object' type, 'additionalProperties' must be explicitly "
                    "set to false"
                )
            properties = node.get("properties", {})
            required = set(node.get("required", []))
            for key, prop in properties.items():
                if key not in required:
                    counts["optional"] += 1
                if isinstance(prop, dict) and (
                    "anyOf" in prop or isinstance(prop.get("type"), list)
                ):
                    counts["union"] += 1
                walk(prop, f"{where}.{key}", refs)
        if kind == "string" and "format" in node and node["format"] not in STRING_FORMATS:
            problems.append(f"{where}: string format '{node['format']}' is not supported")
        if "minItems" in node and node["minItems"] not in (0, 1):
            problems.append(f"{where}: minItems values other than 0 or 1 are not supported")
        if isinstance(node.get("items"), dict):
            walk(node["items"], f"{where}[]", refs)
        for combinator in ("anyOf", "allOf"):
            for index, option in enumerate(node.get(combinator, [])):
                walk(option, f"{where}.{combinator}[{index}]", refs)

    walk({k: v for k, v in schema.items() if k not in ("$defs", "definitions")}, "#", ())
    if problems:
        return "output_config.format.schema: " + "; ".join(dict.fromkeys(problems))
    if counts["optional"] > MAX_OPTIONAL_PROPERTIES:
        return (
            f"output_config.format.schema: too many optional parameters ({counts['optional']}; "
            f"at most {MAX_OPTIONAL_PROPERTIES})"
        )
    if counts["union"] > MAX_UNION_PROPERTIES:
        return (
            "output_config.format.schema: too many parameters with union types "
            f"({counts['union']}; at most {MAX_UNION_PROPERTIES})"
        )
    return None


class DecodedSchema:
    """A structured-output schema as a decoder held to it writes: :meth:`refuses` says where a
    value breaks it, :meth:`decoded` keeps only the keys it offers (a model held to the schema
    never writes another: a draft's hidden fields, ``evidence_ids``, stay out), taking the
    union branch that keeps most of the value, and writes a required list or string the value
    leaves out as empty (the grammar makes the model write the key; the scripted answer's
    default is that empty value). Any other required key left out stays out, for
    :meth:`refuses` to report."""

    TYPES: ClassVar[dict[str, Any]] = {
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "null": lambda v: v is None,
    }

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self.defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}

    def _resolved(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = self.defs[str(node["$ref"]).rsplit("/", 1)[-1]]
        return node

    def refuses(self, value: Any) -> list[str]:
        return self._check(self.schema, value, "$")

    def decoded(self, value: Any) -> Any:
        return self._prune(self.schema, value)

    def _check(self, node: dict[str, Any], item: Any, where: str) -> list[str]:
        node = self._resolved(node)
        if "anyOf" in node:
            tried = [self._check(option, item, where) for option in node["anyOf"]]
            if all(tried):
                return [f"{where}: matches none of anyOf ({min(tried, key=len)[0]})"]
        problems = [p for option in node.get("allOf", []) for p in self._check(option, item, where)]
        kinds = node.get("type")
        if kinds is not None:
            wanted = kinds if isinstance(kinds, list) else [kinds]
            if not any(self.TYPES[kind](item) for kind in wanted):
                return [*problems, f"{where}: not of type {kinds}"]
        if "enum" in node and item not in node["enum"]:
            problems.append(f"{where}: {item!r} is not one of {node['enum']}")
        if "const" in node and item != node["const"]:
            problems.append(f"{where}: {item!r} is not {node['const']!r}")
        if isinstance(item, dict) and "properties" in node:
            properties = node["properties"]
            for key in node.get("required", []):
                if key not in item:
                    problems.append(f"{where}.{key} is required")
            for key, sub in item.items():
                if key in properties:
                    problems += self._check(properties[key], sub, f"{where}.{key}")
                elif node.get("additionalProperties") is False:
                    problems.append(f"{where}.{key} is not allowed")
        if isinstance(item, list):
            if len(item) < node.get("minItems", 0):
                problems.append(f"{where}: fewer than {node['minItems']} items")
            if isinstance(node.get("items"), dict):
                for index, sub in enumerate(item):
                    problems += self._check(node["items"], sub, f"{where}[{index}]")
        return problems

    def _prune(self, node: dict[str, Any], item: Any, fill: bool = True) -> Any:
        node = self._resolved(node)
        if "anyOf" in node:  # the branch that keeps most of the value, then fits it best
            options = node["anyOf"]
            kept = [self._prune(option, item, fill=False) for option in options]
            written = [self._prune(option, item, fill) for option in options]
            best = min(
                range(len(options)),
                key=lambda i: (-_keys(kept[i]), len(self._check(options[i], written[i], "$"))),
            )
            return written[best]
        properties = node.get("properties")
        if isinstance(item, dict) and isinstance(properties, dict):
            kept = {
                k: self._prune(properties[k], v, fill) for k, v in item.items() if k in properties
            }
            for key in node.get("required", []) if fill else []:
                kind = self._resolved(properties.get(key, {})).get("type")
                if key not in kept and kind in ("array", "string"):  # written, if empty
                    kept[key] = [] if kind == "array" else ""
            return kept
        if isinstance(item, list) and isinstance(node.get("items"), dict):
            return [self._prune(node["items"], sub, fill) for sub in item]
        return item


def _keys(value: Any) -> int:
    """How many object keys ``value`` holds, at every depth."""
    if isinstance(value, dict):
        return len(value) + sum(_keys(v) for v in value.values())
    if isinstance(value, list):
        return sum(_keys(v) for v in value)
    return 0
