"""A self-hosted OpenAI-style server on loopback: llama.cpp's ``llama-server`` or llama-cpp-python's
server as argue meets them, answering with the debate script of ``FakeLLM``.

What it models, from llama.cpp's ``tools/server`` (``server.cpp``: slot selection, ``cache_prompt``,
``/props``, ``/slots``) and llama-cpp-python's ``server/app.py`` and ``errors.py``:

- ``kind="llama-server"``: ``slots`` slots, each with a window of ``window`` tokens (``n_ctx`` of
  a slot in ``/props``: ``default_generation_settings.n_ctx``, ``total_slots``; ``/slots`` lists
  their ids unless ``slots_endpoint`` is off, then 501 as ``--no-slots`` answers). A request lands
  in the slot its ``id_slot`` names (waiting for it while busy), else, as llama-server chooses,
  in the idle slot whose cached prompt shares the largest fraction of the new one when that is at
  least ``prompt_similarity`` (llama-server's ``--slot-prompt-similarity``, 0.5 by default), else
  in the idle slot used least recently, else (all busy) in the one free first. A slot keeps the
  prompt of the last request it served; with ``cache_prompt`` (the request's, else
  ``cache_prompt_default``) the new request reuses the longest prefix it shares with it and
  evaluates only the rest. Replies carry llama-server's ``timings`` (``prompt_n`` evaluated,
  ``cache_n`` reused, ``predicted_n``) and ``prompt_tokens_details.cached_tokens``.
- ``kind="llama-cpp-python"``: one prompt state for everything (it reuses the longest prefix
  a request shares with the last one it evaluated), no slots, no ``/props``; ``/v1/models``
  lists the model with ``owned_by: "me"``, and a prompt at or over the window is refused with
  its HTTP 400 "This model's maximum context length is N tokens. ..." before anything runs.
- A request over its slot's window gets llama-server's 400 ("the request exceeds the available
  context size") and is counted in ``over_window``.

The prompt is the chat messages as a template joins them (role markers and text; the grammar a
schema becomes is not prompt text); tokens are ``CHARS_PER_TOKEN`` characters. Each request is
accounted in ``accounts``: its characters, the characters its slot reused, the slot. ``share``
is the fraction of request characters reused from a prefix of at least ``MIN_TOKENS`` tokens.
Busy time is modelled, not slept: a request occupies its slot for ``service_s`` from when the
slot is free, and the reply is delayed until then (the loopback server answers one request at a
time in this handler, then sleeps each reply's delay in its own thread).
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from argue.domain import DebateState
from argue.engine import DebateRunner, create_debate
from argue.llm._openai_compat import OpenAICompatModel
from argue.llm._providers import OpenAICompatProvider
from argue.llm._server_limits import ServerFacts
from argue.personas import load_catalog
from tests.e2e.fake_llm import OPENAI_PATH, FakeLLM, _openai_error
from tests.e2e.openai_cache import shared_prefix
from tests.engine.script import DebateScript
from tests.loopback import RecordedRequest, Reply

CHARS_PER_TOKEN = 4
MIN_TOKENS = 1024
QUESTION = "Is the Collatz conjecture decidable?"
EXCEEDS = "the request exceeds the available context size, try increasing it"


def prompt_text(body: dict[str, Any]) -> str:
    """The request's prompt as a chat template lays it out: each message's role and text."""
    parts = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if not isinstance(content, str):
            content = "".join(
                part.get("text", "") for part in content or [] if isinstance(part, dict)
            )
        parts.append(f"<|{message.get('role')}|>{content}")
    return "".join(parts)


@dataclass
class Slot:
    id: int
    prompt: str = ""
    free_at: float = 0.0
    used_at: float = 0.0


@dataclass
class Account:
    """One chat request as the server served it."""

    chars: int
    reused_chars: int
    slot: int
    id_slot: int | None
    cache_prompt: bool
    tokens: int
    system: str  # the first message's text: which caller sent it


class SelfHostedServer(FakeLLM):
    """``FakeLLM`` behind a llama-server or llama-cpp-python front; see the module docstring."""

    def __init__(
        self,
        script: DebateScript | None = None,
        *,
        kind: Literal["llama-server", "llama-cpp-python"] = "llama-server",
        slots: int = 4,
        window: int = 8192,
        slots_endpoint: bool = True,
        cache_prompt_default: bool = True,
        prompt_similarity: float = 0.5,
        service_s: float = 0.02,
        model: str = "gemma-3-270m",
    ) -> None:
        super().__init__(script)
        self.kind = kind
        self.window = window
        self.slots = [Slot(i) for i in range(slots if kind == "llama-server" else 1)]
        self.slots_endpoint = slots_endpoint
        self.cache_prompt_default = cache_prompt_default
        self.prompt_similarity = prompt_similarity
        self.service_s = service_s
        self.model = model
        self.accounts: list[Account] = []
        self.over_window: list[int] = []  # prompt tokens of each request refused as too long
        self.discovery: list[str] = []  # "GET /props", ...: what argue asked of the server
        self._slot_lock = threading.Lock()
        self.server.handler = self._handle_selfhosted

    # ------------------------------------------------------------ measures

    def share(self, min_tokens: int = MIN_TOKENS) -> float:
        """Request characters reused from a shared prefix of at least ``min_tokens`` tokens."""
        total = sum(a.chars for a in self.accounts)
        reused = sum(
            a.reused_chars for a in self.accounts if a.reused_chars >= min_tokens * CHARS_PER_TOKEN
        )
        return reused / total if total else 0.0

    # ------------------------------------------------------------ serving

    def _handle_selfhosted(self, request: RecordedRequest) -> Reply:
        path = request.path
        if request.method == "GET":
            self.discovery.append(f"GET {path}")
            return self._get(path)
        if path.endswith("/api/show"):
            self.discovery.append(f"POST {path}")
            return Reply(status=404, json=_openai_error("not found"))
        if request.method == "POST" and path.endswith(OPENAI_PATH):
            return self._chat(request.json())
        return self._handle(request)

    def _get(self, path: str) -> Reply:
        if path.endswith("/v1/models"):
            entry: dict[str, Any] = {"id": self.model, "object": "model"}
            entry["owned_by"] = "me" if self.kind == "llama-cpp-python" else "llamacpp"
            return Reply(json={"object": "list", "data": [entry]})
        if self.kind == "llama-server" and path == "/props":
            return Reply(
                json={
                    "default_generation_settings": {"n_ctx": self.window},
                    "total_slots": len(self.slots),
                }
            )
        if self.kind == "llama-server" and path == "/slots":
            if not self.slots_endpoint:
                return Reply(status=501, json=_openai_error("This server does not support slots"))
            return Reply(json=[{"id": s.id, "n_ctx": self.window} for s in self.slots])
        return Reply(status=404, json=_openai_error("File Not Found"))

    def _chat(self, body: dict[str, Any]) -> Reply:
        text = prompt_text(body)
        tokens = len(text) // CHARS_PER_TOKEN
        if tokens >= self.window:
            self.over_window.append(tokens)
            if self.kind == "llama-cpp-python":
                message = (
                    f"This model's maximum context length is {self.window} tokens. However, "
                    f"you requested {tokens + int(body.get('max_tokens') or 0)} tokens "
                    f"({tokens} in the messages, {body.get('max_tokens')} in the completion). "
                    "Please reduce the length of the messages or completion."
                )
                return Reply(status=400, json=_openai_error(message))
            error = _openai_error(EXCEEDS)
            error["error"].update(code=400, type="exceed_context_size_error", n_ctx=self.window)
            return Reply(status=400, json=error)
        asked = body.get("id_slot")
        cache_prompt = bool(body.get("cache_prompt", self.cache_prompt_default))
        now = time.monotonic()
        with self._slot_lock:
            slot = self._choose(text, asked if isinstance(asked, int) else None, now)
            reused = shared_prefix(text, slot.prompt) if cache_prompt else 0
            start = max(now, slot.free_at)
            slot.free_at = start + self.service_s
            slot.used_at = start
            slot.prompt = text
        messages = body.get("messages") or [{}]
        system = messages[0].get("content") if isinstance(messages[0].get("content"), str) else ""
        account = Account(
            len(text), reused, slot.id, asked, cache_prompt, tokens, str(system or "")
        )
        with self._lock:
            self.accounts.append(account)
        reply = self._openai(body)
        if isinstance(reply.json, dict) and "usage" in reply.json:
            cached = reused // CHARS_PER_TOKEN
            completion = reply.json["usage"]["completion_tokens"]
            reply.json["usage"].update(
                prompt_tokens=tokens,
                total_tokens=tokens + completion,
                prompt_tokens_details={"cached_tokens": cached},
            )
            if self.kind == "llama-server":
                reply.json["timings"] = {
                    "cache_n": cached,
                    "prompt_n": tokens - cached,
                    "predicted_n": completion,
                }
        reply.delay_s = max(0.0, slot.free_at - now)
        return reply

    def _choose(self, text: str, asked: int | None, now: float) -> Slot:
        if asked is not None and 0 <= asked < len(self.slots):
            return self.slots[asked]
        idle = [s for s in self.slots if s.free_at <= now]
        if not idle:
            return min(self.slots, key=lambda s: s.free_at)
        if self.prompt_similarity > 0 and text:

            def similarity(slot: Slot) -> float:
                return shared_prefix(text, slot.prompt) / len(text)

            best = max(idle, key=similarity)
            if similarity(best) >= self.prompt_similarity:
                return best
        return min(idle, key=lambda s: s.used_at)


def selfhosted_model(
    server: SelfHostedServer, facts: ServerFacts | None = None, slots: int = 4
) -> OpenAICompatModel:
    """argue's OpenAI-compatible adapter at the server's base URL, as ``OPENAI_BASE_URL`` makes it
    (not api.openai.com: no key, no ``prompt_cache_key``); ``facts`` given skips discovery."""
    return OpenAICompatModel(
        server.model,
        provider=OpenAICompatProvider(name="openai", base_url=f"{server.url}/v1"),
        max_concurrency=slots,
        server_facts=facts,
    )


def run_selfhosted_debate(
    folder: Path,
    personas: list[str],
    rounds: int,
    model: OpenAICompatModel,
    toolkit: Any,
) -> tuple[DebateState, list[str]]:
    """The debate under ``folder`` through ``model``, to its end; and what the terminal was told
    of the model (its ``dialect_notes``)."""
    catalog = load_catalog()
    lineup = [catalog.get(name) for name in personas]
    store = create_debate(
        folder,
        question=QUESTION,
        mode="panel" if len(lineup) > 2 else "adversarial",
        personas=lineup,
        max_rounds=rounds,
        provider="openai",
        model=model.model,
    )
    if hasattr(toolkit, "model"):
        toolkit.model = model

    async def debate() -> DebateState:
        try:
            return await DebateRunner(store, model, toolkit).run()
        finally:
            await model.aclose()

    return asyncio.run(debate()), list(model.dialect_notes)


PERSONA_MARK = re.compile(r"You are ([^,\n]+), taking part in a structured debate")


@dataclass
class Figures:
    requests: int
    share: float
    max_tokens: int
    window: int
    over_window: int
    slots_by_persona: dict[str, set[int | None]] = field(default_factory=dict)


def figures(server: SelfHostedServer) -> Figures:
    by_persona: dict[str, set[int | None]] = {}
    for account in server.accounts:
        named = PERSONA_MARK.search(account.system)
        if named:
            by_persona.setdefault(named.group(1), set()).add(account.id_slot)
    return Figures(
        requests=len(server.accounts),
        share=server.share(),
        max_tokens=max((a.tokens for a in server.accounts), default=0),
        window=server.window,
        over_window=len(server.over_window),
        slots_by_persona=by_persona,
    )
