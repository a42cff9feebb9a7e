"""OpenAI's automatic prompt cache as its documentation describes it, for the loopback fake.

(https://platform.openai.com/docs/guides/prompt-caching)

- The prompt is, in order, the tools and the response format (a structured-output schema is a
  prefix of the system message), then the messages: role and text each.
- A request of at least ``MIN_TOKENS`` tokens reads the longest prefix it shares with an
  earlier request routed to the same cache (the same ``prompt_cache_key``, or none), counted
  from ``MIN_TOKENS`` in steps of ``STEP_TOKENS``: ``cached_tokens`` in the usage. There is no
  write premium: what is not read costs the input price.

Tokens are estimated at four characters each, as argue's own cache estimates are.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

MIN_TOKENS = 1024
STEP_TOKENS = 128
CHARS_PER_TOKEN = 4


def prompt_text(body: dict[str, Any]) -> str:
    """The request as one text, in the order the cache sees it."""
    head = json.dumps(
        {k: body.get(k) for k in ("tools", "response_format", "model")}, sort_keys=True
    )
    parts = [head]
    for message in body.get("messages") or []:
        content = message.get("content")
        if not isinstance(content, str):
            content = "".join(
                part.get("text", "") for part in content or [] if isinstance(part, dict)
            )
        parts.append(f"<|{message.get('role')}|>{content}")
    return "".join(parts)


def shared_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``, by bisection on slices."""
    n = min(len(a), len(b))
    low, high = 0, n
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


@dataclass
class OpenAIPromptCache:
    """Earlier prompts by cache key; ``account`` answers (prompt tokens, cached tokens)."""

    earlier: dict[str, list[str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def account(self, body: dict[str, Any]) -> tuple[int, int]:
        text = prompt_text(body)
        tokens = len(text) // CHARS_PER_TOKEN
        key = str(body.get("prompt_cache_key") or "")
        with self._lock:
            seen = self.earlier.setdefault(key, [])
            shared = max((shared_prefix(text, e) for e in seen), default=0) // CHARS_PER_TOKEN
            if tokens >= MIN_TOKENS:
                seen.append(text)
        if shared < MIN_TOKENS:
            return tokens, 0
        return tokens, MIN_TOKENS + (shared - MIN_TOKENS) // STEP_TOKENS * STEP_TOKENS
