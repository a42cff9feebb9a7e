"""How long and how hard argue talks to one provider: flags > environment > config > defaults.

Hosted APIs (api.openai.com, api.anthropic.com) and self-hosted servers (llama.cpp, vLLM,
Ollama, LM Studio behind a base URL) get different defaults: a self-hosted server is often one
slow slot that keeps computing a request argue stopped waiting for, so it gets longer timeouts
and timed-out requests are not sent again.

config.toml::

    [providers.openai]              # the provider name: anthropic, openai, ollama
    request_timeout_s = 900         # one HTTP request
    call_deadline_s = 1200          # one call, its retries and waits included
    max_attempts = 2
    slots = 1                       # requests in flight at once (a one-slot server: 1)
    retry_timeouts = false
    structured_output = "json_object_schema"   # or auto, json_schema, json_object, text
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, TypeGuard

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from argue.llm._dialects import DIALECT_ENV, Dialect
from argue.llm._retry import RetryPolicy
from argue.llm.base import ProviderNotConfigured

HOSTED_DEFAULTS = RetryPolicy()
SELF_HOSTED_DEFAULTS = RetryPolicy(
    max_attempts=3, max_total_s=900.0, request_timeout_s=600.0, retry_timeouts=False
)
ENV_NAMES: dict[str, str] = {
    "request_timeout_s": "ARGUE_REQUEST_TIMEOUT_S",
    "call_deadline_s": "ARGUE_CALL_DEADLINE_S",
    "max_attempts": "ARGUE_MAX_ATTEMPTS",
    "slots": "ARGUE_MAX_CONCURRENCY",
    "retry_timeouts": "ARGUE_RETRY_TIMEOUTS",
    "structured_output": DIALECT_ENV,
}


class ServerLimits(BaseModel):
    """Each field None means "not said here": the next source down decides. config.toml's
    ``[providers.<name>]`` arrives as ``argue.config.ProviderLimits`` (the same fields)."""

    model_config = ConfigDict(extra="forbid")

    request_timeout_s: float | None = Field(default=None, gt=0)
    call_deadline_s: float | None = Field(default=None, gt=0)
    max_attempts: int | None = Field(default=None, ge=1, le=20)
    slots: int | None = Field(default=None, ge=1, le=256)
    retry_timeouts: bool | None = None
    structured_output: Dialect | Literal["auto"] | None = None

    def over(self, *lower: BaseModel | None) -> ServerLimits:
        """These limits, with each field left None taken from ``lower`` (first says first):
        ServerLimits or config's ProviderLimits, records with the same fields."""
        merged = self.model_dump()
        for other in lower:
            if other is None:
                continue
            for key, value in other.model_dump().items():
                if merged[key] is None:
                    merged[key] = value
        return ServerLimits.model_validate(merged)

    def retry_policy(self, self_hosted: bool) -> RetryPolicy:
        base = SELF_HOSTED_DEFAULTS if self_hosted else HOSTED_DEFAULTS
        deadline = self.call_deadline_s or base.max_total_s
        timeout = self.request_timeout_s or base.request_timeout_s
        return RetryPolicy(
            max_attempts=self.max_attempts or base.max_attempts,
            max_total_s=max(deadline, timeout),
            request_timeout_s=timeout,
            retry_timeouts=(
                base.retry_timeouts if self.retry_timeouts is None else self.retry_timeouts
            ),
        )

    @property
    def dialect(self) -> Dialect | None:
        value = self.structured_output
        return None if value is None or value == "auto" else value


def limits_from_env(env: Mapping[str, str]) -> ServerLimits:
    """The ``ARGUE_*`` limit variables; a bad value is a ProviderNotConfigured naming it."""
    raw: dict[str, object] = {}
    for field, name in ENV_NAMES.items():
        value = (env.get(name) or "").strip()
        if value:
            raw[field] = value.lower().replace("+", "_") if field == "structured_output" else value
    try:
        return ServerLimits.model_validate(raw)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        name = ENV_NAMES.get(field, field)
        raise ProviderNotConfigured(
            f"{name}={env.get(name)!r}: {first['msg']}{_choices(field)}"
        ) from None


def _choices(field: str) -> str:
    if field == "structured_output":
        return " (auto, json_schema, json_object_schema, json_object or text)"
    return ""


# ---------------------------------------------------------------- what a server says of itself

# A prompt this long in tokens (one short word each) passes any window a server may have: what
# llama-cpp-python's server rejects at once, naming its window, before it evaluates anything.
OVERSIZE_WORDS = 300_000
_WINDOW_SAID = re.compile(r"maximum context length is (\d+) tokens")
DISCOVERY_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class ServerFacts:
    """What a self-hosted OpenAI-style server said of itself when asked (``discover_server``).

    ``window``: the tokens one request may hold (a llama-server slot's ``n_ctx``), None when
    the server did not say; ``said_by``: where it said so, in words for doctor and notes;
    ``kind``: which server it showed itself to be ("llama-server", "llama-cpp-python",
    "vllm", "ollama", or "" when none did); ``slots``: the ids a request may name in
    ``id_slot`` (llama-server only; empty elsewhere)."""

    window: int | None = None
    said_by: str = ""
    kind: str = ""
    slots: tuple[int, ...] = ()

    @property
    def is_llama_server(self) -> bool:
        return self.kind == "llama-server"

    @property
    def one_state(self) -> bool:
        """Whether the server keeps one KV state for every request: llama-cpp-python's server
        (it reuses only the prefix a request shares with the last one it evaluated), or a
        llama-server with a single slot."""
        return self.kind == "llama-cpp-python" or (self.is_llama_server and len(self.slots) == 1)


NOT_TOLD = ServerFacts(said_by="the server does not say (asked /models, /props, /api/show)")


def discover_server(
    base_url: str,
    model: str,
    api_key: str = "",
    timeout_s: float = DISCOVERY_TIMEOUT_S,
    oversize_probe: bool = True,
) -> ServerFacts:
    """Ask a self-hosted server its window and slots, as ``argue doctor`` does; never raises.

    In order: vLLM's ``max_model_len`` in ``/models``; llama.cpp ``llama-server``'s ``/props``
    (``n_ctx`` of a slot, ``total_slots``) and ``/slots`` (their ids); Ollama's ``/api/show``
    (``num_ctx``); and, only for a server whose ``/models`` shows llama-cpp-python's mark
    (``owned_by: "me"``) and ``oversize_probe``, one chat request far longer than any window,
    which that server refuses before evaluating it, in words that name its window. Anything
    else (no answer, not JSON, another shape) is "not told"."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    base = base_url.rstrip("/")
    root = base.removesuffix("/v1")
    listing = _get_json(f"{base}/models", headers, timeout_s)
    entries = listing.get("data") if isinstance(listing, dict) else None
    entries = [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    mine = [e for e in entries if e.get("id") == model] or (entries if len(entries) == 1 else [])
    for entry in mine:
        for key in ("max_model_len", "context_length", "max_context_length"):
            if _positive_int(entry.get(key)):
                return ServerFacts(entry[key], f"{key} in /models", "vllm")
    props = _get_json(f"{root}/props", headers, timeout_s)
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        n_ctx = n_ctx if _positive_int(n_ctx) else props.get("n_ctx")
        if _positive_int(n_ctx):
            return _llama_server_facts(root, headers, timeout_s, n_ctx, props.get("total_slots"))
    shown = _post_json(f"{root}/api/show", {"model": model, "name": model}, headers, timeout_s)
    if isinstance(shown, dict) and isinstance(shown.get("model_info"), dict):
        num_ctx = _num_ctx(shown.get("parameters"))
        if num_ctx:
            return ServerFacts(num_ctx, "num_ctx in Ollama's /api/show", "ollama")
        return replace(NOT_TOLD, kind="ollama")
    if oversize_probe and any(e.get("owned_by") == "me" for e in mine):
        return llama_cpp_python_window(base, model, headers, timeout_s)
    return NOT_TOLD


def _llama_server_facts(
    root: str, headers: dict[str, str], timeout_s: float, n_ctx: int, total: object
) -> ServerFacts:
    """llama-server's window and the slot ids ``/slots`` lists (it may be switched off, then
    ``total_slots`` from ``/props`` numbers them: ids run from 0)."""
    listed = _get_json(f"{root}/slots", headers, timeout_s)
    ids: list[int] = []
    if isinstance(listed, list):
        ids = [s["id"] for s in listed if isinstance(s, dict) and _natural(s.get("id"))]
    if not ids and _positive_int(total):
        ids = list(range(total))
    said = "n_ctx in /props" + (f"; {len(ids)} slot(s)" if ids else "")
    return ServerFacts(n_ctx, said, "llama-server", tuple(sorted(set(ids))))


def llama_cpp_python_window(
    base: str, model: str, headers: dict[str, str], timeout_s: float
) -> ServerFacts:
    """The window llama-cpp-python's server names when it refuses a prompt longer than any
    window (it checks the length before evaluating anything); "not told" otherwise."""
    body = {
        "model": model,
        "messages": [{"role": "user", "content": " the" * OVERSIZE_WORDS}],
        "max_tokens": 1,
    }
    said = _post_json(f"{base}/chat/completions", body, headers, timeout_s, errors=True)
    error = said.get("error") if isinstance(said, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    found = _WINDOW_SAID.search(message) if isinstance(message, str) else None
    if found is None:
        return replace(NOT_TOLD, kind="llama-cpp-python")
    window = int(found.group(1))
    return ServerFacts(window, "the server's refusal of an over-long prompt", "llama-cpp-python")


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not a place to go: urllib would resend the key there."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _opener() -> urllib.request.OpenerDirector:
    # A loopback or LAN server: never through a proxy from the environment, never elsewhere.
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects())


def _get_json(url: str, headers: dict[str, str], timeout_s: float) -> Any:
    request = urllib.request.Request(url, headers=headers)
    return _read_json(request, timeout_s)


def _post_json(
    url: str, body: object, headers: dict[str, str], timeout_s: float, errors: bool = False
) -> Any:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode("utf-8"),
        headers={**headers, "Content-Type": "application/json"},
        method="POST",
    )
    return _read_json(request, timeout_s, errors)


MAX_DISCOVERY_BYTES = 1 << 20


def _read_json(request: urllib.request.Request, timeout_s: float, errors: bool = False) -> Any:
    """The JSON a request answers (an error status's body too when ``errors``), or None."""
    try:
        with _opener().open(request, timeout=timeout_s) as response:
            raw = response.read(MAX_DISCOVERY_BYTES + 1)
    except urllib.error.HTTPError as error:
        if not errors:
            return None
        try:
            raw = error.read(MAX_DISCOVERY_BYTES + 1)
        except OSError:
            return None
    except (OSError, ValueError):
        return None
    if len(raw) > MAX_DISCOVERY_BYTES:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def _positive_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _natural(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _num_ctx(parameters: object) -> int | None:
    lines = parameters.splitlines() if isinstance(parameters, str) else []
    found = [w[1] for w in map(str.split, lines) if len(w) == 2 and w[0] == "num_ctx"]
    return int(found[0]) if found and found[0].isdigit() else None
