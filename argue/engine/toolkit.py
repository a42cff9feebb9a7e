"""The research tools a persona can call, behind one small protocol.

``SkillToolkit`` runs the real skills from one table (``skill_registry``): the built-ins
(dogpile, ask, memory, taxonomy, library), ``[skills.external]`` commands and ``argue.skills``
entry-point plugins. Tests substitute any object with the same ``menu`` and ``run`` methods.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Protocol

from argue.domain import Persona
from argue.engine.skill_registry import (
    BUILTIN_SKILL_TABLE,
    ResearchRequest,
    Skill,
    SkillContext,
    skill_table,
)
from argue.llm.base import ChatModel
from argue.skills.base import SkillResult

BUILTIN_SKILLS: tuple[str, ...] = tuple(BUILTIN_SKILL_TABLE)


class ResearchToolkit(Protocol):
    def menu(self, persona: Persona) -> str: ...

    async def run(self, request: ResearchRequest) -> SkillResult: ...


class SkillToolkit:
    """The real skills. ``problems`` names each skill left out of the table (a plugin that
    could not be loaded, a name clash) with the reason; the runner reports them once."""

    def __init__(
        self,
        model: ChatModel,
        *,
        sources: Sequence[str] | None = None,
        external: Mapping[str, Sequence[str]] | None = None,
        catalog: object | None = None,
        plugins: bool = True,
        unused_sources: Mapping[str, str] | None = None,
    ) -> None:
        self.model = model
        # None: every source; a list: exactly those (empty: none, and no dogpile is offered).
        self.sources = None if sources is None else list(sources)
        # Sources left out before round 1 because they cannot answer, with why: a call that
        # names one anyway runs on the others, and the note says why it was not asked.
        self.unused_sources = dict(unused_sources or {})
        self.external = dict(external or {})
        self._catalog = catalog
        self.skills: dict[str, Skill]
        self.problems: dict[str, str]
        self.skills, self.problems = skill_table(self.external, plugins=plugins)
        self.persona_models: dict[str, ChatModel] = {}

    def bind_model(self, model: ChatModel) -> None:
        self.model = model

    def bind_persona_models(self, models: Mapping[str, ChatModel]) -> None:
        """A persona's own model (by letter) answers the colleagues it consults (``ask``)."""
        self.persona_models = dict(models)

    @property
    def catalog(self):
        if self._catalog is None:
            from argue.personas import load_catalog

            self._catalog = load_catalog()
        return self._catalog

    @property
    def skill_names(self) -> tuple[str, ...]:
        """Every skill the model may call, in menu order: not ``dogpile`` when no source can
        answer, nor ``library`` when the library is known to be empty."""
        return tuple(name for name in self.skills if self._offered(name))

    def _offered(self, skill: str) -> bool:
        if skill == "dogpile":
            return self.sources is None or bool(self.sources)
        if skill == "library":
            return "library" not in self.unused_sources
        return True

    @property
    def source_names(self) -> tuple[str, ...]:
        """The research sources a dogpile call may name (``--sources`` as decided before
        round 1, else all of them; empty when none can answer)."""
        from argue.skills.dogpile import SOURCE_NAMES

        return tuple(SOURCE_NAMES) if self.sources is None else tuple(self.sources)

    def context(self, letter: str | None = None) -> SkillContext:
        """What a skill may use; ``letter``: the persona calling it (its own model, if any)."""
        sources = None if self.sources is None else tuple(self.sources)
        model = self.persona_models.get(letter, self.model) if letter else self.model
        return SkillContext(model, sources, lambda: self.catalog, self.unused_sources)

    def _drop_unreachable(self, result: SkillResult) -> None:
        """A source whose host name could not be looked up (no network, most often) is not
        offered again in this debate: the next plans name only the others."""
        from argue.skills.dogpile import NAME_LOOKUP_FAILED, SOURCE_NAMES

        for status in result.sources:
            if status.status != "failed" or not status.note.startswith(NAME_LOOKUP_FAILED):
                continue
            names = list(SOURCE_NAMES) if self.sources is None else self.sources
            self.sources = [name for name in names if name != status.source]
            self.unused_sources[status.source] = f"unreachable in this debate ({status.note})"

    def menu(self, persona: Persona) -> str:
        context = self.context()
        return "\n".join(
            f"- {name}: {skill.describe(persona, context)}"
            for name, skill in self.skills.items()
            if self._offered(name)
        )

    async def run(self, request: ResearchRequest) -> SkillResult:
        call = request.call
        started = time.monotonic()
        skill = self.skills.get(call.skill)
        if skill is not None:
            result = await skill.run(request, self.context(request.letter))
            self._drop_unreachable(result)
            if result.usage:
                # A model-backed service the skill paid for (Perplexity): in the usage ledger.
                record = getattr(self.model, "record_usage", None)
                if callable(record):
                    record(result.usage)
            return result
        if call.skill in self.problems:
            note = f"{call.skill} is not available: {self.problems[call.skill]}"
        else:
            note = f"unknown skill {call.skill!r}; available: {', '.join(self.skills)}"
        return SkillResult.refused(call.skill, call.query, note).model_copy(
            update={"elapsed_s": time.monotonic() - started}
        )
