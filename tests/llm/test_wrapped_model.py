"""``WrappedModel``: the one ChatModel wrapper base (metering, the eval's tally)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from argue.domain import Usage
from argue.engine.metering import MeteredModel
from argue.eval.budget import TalliedModel
from argue.llm import ChatModel, Message, ModelOutputError, ScriptedModel, WrappedModel

HI = [Message(role="user", content="hi")]


class Answer(BaseModel):
    value: int


class Seen(WrappedModel):
    """Records each hook call."""

    def __init__(self, inner: ChatModel) -> None:
        super().__init__(inner)
        self.seen: list[tuple[int, str | None]] = []

    def on_answers(self, answers: list[Usage], purpose: str | None) -> None:
        self.seen.append((len(answers), purpose))


def test_wrappers_are_chat_models_forwarding_provider_and_model() -> None:
    inner = ScriptedModel(replies=[], provider="p", model="m")
    for wrapped in (WrappedModel(inner), MeteredModel(inner, []), TalliedModel(inner, print)):
        assert isinstance(wrapped, WrappedModel) and isinstance(wrapped, ChatModel)
        assert (wrapped.provider, wrapped.model, wrapped.inner) == ("p", "m", inner)
        # it does not own the model it wraps: closing is for whoever built it
        assert not hasattr(wrapped, "aclose")


def test_the_hook_sees_every_billed_answer_and_the_outcome_passes_unchanged() -> None:
    inner = ScriptedModel(replies=["plain", "not json", "still not json"])
    model = Seen(inner)
    result = asyncio.run(model.complete(HI, purpose="ask"))
    assert result.value == "plain"
    assert model.seen == [(1, "ask")]
    with pytest.raises(ModelOutputError) as raised:
        asyncio.run(model.complete(HI, output=Answer, purpose="structured"))
    # invalid twice: the answer and its re-ask were both billed, and the caller gets the error
    assert model.seen[1] == (2, "structured")
    assert len(raised.value.answers) == 2  # type: ignore[attr-defined]
