"""The one model contract: ``ChatModel.complete(messages, output=...)``.

Adapters (anthropic, openai_compat, local, scripted) implement it; the engine and skills only
ever see this protocol. A call returns a ``ChatResult`` whose ``value`` is the parsed pydantic
object when ``output`` is given, else the text, plus a ``Usage`` record.
"""

from __future__ import annotations

from typing import Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, Field

from argue.domain import FailureCause, Usage

T = TypeVar("T", bound=BaseModel)


class Message(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str
    cache_point: bool = Field(
        default=False,
        exclude_if=lambda v: not v,
        description="The request's stable prefix ends after this message: the same persona's "
        "later requests start with the same messages up to here, so a provider may cache them "
        "(Anthropic: a cache_control breakpoint; others cache prefixes on their own)",
    )


class ChatResult(BaseModel, Generic[T]):
    value: T | str
    text: str = Field(description="The raw text the model produced")

    def parsed(self) -> T:
        """The structured answer (a call made with ``output=``); text here is a bug."""
        if isinstance(self.value, str):
            raise TypeError("this call returned text, not a structured answer")
        return self.value

    usage: Usage = Field(description="The sum of ``answers``")
    answers: list[Usage] = Field(
        default_factory=list,
        description="One Usage per answer the provider sent for this call (a re-ask, or a "
        "resend after a cut-off reply, is an answer of its own): each was billed",
    )
    repairs: list[str] = Field(
        default_factory=list,
        description="What code changed in the answer to make it valid (e.g. a confidence of "
        "1.3 clamped to 1.0), in plain words; to be recorded with what the answer produced",
    )


def billed_answers(error: BaseException) -> list[Usage]:
    """The answers the provider sent before ``error`` was raised (each billed), else []."""
    answers = getattr(error, "answers", None)
    if isinstance(answers, list):
        return [a for a in answers if isinstance(a, Usage)]
    usage = getattr(error, "usage", None)  # a ChatModel that only keeps the sum
    return [usage] if isinstance(usage, Usage) else []


def bill(error: BaseException, earlier: list[Usage], purpose: str | None = None) -> None:
    """Attach the answers sent before ``error`` (``earlier``, then any it already carries) to it:
    ``error.answers`` one Usage per answer, ``error.usage`` their sum."""
    answers = [*earlier, *billed_answers(error)]
    if purpose is not None:
        answers = [a.model_copy(update={"purpose": purpose}) for a in answers]
    if not answers:
        return
    total = answers[0]
    for answer in answers[1:]:
        total = total + answer
    error.answers = answers  # type: ignore[attr-defined]
    error.usage = total.model_copy(update={"purpose": answers[0].purpose})  # type: ignore[attr-defined]


class ModelError(Exception):
    """A model call that did not produce a usable answer. The message names the provider;
    ``cause`` says in plain words what kind of failure it was (``argue.domain.FailureCause``)."""

    cause: FailureCause | None = None

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        status_code: int | None = None,
        cause: FailureCause | None = None,
    ) -> None:
        self.provider = provider
        self.status_code = status_code
        if cause is not None:
            self.cause = cause
        super().__init__(f"{provider}: {message}")


class ModelAuthError(ModelError):
    """401/403: credentials rejected. Never retried."""

    cause: FailureCause | None = "rejected"


class ModelRequestError(ModelError):
    """A deterministic rejection (400/404/405/415/422, a 5xx whose body names the request, an
    exhausted quota): the request itself is wrong for this server. Never retried."""

    cause: FailureCause | None = "rejected"


class ModelUnavailableError(ModelError):
    """Retries exhausted (429/5xx/timeouts/connection errors) or the server is unreachable."""

    cause: FailureCause | None = "unavailable"


class ModelServerDiedError(ModelUnavailableError):
    """The server process died while answering this call: the connection dropped mid-answer and
    the next connect was refused (its log or ``dmesg`` says why). Not retried. A later call that
    finds nothing listening is a ``ModelUnavailableError`` with the same cause."""

    cause: FailureCause | None = "crashed"


class ModelOutputError(ModelError):
    """Structured output still invalid after one re-ask, or an answer cut off by a limit
    (``cause`` "cut_off")."""

    cause: FailureCause | None = "invalid_output"


class ModelRefusalError(ModelOutputError):
    """The model declined to answer: the provider said so (OpenAI's ``message.refusal``,
    Anthropic's ``stop_reason`` "refusal"), or the reply was a refusal in prose in place of the
    JSON asked for. The message quotes its first words; the answer was billed. Not re-asked."""

    cause: FailureCause | None = "refused_by_model"


class ProviderNotConfigured(Exception):
    """No usable provider: the message lists the ways to configure one (CLI exits 2)."""


@runtime_checkable
class ChatModel(Protocol):
    provider: str
    model: str

    async def complete(
        self,
        messages: list[Message],
        *,
        output: type[T] | None = None,
        max_tokens: int = 2048,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> ChatResult[T]:
        """Send ``messages``; parse into ``output`` when given (one re-ask on invalid output)."""
        ...
