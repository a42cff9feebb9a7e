"""Every research skill has one shape and sits in one table.

A skill is any object with a ``name``, a ``describe(persona, context)`` that returns the one line
shown to the model in the research menu, and ``async run(request, context) -> SkillResult``.
The built-in skills are ``BUILTIN_SKILL_TABLE``; each ``[skills.external]`` command is wrapped
as an ``ExternalCommandSkill``; a third-party package adds skills through the Python entry-point
group ``argue.skills`` (``load_plugin_skills``). ``SkillToolkit`` builds its menu and dispatches
its calls from the resulting table.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from argue.skills.base import SkillResult

if TYPE_CHECKING:
    from argue.domain import Persona
    from argue.engine.schemas import ResearchCallDraft
    from argue.llm.base import ChatModel
    from argue.personas import PersonaCatalog

ENTRY_POINT_GROUP = "argue.skills"
_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")


@dataclass(frozen=True)
class SkillContext:
    """What a skill may use besides its request: the debate's model (metered: ``ask`` uses it),
    the research sources ``--sources`` allows (None: all; empty: none), the persona catalog,
    and the sources left out before round 1 because they cannot answer (name -> why)."""

    model: ChatModel
    sources: tuple[str, ...] | None = None
    catalog_loader: Callable[[], PersonaCatalog] | None = None
    unused_sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def catalog(self) -> PersonaCatalog:
        if self.catalog_loader is not None:
            return self.catalog_loader()
        from argue.personas import load_catalog

        return load_catalog()


@dataclass
class ResearchRequest:
    """One research call as a skill receives it (the persona's call, who asked, the debate)."""

    call: ResearchCallDraft
    persona: Persona
    letter: str
    debate_id: str
    participants: Mapping[str, Sequence[str]] = field(default_factory=dict)


class Skill(Protocol):
    @property
    def name(self) -> str:
        """The name the research menu and plans call it by (read-only: a plain attribute too)."""
        ...

    def describe(self, persona: Persona, context: SkillContext) -> str:
        """One line for the research menu (after ``- name: ``): what it does, which fields."""
        ...

    async def run(self, request: ResearchRequest, context: SkillContext) -> SkillResult:
        """Never raises for an expected failure: returns ``refused`` or ``failed`` instead."""
        ...


# ---------------------------------------------------------------- built-in skills


class DogpileSkill:
    name = "dogpile"

    def describe(self, persona: Persona, context: SkillContext) -> str:
        if context.sources is not None and not context.sources:
            return "multi-source search (no source can answer in this debate: not offered)"
        sources = ", ".join(context.sources) if context.sources else "all enabled sources"
        return f"multi-source search ({sources}); `query`, optional `sources`"

    async def run(self, request: ResearchRequest, context: SkillContext) -> SkillResult:
        """Run the sources asked for that ``--sources`` allows; name the others as refused.

        A source the call names but may not use comes back as a refused source status (so it
        reaches the failure list) and the call runs on the allowed ones it names. A source left
        out before round 1 because it cannot answer (no key, an empty library) is not asked
        and not refused again: the note names it. A call that names no usable source at all
        runs on every allowed source, saying so in its note: the search slot is never wasted
        for the model's wording.
        """
        from argue.skills.base import SourceStatus
        from argue.skills.dogpile import SOURCE_NAMES, aggregate_status, dogpile

        call = request.call
        if context.sources is not None and not context.sources:
            return SkillResult.refused(self.name, call.query, NO_SOURCE_NOTE)
        allowed = list(context.sources) if context.sources else list(SOURCE_NAMES)
        asked = list(dict.fromkeys(s.strip().lower() for s in call.sources if s.strip()))
        unused = [n for n in asked if n in context.unused_sources and n not in allowed]
        asked = [n for n in asked if n not in unused]
        not_asked = f"not asked ({NOT_USED}): {', '.join(unused)}; " if unused else ""
        if not asked:
            result = await dogpile(call.query, sources=context.sources)
            if not unused:
                return result
            names = ", ".join(f"{clip_source(name)} ({NOT_USED})" for name in unused[:6])
            note = f"asked only for {names}: ran on every allowed source instead. {result.note}"
            return result.model_copy(update={"note": note.strip()})
        allowed_words = f"allowed: {', '.join(allowed)}"

        def why(name: str) -> str:
            return "not allowed by --sources" if name in SOURCE_NAMES else "not a research source"

        refused = [
            SourceStatus(
                source=clip_source(name), status="refused", note=f"{why(name)}; {allowed_words}"
            )
            for name in asked
            if name not in allowed
        ]
        runnable = [name for name in asked if name in allowed]
        if not runnable:
            named = [f"{s.source} ({why(s.source)})" for s in refused]
            named += [f"{clip_source(name)} ({NOT_USED})" for name in unused]
            result = await dogpile(call.query, sources=context.sources)
            note = (
                f"asked only for {', '.join(named[:6])}: ran on every allowed source instead. "
                f"{result.note}"
            )
            return result.model_copy(update={"note": note.strip()})
        result = await dogpile(call.query, sources=runnable)
        if not refused:
            if not_asked:
                return result.model_copy(update={"note": not_asked + result.note})
            return result
        statuses = [*result.sources, *refused]
        status, note = aggregate_status(result.items, statuses)
        return result.model_copy(
            update={"status": status, "note": not_asked + note, "sources": statuses}
        )


NOT_USED = "not used in this debate"
"""Why a source left out before round 1 is not asked (its reason was said once then)."""
NO_SOURCE_NOTE = "no research source can answer in this debate"


def clip_source(name: str) -> str:
    """A source name as the model wrote it, bounded for the record."""
    return name if len(name) <= 60 else name[:59] + "…"


class AskSkill:
    name = "ask"

    def describe(self, persona: Persona, context: SkillContext) -> str:
        colleagues = ", ".join(persona.colleagues) or "(none)"
        return (
            f"consult a colleague persona ({colleagues}); `query` is your question, "
            "optional `colleague`"
        )

    async def run(self, request: ResearchRequest, context: SkillContext) -> SkillResult:
        from argue.skills.ask import ask
        from argue.skills.memory import recall_memory

        async def memory_recall(query: str, persona_name: str) -> SkillResult:
            return await recall_memory(query, persona_name, k=3)

        return await ask(
            request.call.query,
            asker=request.persona,
            catalog=context.catalog,
            model=context.model,
            colleague=request.call.colleague,
            participants=request.participants,
            memory_recall=memory_recall,
        )


class MemorySkill:
    name = "memory"

    def describe(self, persona: Persona, context: SkillContext) -> str:
        return "recall what earlier debates taught you; `query`"

    async def run(self, request: ResearchRequest, context: SkillContext) -> SkillResult:
        from argue.skills.memory import recall_memory

        return await recall_memory(request.call.query, request.persona.name, k=5)


class LibrarySkill:
    name = "library"

    def describe(self, persona: Persona, context: SkillContext) -> str:
        return "search the local library of ingested books and transcripts; `query`"

    async def run(self, request: ResearchRequest, context: SkillContext) -> SkillResult:
        from argue.skills.library import search_library

        return await search_library(request.call.query, k=5)


class TaxonomySkill:
    name = "taxonomy"

    def describe(self, persona: Persona, context: SkillContext) -> str:
        return "tag a text with the six bridges; `query` is the text"

    async def run(self, request: ResearchRequest, context: SkillContext) -> SkillResult:
        from argue.skills.taxonomy import taxonomy_skill

        return await taxonomy_skill(request.call.query)


BUILTIN_SKILL_TABLE: dict[str, Skill] = {
    skill.name: skill
    for skill in (DogpileSkill(), AskSkill(), MemorySkill(), LibrarySkill(), TaxonomySkill())
}
"""The built-in skills by name, in menu order."""


# ---------------------------------------------------------------- external commands


@dataclass(frozen=True)
class ExternalCommandSkill:
    """A ``[skills.external]`` program (see ``skills.external``) in the shape of a skill."""

    name: str
    command: tuple[str, ...]

    def describe(self, persona: Persona, context: SkillContext) -> str:
        return "external skill; `query`"

    async def run(self, request: ResearchRequest, context: SkillContext) -> SkillResult:
        from argue.skills.external import run_external

        return await run_external(self.name, self.command, request.call.query)


# ---------------------------------------------------------------- entry-point plugins


@dataclass(frozen=True)
class PluginSkill:
    """A third-party skill behind a guard: whatever it raises or returns, the debate gets a
    SkillResult (``failed`` with the reason) and a one-line menu entry."""

    skill: Any
    origin: str  # "module:attr" of the entry point

    @property
    def name(self) -> str:
        return self.skill.name

    def describe(self, persona: Persona, context: SkillContext) -> str:
        try:
            text = str(self.skill.describe(persona, context))
        except Exception as exc:  # a plugin bug must not break the research prompt
            return f"plugin skill ({type(exc).__name__} in its description); `query`"
        return " ".join(text.split())[:300] or "plugin skill; `query`"

    async def run(self, request: ResearchRequest, context: SkillContext) -> SkillResult:
        started = time.monotonic()
        query = request.call.query
        try:
            result = self.skill.run(request, context)
            if inspect.isawaitable(result):
                result = await result
        except Exception as exc:  # the plugin's own bug: the effect is unknown
            note = f"{self.name} ({self.origin}) raised {type(exc).__name__}: {exc}"
            return SkillResult.failed(self.name, query, note, time.monotonic() - started)
        if not isinstance(result, SkillResult):
            note = (
                f"{self.name} ({self.origin}) returned {type(result).__name__}, not a SkillResult"
            )
            return SkillResult.failed(self.name, query, note, time.monotonic() - started)
        return result


@dataclass(frozen=True)
class PluginLoad:
    skills: dict[str, Skill]
    problems: dict[str, str]  # entry-point name → why it is not offered


def load_plugin_skills(taken: Collection[str] = ()) -> PluginLoad:
    """Load every ``argue.skills`` entry point: each names a skill object, or a factory (a class
    or function called with no arguments) that returns one.

    Never raises: a plugin that cannot be imported, built or used, or whose name clashes with
    one in ``taken`` (built-in and external skills) or with an earlier plugin, is left out and
    its reason is in ``problems``.
    """
    skills: dict[str, Skill] = {}
    problems: dict[str, str] = {}
    try:
        points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    except Exception as exc:  # unreadable package metadata: no plugins, built-ins unharmed
        return PluginLoad({}, {ENTRY_POINT_GROUP: f"cannot list the plugins: {exc}"})
    taken_names = {name.casefold() for name in taken}
    seen: set[tuple[str, str]] = set()
    for point in points:
        if (point.name, point.value) in seen:
            continue  # the same distribution found twice on sys.path
        seen.add((point.name, point.value))
        label = point.name
        try:
            loaded = point.load()
            skill = loaded() if _is_factory(loaded) else loaded
        except (Exception, SystemExit) as exc:
            problems[label] = f"plugin {point.value} could not be loaded: {_describe_error(exc)}"
            continue
        problem = _shape_problem(skill)
        if problem is None and skill.name.casefold() in taken_names:
            problem = f"the name {skill.name!r} is already taken by a built-in or external skill"
        if problem is None and skill.name.casefold() in {n.casefold() for n in skills}:
            problem = f"the name {skill.name!r} is already taken by another plugin"
        if problem is not None:
            problems[label] = f"plugin {point.value} refused: {problem}"
            continue
        skills[skill.name] = PluginSkill(skill, point.value)
    return PluginLoad(skills, problems)


def _is_factory(obj: object) -> bool:
    return isinstance(obj, type) or (callable(obj) and not hasattr(obj, "run"))


def _shape_problem(skill: object) -> str | None:
    name = getattr(skill, "name", None)
    if not isinstance(name, str) or not _NAME_PATTERN.match(name):
        return (
            f"its name {name!r} is not 1-40 letters, digits, '-' or '_' "
            "(a skill needs a `name`, `describe(persona, context)` and `run(request, context)`)"
        )
    for method in ("describe", "run"):
        if not callable(getattr(skill, method, None)):
            return f"{name!r} has no {method}() method"
    return None


def _describe_error(exc: BaseException) -> str:
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def skill_table(
    external: Mapping[str, Sequence[str]], *, plugins: bool = True
) -> tuple[dict[str, Skill], dict[str, str]]:
    """Built-in, then external, then plugin skills, by name; and the ones left out, with why."""
    table: dict[str, Skill] = dict(BUILTIN_SKILL_TABLE)
    problems: dict[str, str] = {}
    for name, command in external.items():
        if name.casefold() in {n.casefold() for n in table}:
            problems[name] = f"[skills.external] {name!r} refused: a built-in skill has that name"
            continue
        table[name] = ExternalCommandSkill(name, tuple(command))
    if plugins:
        loaded = load_plugin_skills(table)
        table.update(loaded.skills)
        problems.update(loaded.problems)
    return table, problems
