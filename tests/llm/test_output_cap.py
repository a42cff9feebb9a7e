"""A model with its own output bound (the bundled smoke-test model: 512 tokens) is never asked
for more, and a cut-off says so at that limit, without a retry the bound would refuse anyway
(issue 40, item 5).

Teeth: without the ``output_cap`` clamp in ``Adapter.complete`` the call asks for 2,048 tokens
and is resent with 4,096, and this fails.
"""

from __future__ import annotations

import pytest

from argue.domain import Usage
from argue.llm._adapter import Adapter, CallSettings
from argue.llm._structured import RawReply
from argue.llm.base import Message, ModelError


class Babbler(Adapter):
    """Always fills whatever limit it is given (as the 270M model does)."""

    provider = "local"
    model = "babbler"

    def __init__(self, cap: int | None) -> None:
        self.output_cap = cap
        self.asked: list[int] = []

    def _secrets(self) -> list[str]:
        return []

    async def _send(self, conversation: list[Message], call: CallSettings) -> RawReply:
        self.asked.append(call.max_tokens)
        usage = Usage(provider="local", model="babbler", output_tokens=call.max_tokens)
        return RawReply(text="the the the", usage=usage, truncated=True)


async def test_a_bounded_model_is_asked_for_its_bound_and_cut_off_there() -> None:
    model = Babbler(cap=512)
    with pytest.raises(ModelError, match="cut off at 512 tokens"):
        await model.complete([Message(role="user", content="argue")], max_tokens=2048)
    assert model.asked == [512]


async def test_an_unbounded_model_gets_its_one_larger_retry() -> None:
    model = Babbler(cap=None)
    with pytest.raises(ModelError, match="cut off at 2048 tokens"):
        await model.complete([Message(role="user", content="argue")], max_tokens=2048)
    assert model.asked[0] == 2048 and len(model.asked) == 2 and model.asked[1] > 2048


def test_the_bundled_model_is_bounded_and_a_users_model_is_not() -> None:
    from argue.llm._local import BUNDLED_OUTPUT_CAP, LocalLlamaModel

    assert BUNDLED_OUTPUT_CAP == 512
    try:
        bundled = LocalLlamaModel(announce=lambda _: None)
    except Exception as exc:  # llama-cpp-python missing: the local extra is not installed
        pytest.skip(f"local extra not installed: {exc}")
    assert bundled.output_cap == BUNDLED_OUTPUT_CAP
