"""Wire adapter for the Anthropic Messages API (AsyncAnthropic).

Structured output has three modes, tried in this order and chosen per schema:
``json_schema`` (``output_config.format``: the API enforces the schema while decoding),
``tool`` (a forced tool whose ``input_schema`` is the schema) and ``prompt`` (the schema in the
system prompt; the reply is validated, and re-asked once, like every mode). A schema with open
maps (``dict[str, str]`` fields) skips ``json_schema``: the API only takes closed objects, so it
would force those maps empty. A 400 saying this model lacks a mode (older models have no
``output_config``, the newest refuse forced tools) retires that mode for this instance.
``temperature`` (gone from the SDK signature, refused by newer models) goes through
``extra_body`` until the API calls it deprecated for the model, then is left out.

Prompt caching (issue #23): the system prompt carries ``cache_control``, and so does the end of
every message flagged ``cache_point`` (each message is its own text block, consecutive
same-role messages still one turn, so the breakpoint sits exactly after the flagged text); at
most ``MAX_CACHE_BREAKPOINTS`` per request, the API's limit: the system one and the last
flagged ones. The cache also keys on the structured-output schema (``output_config`` and
``tools`` come before ``system`` in its order), and argue's schemas vary per call (evidence-id
enums), so a request whose prefix up to its last cache point is long enough to be cached
(``CACHE_MIN_TOKENS``, estimated at ``CHARS_PER_TOKEN``) gets the schema in the prompt
instead, after the last cache point: a cached prefix is read at a tenth of the input price,
while API-enforced decoding buys little that argue lacks, since it validates every answer and
re-asks once anyway. A shorter request keeps the mode order above. In ``prompt`` mode without
a cache point the schema still joins the system text, as before. A schema the system text
already shows (``_structured.schema_shown``: a persona's phase guide lists each phase's stable
answer format, which per-call schemas name as their ``prompt_form``) is not sent again.

A persona's requests (their system text holds the phase guide: ``_structured.guide_shown``)
still get a schema the API enforces (issue #43): one **stable output** for all of them
(``_structured.stable_output``, ``schemas.PhaseAnswer``: any phase's form, or a research plan,
under one field ``reply``, since the root must be an object), the same bytes in every request
(:func:`stable_wire_schema`), so it keys no request's cache apart from the one before it. The
answer is taken out of ``reply`` and checked by code against the request's own schema (which
phase is due, its enums), re-asked once like any answer; a plan's own schema, which the guide
does not show, goes after the last cache point as in ``prompt`` mode. A model that refuses
``output_config`` falls back to the layout above. On the wire the stable schema has its lists
required (written ``[]`` for none): the API takes only so many optional properties.
A reply that stops at ``max_tokens`` (tool mode then gives ``input: {}``) is flagged truncated:
the base class retries it once with a larger limit instead of re-asking about a missing field.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from argue.domain import Usage
from argue.llm._adapter import (
    CallSettings,
    EarlierBills,
    SDKAdapter,
    alternating_blocks,
    alternating_turns,
    cached_prefix_chars,
    has_cache_point,
    unreadable_body,
    with_unanswered,
)
from argue.llm._batch_route import in_batch
from argue.llm._providers import AnthropicProvider
from argue.llm._retry import RetryPolicy, Sleep
from argue.llm._secrets import masked_error
from argue.llm._structured import (
    RawReply,
    guide_shown,
    output_schema,
    schema_instruction,
    schema_shown,
    stable_output,
    tool_name_for,
    unwrapped_answer,
)
from argue.llm.base import Message, ModelRefusalError, ModelRequestError, bill
from argue.llm.pricing import PriceTable
from argue.text.refusal import first_words

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from anthropic.types import Message as AnthropicMessage

StructuredMode = Literal["json_schema", "tool", "prompt"]
STRUCTURED_MODES: tuple[StructuredMode, ...] = ("json_schema", "tool", "prompt")

# The API takes at most this many cache_control blocks in one request.
MAX_CACHE_BREAKPOINTS = 4
# The shortest prefix Anthropic caches (Sonnet and Opus models; Haiku models need 2048, some
# newer models 4096: a shorter prefix is sent uncached, which only costs the schema placement).
CACHE_MIN_TOKENS = 1024
# How the prefix length is estimated from its text (no tokenizer call per request).
CHARS_PER_TOKEN = 4

# What a 400 says when the model lacks a mode: the mode it retires.
_MODE_REJECTION_MARKERS: dict[StructuredMode, tuple[str, ...]] = {
    "json_schema": ("output_config", "output_format", "structured output"),
    "tool": ("tool_choice",),
}


class AnthropicModel(SDKAdapter[AnthropicProvider, "AsyncAnthropic", "AnthropicMessage"]):
    def __init__(
        self,
        model: str,
        *,
        provider: AnthropicProvider,
        retry: RetryPolicy | None = None,
        max_concurrency: int = 4,
        sleep: Sleep = asyncio.sleep,
        prices: PriceTable | None = None,
        clock: Callable[[], float] = time.monotonic,
        structured_modes: tuple[StructuredMode, ...] = STRUCTURED_MODES,
    ) -> None:
        super().__init__(model, provider, retry, max_concurrency, sleep, prices, clock)
        self._structured_modes = structured_modes
        self.rejected_modes: set[StructuredMode] = set()
        self.sends_temperature = True

    @property
    def reads_schemas_from_prompt(self) -> bool:
        """Whether a request with a long stable prefix gets its schema in the prompt (see the
        module docstring): the engine then lists every phase's answer format in a persona's
        system text, where the cache keeps it (:func:`argue.engine.prompts.phase_guide`).
        Fixed for the instance's life, so a persona's system text never changes mid-debate."""
        return "prompt" in self._structured_modes

    def __repr__(self) -> str:
        return f"AnthropicModel(model={self.model!r}, base_url={self._connection.base_url!r})"

    def structured_mode_for(
        self, output: type[BaseModel], messages: list[Message] | None = None
    ) -> StructuredMode:
        """The mode for ``output``; for a request (``messages``) whose system text shows its
        form, ``json_schema`` with the stable output (:meth:`stable_schema_for`); else
        ``prompt`` when its prefix up to its last cache point is long enough to be cached (see
        the module docstring)."""
        if messages is not None and self.stable_schema_for(output, messages) is not None:
            return "json_schema"
        if messages is not None and "prompt" in self._structured_modes and caches_prefix(messages):
            return "prompt"
        usable = [mode for mode in self._structured_modes if mode not in self.rejected_modes]
        if has_open_maps(output_schema(output)):
            usable = [mode for mode in usable if mode != "json_schema"]
        return usable[0] if usable else "prompt"

    def stable_schema_for(
        self, output: type[BaseModel], messages: list[Message]
    ) -> type[BaseModel] | None:
        """The schema sent in place of ``output``'s own: its stable output
        (``_structured.stable_output``, the same for every request of a persona) when the
        request's system text shows ``output``'s form and this model takes ``output_config``;
        else None. The answer is then checked against ``output`` by code."""
        if "json_schema" not in self._structured_modes or "json_schema" in self.rejected_modes:
            return None
        union = stable_output(output)
        return union if union is not None and guide_shown(messages, union) else None

    async def _send(self, messages: list[Message], call: CallSettings) -> RawReply:
        """Send; on a 400 about a feature this model lacks, stop using it and send again (what
        the rejected call was billed, e.g. an attempt dropped before the 400, stays counted)."""
        earlier = EarlierBills()
        with earlier.kept():
            while True:
                output = call.output
                mode = self.structured_mode_for(output, messages) if output is not None else None
                try:
                    return earlier.before(await self._send_in_mode(messages, call, mode))
                except ModelRequestError as error:
                    if not self._stop_using_rejected_feature(error, mode, call.temperature):
                        raise
                    earlier.recovered_from(error)

    def _stop_using_rejected_feature(
        self, error: ModelRequestError, mode: StructuredMode | None, temperature: float | None
    ) -> bool:
        if error.status_code != 400:
            return False
        message = str(error).lower()
        if temperature is not None and self.sends_temperature and "temperature" in message:
            self.sends_temperature = False
            return True
        markers = _MODE_REJECTION_MARKERS.get(mode, ()) if mode else ()
        if mode is not None and any(marker in message for marker in markers):
            self.rejected_modes.add(mode)
            return True
        return False

    def _build_request(
        self,
        messages: list[Message],
        output: type[BaseModel] | None,
        mode: StructuredMode | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, Any]:
        system_parts = [m.content for m in messages if m.role == "system"]
        cached = has_cache_point(messages)
        stable = self.stable_schema_for(output, messages) if output is not None else None
        in_prompt = mode == "prompt" or (mode == "json_schema" and stable is not None)
        if output is not None and in_prompt and not schema_shown(messages, output):
            # A stable output leaves the request's own schema (a plan's) to the prompt too.
            if cached:
                # After the last cache point: a per-call schema must not change the prefix.
                messages = [*messages, Message(role="user", content=schema_instruction(output))]
            else:
                system_parts.append(schema_instruction(output))
        system_text = "\n\n".join(system_parts)
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "messages": cached_turns(messages, system=bool(system_text))
            if cached
            else alternating_turns(messages),
            "timeout": self._retry.request_timeout_s,
        }
        if system_text:
            request["system"] = [
                {"type": "text", "text": system_text, "cache_control": {"type": "ephemeral"}}
            ]
        if temperature is not None and self.sends_temperature:
            request["extra_body"] = {"temperature": temperature}
        if output is not None and mode == "json_schema":
            request["output_config"] = {
                "format": {
                    "type": "json_schema",
                    "schema": stable_wire_schema(stable) if stable else wire_schema(output),
                }
            }
        elif output is not None and mode == "tool":
            name = tool_name_for(output)
            request["tools"] = [
                {
                    "name": name,
                    "description": f"Record the answer as a {output.__name__} object.",
                    "input_schema": output_schema(output),
                }
            ]
            request["tool_choice"] = {"type": "tool", "name": name}
        return request

    async def _send_in_mode(
        self, messages: list[Message], call: CallSettings, mode: StructuredMode | None
    ) -> RawReply:
        output = call.output
        request = self._build_request(messages, output, mode, call.max_tokens, call.temperature)
        wrapped = (
            output is not None
            and mode == "json_schema"
            and self.stable_schema_for(output, messages) is not None
        )
        response, latency_s, unanswered = await self._call(request)
        reported = response.usage  # absent from some gateways' replies: count zeros
        usage = Usage(
            provider=self.provider,
            model=self.model,
            input_tokens=getattr(reported, "input_tokens", None) or 0,
            output_tokens=getattr(reported, "output_tokens", None) or 0,
            cache_read_tokens=getattr(reported, "cache_read_input_tokens", None) or 0,
            cache_write_tokens=getattr(reported, "cache_creation_input_tokens", None) or 0,
            latency_s=latency_s,
            batch_calls=1 if in_batch() else 0,
        )
        usage = self._prices.price(usage, tokens_known=reported is not None)
        tool_name = tool_name_for(output) if output is not None and mode == "tool" else None
        text = _reply_text(response, tool_name)
        if wrapped:
            text = unwrapped_answer(text)  # the answer is the stable output's one field
        if response.stop_reason == "refusal":
            # The API's own word that the model declined (its safety classifiers stopped it).
            said = f": “{first_words(text)}”" if text.strip() else " (no text came back)"
            error = masked_error(
                ModelRefusalError,
                self.provider,
                f"the model refused (stop_reason refusal){said}",
                secrets=self._secrets(),
            )
            bill(error, [*unanswered, usage])  # a refusal is an answer: it was billed
            raise error
        reply = RawReply(text=text, usage=usage, truncated=response.stop_reason == "max_tokens")
        return with_unanswered(reply, unanswered)

    async def _attempt(self, client: AsyncAnthropic, request: dict[str, Any]) -> AnthropicMessage:
        import anthropic

        with self._sdk_failures(anthropic, request["timeout"]):
            response: object = await client.messages.create(**request)
        return self._checked_response(response)

    def _checked_response(self, response: object) -> AnthropicMessage:
        """``response`` when it is a Messages API reply (sent directly or read from a batch's
        results), else the retry layer's "unreadable" failure."""
        import anthropic

        if (
            isinstance(response, anthropic.types.Message)
            and not (response.model_extra or {}).get("error")
            and isinstance(response.content, list)
        ):
            return response
        raise unreadable_body(response, "a Messages API reply", "no content")


def wire_schema(output: type[BaseModel]) -> dict[str, Any]:
    """``output``'s JSON schema in the subset the API takes (the SDK's ``transform_schema``:
    closed objects, unsupported keywords moved into descriptions)."""
    from anthropic import transform_schema

    return transform_schema(output)


@functools.lru_cache(maxsize=16)
def _stable_wire_schema(union: type[BaseModel]) -> str:
    from anthropic import transform_schema

    return json.dumps(transform_schema(lists_required(union.model_json_schema())))


def stable_wire_schema(union: type[BaseModel]) -> dict[str, Any]:
    """A stable output's wire schema, built once: the same content in every request, a fresh
    dict each time (whoever sends the request may change it).

    Its lists and empty-string defaults are required on the wire (the model writes ``[]`` or
    ``""`` for none, which is what the default says): the API takes at most 24 optional
    properties in a schema, and the union of every phase's form and a research plan has 27
    where each use of a definition counts (20 counting each definition once); with them
    required, 10."""
    schema: dict[str, Any] = json.loads(_stable_wire_schema(union))
    return schema


def lists_required(schema: Any) -> Any:
    """``schema`` with every object property that is a list, or defaults to ``""``, required
    (its ``default`` dropped): a copy; see :func:`stable_wire_schema`."""
    if isinstance(schema, list):
        return [lists_required(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    node = {key: lists_required(value) for key, value in schema.items()}
    properties = node.get("properties")
    if node.get("type") == "object" and isinstance(properties, dict):
        required = list(node.get("required", []))
        for key, prop in properties.items():
            if key not in required and (prop.get("type") == "array" or prop.get("default") == ""):
                required.append(key)
                prop.pop("default", None)
        node["required"] = required
    return node


def caches_prefix(messages: list[Message]) -> bool:
    """Whether the request's text up to its last cache point is long enough to be cached."""
    return cached_prefix_chars(messages) >= CACHE_MIN_TOKENS * CHARS_PER_TOKEN


def cached_turns(messages: list[Message], *, system: bool) -> list[dict[str, Any]]:
    """The turns as text blocks, ``cache_control`` on the blocks that end at the last cache
    points: as many as the API allows beside the system prompt's (``system``)."""
    turns, flagged = alternating_blocks(messages)
    room = MAX_CACHE_BREAKPOINTS - (1 if system else 0)
    for block in flagged[-room:] if room > 0 else []:
        block["cache_control"] = {"type": "ephemeral"}
    return turns


def has_open_maps(schema: object) -> bool:
    """Whether a JSON schema has an object with free-form keys (``additionalProperties``)."""
    if isinstance(schema, dict):
        if schema.get("additionalProperties") not in (None, False):
            return True
        return any(has_open_maps(value) for value in schema.values())
    if isinstance(schema, list):
        return any(has_open_maps(item) for item in schema)
    return False


def _reply_text(response: AnthropicMessage, tool_name: str | None) -> str:
    """The forced tool's input as JSON when one was asked for and used, else the text blocks."""
    if tool_name is not None:
        for block in response.content:
            if block.type == "tool_use" and block.name == tool_name:
                return json.dumps(block.input)
    return "".join(block.text or "" for block in response.content if block.type == "text")
