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
from typing import Any

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
