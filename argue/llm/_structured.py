"""Structured output, shared by every adapter: the schema asked for, parsing, one re-ask.

An adapter supplies ``send(messages) -> RawReply`` (one model call, already retried at the HTTP
level); ``complete_structured`` validates the reply into the requested pydantic model, re-asks
once with the validation error when it does not fit, and raises ``ModelOutputError`` after that.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from argue.domain import Usage
from argue.llm._secrets import masked_error
from argue.llm.base import ChatResult, Message, ModelError, ModelOutputError, bill

T = TypeVar("T", bound=BaseModel)

ERROR_LIMIT = 1200
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)


@dataclass
class RawReply:
    """One model call's text and accounting, before any parsing; ``truncated`` when the output
    limit cut it off (finish_reason "length", stop_reason "max_tokens")."""

    text: str
    usage: Usage
    truncated: bool = False
    # One Usage per answer the provider sent (more than one when a cut-off reply was resent);
    # ``usage`` is their sum. Empty means the one answer ``usage``.
    answers: list[Usage] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.answers:
            self.answers = [self.usage]


Send = Callable[[list[Message]], Awaitable[RawReply]]


def output_schema(output: type[BaseModel]) -> dict[str, Any]:
    return output.model_json_schema()


def schema_instruction(output: type[BaseModel]) -> str:
    """Prompt text for back-ends that cannot enforce a schema on the wire."""
    return (
        "Reply with one JSON object only (no prose, no code fences) that validates against "
        f"this JSON schema:\n{json.dumps(output_schema(output))}"
    )


def tool_name_for(output: type[BaseModel]) -> str:
    return re.sub(r"[^a-zA-Z0-9_-]", "_", output.__name__)[:64] or "answer"


def extract_json_text(text: str) -> str:
    """The JSON part of a reply: code fences and surrounding prose are tolerated."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced:
        stripped = fenced.group(1).strip()
    if stripped.startswith(("{", "[")):
        return stripped
    start, end = stripped.find("{"), stripped.rfind("}")
    if start != -1 and end > start:
        return stripped[start : end + 1]
    return stripped


def parse_output(text: str, output: type[T]) -> T:
    """Validate ``text`` into ``output``; raises pydantic's ValidationError (bad JSON included).

    Raw control characters (a literal newline inside a string) are tolerated: small local
    models emit them, and the meaning is unambiguous.
    """
    candidate = extract_json_text(text)
    try:
        return output.model_validate_json(candidate)
    except ValidationError as error:
        if not any(detail["type"] == "json_invalid" for detail in error.errors()):
            raise
        try:
            data = json.loads(candidate, strict=False)
        except json.JSONDecodeError:
            raise error from None
        return output.model_validate(data)


def describe_validation_error(error: ValidationError) -> str:
    lines = []
    for item in error.errors(include_url=False):
        location = ".".join(str(part) for part in item["loc"]) or "(root)"
        lines.append(f"- {location}: {item['msg']}")
    text = "\n".join(lines)
    return text if len(text) <= ERROR_LIMIT else text[: ERROR_LIMIT - 1] + "…"


def reask_messages(
    messages: list[Message], bad_text: str, error_text: str, output: type[BaseModel]
) -> list[Message]:
    """The conversation for the single re-ask: the bad reply, then the validation error."""
    return [
        *messages,
        Message(role="assistant", content=bad_text.strip() or "(empty reply)"),
        Message(
            role="user",
            content=(
                f"Your reply did not validate against the {output.__name__} schema:\n"
                f"{error_text}\n"
                "Reply again with only the corrected JSON object."
            ),
        ),
    ]


def with_purpose(usage: Usage, purpose: str | None) -> Usage:
    return usage.model_copy(update={"purpose": purpose})


def answers_with_purpose(answers: list[Usage], purpose: str | None) -> list[Usage]:
    return [with_purpose(answer, purpose) for answer in answers]


async def complete_structured(
    send: Send,
    messages: list[Message],
    output: type[T] | None,
    *,
    provider: str,
    purpose: str | None,
    secrets: Iterable[str | None] = (),
) -> ChatResult[T]:
    """One call, parsed into ``output`` when given; one re-ask on invalid output.

    Every answer the provider sent is billed: the result's ``answers`` (or, when this raises,
    the error's ``answers``, see ``argue.llm.base.bill``) hold one Usage per answer."""
    try:
        first = await send(messages)
    except ModelError as error:
        bill(error, [], purpose)  # answers it already carries (cut off, unreadable) get the label
        raise
    first_answers = answers_with_purpose(first.answers, purpose)
    if output is None:
        return ChatResult(
            value=first.text,
            text=first.text,
            usage=with_purpose(first.usage, purpose),
            answers=first_answers,
        )
    try:
        value = parse_output(first.text, output)
    except ValidationError as error:
        first_error = describe_validation_error(error)
    else:
        return ChatResult[output](
            value=value,
            text=first.text,
            usage=with_purpose(first.usage, purpose),
            answers=first_answers,
        )

    try:
        second = await send(reask_messages(messages, first.text, first_error, output))
    except ModelError as error:
        bill(error, first_answers, purpose)  # the first answer was billed too
        raise
    usage = with_purpose(first.usage + second.usage, purpose)
    answers = [*first_answers, *answers_with_purpose(second.answers, purpose)]
    try:
        value = parse_output(second.text, output)
    except ValidationError as error:
        failure = masked_error(
            ModelOutputError,
            provider,
            f"output still did not match the {output.__name__} schema after one re-ask: "
            + " ".join(describe_validation_error(error).split()),
            secrets=secrets,
        )
        # The tokens were spent even though the answer is unusable: keep the bill with the error.
        bill(failure, answers, purpose)
        failure.raw_text = second.text  # type: ignore[attr-defined]
        raise failure from None
    return ChatResult[output](value=value, text=second.text, usage=usage, answers=answers)
