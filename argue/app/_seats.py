"""Personas on models of their own: ``NAME=MODEL`` (``--persona-model``) and a persona file's
``model``.

``MODEL`` is a model of the debate's provider, or ``provider:model`` (``openai:gpt-5.4``,
``ollama:llama3.2:3b``; a prefix that is not a provider name is part of the model name).
The flag wins over the persona file, which wins over the debate's model. Only a persona whose
model differs from the debate's is recorded (``config.json`` ``persona_models``, by letter);
``resume`` reads it back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from argue.app._errors import UsageError

if TYPE_CHECKING:
    from argue.app._workspace import Workspace
    from argue.domain import DebateConfig, Persona, SeatModel
    from argue.llm import ChatModel

FLAG = "`persona_models`"
# A seat's ``source`` when the request named its model: a value of the dry run's JSON document
# (``model_source``), which names the flag since 0.1.
NAMED_SOURCE = "--persona-model"


@dataclass(frozen=True)
class SeatChoice:
    """Which model one seated persona will speak with, and why."""

    letter: str
    persona: Persona
    provider: str
    model: str
    source: str  # "--persona-model" | "persona file" | "debate model"

    def label(self) -> str:
        return f"{self.provider}/{self.model}"


def parse_model_spec(spec: str, default_provider: str) -> tuple[str, str]:
    """``MODEL`` or ``provider:MODEL`` -> (provider, model)."""
    from argue.llm import PROVIDER_NAMES

    spec = spec.strip()
    head, sep, tail = spec.partition(":")
    if sep and head.strip().lower() in PROVIDER_NAMES:
        return head.strip().lower(), tail.strip()
    return default_provider, spec


def choose_seat_models(
    lineup: Sequence[Persona], flags: Sequence[str], debate: ChatModel
) -> list[SeatChoice]:
    """Each seated persona's model; a malformed or unknown ``NAME=MODEL`` is a UsageError."""
    from argue.store import persona_letter

    letters = {persona_letter(i): p for i, p in enumerate(lineup)}
    seated = ", ".join(f"{letter}={p.name}" for letter, p in letters.items())
    by_flag: dict[str, str] = {}
    for raw in flags:
        name, sep, spec = raw.partition("=")
        name = name.strip()
        if not sep or not name or not spec.strip():
            raise UsageError(
                f"{FLAG} expects NAME=MODEL (e.g. horus=gpt-5.4 or B=anthropic:...), got {raw!r}"
            )
        letter = next((k for k, p in letters.items() if p.name == name.lower()), None)
        if letter is None and name.upper() in letters:
            letter = name.upper()
        if letter is None:
            raise UsageError(f"{FLAG} {name}: not a seated persona (seated: {seated})")
        if letter in by_flag:
            raise UsageError(f"{FLAG} names {letters[letter].name} ({letter}) twice")
        by_flag[letter] = spec
    choices = []
    for letter, persona in letters.items():
        if letter in by_flag:
            spec, source = by_flag[letter], NAMED_SOURCE
        elif persona.model:
            spec, source = persona.model, "persona file"
        else:
            choices.append(
                SeatChoice(letter, persona, debate.provider, debate.model, "debate model")
            )
            continue
        provider, model = parse_model_spec(spec, debate.provider)
        if not model:
            raise UsageError(f"{source} of {persona.name}: no model named in {spec!r}")
        choices.append(SeatChoice(letter, persona, provider, model, source))
    return choices


def recorded(choices: Sequence[SeatChoice], debate: ChatModel) -> dict[str, SeatModel]:
    """What config.json keeps: the personas whose model is not the debate's."""
    from argue.domain import SeatModel

    return {
        c.letter: SeatModel(provider=c.provider, model=c.model)
        for c in choices
        if (c.provider, c.model) != (debate.provider, debate.model)
    }


def shared_model_warning(choices: Sequence[SeatChoice], lang: str = "en") -> str | None:
    """One line when every persona speaks with the same model (less diverse arguments)."""
    from argue.records.labels import label

    models = {c.label() for c in choices}
    if len(choices) < 2 or len(models) != 1:
        return None
    return label("t_shared_model", lang, model=models.pop(), flag=FLAG)


def resolve_seat_models(
    seats: Mapping[str, SeatModel],
    debate: ChatModel,
    workspace: Workspace,
    *,
    budget_usd: float | None = None,
) -> dict[str, ChatModel]:
    """A ChatModel per listed letter (one per distinct model; the debate's own is reused).

    A provider that is not configured, or a cost budget with a model that has no price, is a
    UsageError, as for the debate's model."""
    built: dict[tuple[str, str], ChatModel] = {(debate.provider, debate.model): debate}
    models: dict[str, ChatModel] = {}
    for letter, seat in seats.items():
        key = (seat.provider, seat.model)
        if key not in built:
            built[key] = workspace.resolve(seat.provider, seat.model)
            workspace.require_price(built[key], budget_usd)
        models[letter] = built[key]
    return models


def models_for_run(
    config: DebateConfig, debate: ChatModel, workspace: Workspace
) -> dict[str, ChatModel]:
    """The recorded persona models of a debate (letters it seats only), ready to run."""
    seats = {k: v for k, v in config.persona_models.items() if k in config.personas}
    return resolve_seat_models(seats, debate, workspace, budget_usd=config.budget_usd)


VERIFIER_FLAG = "`verifier_model`"


def choose_verifier(spec: str | None, debate: ChatModel) -> SeatModel | None:
    """The support check's model from ``--verifier-model`` (or config ``verifier_model``):
    ``MODEL`` of the debate's provider or ``provider:MODEL``; None (not given): the judge's,
    which is the debate's model."""
    from argue.domain import SeatModel

    if spec is None or not spec.strip():
        return None
    provider, model = parse_model_spec(spec, debate.provider)
    if not model:
        raise UsageError(f"{VERIFIER_FLAG}: no model named in {spec!r}")
    return SeatModel(provider=provider, model=model)


def verifier_for_run(
    config: DebateConfig,
    debate: ChatModel,
    workspace: Workspace,
    persona_models: Mapping[str, ChatModel] | None = None,
) -> ChatModel | None:
    """The recorded support-check model, ready to run (None: the debate's own). A model a
    persona already speaks with is reused."""
    seat = config.verifier_model
    if seat is None or (seat.provider, seat.model) == (debate.provider, debate.model):
        return None
    for model in (persona_models or {}).values():
        if (model.provider, model.model) == (seat.provider, seat.model):
            return model
    verifier = workspace.resolve(seat.provider, seat.model)
    workspace.require_price(verifier, config.budget_usd)
    return verifier
