"""Wire adapter for OpenAI-style ``chat.completions`` (AsyncOpenAI).

One adapter serves OpenAI, Ollama, vLLM, the llama.cpp servers and LM Studio; the provider
object says where. Structured output is negotiated (``argue.llm._dialects``): the adapter starts
with the dialect remembered for this server and model (else ``json_schema``), and a deterministic
rejection of it (a 4xx, or a 5xx whose body names response_format / the schema / the grammar, or
a connection the server dropped on a request carrying a schema) steps down to the next dialect.
Only a rejection that came with an HTTP status is remembered in ``dialects.json``: a dropped
connection (a server that died answering, or closed one connection) steps down for this instance
only, since it may say nothing about the dialect. Each step is kept in ``dialect_notes`` in plain
words.

OpenAI's reasoning models (gpt-5*, o-series) want ``max_completion_tokens``, refuse any
temperature but the default, and get ``reasoning_effort`` ("low" unless told otherwise, so the
thinking leaves room for the answer). At api.openai.com that is known from the name; behind
another base URL (a proxy) the 400 that says so switches this instance over, once. A reply
cut off by the limit (finish_reason "length") is retried with a larger one by the base class.

Prompt caching (issue #23): these servers cache prefixes on their own; a request with a
``cache_point`` helps them. It carries, for api.openai.com, a ``prompt_cache_key`` per persona
(``argue-`` and the start of the sha256 of its system text: requests with the same key go to
the same cache), and, for a llama.cpp llama-server (known by the ``timings`` object in its
replies, so only from its second call on), ``cache_prompt: true`` (reuse the slot's KV cache for
the common prefix; llama-server's default since late 2024, sent for older ones). Nothing of the
sort goes to other servers (vLLM, LM Studio, Ollama, llama-cpp-python's server), which may
refuse unknown fields. A schema written into the prompt goes after the last cache point (the
end of the last user message), not first, where it would change every prefix at token 0.
OpenAI's cache also keys on a ``json_schema`` response format (the schema is a prefix of the
system message), and argue's schemas vary per call (evidence-id enums), so at api.openai.com a
request whose prefix up to its last cache point is long enough to be cached
(``CACHE_MIN_TOKENS``, estimated at ``CHARS_PER_TOKEN``) asks with ``json_object`` and the
schema in the prompt instead: a cached prefix is read at a tenth of the input price, while
API-enforced decoding buys little that argue lacks, since it validates every answer and re-asks
once anyway. A forced dialect (``ARGUE_STRUCTURED_OUTPUT``) is kept as it is. A schema the
system text already shows (``_structured.schema_shown``: the engine's phase guide) is not
written into the prompt again.

Self-hosted servers (issue #43): when the engine first asks a self-hosted model its window
(``context_window``), the adapter asks the server once (``_server_limits.discover_server``, as
``argue doctor`` does: vLLM's ``/models``, llama-server's ``/props`` and ``/slots``, Ollama's
``/api/show``, llama-cpp-python's refusal of an over-long prompt). A window of at least
``GUIDED_MIN_WINDOW`` tokens on a server that keeps a state per persona (llama-server with
enough slots, vLLM's prefix cache) gets the hosted APIs' stable-prefix layout: the phase guide
(the same for every persona) at the start of each persona's system text, a record sized from
the window; a smaller or unknown window keeps the instructions in each request. A server with
one KV state for all (llama-cpp-python's, a one-slot llama-server) keeps them there too, since
personas alternating on one state evaluate each other's prefix again at every switch; there
one request at a time goes, the one sharing most with the last sent first (``OneStateGate``).
On llama-server, ``cache_prompt: true`` goes with every request that has a cache point, and each
persona gets a slot of its own in ``id_slot``, in seat order (``seat_persona``; a persona not
seated, in the order it first asks): its KV cache then holds that persona's prefix from one
request to the next instead of another persona's. With ``n`` slots, ``n - 1`` personas get one
each and the rest share the last one with the requests that have no cache point (framing,
judge, synthesis); a persona without a slot of its own (or llama-cpp-python's one prompt
state) is said once, in ``dialect_notes``: personas share slots. Nothing is asked of the server
before the engine wants the window (adapter-only callers never see a discovery request), and
nothing of the sort is sent to api.openai.com.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from argue.concurrency import cede
from argue.domain import Usage
from argue.llm._adapter import (
    CallSettings,
    EarlierBills,
    SDKAdapter,
    cached_prefix_chars,
    has_cache_point,
    sdk_body,
    unreadable_body,
    with_text_last,
    with_unanswered,
)
from argue.llm._batch_route import in_batch
from argue.llm._dialects import (
    DIALECT_WORDS,
    Dialect,
    DialectMemory,
    compact_schema,
    names_structured_output,
    next_dialect,
)
from argue.llm._providers import OpenAICompatProvider
from argue.llm._retry import RetryPolicy, Sleep
from argue.llm._secrets import masked_error
from argue.llm._server_limits import ServerFacts, discover_server
from argue.llm._structured import (
    ContextCut,
    RawReply,
    schema_instruction,
    schema_shown,
    tool_name_for,
)
from argue.llm.base import (
    Message,
    ModelOutputError,
    ModelRefusalError,
    ModelRequestError,
    ModelServerDiedError,
    bill,
    billed_answers,
)
from argue.llm.pricing import PriceTable
from argue.text.refusal import first_words

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletion


_REASONING_MODEL_PREFIXES = ("gpt-5", "o1", "o3", "o4")
DEFAULT_REASONING_EFFORT = "low"
SELF_HOSTED_WINDOW = 4096
# The smallest window (tokens) a self-hosted server gets the stable-prefix layout in: a persona's
# system text with every phase's guide (about 1,700 tokens), a record of a quarter of the window,
# the round's material and claims, and room for the answer.
GUIDED_MIN_WINDOW = 8192
# The shortest prompt OpenAI caches (then in steps of 128 tokens).
CACHE_MIN_TOKENS = 1024
# How the prefix length is estimated from its text (no tokenizer call per request).
CHARS_PER_TOKEN = 4
# What a prompt_cache_key starts with; the rest is the start of the system text's sha256.
PROMPT_CACHE_KEY_PREFIX = "argue-"
# How the note that personas share a server's KV state starts (in ``dialect_notes``, told on the
# terminal; never a dialect's reason in dialects.json).
SHARED_SLOTS = "personas share slots"


def is_reasoning_model(model: str) -> bool:
    return model.startswith(_REASONING_MODEL_PREFIXES)


class OpenAICompatModel(SDKAdapter[OpenAICompatProvider, "AsyncOpenAI", "ChatCompletion"]):
    def __init__(
        self,
        model: str,
        *,
        provider: OpenAICompatProvider,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 4,
        sleep: Sleep = asyncio.sleep,
        prices: PriceTable | None = None,
        clock: Callable[[], float] = time.monotonic,
        reasoning_effort: str | None = DEFAULT_REASONING_EFFORT,
        dialects: DialectMemory | None = None,
        dialect: Dialect | None = None,
        dialect_setting: str = "",
        server_facts: ServerFacts | None = None,
    ) -> None:
        super().__init__(model, provider, retry, max_concurrency, sleep, prices, clock)
        # What a self-hosted server says of itself: given, or asked once when the engine first
        # wants the window (``server_facts``); api.openai.com is never asked.
        self._facts: ServerFacts | None = server_facts
        if provider.official_openai:
            self._facts = ServerFacts()
        self._facts_lock = threading.Lock()
        # Each persona's llama-server slot, by the sha256 of its system text (in seat order).
        self._slots_by_caller: dict[str, int] = {}
        self._shared_slots_told = False
        self._gate: OneStateGate | None = None
        self._dialect_memory = dialects or DialectMemory(None)
        self.dialect_forced = dialect is not None
        self._dialect_setting = dialect_setting  # the setting that forced it, to name in errors
        remembered = None if dialect else self._dialect_memory.get(provider.base_url, model)
        self.dialect: Dialect = dialect or (remembered.dialect if remembered else "json_schema")
        # What dialects.json may hold: where HTTP-status rejections led (a dropped connection
        # moves ``dialect`` for this instance only), and the words that say why.
        self._starting_dialect: Dialect = self.dialect
        self._lasting_dialect: Dialect = self.dialect
        self._lasting_reason = "accepted"
        self.dialect_notes: list[str] = []
        if remembered is not None and remembered.dialect != "json_schema":
            self.dialect_notes.append(
                f"structured output: {DIALECT_WORDS[self.dialect]}, remembered for this server "
                f"({remembered.reason})"
            )
        self._reasoning_effort = reasoning_effort
        # OpenAI's own API wants max_completion_tokens (reasoning models reject max_tokens);
        # compatible servers (Ollama, vLLM, llama.cpp, LM Studio) know max_tokens.
        self.uses_max_completion_tokens = provider.official_openai
        self.sends_temperature = True
        self.sends_reasoning_effort = False
        if provider.official_openai and is_reasoning_model(model):
            self._use_reasoning_parameters()
        # Set once a reply shows llama-server's ``timings``: then ``cache_prompt`` is sent.
        self.is_llama_server = False
        # At api.openai.com, a long cached prefix gets the schema in the prompt (json_object)
        # rather than in the json_schema response format; off after a rejection of that.
        self.schema_in_prompt_when_cached = provider.official_openai

    def __repr__(self) -> str:
        return (
            f"OpenAICompatModel(provider={self.provider!r}, model={self.model!r}, "
            f"base_url={self._connection.base_url!r})"
        )

    @property
    def reads_schemas_from_prompt(self) -> bool:
        """Whether the engine puts every phase's instruction and answer format in a persona's
        system text (:func:`argue.engine.prompts.phase_guide`), the stable-prefix layout.

        At api.openai.com (dialect not forced) requests with a long cached prefix take their
        schema from the prompt. Fixed for the instance's life: after a rejected json_object
        (``schema_in_prompt_when_cached`` off) the guide stays, harmless beside a schema on
        the wire, so a persona's system text, and its prompt cache key, do not change
        mid-debate or on resume. A self-hosted server gets it when its window, as it says it
        (``server_facts``), holds ``GUIDED_MIN_WINDOW`` tokens: the schema still goes on the
        wire (a grammar there), and the guide moves the instructions into the prefix its KV
        cache keeps."""
        if self._connection.official_openai:
            return not self.dialect_forced
        facts = self.server_facts
        if facts.one_state:
            # Personas alternate on one state: each switch evaluates the other's whole prefix
            # again, and the guide only makes it longer (measured: bench/selfhosted_share.py).
            return False
        return facts.window is not None and facts.window >= GUIDED_MIN_WINDOW

    @property
    def guide_first(self) -> bool:
        """Whether a persona's system text starts with the phase guide (the same for every
        persona) rather than ending with it, when it has the guide: for a self-hosted server,
        whose cache may be shared between personas (vLLM's prefix cache; a llama-server slot
        that two personas share, where a request reuses only the prefix it shares with the
        slot's last prompt). A hosted API caches each persona's prefix apart (OpenAI by its
        ``prompt_cache_key``) and keeps today's order."""
        return not self._connection.official_openai

    @property
    def context_window(self) -> int | None:
        """Tokens a request may hold, for sizing each persona's record: unknown at OpenAI (its
        models' windows dwarf argue's prompts); a self-hosted server's as it says it (a
        llama-server slot's ``n_ctx``), else a small one is assumed (Ollama's default and many
        llama.cpp servers hold 4,096)."""
        if self._connection.official_openai:
            return None
        return self.server_facts.window or SELF_HOSTED_WINDOW

    @property
    def server_facts(self) -> ServerFacts:
        """What the server said of itself, asked once (``discover_server``, bounded by a few
        seconds; never raises). A blocking call, made when the engine first seats the
        personas, before any persona request is in flight."""
        with self._facts_lock:
            if self._facts is None:
                connection = self._connection
                self._facts = discover_server(connection.base_url, self.model, connection.api_key)
            return self._facts

    def seat_persona(self, system_text: str) -> None:
        """Give the persona whose system text this is a llama-server slot, in seat order (the
        engine seats every persona before its first request, each round; a persona seated
        before keeps its slot). With ``n`` slots the first ``n - 1`` personas get one each and
        the rest share the last, with the requests that have no cache point (framing, judge,
        synthesis), which go there too: those then evict one slot instead of any. A persona
        without a slot of its own is said once (``dialect_notes``)."""
        facts = self.server_facts
        if not facts.slots:
            self._note_caller(system_text)
            return
        self._slot_for(system_text)

    def _slot_for(self, system_text: str | None) -> int | None:
        """The llama-server slot for a request: its persona's (``seat_persona``; a persona not
        seated gets the next one when it first asks), or, for a request without a cache point
        (``system_text`` None), the last. None where the server listed no slots, or nothing
        was asked of it yet."""
        facts = self._facts
        if facts is None or not facts.slots:
            return None
        if system_text is None:
            return facts.slots[-1]
        caller = hashlib.sha256(system_text.encode("utf-8")).hexdigest()
        with self._facts_lock:
            slot = self._slots_by_caller.get(caller)
            if slot is None:
                index = len(self._slots_by_caller)
                own = index < len(facts.slots) - 1
                slot = facts.slots[index] if own else facts.slots[-1]
                self._slots_by_caller[caller] = slot
                if not own:
                    self._tell_shared_slots(len(facts.slots))
            return slot

    def _note_caller(self, system_text: str) -> None:
        """On a server with one prompt state for all (llama-cpp-python's), the second persona
        is told once: personas share it."""
        facts = self._facts
        if facts is None or facts.kind != "llama-cpp-python":
            return
        caller = hashlib.sha256(system_text.encode("utf-8")).hexdigest()
        with self._facts_lock:
            self._slots_by_caller.setdefault(caller, 0)
            if len(self._slots_by_caller) > 1:
                self._tell_shared_slots(1)

    def _tell_shared_slots(self, slots: int) -> None:
        """Once per instance (caller holds ``_facts_lock``)."""
        if self._shared_slots_told:
            return
        self._shared_slots_told = True
        if self._facts is not None and self._facts.kind == "llama-cpp-python":
            self.dialect_notes.append(
                f"{SHARED_SLOTS}: llama-cpp-python's server keeps one prompt state, so "
                "each persona's request evicts another's cached prompt"
            )
            return
        self.dialect_notes.append(
            f"{SHARED_SLOTS}: the server has {slots} slot(s), too few for a slot per "
            "persona beside one for the other requests, so a persona's cached prompt may be "
            "evicted by another's (llama-server --parallel sets the number of slots)"
        )

    def _one_state_gate(self) -> OneStateGate | None:
        """For a server with one KV state for all (llama-cpp-python's; a llama-server with one
        slot), the gate that sends one request at a time, choosing among those waiting the one
        that shares the longest prefix with the last sent; None elsewhere, or before the
        server was asked (``server_facts``)."""
        facts = self._facts
        if facts is None or not facts.one_state:
            return None
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate.loop is not loop:
            self._gate = OneStateGate()  # one per event loop: its futures belong to one
        return self._gate

    def _use_reasoning_parameters(self) -> None:
        self.uses_max_completion_tokens = True
        self.sends_temperature = False
        self.sends_reasoning_effort = self._reasoning_effort is not None

    @property
    def uses_json_object_fallback(self) -> bool:
        return self.dialect != "json_schema"

    async def _send(self, messages: list[Message], call: CallSettings) -> RawReply:
        """Send; on a rejection of a parameter or dialect this server refuses, adapt and resend.

        The answer is checked against the model by the caller, whatever the dialect. What the
        rejected requests were billed (a connection dropped after sending: possibly) stays
        counted, on the reply or on the error that ends the call."""
        earlier = EarlierBills()
        with earlier.kept():
            while True:
                request = self._build_request(
                    messages, call.output, call.max_tokens, call.temperature
                )
                try:
                    reply = await self._send_request(request, call.max_tokens)
                except ModelServerDiedError as error:
                    if "response_format" in request:
                        # It may have died on the schema: the rest of this run asks another way.
                        self._step_down_dialect(error, "crashed", crashed=True)
                    raise
                except ModelRequestError as error:
                    if self._stop_schema_in_prompt(error, messages, call.output):
                        earlier.recovered_from(error)
                        continue
                    if not self._adapt_to_rejection(error, request):
                        if self._dialect_setting and names_structured_output(str(error)):
                            said = str(error).removeprefix(f"{self.provider}: ")
                            forced = masked_error(
                                ModelRequestError,
                                self.provider,
                                f"{said} (argue did not try another way: "
                                f"{self._dialect_setting} forces {self.dialect}; set it to auto)",
                                status_code=error.status_code,
                                secrets=self._secrets(),
                            )
                            bill(forced, billed_answers(error))
                            raise forced from None
                        raise
                    earlier.recovered_from(error)
                else:
                    if call.output is not None and not self.dialect_forced:
                        self._remember_dialect()
                    return earlier.before(reply)

    def request_dialect(self, messages: list[Message], output: type[BaseModel] | None) -> Dialect:
        """The dialect for this request: ``json_object`` in place of a schema on the wire at
        api.openai.com when the prefix up to the last cache point is long enough to be cached
        (see the module docstring), else the negotiated one."""
        if (
            output is not None
            and self.schema_in_prompt_when_cached
            and not self.dialect_forced
            and self.dialect in ("json_schema", "json_object_schema")
            and cached_prefix_chars(messages) >= CACHE_MIN_TOKENS * CHARS_PER_TOKEN
        ):
            return "json_object"
        return self.dialect

    def _stop_schema_in_prompt(
        self, error: ModelRequestError, messages: list[Message], output: type[BaseModel] | None
    ) -> bool:
        """After a rejection of the json_object asked for a cached prefix: stop asking so (the
        negotiated dialect is left as it was) and send again."""
        if self.request_dialect(messages, output) == self.dialect:
            return False
        if not names_structured_output(str(error)):
            return False
        self.schema_in_prompt_when_cached = False
        self.dialect_notes.append(
            f"the server rejected {DIALECT_WORDS['json_object']} (HTTP {error.status_code}), "
            "asked to keep a cached prefix; argue asks with "
            f"{DIALECT_WORDS[self.dialect]} again"
        )
        return True

    def _remember_dialect(self) -> None:
        """After an accepted structured call: the dialect for dialects.json. A step down after a
        dropped connection is not stored; one after an HTTP-status rejection is."""
        if self.dialect == self._lasting_dialect:
            said = [n for n in self.dialect_notes if not n.startswith(SHARED_SLOTS)]
            reason = said[-1] if said else "accepted"
        elif self._lasting_dialect != self._starting_dialect:
            reason = self._lasting_reason
        else:
            return  # only dropped connections moved it: next run starts where this one did
        self._dialect_memory.remember(
            self._connection.base_url, self.model, self._lasting_dialect, reason
        )

    def _adapt_to_rejection(self, error: ModelRequestError, request: dict[str, Any]) -> bool:
        """Whether a rejection named something this instance can stop sending (each at most
        once): a parameter (400) or the structured-output dialect (any deterministic one)."""
        message = str(error).lower()
        if "response_format" in request and self._step_down_dialect(error, message):
            return True
        if error.status_code != 400:
            return False
        if "max_tokens" in request and "max_completion_tokens" in message:
            # OpenAI behind another base URL: "Unsupported parameter: 'max_tokens' ...".
            self.uses_max_completion_tokens = True
            if is_reasoning_model(self.model):
                self._use_reasoning_parameters()
            return True
        if "temperature" in request and "temperature" in message:
            self.sends_temperature = False
            return True
        if "reasoning_effort" in request and "reasoning_effort" in message:
            self.sends_reasoning_effort = False
            return True
        return False

    def _step_down_dialect(
        self, error: ModelRequestError | ModelServerDiedError, message: str, crashed: bool = False
    ) -> bool:
        """The next dialect, when this rejection is about the structured-output request (or the
        server died answering one: ``crashed``). Only a rejection with an HTTP status lasts
        beyond this instance (``_lasting_dialect``, what dialects.json may hold)."""
        if self.dialect_forced or not (crashed or names_structured_output(message)):
            return False
        following = next_dialect(self.dialect)
        if following is None:
            return False
        if crashed:
            note = (
                f"the server process died while answering {DIALECT_WORDS[self.dialect]}; "
                f"argue asks the rest of this run with {DIALECT_WORDS[following]} "
                "(not remembered: a crash may have nothing to do with the dialect)"
            )
        elif error.status_code:
            note = (
                f"the server rejected {DIALECT_WORDS[self.dialect]} (HTTP {error.status_code}); "
                f"argue now asks with {DIALECT_WORDS[following]}"
            )
        else:
            note = (
                f"the server rejected {DIALECT_WORDS[self.dialect]} (a dropped connection); "
                f"argue asks the rest of this run with {DIALECT_WORDS[following]} (not "
                "remembered: only a rejection with an HTTP status is)"
            )
        if error.status_code and not crashed and self.dialect == self._lasting_dialect:
            self._lasting_dialect, self._lasting_reason = following, note
        self.dialect_notes.append(note)
        self.dialect = following
        return True

    def _build_request(
        self,
        messages: list[Message],
        output: type[BaseModel] | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, Any]:
        dialect = self.request_dialect(messages, output)
        cached = has_cache_point(messages)
        system_text = "\n\n".join(m.content for m in messages if m.role == "system")
        if (
            output is not None
            and dialect in ("json_object", "text")
            and not schema_shown(messages, output)
        ):
            if cached:  # after the last cache point, so that the prefix stays the same
                messages = with_text_last(messages, schema_instruction(output))
            else:
                messages = [Message(role="system", content=schema_instruction(output)), *messages]
        request: dict[str, Any] = {
            "model": self.model,
            "messages": merged_turns(messages),
            "timeout": self._retry.request_timeout_s,
        }
        if cached and self._connection.official_openai:
            request["prompt_cache_key"] = prompt_cache_key(system_text)
        facts = self._facts
        extra: dict[str, Any] = {}
        if cached and (self.is_llama_server or (facts is not None and facts.is_llama_server)):
            extra["cache_prompt"] = True
        elif cached:
            self._note_caller(system_text)
        slot = self._slot_for(system_text if cached else None)
        if slot is not None:
            extra["id_slot"] = slot
        if extra:
            request["extra_body"] = extra
        if self.uses_max_completion_tokens:
            request["max_completion_tokens"] = max_tokens
        else:
            request["max_tokens"] = max_tokens
        if temperature is not None and self.sends_temperature:
            request["temperature"] = temperature
        if self.sends_reasoning_effort:
            request["reasoning_effort"] = self._reasoning_effort
        if output is None or dialect == "text":
            return request
        if dialect == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": tool_name_for(output),
                    "schema": compact_schema(output),
                    "strict": False,
                },
            }
        elif dialect == "json_object_schema":
            request["response_format"] = {"type": "json_object", "schema": compact_schema(output)}
        else:
            request["response_format"] = {"type": "json_object"}
        return request

    async def _send_request(self, request: dict[str, Any], max_tokens: int) -> RawReply:
        gate = self._one_state_gate()
        if gate is None:
            response, latency_s, unanswered = await self._call(request)
        else:
            text = prompt_order_text(request)
            async with gate.turn(text):
                response, latency_s, unanswered = await self._call(request)
        if not self.is_llama_server and is_llama_server_reply(response):
            self.is_llama_server = True
        choice = response.choices[0]
        usage = self._usage(response, latency_s)
        try:
            text = self._reply_text(response)
        except ModelOutputError as error:
            bill(error, [*unanswered, usage])  # a refusal is an answer: it was billed
            raise
        truncated = choice.finish_reason == "length"
        context_cut = None
        if truncated and response.usage is not None and usage.output_tokens < 0.9 * max_tokens:
            # Stopped for length before the output limit: the context window was full.
            context_cut = ContextCut(
                prompt_tokens=usage.input_tokens + usage.cache_read_tokens,
                output_tokens=usage.output_tokens,
                output_limit=max_tokens,
            )
        reply = RawReply(text=text, usage=usage, truncated=truncated, context_cut=context_cut)
        return with_unanswered(reply, unanswered)

    async def _attempt(self, client: AsyncOpenAI, request: dict[str, Any]) -> ChatCompletion:
        """One POST of the request through the SDK client's documented ``post`` (its retries,
        auth, errors and response model, as ``chat.completions.create`` has them) with the
        body as argue built it: ``create`` first walks every field of the body against its
        typed parameters, about 0.8 ms a request that changes nothing in plain JSON (issue 43
        item 4)."""
        import openai
        from openai.types.chat import ChatCompletion

        with self._sdk_failures(openai, request["timeout"]):
            response: object = await client.post(
                "/chat/completions",
                cast_to=ChatCompletion,
                body=sdk_body(request),
                options={"timeout": request["timeout"]},
            )
        return self._checked_response(response)

    def _checked_response(self, response: object) -> ChatCompletion:
        """``response`` when it is a chat completion with a message (sent directly or read from
        a batch's output file), else the retry layer's "unreadable" failure."""
        from openai.types.chat import ChatCompletion, ChatCompletionMessage

        missing = "no choices"
        if isinstance(response, ChatCompletion) and not (response.model_extra or {}).get("error"):
            choices = response.choices
            if isinstance(choices, list) and choices:
                if isinstance(getattr(choices[0], "message", None), ChatCompletionMessage):
                    return response
                missing = "no message"
        raise unreadable_body(response, "a chat completion", missing)

    def _reply_text(self, response: ChatCompletion) -> str:
        message = response.choices[0].message
        refusal = getattr(message, "refusal", None)
        if not message.content and isinstance(refusal, str) and refusal.strip():
            raise masked_error(
                ModelRefusalError,
                self.provider,
                f"the model refused (its refusal field): “{first_words(refusal)}”",
                secrets=[self._connection.api_key],
            )
        return message.content or ""

    def _usage(self, response: ChatCompletion, latency_s: float) -> Usage:
        reported = response.usage  # optional on compatible servers: count zeros
        prompt_tokens = getattr(reported, "prompt_tokens", None) or 0
        details = getattr(reported, "prompt_tokens_details", None)
        cached = getattr(details, "cached_tokens", None) or 0
        usage = Usage(
            provider=self.provider,
            model=self.model,
            # Usage counts uncached input apart from cache reads (see argue.llm.pricing).
            input_tokens=max(prompt_tokens - cached, 0),
            output_tokens=getattr(reported, "completion_tokens", None) or 0,
            cache_read_tokens=cached,
            latency_s=latency_s,
            batch_calls=1 if in_batch() else 0,
        )
        return self._prices.price(usage, tokens_known=reported is not None)


def prompt_cache_key(system_text: str) -> str:
    """OpenAI's ``prompt_cache_key`` for a persona: its system text (card and rules) hashed, so
    that each persona's requests share a cache and no caller has to name one."""
    digest = hashlib.sha256(system_text.encode("utf-8")).hexdigest()
    return PROMPT_CACHE_KEY_PREFIX + digest[:16]


def is_llama_server_reply(response: object) -> bool:
    """Whether a chat completion came from llama.cpp's llama-server: it alone adds a
    ``timings`` object (``prompt_n``, ``predicted_n``, ...) to the OpenAI fields."""
    extra = getattr(response, "model_extra", None) or {}
    timings = extra.get("timings") if isinstance(extra, dict) else None
    return isinstance(timings, dict) and "prompt_n" in timings and "predicted_n" in timings


def prompt_order_text(request: dict[str, Any]) -> str:
    """A request's messages as one text, in the order a chat template lays them out."""
    return "".join(f"<|{m['role']}|>{m['content']}" for m in request.get("messages", []))


def common_prefix_length(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (bisection on slices)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class OneStateGate:
    """One request at a time to a server that keeps a single KV state, in the order that
    reuses most of it: when the server is free, the waiting request sharing the longest prefix
    with the last one sent goes next (ties: the first to arrive).

    A debate's personas ask in waves (every argument, then every rebuttal, ...), so the next
    wave's requests arrive together just after the last one of the previous wave: a request
    finding the gate free waits ``SETTLE_S`` for the others of its wave before the choice is
    made. Then a wave starts with the persona that ended the previous one, whose prefix (its
    record, the round's material) the server still holds, instead of evicting it."""

    SETTLE_S = 0.02

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._busy = False
        self._last = ""
        self._waiting: list[tuple[str, asyncio.Future[None]]] = []

    @contextlib.asynccontextmanager
    async def turn(self, text: str) -> AsyncIterator[None]:
        await self._enter(text)
        try:
            yield
        finally:
            self._leave(text)

    async def _enter(self, text: str) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((text, future))
        cede()  # waiting for the server's one state: the next call may be built meanwhile
        try:
            if not self._busy:
                await asyncio.sleep(self.SETTLE_S)
                if not self._busy:
                    self._busy = True
                    self._grant_next()
            await future
        except BaseException:
            if future.done() and not future.cancelled():
                self._leave(None)  # granted, then cancelled: pass the turn on
            else:
                self._waiting = [w for w in self._waiting if w[1] is not future]
                future.cancel()
            raise

    def _grant_next(self) -> None:
        """Give the turn (``_busy`` already set) to the best waiting request, else free it."""
        self._waiting = [w for w in self._waiting if not w[1].done()]
        if not self._waiting:
            self._busy = False
            return
        best = max(
            range(len(self._waiting)),
            key=lambda i: (common_prefix_length(self._waiting[i][0], self._last), -i),
        )
        _, future = self._waiting.pop(best)
        future.set_result(None)

    def _leave(self, text: str | None) -> None:
        if text is not None:
            self._last = text
        self._grant_next()


def merged_turns(messages: list[Message]) -> list[dict[str, str]]:
    """Chat messages with consecutive ones of the same role joined into one (a request's
    record, round material and instruction are one user turn): chat templates that want roles
    to alternate (Gemma's, served with ``--jinja``) refuse two user messages in a row, and the
    joined text keeps the same prefix from call to call."""
    turns: list[dict[str, str]] = []
    for message in messages:
        if turns and turns[-1]["role"] == message.role:
            turns[-1]["content"] += "\n\n" + message.content
        else:
            turns.append({"role": message.role, "content": message.content})
    return turns
