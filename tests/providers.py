"""The scripted provider the tests select by name (``argue.testing`` ships it):
``resolve_model("scripted")`` and the CLI's ``--provider scripted`` then run in-process on a
``ScriptedModel`` (or any ChatModel).

    def test_x(scripted_provider):
        model = ScriptedModel(responder)
        scripted_provider(model)                 # registered until the test ends
        CliRunner().invoke(app, ["doctor", "--provider", "scripted"])

``scripted_provider`` (tests/conftest.py) cleans up after the test; outside pytest,
``with registered_scripted(model): …`` does the same. The tests' rows say "tests only".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from argue.llm import ChatModel, ProviderSpec
from argue.testing import ModelFactory
from argue.testing import ScriptedProviders as _Providers
from argue.testing import scripted_provider as _registered
from argue.testing import scripted_spec as _spec

TESTS = {"help": "tests only", "origin": "tests"}


def scripted_spec(
    model: ChatModel | ModelFactory | None = None, *, name: str = "scripted", **fields: Any
) -> ProviderSpec:
    return _spec(model, name=name, **{**TESTS, **fields})


@contextmanager
def registered_scripted(
    model: ChatModel | ModelFactory | None = None, *, name: str = "scripted", **fields: Any
) -> Iterator[ProviderSpec]:
    with _registered(model, name=name, **{**TESTS, **fields}) as spec:
        yield spec


class ScriptedProviders(_Providers):
    def __init__(self) -> None:
        super().__init__(**TESTS)


def plugin_spec() -> ProviderSpec:
    """What an ``argue.providers`` entry point may name: a factory returning a row."""
    return scripted_spec(name="plugged", key_vars=("PLUGGED_PROVIDER_SECRET",))


__all__ = [
    "ModelFactory",
    "ScriptedProviders",
    "plugin_spec",
    "registered_scripted",
    "scripted_spec",
]
