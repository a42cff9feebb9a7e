"""A scripted provider the tests can select by name: ``resolve_model("scripted")`` and the CLI's
``--provider scripted`` then run in-process on a ``ScriptedModel`` (or any ChatModel).

    def test_x(scripted_provider):
        model = ScriptedModel(responder)
        scripted_provider(model)                 # registered until the test ends
        CliRunner().invoke(app, ["doctor", "--provider", "scripted"])

``scripted_provider`` (tests/conftest.py) cleans up after the test; outside pytest,
``with registered_scripted(model): …`` does the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from argue.llm import BuildContext, ChatModel, ProviderSpec, ScriptedModel, provider_registered

ModelFactory = Callable[[str | None, BuildContext], ChatModel]


def scripted_spec(
    model: ChatModel | ModelFactory | None = None, *, name: str = "scripted", **fields: Any
) -> ProviderSpec:
    """A row whose ``build`` returns ``model`` (or calls it with the model name and context);
    without a model, a fresh ``ScriptedModel`` that answers "ok" each time it is built."""

    def build(wanted: str | None, ctx: BuildContext) -> ChatModel:
        if model is None:
            return ScriptedModel(lambda messages, output: "ok", provider=name)
        if isinstance(model, ChatModel):
            return model
        return model(wanted, ctx)

    fields.setdefault("default_model", "scripted-1")
    fields.setdefault("help", "tests only")
    return ProviderSpec(name=name, build=build, origin="tests", **fields)


@contextmanager
def registered_scripted(
    model: ChatModel | ModelFactory | None = None, *, name: str = "scripted", **fields: Any
) -> Iterator[ProviderSpec]:
    with provider_registered(scripted_spec(model, name=name, **fields)) as spec:
        yield spec


class ScriptedProviders:
    """Registers scripted providers; ``close`` removes every one (the fixture calls it)."""

    def __init__(self) -> None:
        self._stack = ExitStack()

    def __call__(
        self,
        model: ChatModel | ModelFactory | None = None,
        *,
        name: str = "scripted",
        **fields: Any,
    ) -> ProviderSpec:
        return self._stack.enter_context(registered_scripted(model, name=name, **fields))

    def close(self) -> None:
        self._stack.close()


def plugin_spec() -> ProviderSpec:
    """What an ``argue.providers`` entry point may name: a factory returning a row."""
    return scripted_spec(name="plugged", key_vars=("PLUGGED_PROVIDER_SECRET",))
