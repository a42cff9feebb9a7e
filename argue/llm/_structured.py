"""Structured output, shared by every adapter: the schema asked for, parsing, one re-ask.

An adapter supplies ``send(messages) -> RawReply`` (one model call, already retried at the HTTP
level); ``complete_structured`` validates the reply into the requested pydantic model, re-asks
once with the validation error when it does not fit, and raises ``ModelOutputError`` after that.
A reply that is a refusal in prose in place of the JSON ("I'm sorry, but I can't help with
that.", ``argue.text.refusal``) is not re-asked: it raises ``ModelRefusalError`` (cause
``refused_by_model``) quoting its first words, its answer billed like any other. Asking again
would bill a second refusal and report it as "invalid JSON".
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from argue.domain import Usage
from argue.llm._secrets import masked_error
from argue.llm.base import (
    ChatResult,
    Message,
    ModelError,
    ModelOutputError,
    ModelRefusalError,
    bill,
)
from argue.text.refusal import first_words, is_refusal

T = TypeVar("T", bound=BaseModel)

ERROR_LIMIT = 1200
# Prose in place of JSON is a refusal when it opens with a refusal formula and is at most this
# long (longer than a claim may be: a model that declines often explains itself).
PROSE_REFUSAL_CHARS = 1500
_FENCE = re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```$", re.DOTALL)


@dataclass(frozen=True)
class ContextCut:
    """A reply stopped for length before the output limit: the context window was full."""

    prompt_tokens: int
    output_tokens: int
    output_limit: int
    context_window: int | None = None

    def describe(self) -> str:
        window = f" of a {self.context_window}-token window" if self.context_window else ""
        return (
            f"the answer was cut off by the context window{window} after "
            f"{self.output_tokens} output tokens (the prompt took {self.prompt_tokens} tokens), "
            f"not by the {self.output_limit}-token output limit; not sent again, since a larger "
            "output limit cannot help (shorten the prompt or use a model with a larger context)"
        )


@dataclass
class RawReply:
    """One model call's text and accounting, before any parsing; ``truncated`` when a length
    limit cut it off (finish_reason "length", stop_reason "max_tokens"), with ``context_cut``
    set when that limit was the context window rather than the output limit."""

    text: str
    usage: Usage
    truncated: bool = False
    context_cut: ContextCut | None = None
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
    from argue.llm._dialects import compact_schema

    return (
        "Reply with one JSON object only (no prose, no code fences) that validates against "
        f"this JSON schema:\n{json.dumps(compact_schema(output))}"
    )


def prompt_form(output: type[BaseModel]) -> type[BaseModel]:
    """The schema a prompt may show for ``output``: the broader, stable class it names as
    ``prompt_form`` (a per-call schema whose enums code checks anyway), else itself."""
    form = getattr(output, "prompt_form", None)
    return form if isinstance(form, type) and issubclass(form, BaseModel) else output


def schema_shown(messages: list[Message], output: type[BaseModel]) -> bool:
    """Whether the request's system text already holds ``output``'s answer format (as
    :func:`schema_instruction` writes it for its :func:`prompt_form`): an adapter that puts
    schemas in the prompt then adds none, so the prefix stays the same from call to call. The
    reply is still validated against ``output``."""
    text = schema_instruction(prompt_form(output))
    return any(m.role == "system" and text in m.content for m in messages)


def stable_output(output: type[BaseModel]) -> type[BaseModel] | None:
    """The schema an adapter may send on the wire for ``output`` so that every request of one
    caller carries the same one (a schema keys a provider's prompt cache): the class ``output``
    or its :func:`prompt_form` names as ``stable_output``, else None. An adapter sends it only
    where the system text shows the forms it covers (:func:`guide_shown`).

    For a persona that is one object whose single field (:data:`STABLE_ANSWER_FIELD`) is any
    phase's form (``argue.engine.schemas.PhaseAnswer``): the API then constrains the answer to
    some phase's form, while the per-call schema (its enums, which phase is due) is checked by
    code after the answer, as every answer is. :func:`unwrapped_answer` takes the answer out of
    that field."""
    for holder in (output, prompt_form(output)):
        union = getattr(holder, "stable_output", None)
        if isinstance(union, type) and issubclass(union, BaseModel):
            return union
    return None


def guide_shown(messages: list[Message], union: type[BaseModel]) -> bool:
    """Whether the request's system text shows the answer format of every form a stable output
    names as its ``shown_forms`` (a persona's phase guide): only such a caller sends it, for
    every request, so it is the same from call to call."""
    forms = getattr(union, "shown_forms", ())
    texts = [schema_instruction(form) for form in forms]
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    return bool(texts) and all(text in system for text in texts)


# The one field of a stable output (see stable_output): it holds the answer itself.
STABLE_ANSWER_FIELD = "reply"


def unwrapped_answer(text: str) -> str:
    """The answer inside a reply to a stable output (``{"reply": {...}}``, see
    :func:`stable_output`) as JSON text; a reply of another shape (cut off, not JSON) as it is,
    for the parser to report and the re-ask to show."""
    try:
        data = json.loads(extract_json_text(text))
    except json.JSONDecodeError:
        return text
    if isinstance(data, dict) and set(data) == {STABLE_ANSWER_FIELD}:
        return json.dumps(data[STABLE_ANSWER_FIELD], ensure_ascii=False)
    return text


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


_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
# Bound errors a value can be repaired from without guessing: clamp to the inclusive bound.
_CLAMPABLE = {"less_than_equal": "le", "greater_than_equal": "ge"}


def parse_output(text: str, output: type[T], repairs: list[str] | None = None) -> T:
    """Validate ``text`` into ``output``; raises pydantic's ValidationError (bad JSON included).

    Repairs whose meaning is unambiguous are made and, when ``repairs`` is given, described
    there: raw control characters inside strings (small local models emit them), trailing
    commas, and numbers past an inclusive bound (a grammar cannot enforce ``confidence <= 1``;
    1.3 becomes 1.0). Anything else is left for the re-ask.
    """
    candidate = extract_json_text(text)
    try:
        return output.model_validate_json(candidate)
    except ValidationError as error:
        first_error = error
    try:
        data = json.loads(candidate, strict=False)
    except json.JSONDecodeError:
        try:
            data = json.loads(_TRAILING_COMMA.sub(r"\1", candidate), strict=False)
        except json.JSONDecodeError:
            raise first_error from None
    try:
        return output.model_validate(data)
    except ValidationError as error:
        clamped = _clamped(data, error)
        if clamped is None:
            raise
        value = output.model_validate(clamped[0])  # still invalid: raises for the re-ask
        if repairs is not None:
            repairs.extend(clamped[1])
        return value


def _clamped(data: Any, error: ValidationError) -> tuple[Any, list[str]] | None:
    """``data`` with every out-of-range number set to the bound it passed, and what was done;
    None when some error is not such a number."""
    data = json.loads(json.dumps(data))  # a copy to change
    done: list[str] = []
    for item in error.errors(include_url=False):
        bound_key = _CLAMPABLE.get(item["type"])
        bound = (item.get("ctx") or {}).get(bound_key) if bound_key else None
        value = item.get("input")
        if bound is None or isinstance(value, bool) or not isinstance(value, int | float):
            return None
        parent: Any = data
        *path, last = item["loc"]
        try:
            for part in path:
                parent = parent[part]
            if parent[last] != value:
                return None
            parent[last] = bound
        except (KeyError, IndexError, TypeError):
            return None
        where = ".".join(str(part) for part in item["loc"])
        done.append(f"{where}: {value} is out of range, clamped to {bound}")
    return (data, done) if done else None


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
    """The conversation for the single re-ask: the bad reply, then the validation error. A
    schema the system text shows (:func:`schema_shown`) is named as the model saw it there."""
    schema = f"the {output.__name__} schema"
    if schema_shown(messages, output):
        schema = (
            f"the {prompt_form(output).__name__} schema in your instructions, as this request "
            "narrows it"
        )
    return [
        *messages,
        Message(role="assistant", content=bad_text.strip() or "(empty reply)"),
        Message(
            role="user",
            content=(
                f"Your reply did not validate against {schema}:\n"
                f"{error_text}\n"
                "Reply again with only the corrected JSON object."
            ),
        ),
    ]


def refuses_in_prose(text: str) -> bool:
    """Whether a reply that did not parse is a refusal in prose: no JSON object in it, and it
    opens with a refusal formula (``argue.text.refusal.is_refusal``, English or French)."""
    return "{" not in text and is_refusal(text, max_chars=PROSE_REFUSAL_CHARS)


def refusal_error(
    text: str,
    output: type[BaseModel],
    answers: list[Usage],
    *,
    provider: str,
    purpose: str | None,
    secrets: Iterable[str | None],
) -> ModelRefusalError:
    """The error for a refusal in prose, quoting its first words, with its answers billed."""
    failure = masked_error(
        ModelRefusalError,
        provider,
        f"the model refused, in prose in place of the {output.__name__} JSON asked for (not "
        f"asked again): “{first_words(text)}”",
        secrets=secrets,
    )
    bill(failure, answers, purpose)
    failure.raw_text = text  # type: ignore[attr-defined]
    return failure


def with_purpose(usage: Usage, purpose: str | None) -> Usage:
    return usage.model_copy(update={"purpose": purpose})


def with_repairs(answers: list[Usage], repairs: list[str]) -> list[Usage]:
    """The repairs are recorded with the answer they were made to (the last one)."""
    if not repairs or not answers:
        return answers
    return [*answers[:-1], answers[-1].model_copy(update={"repairs": list(repairs)})]


def answers_with_purpose(answers: list[Usage], purpose: str | None) -> list[Usage]:
    return [with_purpose(answer, purpose) for answer in answers]


def _result_model(output: type[T]) -> type[ChatResult[T]]:
    """``ChatResult`` parametrised with ``output``'s :func:`result_type`."""
    return _parametrised(result_type(output))


def result_type(output: type[T]) -> type[T]:
    """The class a result of ``output`` is wrapped as: ``output`` itself, or the base it names
    as ``result_as`` when it is a per-call subclass that adds no field, validator or
    serializer (only its JSON schema differs, e.g. an argument schema's enum of evidence ids).
    Its value was validated by ``output`` and stays that instance; dumped as the base, it dumps
    the same fields. One parametrised class per base, not one per call (~3 ms of CPU after
    each argument answer, on the critical path before the rebuttals, issue 43 item 4)."""
    base = getattr(output, "result_as", None)
    if isinstance(base, type) and issubclass(output, base) and _same_shape(output, base):
        return base
    return output


def _same_shape(output: type[BaseModel], base: type[BaseModel]) -> bool:
    return (
        output.model_fields.keys() == base.model_fields.keys()
        and output.__pydantic_decorators__ == base.__pydantic_decorators__
    )


@functools.lru_cache(maxsize=512)
def _parametrised(output: type[T]) -> type[ChatResult[T]]:
    """``ChatResult`` parametrised with ``output`` at run time: pydantic validates and dumps
    ``value`` as that model (mypy has no syntax for a class parametrised by a variable). Kept:
    pydantic's own cache of parametrised classes holds them weakly, so each call built it
    again (~5 ms of CPU a request, issue 43 item 4)."""
    return ChatResult[output]  # type: ignore[valid-type]


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
    repairs: list[str] = []
    try:
        value = parse_output(first.text, output, repairs)
    except ValidationError as error:
        if refuses_in_prose(first.text):
            raise refusal_error(
                first.text,
                output,
                first_answers,
                provider=provider,
                purpose=purpose,
                secrets=secrets,
            ) from None
        first_error = describe_validation_error(error)
    else:
        return _result_model(output)(
            value=value,
            text=first.text,
            usage=with_purpose(first.usage, purpose),
            answers=with_repairs(first_answers, repairs),
            repairs=repairs,
        )

    try:
        second = await send(reask_messages(messages, first.text, first_error, output))
    except ModelError as error:
        bill(error, first_answers, purpose)  # the first answer was billed too
        raise
    usage = with_purpose(first.usage + second.usage, purpose)
    answers = [*first_answers, *answers_with_purpose(second.answers, purpose)]
    try:
        value = parse_output(second.text, output, repairs)
    except ValidationError as error:
        if refuses_in_prose(second.text):
            raise refusal_error(
                second.text, output, answers, provider=provider, purpose=purpose, secrets=secrets
            ) from None
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
    return _result_model(output)(
        value=value,
        text=second.text,
        usage=usage,
        answers=with_repairs(answers, repairs),
        repairs=repairs,
    )
