"""Starting a debate: a ``StartRequest`` checked and resolved into a ``DebatePlan`` (seating,
models, sources, budget; nothing written), then created on disk and run or detached."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from argue.app._checks import BOUNDS, bounds_error
from argue.app._errors import UsageError, at_the_boundary
from argue.app._limits import NAME_MAX_CHARS, QUESTION_MAX_CHARS
from argue.app._seats import (
    SeatChoice,
    choose_seat_models,
    choose_verifier,
    recorded,
    resolve_seat_models,
)
from argue.app._workspace import Workspace, server_limits

if TYPE_CHECKING:
    from argue.app._reach import Unreachable
    from argue.domain import Mode, Persona, SeatModel
    from argue.engine.estimate import DebateEstimate
    from argue.engine.modes import DebateMode
    from argue.llm import ChatModel, ServerLimits
    from argue.store import DebateStore


def check_question(text: str, source: str | None = None) -> str:
    """The question, stripped; empty, NUL-holding or over-long text is a UsageError (``source``
    names where it came from, e.g. a file)."""
    where = f"{source}: " if source else ""
    if "\x00" in text:
        raise UsageError(f"{where}the question is not text (it holds NUL bytes)")
    if len(text) > QUESTION_MAX_CHARS:
        raise UsageError(
            f"{where}the question is over the limit of {QUESTION_MAX_CHARS:,} characters"
        )
    if not text.strip():
        raise UsageError(f"{where}the question is empty")
    return text.strip()


class Request(BaseModel):
    """A request record: built with keyword fields, a bad one is a one-line ``UsageError``
    naming the field (not pydantic's multi-line ``ValidationError``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    bounded: ClassVar[tuple[str, ...]] = ()
    """Fields whose bounds are :data:`argue.app._checks.BOUNDS`' (checked first, in its
    words; the ``Field`` constraints say the same numbers to a JSON schema)."""

    def __init__(self, **fields: Any) -> None:
        numbers = {
            name: value
            for name, value in fields.items()
            if name in self.bounded
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        }
        error = bounds_error(**numbers)
        if error is not None:
            raise error
        try:
            super().__init__(**fields)
        except ValidationError as exc:
            message, field = _one_line(exc, type(self).__name__)
            raise UsageError(message, field=field) from None


def _one_line(exc: ValidationError, name: str) -> tuple[str, str | None]:
    """pydantic's first error in one line, and the top-level field it names (if any)."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or name
    top = str(first["loc"][0]) if first["loc"] else None
    return f"{where}: {first['msg'].removeprefix('Value error, ')}", top


class StartRequest(Request):
    """What ``argue QUESTION …`` asks for; None means "the configured default"."""

    question: str
    personas: list[str] | None = None
    persona_a: str | None = None
    persona_b: str | None = None
    mode: str | None = None
    questioner: str | None = None
    defender: str | None = None
    advocate: str | None = None
    # Role fields of a mode a package registers (``argue.engine.modes.register_mode``): role ->
    # persona; the built-in modes' roles have their own fields above.
    roles: dict[str, str] = Field(default_factory=dict)
    provider: str | None = None
    model: str | None = None
    persona_models: list[str] = Field(default_factory=list)
    verifier_model: str | None = None
    sources: list[str] | None = None
    rounds: int | None = Field(default=None, ge=BOUNDS["rounds"].low, le=BOUNDS["rounds"].high)
    budget_usd: float | None = Field(
        default=None, ge=BOUNDS["budget_usd"].low, le=BOUNDS["budget_usd"].high
    )
    max_tokens: int | None = Field(
        default=None, ge=BOUNDS["max_tokens"].low, le=BOUNDS["max_tokens"].high
    )
    lang: Literal["en", "fr"] | None = None
    request_timeout_s: float | None = Field(
        default=None, ge=BOUNDS["request_timeout_s"].low, le=BOUNDS["request_timeout_s"].high
    )
    max_attempts: int | None = Field(
        default=None, ge=BOUNDS["max_attempts"].low, le=BOUNDS["max_attempts"].high
    )
    slots: int | None = Field(default=None, ge=BOUNDS["slots"].low, le=BOUNDS["slots"].high)
    structured_output: str | None = None
    interactive: bool = False
    detach: bool = False
    bounded: ClassVar[tuple[str, ...]] = (
        "rounds",
        "budget_usd",
        "max_tokens",
        "request_timeout_s",
        "max_attempts",
        "slots",
    )

    @field_validator("budget_usd", "request_timeout_s")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @field_validator("lang", mode="before")
    @classmethod
    def _known_language(cls, value: object) -> object:
        from argue.text.language import LANGUAGES

        if value is not None and value not in LANGUAGES:
            shown = repr(value)[:40]
            raise ValueError(f"unknown language {shown} (one of: {', '.join(LANGUAGES)})")
        return value

    @field_validator("persona_a", "persona_b", "mode", "questioner", "defender", "advocate")
    @classmethod
    def _short(cls, value: str | None) -> str | None:
        if value is not None and (len(value) > NAME_MAX_CHARS or "\x00" in value):
            raise ValueError(f"must be a name of at most {NAME_MAX_CHARS} characters")
        return value

    def role_names(self) -> dict[str, str]:
        """Every role given, stripped: ``roles`` and the built-in modes' own fields
        (``questioner``, ``defender``, ``advocate``: aliases of ``roles`` entries). A role
        named both ways, to two personas, is a ``UsageError``."""
        named = {
            role.strip().lower(): name.strip()
            for role, name in self.roles.items()
            if name and name.strip()
        }
        for role in ("questioner", "defender", "advocate"):
            value = (getattr(self, role) or "").strip()
            if not value:
                continue
            other = named.get(role)
            if other is not None and other.lower() != value.lower():
                raise UsageError(
                    f"`{role}` is {value} but `roles` gives {role} to {other}: name it once"
                )
            named[role] = value
        return named

    @field_validator("roles")
    @classmethod
    def _short_roles(cls, value: dict[str, str]) -> dict[str, str]:
        for role, name in value.items():
            if len(role) > NAME_MAX_CHARS or len(name) > NAME_MAX_CHARS or "\x00" in role + name:
                raise ValueError(f"a role and its name are at most {NAME_MAX_CHARS} characters")
        return value

    @classmethod
    def build(cls, **fields: Any) -> StartRequest:
        """A request from keyword fields; a bad value is a one-line UsageError naming it."""
        return validated(cls, fields)


def validated(cls: type[Any], fields: dict[str, Any]) -> Any:
    """``cls(**fields)`` for a ``Request`` class (a bad field is a one-line UsageError)."""
    return cls(**fields)


@dataclass
class DebatePlan:
    """A checked request: who sits where on which model, and what the run may spend.
    Nothing is written and no model called until ``create`` and ``run``."""

    request: StartRequest
    workspace: Workspace
    question: str
    language: Literal["en", "fr"]
    mode: Mode
    implied_panel: bool
    named_count: int
    lineup: list[Persona]
    reason: str | None
    sources: list[str]
    chat_model: ChatModel
    seats: list[SeatChoice]
    rounds: int
    budget_usd: float | None
    max_tokens: int | None
    unreachable: Unreachable | None = None
    limits: ServerLimits | None = field(default=None, repr=False)
    verifier: SeatModel | None = None  # the support check's model; None: the judge's
    unused_sources: dict[str, str] = field(default_factory=dict)
    """Sources left out because they cannot answer now, with why (named once, then saved)."""
    sources_named: bool = False  # --sources (or the environment, or config.toml) named them

    def source_lines(self, lang: str | None = None) -> list[str]:
        """The terminal's words for the sources left out, one line each (a warning when the
        user named them), and one more when no source is left: in the debate's language."""
        from argue.records.labels import label
        from argue.records.reasons import source_unused_line

        lang = lang or self.language
        lines = [
            source_unused_line(name, reason, lang, warning=self.sources_named)
            for name, reason in self.unused_sources.items()
        ]
        if not self.sources:
            lines.append(label("t_no_research_source", lang))
        return lines

    def estimate(self) -> DebateEstimate:
        """Calls, tokens and cost for the planned rounds (``argue.engine.estimate``)."""
        from argue.engine.estimate import ModelRef, estimate_debate

        return estimate_debate(
            mode=self.mode,
            letters=[c.letter for c in self.seats],
            rounds=self.rounds,
            debate_model=ModelRef(self.chat_model.provider, self.chat_model.model),
            persona_models={c.letter: ModelRef(c.provider, c.model) for c in self.seats},
            prices=self.workspace.prices,
            verifier_model=(
                None
                if self.verifier is None
                else ModelRef(self.verifier.provider, self.verifier.model)
            ),
        )


def check_mode(mode: str) -> Mode:
    from argue.engine.modes import MODES, resolve_mode_name

    name = resolve_mode_name(mode)
    if name is None:
        raise UsageError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
    return name


def seated_by_role(mode: DebateMode, roles: dict[str, str], named: list[str]) -> list[str]:
    """The persona names in seat order when role fields name some: the mode's roles take the
    first seats in the order the mode lists them (``questioner`` then ``defender``), the other
    names follow. A role named while an earlier one is not is a ``UsageError``; so is a
    lineup longer than the mode seats."""
    flags = mode.role_flags
    given = [flag for flag in flags if roles.get(flag)]
    if not given:
        return named
    for earlier, later in itertools.pairwise(flags):
        if roles.get(later) and not roles.get(earlier):
            raise UsageError(f"`{later}` needs `{earlier}` too (or name neither to auto-select)")
    by_role = [roles[flag] for flag in given]
    taken = {name.lower() for name in by_role}
    others = [name for name in named if name.lower() not in taken]
    lineup = [*by_role, *others]
    if len(lineup) > mode.max_personas:
        fields = "/".join(f"`{flag}`" for flag in flags)
        raise UsageError(
            f"{mode.name} mode seats {mode.seats_wording()}: {fields} and the other persona "
            f"fields name {len(lineup)} ({', '.join(lineup)})"
        )
    return lineup


def seat(
    request: StartRequest, mode: Mode, question: str, lang: Literal["en", "fr"] = "en"
) -> tuple[list[Persona], str | None]:
    """The persona fields turned into names in seat order (A, B, …); the engine seats them.

    Conflicting or ignored fields are usage errors rather than silent choices."""
    from argue.app._roles import check_role
    from argue.engine.modes import MODES, modes_taking

    roles = request.role_names()
    for role, value in roles.items():
        check_role(role)  # a role no mode seats: the roles there are
        if value and role not in MODES[mode].role_flags:
            takers = " or ".join(f"`mode` {name}" for name in modes_taking(role))
            raise UsageError(f"`{role}` only applies to {takers or 'no mode'}")
    seats = [n.strip() for n in (request.persona_a, request.persona_b) if n and n.strip()]
    listed = [n.strip() for n in request.personas or [] if n.strip()]
    if request.personas is not None and not listed:
        raise UsageError("`personas` is empty; name the personas, e.g. embry,horus")
    if any(len(n) > NAME_MAX_CHARS or "\x00" in n for n in listed):
        raise UsageError(f"`personas`: a name is at most {NAME_MAX_CHARS} characters")
    if listed and seats:
        raise UsageError("use either `personas` or `persona_a`/`persona_b`, not both")
    named = seated_by_role(MODES[mode], roles, listed or seats)
    from argue.engine import ModeError, seat_lineup
    from argue.personas import PersonaFileError, UnknownPersonaError, load_catalog

    try:
        lineup = seat_lineup(mode, named, question, load_catalog(), lang)
    except (ModeError, UnknownPersonaError, PersonaFileError) as exc:
        raise UsageError(str(exc)) from None
    return lineup.personas, lineup.reason


@at_the_boundary
def prepare(request: StartRequest, workspace: Workspace | None = None) -> DebatePlan:
    """Check and resolve a request: seating, models (each configured, priced under a
    budget), sources; and whether the model server answers. Writes nothing."""
    from argue.app._reach import first_unreachable
    from argue.text.language import detect_language

    workspace = workspace or Workspace()
    question = check_question(request.question)
    if request.detach and request.interactive:
        raise UsageError(
            "`interactive` reads notes from this terminal; with `detach`, add notes by interject"
        )
    language = request.lang or detect_language(question)
    settings = workspace.settings
    named_count = len([n for n in request.personas or [] if n.strip()])
    implied_panel = request.mode is None and named_count >= 3
    # The spec's own panel command names three personas and no mode: that means a panel.
    mode = "panel" if implied_panel else check_mode(request.mode or settings.defaults.mode)
    lineup, reason = seat(request, mode, question, language)
    sources = workspace.research_sources(request.sources)  # before any folder or model call
    limits = server_limits(
        request.request_timeout_s, request.max_attempts, request.slots, request.structured_output
    )
    chat_model = workspace.resolve(
        settings.provider(request.provider, workspace.env),
        settings.model(request.model, workspace.env),
        limits,
    )
    budget = request.budget_usd if request.budget_usd is not None else settings.defaults.budget_usd
    workspace.require_price(chat_model, budget)
    seats = choose_seat_models(lineup, request.persona_models, chat_model)
    resolve_seat_models(recorded(seats, chat_model), chat_model, workspace, budget_usd=budget)
    verifier = choose_verifier(
        request.verifier_model or settings.defaults.verifier_model, chat_model
    )
    if verifier is not None and (verifier.provider, verifier.model) != (
        chat_model.provider,
        chat_model.model,
    ):
        workspace.require_price(workspace.resolve(verifier.provider, verifier.model), budget)
    providers = {chat_model.provider, *(s.provider for s in seats)}
    if verifier is not None:
        providers.add(verifier.provider)
    return DebatePlan(
        request=request,
        workspace=workspace,
        question=question,
        language=language,
        mode=mode,
        implied_panel=implied_panel,
        named_count=named_count,
        lineup=lineup,
        reason=reason,
        sources=sources.usable,
        chat_model=chat_model,
        seats=seats,
        rounds=request.rounds or settings.defaults.rounds,
        budget_usd=budget,
        max_tokens=request.max_tokens,
        unreachable=first_unreachable(providers, workspace.env),
        limits=limits,
        verifier=verifier,
        unused_sources=sources.unused,
        sources_named=sources.named,
    )


@at_the_boundary
def create(plan: DebatePlan, *, command: str = "argue") -> DebateStore:
    """Write the debate's folder (config.json, state.json, persona snapshots); nothing runs.

    A model server nothing answers at is a UsageError before any folder exists (``command``
    is how the user runs argue, for the hint)."""
    from argue.engine import ModeError, create_debate

    if plan.unreachable is not None:
        raise UsageError(plan.unreachable.sentence(command))
    try:
        return create_debate(
            plan.workspace.root,
            question=plan.question,
            mode=plan.mode,
            personas=plan.lineup,
            max_rounds=plan.rounds,
            provider=plan.chat_model.provider,
            model=plan.chat_model.model,
            research_sources=plan.sources,
            unused_sources=plan.unused_sources,
            budget_usd=plan.budget_usd,
            budget_tokens=plan.max_tokens,
            selection_reason=plan.reason,
            language=plan.language,
            persona_models=recorded(plan.seats, plan.chat_model),
            verifier_model=plan.verifier,
        )
    except ModeError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot create the debate folder: {exc}") from None


def dry_run_document(plan: DebatePlan, warnings: list[str]) -> dict[str, Any]:
    """The ``--dry-run --json`` document: the plan and its estimate, in English words."""
    from argue.app._seats import shared_model_warning
    from argue.records.labels import label

    estimate = plan.estimate()
    # Sources left out of a standing default are listed (unused_sources), not warned about.
    source_warnings = plan.source_lines("en") if plan.sources_named else []
    if not plan.sources and not plan.sources_named:
        source_warnings = [label("t_no_research_source", "en")]

    why = label("dr_auto", "en", reason=plan.reason) if plan.reason else label("dr_named", "en")
    return {
        "dry_run": True,
        "question": plan.question,
        "mode": plan.mode,
        "seating_reason": why,
        "personas": [
            {
                "letter": c.letter,
                "name": c.persona.name,
                "display_name": c.persona.display_name,
                "label": c.persona.label(),
                "lens": c.persona.lens,
                "provider": c.provider,
                "model": c.model,
                "model_source": c.source,
            }
            for c in plan.seats
        ],
        "provider": plan.chat_model.provider,
        "model": plan.chat_model.model,
        "verifier_model": (
            plan.verifier.label()
            if plan.verifier is not None
            else f"{plan.chat_model.provider}/{plan.chat_model.model}"
        ),
        "rounds": plan.rounds,
        "sources": list(plan.sources),
        "unused_sources": dict(plan.unused_sources),
        "budget_usd": plan.budget_usd,
        "max_tokens": plan.max_tokens,
        "budget_note": budget_note(estimate, plan.budget_usd, plan.max_tokens, "en"),
        "detach": plan.request.detach,
        "estimate": estimate.as_json(),
        "warnings": [
            w for w in (shared_model_warning(plan.seats, "en"), *source_warnings, *warnings) if w
        ],
    }


def budget_note(
    estimate: Any, budget_usd: float | None, max_tokens: int | None, lang: str = "en"
) -> str | None:
    """Whether the estimate fits the budget, in words (None without a budget)."""
    from argue.records.labels import label

    notes = []
    if budget_usd is not None:
        low, high = estimate.priced_cost
        if high <= budget_usd:
            fits = label("dr_fits", lang)
        elif low <= budget_usd:
            fits = label("dr_may_pause_budget", lang)
        else:
            fits = label("dr_will_pause_budget", lang)
        notes.append(f"${budget_usd:g}{label('colon', lang)} {fits}")
    if max_tokens is not None:
        if estimate.tokens_max <= max_tokens:
            fits = label("dr_fits", lang)
        elif estimate.tokens_min <= max_tokens:
            fits = label("dr_may_pause", lang)
        else:
            fits = label("dr_will_pause", lang)
        notes.append(label("dr_budget_tokens", lang, n=f"{max_tokens:,}", fits=fits))
    return (label("semicolon", lang) + " ").join(notes) or None
