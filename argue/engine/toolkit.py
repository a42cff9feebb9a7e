"""The research tools a persona can call, behind one small protocol.

``SkillToolkit`` runs the real skills (dogpile, ask, memory, taxonomy, library, external).
Tests substitute any object with the same ``run`` method.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from argue.domain import Persona
from argue.engine.schemas import ResearchCallDraft
from argue.llm.base import ChatModel
from skills.base import SkillResult

BUILTIN_SKILLS = ("dogpile", "ask", "memory", "taxonomy", "library")


@dataclass
class ResearchRequest:
    call: ResearchCallDraft
    persona: Persona
    letter: str
    debate_id: str
    participants: Mapping[str, Sequence[str]] = field(default_factory=dict)


class ResearchToolkit(Protocol):
    def menu(self, persona: Persona) -> str: ...

    async def run(self, request: ResearchRequest) -> SkillResult: ...


class SkillToolkit:
    def __init__(
        self,
        model: ChatModel,
        *,
        sources: Sequence[str] | None = None,
        external: Mapping[str, Sequence[str]] | None = None,
        catalog: object | None = None,
    ) -> None:
        self.model = model
        self.sources = list(sources) if sources else None
        self.external = dict(external or {})
        self._catalog = catalog

    def bind_model(self, model: ChatModel) -> None:
        self.model = model

    @property
    def catalog(self):
        if self._catalog is None:
            from argue.personas import load_catalog

            self._catalog = load_catalog()
        return self._catalog

    def menu(self, persona: Persona) -> str:
        sources = ", ".join(self.sources) if self.sources else "all enabled sources"
        colleagues = ", ".join(persona.colleagues) or "(none)"
        lines = [
            f"- dogpile: multi-source search ({sources}); `query`, optional `sources`",
            f"- ask: consult a colleague persona ({colleagues}); `query` is your question, "
            "optional `colleague`",
            "- memory: recall what earlier debates taught you; `query`",
            "- library: search the local library of ingested books and transcripts; `query`",
            "- taxonomy: tag a text with the six bridges; `query` is the text",
        ]
        lines += [f"- {name}: external skill; `query`" for name in self.external]
        return "\n".join(lines)

    async def run(self, request: ResearchRequest) -> SkillResult:
        call = request.call
        skill = call.skill
        started = time.monotonic()
        if skill == "dogpile":
            return await self._dogpile(call, started)
        if skill == "library":
            from skills.library import search_library

            return await search_library(call.query, k=5)
        if skill == "memory":
            from skills.memory import recall_memory

            return await recall_memory(call.query, request.persona.name, k=5)
        if skill == "taxonomy":
            from skills.taxonomy import taxonomy_skill

            return await taxonomy_skill(call.query)
        if skill == "ask":
            from skills.ask import ask
            from skills.memory import recall_memory

            async def memory_recall(query: str, persona_name: str) -> SkillResult:
                return await recall_memory(query, persona_name, k=3)

            return await ask(
                call.query,
                asker=request.persona,
                catalog=self.catalog,
                model=self.model,
                colleague=call.colleague,
                participants=request.participants,
                memory_recall=memory_recall,
            )
        if skill in self.external:
            from skills.external import run_external

            return await run_external(skill, self.external[skill], call.query)
        return SkillResult.refused(
            skill,
            call.query,
            f"unknown skill {skill!r}; available: {', '.join([*BUILTIN_SKILLS, *self.external])}",
        ).model_copy(update={"elapsed_s": time.monotonic() - started})

    async def _dogpile(self, call: ResearchCallDraft, started: float) -> SkillResult:
        """Run the sources asked for that ``--sources`` allows; refuse the others by name.

        A source the call names but may not use is never swapped for another one: it comes back
        as a refused source status (so it reaches the failure list), and a call whose every
        named source is refused is refused as a whole, naming the allowed sources.
        """
        from skills.base import SourceStatus
        from skills.dogpile import SOURCE_NAMES, aggregate_status, dogpile

        allowed = self.sources or list(SOURCE_NAMES)
        asked = list(dict.fromkeys(s.strip().lower() for s in call.sources if s.strip()))
        if not asked:
            return await dogpile(call.query, sources=self.sources)
        allowed_words = f"allowed: {', '.join(allowed)}"

        def why(name: str) -> str:
            return "not allowed by --sources" if name in SOURCE_NAMES else "not a research source"

        refused = [
            SourceStatus(source=name, status="refused", note=f"{why(name)}; {allowed_words}")
            for name in asked
            if name not in allowed
        ]
        runnable = [name for name in asked if name in allowed]
        if not runnable:
            names = ", ".join(f"{s.source} ({why(s.source)})" for s in refused)
            return SkillResult(
                skill="dogpile",
                query=call.query,
                status="refused",
                note=f"nothing sent: asked only for {names}; {allowed_words}",
                elapsed_s=time.monotonic() - started,
                sources=refused,
            )
        result = await dogpile(call.query, sources=runnable)
        if not refused:
            return result
        statuses = [*result.sources, *refused]
        status, note = aggregate_status(result.items, statuses)
        return result.model_copy(update={"status": status, "note": note, "sources": statuses})
