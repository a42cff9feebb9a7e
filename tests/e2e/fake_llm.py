"""A fake LLM that speaks both wire protocols from one loopback HTTP server.

``POST /v1/chat/completions`` answers like OpenAI (the JSON reply in
``choices[0].message.content``) and ``POST /v1/messages`` like Anthropic (a ``tool_use`` block
whose ``input`` is the reply for a forced tool, else a text block holding the JSON). The schema
the client asked for (OpenAI ``response_format.json_schema.name``; Anthropic forced tool name or
``output_config.format.schema.title``; else the schema written into the prompt) is mapped back to
the engine schema class, the request messages are rebuilt as ``Message`` objects (Anthropic's
``system`` apart, content blocks joined), and a ``DebateScript`` writes the answer from the
prompt text, exactly as the engine unit tests do.

The CLI (in-process or in another process, see ``harness``) sees only HTTP, so this is what "the
model" is for the end-to-end tests. Replies can be delayed (``delay_s``) and requests are
counted by schema.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from argue.engine import schemas
from argue.llm._structured import STABLE_ANSWER_FIELD, schema_instruction, tool_name_for
from argue.llm.base import Message
from argue.skills.ask.consult import ColleagueAnswer
from tests.e2e.anthropic_cache import (
    AnthropicPromptCache,
    CacheUsage,
    DecodedSchema,
    schema_rejection,
)
from tests.e2e.openai_cache import OpenAIPromptCache
from tests.engine.script import OFFERED_COLLEAGUES, DebateScript
from tests.loopback import LoopbackServer, RecordedRequest, Reply

OPENAI_PATH = "/v1/chat/completions"
ANTHROPIC_PATH = "/v1/messages"
# How an adapter that cannot send the schema on the wire puts it in the prompt (first line).
_SCHEMA_PROMPT = schema_instruction(schemas.FramingDraft).split("\n", 1)[0]
TEXT = "text"  # the schema label of a plain-text request (no structured output asked for)

# Every pydantic model the engine may ask for, keyed by the name that goes on the wire.
SCHEMAS: dict[str, type[BaseModel]] = {
    tool_name_for(cls): cls
    for cls in vars(schemas).values()
    if isinstance(cls, type)
    and issubclass(cls, BaseModel)
    and cls is not BaseModel
    and cls.__module__ in (schemas.__name__, "argue.records.prose")
}

# Skills that call the model themselves (a colleague consulted with /ask).
SCHEMAS[tool_name_for(ColleagueAnswer)] = ColleagueAnswer

# How a persona request names its phase ("Round 3 of 5 — ARGUMENT.", "Round 3 — REBUTTAL.").
_PHASE_NAMED = re.compile(r"^Round \d+(?: of \d+)? — (ARGUMENT|REBUTTAL|REFLECTION)\.", re.M)

# The framing prompt lists the participants as "- A: Embry: lens…".
_PARTICIPANT = re.compile(r"^- ([A-Z]): ([^:\n]+):", re.M)


@dataclass
class ResearchingScript(DebateScript):
    """``DebateScript`` whose research plans search and recall ``topic``, and ask a colleague.

    Every plan asks a colleague (the schema requires it of a persona that has one): the first
    offered, or ``consult[letter]`` (a colleague persona name) when that one is offered.
    """

    topic: str = "Collatz conjecture decidability"
    consult: dict[str, str] = field(default_factory=dict)

    def __call__(self, messages: list[Message], output: type[BaseModel] | None) -> object:
        if output is ColleagueAnswer:
            self.log.append("-:0:ColleagueAnswer")
            return ColleagueAnswer(
                answer="Conway's FRACTRAN result makes generalised Collatz problems undecidable.",
                confidence=0.7,
            )
        value = super().__call__(messages, output)
        letter = self.log[-1].split(":")[0] if self.log else "-"
        user = next((m.content for m in messages if m.role == "user"), "")
        is_reflection = output is not None and issubclass(output, schemas.ReflectionDraft)
        if is_reflection and isinstance(value, dict) and value.get("next_research"):
            self._retarget(value["next_research"], letter, user)
        is_plan = output is not None and issubclass(output, schemas.ResearchPlanDraft)
        if is_plan and isinstance(value, dict):
            self._retarget(value, letter, user)
        return value

    def _retarget(self, plan: dict[str, Any], letter: str, prompt: str) -> None:
        plan["dogpile_query"] = plan["memory_query"] = self.topic
        for call in plan.get("free_calls", []):
            call["query"] = self.topic
        if plan.get("ask"):
            offered = OFFERED_COLLEAGUES.search(prompt)
            names = [n.strip() for n in offered.group(1).split(",")] if offered else []
            if self.consult.get(letter) in names:
                plan["ask"]["colleague"] = self.consult[letter]
            plan["ask"]["question"] = "Is the Collatz conjecture a decidable statement?"


@dataclass
class Call:
    """One request the fake answered: which wire protocol, which schema, which persona letter."""

    protocol: str  # "openai" | "anthropic"
    schema: str  # schema class name, or TEXT
    letter: str  # persona letter the script recognised ("-" for framing/judge/synthesis)
    # The answer format was the phase's form in the system text (argue.engine.prompts.
    # phase_guide), not a schema of the request's own; ``schema`` then names the phase's draft.
    from_guide: bool = False


class FakeLLM:
    """The loopback server plus the script; use ``url`` as the base URL of either SDK."""

    def __init__(
        self,
        script: DebateScript | None = None,
        *,
        delay_s: float = 0.0,
        anthropic_refuses: frozenset[str] = frozenset(),
        anthropic_cache: AnthropicPromptCache | None = None,
        openai_cache: OpenAIPromptCache | None = None,
    ) -> None:
        self.script = script or ResearchingScript(names={})
        self.delay_s = delay_s
        # Anthropic features answered with the 400 a model lacking them gives:
        # "output_config" (older models), "tool_choice" (the newest refuse forced tools).
        self.anthropic_refuses = anthropic_refuses
        # Usage with cache reads and writes as Anthropic's prompt cache would count them.
        self.anthropic_cache = anthropic_cache
        # Each Anthropic reply's usage, in order, with the call it answered and the request body.
        self.anthropic_usage: list[dict[str, int]] = []
        self.anthropic_log: list[tuple[Call, dict[str, int], dict[str, Any]]] = []
        # OpenAI usage with cached tokens as its automatic prompt cache would count them.
        self.openai_cache = openai_cache
        self.openai_log: list[tuple[Call, dict[str, Any], dict[str, Any]]] = []
        self.calls: list[Call] = []
        self.errors: list[str] = []
        # Replies a schema-enforcing API could not have produced (keys the sent schema forbids).
        self.schema_violations: list[str] = []
        self._lock = threading.Lock()
        self.server = LoopbackServer()
        self.server.handler = self._handle

    # ------------------------------------------------------------ lifecycle

    def start(self) -> FakeLLM:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    @property
    def url(self) -> str:
        return self.server.url

    # ------------------------------------------------------------ counting

    def count(self, schema: str | type[BaseModel] | None = None) -> int:
        """Requests answered so far, all of them or those for one schema."""
        with self._lock:
            if schema is None:
                return len(self.calls)
            name = schema if isinstance(schema, str) else schema.__name__
            return sum(1 for call in self.calls if call.schema == name)

    def counts(self) -> Counter[str]:
        with self._lock:
            return Counter(call.schema for call in self.calls)

    def protocols(self) -> set[str]:
        with self._lock:
            return {call.protocol for call in self.calls}

    # ------------------------------------------------------------ serving

    def _handle(self, request: RecordedRequest) -> Reply:
        try:
            if request.method == "POST" and request.path.endswith(OPENAI_PATH):
                return self._openai(request.json())
            if request.method == "POST" and request.path.endswith(ANTHROPIC_PATH):
                return self._anthropic(request.json())
        except Exception as exc:  # a bug in the fake must show up, not hang the CLI
            self.errors.append(f"{request.path}: {type(exc).__name__}: {exc}")
            if request.path.endswith(ANTHROPIC_PATH):
                return _anthropic_error(f"fake LLM failed: {exc}")
            return Reply(status=400, json=_openai_error(f"fake LLM failed: {exc}"))
        if request.method == "GET" or request.path == "/api/show":
            # What argue asks a self-hosted server of its window and slots (issue #43): this
            # fake says nothing of itself, as a server without those endpoints does.
            return Reply(status=404, json=_openai_error(f"no route {request.path}"))
        self.errors.append(f"unexpected request {request.method} {request.path}")
        return Reply(status=404, json=_openai_error(f"no route {request.path}"))

    def _answer(
        self,
        protocol: str,
        messages: list[Message],
        schema_name: str | None,
        from_guide: bool = False,
    ) -> tuple[Any, Call]:
        output = SCHEMAS.get(schema_name) if schema_name else None
        if schema_name and output is None:
            raise ValueError(f"unknown schema {schema_name!r}; known: {sorted(SCHEMAS)}")
        if output is schemas.FramingDraft:
            self._learn_names(messages[-1].content)
        value, call = self._scripted(protocol, messages, output, from_guide)
        if isinstance(value, Exception):
            raise value
        if isinstance(value, BaseModel):
            return value.model_dump(mode="json"), call
        return value, call

    def _scripted(
        self,
        protocol: str,
        messages: list[Message],
        output: type[BaseModel] | None,
        from_guide: bool,
    ) -> tuple[Any, Call]:
        with self._lock:  # the script's log and the call list stay in step across threads
            value = self.script(messages, output)
            letter = self.script.log[-1].split(":", 1)[0] if self.script.log else "-"
            name = output.__name__ if output else TEXT
            if from_guide:  # counted under the phase's draft, as a request of its own would be
                name = name.removesuffix("Form").removesuffix("Draft") + "Draft"
            call = Call(protocol, name, letter, from_guide=from_guide)
            self.calls.append(call)
        return value, call

    def _check_enforced(self, schema_name: str | None, schema: dict[str, Any], value: Any) -> None:
        problems = schema_violations(schema, value)
        if problems:
            with self._lock:
                self.schema_violations.append(f"{schema_name}: {'; '.join(problems)}")

    def _learn_names(self, framing_prompt: str) -> None:
        """Seat letters come from the framing prompt, so the script can tell personas apart."""
        for letter, name in _PARTICIPANT.findall(framing_prompt):
            self.script.names.setdefault(name.strip(), letter)

    # ------------------------------------------------------------ OpenAI chat.completions

    def _openai(self, body: dict[str, Any]) -> Reply:
        messages = [
            Message(role=m["role"], content=_text_of(m.get("content"))) for m in body["messages"]
        ]
        response_format = body.get("response_format") or {}
        schema_name = None
        from_guide = False
        if response_format.get("type") == "json_schema":
            schema_name = response_format["json_schema"]["name"]
        elif response_format.get("type") == "json_object":
            schema_name, from_guide = _schema_title_in_prompt(messages)
            messages = [_without_schema_prompt(m) for m in messages]
            messages = [m for m in messages if m.content]
        value, call = self._answer("openai", messages, schema_name, from_guide)
        if response_format.get("type") == "json_schema" and response_format["json_schema"].get(
            "strict"
        ):
            self._check_enforced(schema_name, response_format["json_schema"]["schema"], value)
        content = value if isinstance(value, str) else json.dumps(value)
        prompt_tokens = sum(len(m.content) for m in messages) // 4 + 1
        completion_tokens = len(content) // 4 + 1
        cached_tokens = 0
        if self.openai_cache is not None:
            prompt_tokens, cached_tokens = self.openai_cache.account(body)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
        }
        with self._lock:
            self.openai_log.append((call, usage, body))
        return Reply(
            delay_s=self.delay_s,
            json={
                "id": f"chatcmpl-fake{len(self.calls):06d}",
                "object": "chat.completion",
                "created": 1741569952,
                "model": body.get("model", "gpt-4o-mini"),
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": content,
                            "refusal": None,
                            "annotations": [],
                        },
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage,
                "service_tier": "default",
                "system_fingerprint": "fp_06737a9306",
            },
        )

    # ------------------------------------------------------------ Anthropic Messages API

    def _anthropic(self, body: dict[str, Any]) -> Reply:
        messages: list[Message] = []
        system = _text_of(body.get("system"))
        if system:
            messages.append(Message(role="system", content=system))
        messages += [
            Message(role=m["role"], content=_text_of(m.get("content"))) for m in body["messages"]
        ]
        output_format = (body.get("output_config") or {}).get("format") or {}
        tool_choice = body.get("tool_choice") or {}
        tool_name = tool_choice.get("name") if tool_choice.get("type") == "tool" else None
        schema_name = tool_name
        from_guide = False
        stable: DecodedSchema | None = None  # one schema for every phase (schemas.PhaseAnswer)
        if output_format.get("type") == "json_schema":
            if "output_config" in self.anthropic_refuses:
                return _anthropic_error(
                    "output_config.format: structured outputs are not supported by this model"
                )
            if rejection := schema_rejection(output_format["schema"]):
                return _anthropic_error(rejection)
            schema_name = output_format["schema"].get("title")
            if schema_name == schemas.PhaseAnswer.__name__:  # the request names its phase
                schema_name, from_guide = _schema_title_in_prompt(messages)
                messages = [_without_schema_prompt(m) for m in messages]
                stable = DecodedSchema(output_format["schema"])
        elif tool_name is not None:
            if "tool_choice" in self.anthropic_refuses:
                return _anthropic_error(
                    "tool_choice: forcing a tool is not supported by this model; "
                    "use output_config.format"
                )
        else:
            # No structured-output feature: the schema travels in the system prompt, if at all.
            schema_name, from_guide = _schema_title_in_prompt(messages)
            messages = [_without_schema_prompt(m) for m in messages]
        value, call = self._answer("anthropic", messages, schema_name, from_guide)
        if stable is not None:  # written as a decoder held to the schema writes it, and checked
            value = stable.decoded({STABLE_ANSWER_FIELD: value})
            if problems := stable.refuses(value):
                with self._lock:
                    self.schema_violations.append(f"{schema_name}: {'; '.join(problems)}")
        elif output_format.get("type") == "json_schema":
            # The API enforces this schema while decoding: what it cannot express, it cannot say.
            self._check_enforced(schema_name, output_format["schema"], value)
        if tool_name is not None:
            content: list[dict[str, Any]] = [
                {
                    "type": "tool_use",
                    "id": f"toolu_fake{len(self.calls):06d}",
                    "name": tool_name,
                    "input": value,
                }
            ]
            stop_reason = "tool_use"
        else:
            text = value if isinstance(value, str) else json.dumps(value)
            content = [{"type": "text", "text": text}]
            stop_reason = "end_turn"
        input_tokens = sum(len(m.content) for m in messages) // 4 + 1
        cache = CacheUsage(input_tokens, 0, 0)
        if self.anthropic_cache is not None:
            cache = self.anthropic_cache.account(body)
        usage = {
            "input_tokens": cache.input_tokens,
            "output_tokens": len(json.dumps(value)) // 4 + 1,
            "cache_creation_input_tokens": cache.cache_creation_input_tokens,
            "cache_read_input_tokens": cache.cache_read_input_tokens,
        }
        with self._lock:
            self.anthropic_usage.append(usage)
            self.anthropic_log.append((call, usage, body))
        return Reply(
            delay_s=self.delay_s,
            json={
                "id": f"msg_fake{len(self.calls):06d}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "claude-sonnet-4-5"),
                "content": content,
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": {**usage, "service_tier": "standard"},
            },
        )


def _text_of(content: Any) -> str:
    """A message's text whether it is a string or a list of content blocks/parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n\n".join(parts)


def _schema_title_in_prompt(messages: list[Message]) -> tuple[str | None, bool]:
    """json_object fallback: the schema travels in the prompt; its title names it. The request's
    own tail first (a persona's system text may list every phase's format); then, when the
    schema is one of those, the phase the request names (then also True); then the system
    text."""

    def title_in(message: Message) -> str | None:
        match = re.search(re.escape(_SCHEMA_PROMPT) + r"\n(\{.*\})", message.content, re.S)
        return json.loads(match.group(1)).get("title") if match else None

    request = list(itertools.takewhile(lambda m: m.role != "assistant", messages))
    for message in reversed(messages):
        if message.role != "system" and (title := title_in(message)):
            return title, False
    users = [m for m in request if m.role == "user"]
    named = _PHASE_NAMED.search(users[-1].content) if users else None
    if named and any(m.role == "system" and _SCHEMA_PROMPT in m.content for m in messages):
        return schemas.PHASE_FORMS[named.group(1)].__name__, True
    for message in messages:
        if title := title_in(message):
            return title, False
    return None, False


def schema_violations(schema: dict[str, Any], value: Any) -> list[str]:
    """Keys in ``value`` that a decoder enforcing ``schema`` could never emit.

    A small structural walk ($ref, anyOf, objects, arrays), enough to catch an object schema with
    ``additionalProperties: false`` and no ``properties`` (a ``dict[str, str]`` field after
    strict-schema transformation) receiving keys.
    """
    defs = schema.get("$defs", {})
    problems: list[str] = []

    def walk(node: dict[str, Any], item: Any, where: str) -> None:
        if "$ref" in node:
            node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
        for option in node.get("anyOf", []):
            if _shape_matches(option, item, defs):
                walk(option, item, where)
                return
        if isinstance(item, dict) and node.get("type") == "object":
            properties = node.get("properties", {})
            extra = node.get("additionalProperties", True)
            for key, sub in item.items():
                if key in properties:
                    walk(properties[key], sub, f"{where}.{key}")
                elif extra is False:
                    problems.append(f"{where}.{key} is not allowed by the schema sent")
                elif isinstance(extra, dict):
                    walk(extra, sub, f"{where}.{key}")
        elif isinstance(item, list) and isinstance(node.get("items"), dict):
            for index, sub in enumerate(item):
                walk(node["items"], sub, f"{where}[{index}]")

    walk(schema, value, "$")
    return problems


def _shape_matches(node: dict[str, Any], item: Any, defs: dict[str, Any]) -> bool:
    if "$ref" in node:
        node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
    kind = node.get("type")
    return {
        "object": isinstance(item, dict),
        "array": isinstance(item, list),
        "string": isinstance(item, str),
        "null": item is None,
    }.get(kind, kind is None)


def _without_schema_prompt(message: Message) -> Message:
    """The message minus the appended schema instruction (Anthropic joins system parts)."""
    if _SCHEMA_PROMPT not in message.content:
        return message
    head = message.content.split(_SCHEMA_PROMPT, 1)[0].rstrip()
    return Message(role=message.role, content=head)


def _anthropic_error(message: str) -> Reply:
    return Reply(
        status=400,
        json={
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
            "request_id": "req_fake_feature_refused",
        },
    )


def _openai_error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None}}
