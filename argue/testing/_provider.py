"""The scripted provider: a row of the provider table whose model plays a ``DebateScript``.

Registered, it is a provider like any other: ``argue QUESTION --provider scripted``, ``argue
doctor``, ``argue.start(..., provider="scripted")`` all run on it, in-process and offline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from argue.llm import BuildContext, ChatModel, ProviderSpec, ScriptedModel, provider_registered
from argue.testing._script import DebateScript

ModelFactory = Callable[[str | None, BuildContext], ChatModel]
"""``build(model_name, context) -> ChatModel``: what a provider row's ``build`` is."""

DEFAULT_NAME = "scripted"
DEFAULT_MODEL = "scripted-1"


def debate_model(
    script: DebateScript | None = None,
    *,
    provider: str = DEFAULT_NAME,
    model: str = DEFAULT_MODEL,
) -> ScriptedModel:
    """A ``ScriptedModel`` that plays ``script`` (default: a fresh ``DebateScript()``, which
    seats personas in the order it first meets them): every call of a debate gets a
    schema-valid reply derived from its prompt."""
    return ScriptedModel(script or DebateScript(), provider=provider, model=model)


def scripted_spec(
    model: ChatModel | ModelFactory | None = None,
    *,
    name: str = DEFAULT_NAME,
    **fields: Any,
) -> ProviderSpec:
    """A provider row named ``name`` whose ``build`` returns ``model``, or calls it with the
    model name and the build context; without one, each build is a fresh ``debate_model``
    (a new ``DebateScript``: one debate per build, as a real provider's client would be).
    ``fields`` are any other ``ProviderSpec`` fields (``key_vars``, ``help``, ``probe``…)."""

    def build(wanted: str | None, ctx: BuildContext) -> ChatModel:
        if model is None:
            return debate_model(provider=name, model=wanted or DEFAULT_MODEL)
        if isinstance(model, ChatModel):
            return model
        return model(wanted, ctx)

    fields.setdefault("default_model", DEFAULT_MODEL)
    fields.setdefault("help", "argue.testing: offline, no model")
    fields.setdefault("origin", "argue.testing")
    return ProviderSpec(name=name, build=build, **fields)


def provider_spec() -> ProviderSpec:
    """The ``scripted`` row, for an entry point to name: a package that declares
    ``[project.entry-points."argue.providers"] scripted = "argue.testing:provider_spec"``
    gets ``--provider scripted`` in every argue command."""
    return scripted_spec()


@contextmanager
def scripted_provider(
    model: ChatModel | ModelFactory | None = None,
    *,
    name: str = DEFAULT_NAME,
    **fields: Any,
) -> Iterator[ProviderSpec]:
    """``scripted_spec(...)`` registered for the length of a ``with`` block (a row of that
    name already there comes back after it)."""
    with provider_registered(scripted_spec(model, name=name, **fields)) as spec:
        yield spec


class ScriptedProviders:
    """Registers scripted providers one call at a time; ``close`` removes every one (a test
    fixture calls it when the test ends)."""

    def __init__(self, **defaults: Any) -> None:
        self._stack = ExitStack()
        self._defaults = defaults

    def __call__(
        self,
        model: ChatModel | ModelFactory | None = None,
        *,
        name: str = DEFAULT_NAME,
        **fields: Any,
    ) -> ProviderSpec:
        return self._stack.enter_context(
            scripted_provider(model, name=name, **{**self._defaults, **fields})
        )

    def close(self) -> None:
        self._stack.close()
