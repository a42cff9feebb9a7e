"""What the model is asked to return in each phase (JSON schema from these models).

The model answers with ids from the tables it was shown; code assigns and checks every id.
Strings and lists carry generous upper bounds: they keep every answer bounded, and they let a
grammar-constrained local model (llama.cpp) terminate instead of filling max_tokens.
"""

from __future__ import annotations

import functools
import json
import re
import typing
from typing import Annotated, Any, ClassVar, Literal, Self, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    SerializerFunctionWrapHandler,
    ValidationError,
    WithJsonSchema,
    create_model,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

T = TypeVar("T", bound=BaseModel)
Short = Annotated[str, Field(max_length=300)]
QUERY_CHARS = 400
QUERY_DESCRIPTIONS = (
    "A multi-source search, written from your own lens",
    "A multi-source search, from your own lens",
    "What to recall from your earlier debates",
    "Your question for that colleague",
    "Next round's colleague question",
    "dogpile only: subset of sources",
    "Optional subset of dogpile's sources",
    "What you are looking for and why",
    "The colleague you ask: one of those offered",
    "Any research tool offered",
    "One of the research tools offered",
)
"""The plan schema's own descriptions: what a query or question must not merely copy."""


def repeats_a_description(query: str) -> bool:
    """Whether ``query`` only copies one of :data:`QUERY_DESCRIPTIONS` (case and punctuation
    aside; with three words or more, any of their words in any order): "A multi-source search,
    from your own lens" searches for nothing. A small model writes them."""
    words = re.findall(r"\w+", query.casefold())
    if not words:
        return False
    for text in QUERY_DESCRIPTIONS:
        described = re.findall(r"\w+", text.casefold())
        if words == described or (len(words) >= 3 and set(words) <= set(described)):
            return True
    return False


def _not_a_description(value: str) -> str:
    if repeats_a_description(value):
        raise ValueError("write a query (it repeats the schema's description of the field)")
    return value


Query = Annotated[str, Field(max_length=QUERY_CHARS), AfterValidator(_not_a_description)]
"""A research query: a plan slot that only copies its description is invalid (and repaired)."""
PlainQuery = Annotated[str, Field(max_length=QUERY_CHARS)]
Name = Annotated[str, Field(max_length=100)]  # a skill or persona name


class PanelAngle(BaseModel):
    persona: str = Field(max_length=10, description="Persona letter, e.g. A")
    angle: str = Field(max_length=400, description="The angle that persona takes")


class FramingDraft(BaseModel):
    proposition: str = Field(
        max_length=500, description="The question restated as one clear, debatable proposition"
    )
    angles: list[PanelAngle] = Field(
        default_factory=list,
        max_length=10,
        description="panel mode only: one angle per persona letter",
    )


class PrivateViewDraft(BaseModel):
    holds_proposition: bool = Field(description="Would you, in your own voice, hold it true?")
    view: str = Field(max_length=800, description="Your honest view in one or two sentences")


class ResearchCallDraft(BaseModel):
    skill: Literal["dogpile", "ask", "memory", "taxonomy", "library"] | Name
    query: str = Field(max_length=400)
    colleague: Name | None = Field(default=None, description="ask only: colleague persona name")
    sources: list[Short] = Field(
        default_factory=list, max_length=6, description="dogpile only: subset of sources"
    )
    # The query is argue's (the plan's was missing or invalid): never offered to a model.
    query_by_argue: SkipJsonSchema[bool] = Field(default=False, exclude_if=lambda v: not v)


class PlanRepair(BaseModel):
    """One slot of a research plan the model wrote that argue dropped or replaced, rather than
    losing the whole plan to it (code's words, in English; documents translate them)."""

    slot: str = Field(
        max_length=40, description="ask, dogpile_query, memory_query, dogpile_sources, why, "
        "or free_calls[N] (N from 1)",
    )  # fmt: skip
    problem: str = Field(max_length=600, description="missing, blank, or what was invalid")
    action: Literal["dropped", "replaced"]
    replacement: str = Field(default="", max_length=400, description="argue's query, if replaced")

    @property
    def what(self) -> str:
        """The step, as a failure names it: "research plan ask", "research plan free call 2"."""
        if self.slot.startswith("free_calls["):
            return f"research plan free call {self.slot[len('free_calls[') : -1]}"
        return f"research plan {self.slot.replace('_', ' ')}"

    @property
    def reason(self) -> str:
        if self.action == "replaced":
            return f"{self.problem}; replaced by argue's query {self.replacement!r}"
        return f"{self.problem}; dropped"


class ColleagueQuestionDraft(BaseModel):
    colleague: Name = Field(description="The colleague you ask: one of those offered")
    question: PlainQuery = Field(description="Your question for that colleague")


class FreeCallDraft(BaseModel):
    skill: Name = Field(description="Any research tool offered")
    query: Query
    sources: list[Short] = Field(
        default_factory=list, max_length=6, description="dogpile only: subset of sources"
    )


class ResearchPlanDraft(BaseModel):
    """A round's research, in slots: the dogpile search and the memory recall always run, the
    ``ask`` whenever the persona has a colleague to ask, and ``free_calls`` only where the budget
    still has room. The model fills the slots; code turns them into ``calls`` (what runs).

    The model is asked for a per-persona subclass (:func:`research_plan_model`) where the slots
    are required and skill and colleague names are enums of what is really available. This
    class also loads a plan saved by an earlier version (``{"calls": [...], "why": ...}``) and
    carries a plan the engine builds itself (failed calls retried on resume): ``calls`` given
    as they are, no slot. A plan with slots must have both required slots.
    """

    why: str = Field(default="", max_length=800, description="What you are looking for and why")
    dogpile_query: Query | None = Field(default=None, description=QUERY_DESCRIPTIONS[0])
    dogpile_sources: list[Short] = Field(
        default_factory=list, max_length=6, description="Optional subset of dogpile's sources"
    )
    memory_query: Query | None = Field(default=None, description=QUERY_DESCRIPTIONS[2])
    ask: ColleagueQuestionDraft | None = Field(default=None, description="A colleague to consult")
    free_calls: list[FreeCallDraft] = Field(
        default_factory=list, max_length=6, description="Optional calls where the budget allows"
    )
    # What runs: derived from the slots, or given as is (an older plan file, an engine retry).
    calls: SkipJsonSchema[list[ResearchCallDraft]] = Field(default_factory=list)
    # What argue dropped or replaced in the model's plan (code's field: a model's is ignored).
    repairs: SkipJsonSchema[list[PlanRepair]] = Field(default_factory=list, max_length=100)

    @field_validator("dogpile_query", "memory_query")
    @classmethod
    def _says_something(cls, value: str | None) -> str | None:
        # A grammar can force the key, not a useful value: a blank query is no search, nor one
        # that copies the schema's own description (a small model does).
        if value is not None and not value.strip():
            raise ValueError("write a query (it is blank)")
        return value

    @property
    def has_slots(self) -> bool:
        return (
            self.dogpile_query is not None
            or self.memory_query is not None
            or self.ask is not None
            or bool(self.free_calls or self.dogpile_sources)
        )

    @model_validator(mode="after")
    def _calls_from_slots(self) -> ResearchPlanDraft:
        if not self.has_slots:
            if "calls" not in self.model_fields_set:
                raise ValueError("a research plan needs `dogpile_query` and `memory_query`")
            return self  # calls given as they are
        # dogpile_query is required by the per-call schema whenever a source can answer; a plan
        # without one (no source could) still recalls.
        if self.memory_query is None:
            raise ValueError("missing required slot(s): memory_query")
        replaced = {r.slot for r in self.repairs if r.action == "replaced"}
        calls = []
        if self.dogpile_query is not None:
            calls.append(
                ResearchCallDraft(
                    skill="dogpile",
                    query=self.dogpile_query,
                    sources=self.dogpile_sources,
                    query_by_argue="dogpile_query" in replaced,
                )
            )
        calls.append(
            ResearchCallDraft(
                skill="memory",
                query=self.memory_query,
                query_by_argue="memory_query" in replaced,
            )
        )
        if self.ask is not None:
            calls.append(
                ResearchCallDraft(
                    skill="ask", query=self.ask.question, colleague=self.ask.colleague
                )
            )
        calls += [
            ResearchCallDraft(skill=c.skill, query=c.query, sources=c.sources)
            for c in self.free_calls
        ]
        # Bypass __setattr__: ``calls`` stays derived (not "set"), whatever the input held.
        self.__dict__["calls"] = calls
        return self

    @model_serializer(mode="wrap")
    def _one_shape_on_disk(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Slots on disk when there are slots (``calls`` follows from them); else the calls."""
        data = handler(self)
        if not self.repairs:
            data.pop("repairs", None)
        if self.has_slots:
            data.pop("calls", None)
            return data
        return {"why": data["why"], "calls": data["calls"]}


QUOTE_DESCRIPTION = (
    "Words copied exactly, in order, from that evidence's text as shown in the table "
    "(one phrase or sentence, 5 to 40 words, at most 300 characters)"
)
# The schema says 300 characters; a model that copies a little more is not re-asked for it
# (the locator bounds what it reads).
Quote = Annotated[
    str,
    Field(max_length=600),
    WithJsonSchema({"type": "string", "maxLength": 300, "description": QUOTE_DESCRIPTION}),
]


class CitationDraft(BaseModel):
    evidence_id: Short = Field(description="An id from the evidence table, e.g. A-R2-E1")
    quote: Quote = ""


class ClaimDraft(BaseModel):
    text: str = Field(max_length=1000, description="One claim, one or two sentences")
    citations: list[CitationDraft] = Field(
        default_factory=list,
        max_length=8,
        description="The evidence for the claim: each an evidence id and a verbatim quote from it",
    )
    # Ids without quotes: accepted (an older client, a model that ignores the schema) and
    # checked like citations whose quote is missing; never offered.
    evidence_ids: SkipJsonSchema[list[Short]] = Field(default_factory=list, max_length=8)
    warrant: str = Field(
        default="", max_length=800, description="Why the evidence supports the claim"
    )

    def cited(self) -> list[tuple[str, str]]:
        """Every (evidence id, quote) this claim cites, citations first."""
        return [(c.evidence_id, c.quote) for c in self.citations] + [
            (eid, "") for eid in self.evidence_ids
        ]


class ArgumentDraft(BaseModel):
    position: str = Field(
        max_length=800, description="Your position this round in one or two sentences"
    )
    # minItems 1: a grammar-constrained server then cannot produce an argument without claims.
    claims: list[ClaimDraft] = Field(
        min_length=1, max_length=6, description="2 to 4 claims, each with citations"
    )
    taxonomy_tags: list[Short] = Field(
        default_factory=list,
        max_length=6,
        description="Bridges this argument uses: precision, resilience, fragility, corruption, "
        "loyalty, stealth",
    )


def _cited(citations: list[CitationDraft], evidence_ids: list[str]) -> list[tuple[str, str]]:
    """Every (evidence id, quote) cited, citations first; an id without a quote (``evidence_ids``:
    a client or a model from before quotes; accepted, never offered) is checked like a citation
    whose quote is missing: shown, never marked as evidence."""
    return [(c.evidence_id, c.quote) for c in citations] + [(eid, "") for eid in evidence_ids]


_CITATIONS_DESCRIPTION = "Optional evidence: each an evidence id and a verbatim quote from it"


class CounterDraft(BaseModel):
    target_claim_id: Short = Field(description="An opponent claim id, e.g. B2.c1")
    kind: Literal["refute", "undercut", "question"]
    text: str = Field(max_length=1000)
    citations: list[CitationDraft] = Field(
        default_factory=list, max_length=8, description=_CITATIONS_DESCRIPTION
    )
    evidence_ids: SkipJsonSchema[list[Short]] = Field(default_factory=list, max_length=8)

    def cited(self) -> list[tuple[str, str]]:
        return _cited(self.citations, self.evidence_ids)


class ConcessionDraft(BaseModel):
    target_claim_id: Short = Field(description="The opponent claim id you concede")
    kind: Literal["full", "partial"]
    text: str = Field(max_length=1000, description="What you concede, in your words")
    reason: str = Field(max_length=800, description="Why it is strong")
    citations: list[CitationDraft] = Field(
        default_factory=list, max_length=8, description=_CITATIONS_DESCRIPTION
    )
    evidence_ids: SkipJsonSchema[list[Short]] = Field(default_factory=list, max_length=8)

    def cited(self) -> list[tuple[str, str]]:
        return _cited(self.citations, self.evidence_ids)


class RebuttalDraft(BaseModel):
    counters: list[CounterDraft] = Field(default_factory=list, max_length=6)
    concessions: list[ConcessionDraft] = Field(
        default_factory=list,
        max_length=4,
        description="You MUST concede the opponent's strongest point (at least one)",
    )
    common_ground: list[Annotated[str, Field(max_length=500)]] = Field(
        default_factory=list, max_length=4
    )
    next_ask: SkipJsonSchema[ColleagueQuestionDraft | None] = None  # see rebuttal_model


_QUOTED_CITATIONS: Any = Field(
    default_factory=list,
    max_length=8,
    description="Optional evidence: each an evidence id you were shown and a verbatim quote "
    "from it",
)
_QuotedCitation = create_model("CitationDraft", __base__=CitationDraft, quote=(Quote, ...))
# A counter's and a concession's citations as asked for: each with its quote (as a claim's).
_QuotedCounter = create_model(
    "CounterDraft", __base__=CounterDraft, citations=(list[_QuotedCitation], _QUOTED_CITATIONS)
)
_QuotedConcession = create_model(
    "ConcessionDraft",
    __base__=ConcessionDraft,
    citations=(list[_QuotedCitation], _QUOTED_CITATIONS),
)
_QUOTED_REBUTTAL: dict[str, Any] = {
    "counters": (list[_QuotedCounter], Field(default_factory=list, max_length=6)),
    "concessions": (
        list[_QuotedConcession],
        Field(
            default_factory=list,
            max_length=4,
            description="You MUST concede the opponent's strongest point (at least one)",
        ),
    ),
}


class RebuttalForm(RebuttalDraft):
    """The rebuttal as a persona's system text shows it (:data:`PHASE_FORMS`): ``next_ask`` in
    view but optional; the request says when it is due and code checks the per-call schema."""

    counters: list[_QuotedCounter] = Field(  # type: ignore[assignment]
        default_factory=list, max_length=6
    )
    concessions: list[_QuotedConcession] = Field(  # type: ignore[assignment]
        default_factory=list,
        max_length=4,
        description="You MUST concede the opponent's strongest point (at least one)",
    )
    next_ask: ColleagueQuestionDraft | None = Field(
        default=None, description="Only when the request asks for it: next round's colleague"
    )


@functools.lru_cache(maxsize=256)
def rebuttal_model(colleagues: tuple[str, ...] = ()) -> type[RebuttalDraft]:
    """The rebuttal schema; with ``colleagues``, also ``next_ask`` (required): the colleague
    (an enum of them) and the question for the next round's consult."""
    if not colleagues:
        # No next_ask (it is ignored if sent): shown as the form, whose next_ask is optional.
        return _shown_as(
            RebuttalForm,
            create_model("RebuttalDraft", __base__=RebuttalDraft, **_QUOTED_REBUTTAL),
        )
    question = create_model(
        "ColleagueQuestionDraft",
        __base__=ColleagueQuestionDraft,
        colleague=(_enum(colleagues), Field(description="The colleague you ask")),
    )
    return _shown_as(
        RebuttalForm,
        create_model(
            "RebuttalDraft",
            __base__=RebuttalDraft,
            next_ask=(question, Field(description="Next round's colleague question")),
            **_QUOTED_REBUTTAL,
        ),
    )


class BeliefUpdateDraft(BaseModel):
    belief: str = Field(max_length=400)
    new_strength: float = Field(ge=0.0, le=1.0)
    because_claim_id: Short | None = None


class ReflectionDraft(BaseModel):
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence in your position now")
    belief_updates: list[BeliefUpdateDraft] = Field(default_factory=list, max_length=4)
    would_change_my_mind: str = Field(
        max_length=800, description="What evidence would change your mind"
    )
    position_now: str = Field(max_length=600, description="Your position now, in one sentence")
    next_research: ResearchPlanDraft | None = Field(
        default=None, description="Your research plan for the next round (none after the last)"
    )


class ReflectionForm(ReflectionDraft):
    """The reflection as a persona's system text shows it: ``next_research`` (the base plan:
    every slot optional) and ``answer`` optional; the request says which are due."""

    answer: str | None = Field(
        default=None, max_length=300, description="Only when the request asks for it"
    )


def _shown_as(form: type[BaseModel], model: type[T]) -> type[T]:
    """``model``, marked as shown to the model in the shape of ``form``."""
    setattr(model, "prompt_form", form)  # noqa: B010 (a pydantic class: no declared field)
    return model


class CoherenceRating(BaseModel):
    persona: Short = Field(description="Persona letter")
    coherence: float = Field(ge=0.0, le=1.0)
    reason: str = Field(max_length=600)


class JudgeDraft(BaseModel):
    ratings: list[CoherenceRating] = Field(max_length=10)
    synthesis_ready: bool = Field(
        description="True when the material suffices for a nuanced conclusion"
    )
    ready_reason: str = Field(max_length=600)


SUPPORT_CHECKS = 24
"""The most citations one support check asks about (one request per persona per round)."""


class SupportVerdictDraft(BaseModel):
    item: int = Field(ge=1, le=SUPPORT_CHECKS, description="The item's number")
    verdict: Literal["supports", "contradicts", "unrelated"] = Field(
        description="Whether the sentence supports the claim, contradicts it, or does not "
        "address it"
    )
    reason: str = Field(default="", max_length=300, description="Why, in one short sentence")


class SupportDraft(BaseModel):
    """The support check: a verdict per numbered item (a claim and a quoted sentence)."""

    checks: list[SupportVerdictDraft] = Field(
        max_length=SUPPORT_CHECKS, description="One verdict per item"
    )


# ---------------------------------------------------------------- per-persona schemas

REQUIRED_SLOTS = ("dogpile", "memory")  # every round, for every persona (dogpile: if a source can)
ASK_SKILL = "ask"  # required too, when the persona has a colleague to ask
DOGPILE_SKILL = "dogpile"


def _enum(names: tuple[str, ...]) -> Any:
    """A string that must be one of ``names``, as a JSON-schema ``enum`` (also for one name,
    which pydantic would render as ``const``: not every constrained decoder reads that)."""
    return Annotated[Literal[names], WithJsonSchema({"type": "string", "enum": list(names)})]


def _sources_field(sources: tuple[str, ...], prefix: str = "") -> tuple[Any, Any]:
    """A list of research source names, each an enum of ``sources`` (empty: all of them).

    Free text here let a grammar-constrained model write colleague names or ids, and every
    search it planned was then refused for its wording. The enum binds the schema only: a model
    that writes another name anyway is not re-asked for it — the dogpile skill drops the names
    it cannot use with a note and runs on the others (or on all allowed sources)."""
    names = tuple(dict.fromkeys(sources))
    name = Annotated[
        str, Field(max_length=300), WithJsonSchema({"type": "string", "enum": list(names)})
    ]
    return (
        list[name],
        Field(
            default_factory=list,
            max_length=max(len(names), 6),
            description=f"{prefix}a subset of these sources (empty: all)",
        ),
    )


def slot_budget(colleagues: tuple[str, ...], budget: int, *, dogpile: bool = True) -> int:
    """How many free calls fit in ``budget`` after the required slots (no dogpile slot when no
    source can answer)."""
    required = len(REQUIRED_SLOTS) - (0 if dogpile else 1) + (1 if colleagues else 0)
    if budget < required:
        raise ValueError(f"a research budget of {budget} cannot hold the {required} required calls")
    return budget - required


NO_SOURCE_WORDS = "no research source can answer in this debate"
PLAN_SLOTS = ("dogpile_query", "memory_query", "ask", "free_calls", "dogpile_sources")
"""An answer with none of these keys is not a plan at all: it is asked again."""


class SalvagingPlan(ResearchPlanDraft):
    """The base of a per-call plan schema that keeps a plan's good slots (issue 35).

    The schema the model sees is unchanged; validation that fails is not the end of the plan:
    an unknown colleague or a missing or invalid ``ask`` drops the ask; an invalid free call is
    dropped (each on its own); a missing, blank or invalid ``dogpile_query`` or
    ``memory_query`` is replaced by argue's query (the proposition and the persona's lens);
    invalid ``dogpile_sources`` fall back to every source. Each change is a ``PlanRepair`` in
    ``repairs``. Only an answer that is not a plan at all (not an object, or none of the slots)
    fails, and is asked again. ``fallback`` None: no salvage (the strict schema)."""

    fallback: ClassVar[tuple[str, str] | None] = None  # argue's dogpile and memory queries
    offered_colleagues: ClassVar[tuple[str, ...]] = ()
    free_room: ClassVar[int] = 0
    offers_dogpile: ClassVar[bool] = True  # False: no research source can answer

    @model_validator(mode="wrap")
    @classmethod
    def _salvage(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        if isinstance(data, dict):
            data = {k: v for k, v in data.items() if k != "repairs"}  # code's field only
        if cls.fallback is None or not isinstance(data, dict):
            return handler(data)
        if not any(key in data for key in PLAN_SLOTS):
            return handler(data)  # not a plan at all: the error stands (one re-ask)
        repairs: list[PlanRepair] = []
        current = data
        first_error: ValidationError | None = None
        for _ in range(4):  # each pass repairs every slot its errors name
            try:
                said = [r.model_dump() for r in repairs[:100]]
                plan = handler({**current, "repairs": said})
                break
            except ValidationError as error:
                first_error = first_error or error
                fixed = cls._repaired(current, error, repairs)
                if fixed is None:
                    raise first_error from None
                current = fixed
        else:
            assert first_error is not None
            raise first_error
        if cls.offered_colleagues and plan.ask is None and "ask" not in {r.slot for r in repairs}:
            plan.repairs.append(PlanRepair(slot="ask", problem="missing", action="dropped"))
        return plan

    @classmethod
    def _repaired(
        cls, data: dict[str, Any], error: ValidationError, repairs: list[PlanRepair]
    ) -> dict[str, Any] | None:
        """``data`` with every slot ``error`` names dropped or replaced (``repairs`` told);
        None when an error is not one a slot can be repaired from."""
        assert cls.fallback is not None
        fixed = dict(data)
        by_slot: dict[str, list[dict[str, Any]]] = {}
        for item in error.errors(include_url=False):
            if not item["loc"] or not isinstance(item["loc"][0], str):
                return None  # the plan as a whole, not one slot
            by_slot.setdefault(item["loc"][0], []).append(dict(item))
        for slot, items in by_slot.items():
            if slot in ("dogpile_query", "dogpile_sources") and not cls.offers_dogpile:
                fixed.pop(slot, None)  # a search no source could answer: not run
                if slot == "dogpile_query":
                    problem = f"not offered: {NO_SOURCE_WORDS}"
                    repairs.append(PlanRepair(slot=slot, problem=problem, action="dropped"))
            elif slot in ("dogpile_query", "memory_query"):
                replacement = cls.fallback[0 if slot == "dogpile_query" else 1]
                if fixed.get(slot) == replacement:
                    return None  # argue's own query does not fit: nothing left to try
                fixed[slot] = replacement
                repairs.append(
                    PlanRepair(
                        slot=slot,
                        problem=_problem(items[0]),
                        action="replaced",
                        replacement=replacement,
                    )
                )
            elif slot == "ask":
                fixed.pop("ask", None)
                repairs.append(
                    PlanRepair(slot="ask", problem=cls._ask_problem(items), action="dropped")
                )
            elif slot == "free_calls":
                fixed["free_calls"] = cls._kept_calls(data.get(slot), items, repairs)
            elif slot in ("dogpile_sources", "why"):
                fixed.pop(slot, None)
                repairs.append(PlanRepair(slot=slot, problem=_problem(items[0]), action="dropped"))
            elif slot == "calls":
                fixed.pop("calls", None)  # code's field: a model's is ignored
            else:
                return None
        return fixed

    @classmethod
    def _ask_problem(cls, items: list[dict[str, Any]]) -> str:
        offered = ", ".join(cls.offered_colleagues)
        for item in items:
            if tuple(item["loc"][1:]) == ("colleague",) and item["type"] == "literal_error":
                return f"colleague {_shown(item.get('input'))} is not offered (offered: {offered})"
        if not cls.offered_colleagues:
            return "no colleague is offered in this plan"
        return _problem(items[0])

    @classmethod
    def _kept_calls(
        cls, calls: Any, items: list[dict[str, Any]], repairs: list[PlanRepair]
    ) -> list[Any]:
        """The free calls that validate, in order, up to the room the budget leaves; each
        other one dropped and named."""
        if not isinstance(calls, list):
            repairs.append(
                PlanRepair(slot="free_calls[1]", problem=_problem(items[0]), action="dropped")
            )
            return []
        shape = typing.get_args(cls.model_fields["free_calls"].annotation)
        call_model: type[BaseModel] = (
            shape[0]
            if shape and isinstance(shape[0], type) and issubclass(shape[0], BaseModel)
            else FreeCallDraft
        )
        kept: list[Any] = []
        for index, call in enumerate(calls):
            slot = f"free_calls[{index + 1}]"
            try:
                call_model.model_validate(call)
            except ValidationError as error:
                problem = _free_call_problem(dict(error.errors(include_url=False)[0]))
                repairs.append(PlanRepair(slot=slot, problem=problem, action="dropped"))
                continue
            if len(kept) >= cls.free_room:
                problem = f"over the {cls.free_room} free call(s) the budget leaves"
                repairs.append(PlanRepair(slot=slot, problem=problem, action="dropped"))
            else:
                kept.append(call)
        return kept


def _shown(value: Any, limit: int = 60) -> str:
    """A model's value in a repair's words: quoted and bounded."""
    text = repr(value) if isinstance(value, str) else type(value).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _problem(item: dict[str, Any]) -> str:
    """One error in a slot (``loc`` starting with the slot) in a repair's words: "missing",
    "blank", "question missing", "invalid (colleague: …)"."""
    where = ".".join(str(part) for part in item["loc"][1:])
    if item["type"] == "missing":
        return f"{where} missing" if where else "missing"
    value = item.get("input")
    if isinstance(value, str) and not value.strip():
        return f"{where} blank" if where else "blank"
    message = " ".join(str(item.get("msg", "")).split())[:200]
    return f"invalid ({where + ': ' if where else ''}{message})"


def _free_call_problem(item: dict[str, Any]) -> str:
    """What is wrong with one free call (``item``: its first error, located in the call)."""
    if tuple(item["loc"]) == ("skill",) and item["type"] == "literal_error":
        return f"skill {_shown(item.get('input'))} is not offered"
    return _problem({**item, "loc": ("call", *item["loc"])})


def _ask_shown_as_required(schema: dict[str, Any]) -> None:
    """The salvaging schema's ``ask`` is optional for validation (a bad one is dropped) and
    shown as the strict schema has it: required, one object."""
    ask = schema.get("properties", {}).get("ask")
    if not isinstance(ask, dict) or "anyOf" not in ask:
        return
    ref = next(option for option in ask["anyOf"] if option.get("type") != "null")
    schema["properties"]["ask"] = {**ref, "description": ask.get("description", "")}
    required = schema.setdefault("required", [])
    if "ask" not in required:
        required.append("ask")


class _AskShownRequired(SalvagingPlan):
    model_config = ConfigDict(json_schema_extra=lambda schema, _cls: _ask_shown_as_required(schema))


@functools.lru_cache(maxsize=256)
def research_plan_model(
    skills: tuple[str, ...],
    colleagues: tuple[str, ...],
    budget: int,
    sources: tuple[str, ...] = (),
    fallback: tuple[str, str] | None = None,
) -> type[ResearchPlanDraft]:
    """The plan schema one persona is asked for: ``dogpile_query`` (when ``dogpile`` is among
    ``skills``: some source can answer) and ``memory_query`` required; ``ask`` required with
    ``colleague`` an enum of ``colleagues`` when there is one (absent otherwise); ``free_calls``
    with ``skill`` an enum of ``skills`` (``ask`` excepted: it has its slot) and at most what the
    budget leaves (absent when nothing is left); a free call's ``sources`` and
    ``dogpile_sources``, when ``sources`` are given, enums of them (a grammar-constrained model
    otherwise fills them with whatever words it likes).

    ``fallback``: argue's own dogpile and memory queries. Given, the schema shown is the same
    but validation keeps the plan's good slots (:class:`SalvagingPlan`); None, any invalid slot
    fails the whole plan (the strict schema).

    Named ``ResearchPlanDraft`` and a subclass of it: code that maps schemas by name or checks
    ``issubclass`` sees the same class; ``calls`` still follows from the slots."""
    dogpile = DOGPILE_SKILL in skills
    free = slot_budget(colleagues, budget, dogpile=dogpile)
    free_skills = tuple(s for s in dict.fromkeys(skills) if s != ASK_SKILL)
    salvage = fallback is not None
    fields: dict[str, Any] = {
        "dogpile_query": (Query, Field(description=QUERY_DESCRIPTIONS[1]))
        if dogpile
        else (SkipJsonSchema[None], Field(default=None, exclude=True)),  # type: ignore[misc]
        "memory_query": (Query, Field(description=QUERY_DESCRIPTIONS[2])),
    }
    if sources and dogpile:
        fields["dogpile_sources"] = _sources_field(sources)
    elif not dogpile:
        fields["dogpile_sources"] = (
            SkipJsonSchema[list[Short]],
            Field(default_factory=list, max_length=0, exclude=True),
        )
    if colleagues:
        question = create_model(
            "ColleagueQuestionDraft",
            __base__=ColleagueQuestionDraft,
            colleague=(_enum(colleagues), Field(description="The colleague you ask")),
            question=(Query, Field(description="Your question for that colleague")),
        )
        description = "The colleague you consult, and your question"
        # Salvaging, a bad ask is dropped (the field optional); the schema still requires it.
        fields["ask"] = (
            (question | None, Field(default=None, description=description))
            if salvage
            else (question, Field(description=description))
        )
    else:
        # pydantic types SkipJsonSchema[X] as Annotated[X, ...] for checkers: mypy then reads
        # SkipJsonSchema[None] (and [Any] below) as subscripting None, which is no generic class.
        fields["ask"] = (SkipJsonSchema[None], Field(default=None))  # type: ignore[misc]
    if free and free_skills:
        source_field: dict[str, Any] = {}
        if sources and dogpile:
            source_field["sources"] = _sources_field(sources, "dogpile only: ")
        call = create_model(
            "FreeCallDraft",
            __base__=FreeCallDraft,
            skill=(_enum(free_skills), Field(description="One of the research tools offered")),
            **source_field,
        )
        fields["free_calls"] = (
            list[call],
            Field(
                default_factory=list,
                max_length=free,
                description=f"Optional: at most {free} more call(s) of your choice",
            ),
        )
    else:  # no room left: none accepted, none offered
        fields["free_calls"] = (
            SkipJsonSchema[list[FreeCallDraft]],
            Field(default_factory=list, max_length=0),
        )
    base = _AskShownRequired if salvage and colleagues else SalvagingPlan
    model = typing.cast(
        type[SalvagingPlan], create_model("ResearchPlanDraft", __base__=base, **fields)
    )
    model.fallback = fallback
    model.offered_colleagues = colleagues
    model.free_room = free if free_skills else 0
    model.offers_dogpile = dogpile
    return model


def _argument_schema(evidence_id: Any, name: str) -> type[ArgumentDraft]:
    """ArgumentDraft whose citations need a quote and have ``evidence_id`` of that type."""
    citation = create_model(
        "CitationDraft", __base__=CitationDraft, evidence_id=(evidence_id, ...), quote=(Quote, ...)
    )
    claim = create_model(
        "ClaimDraft",
        __base__=ClaimDraft,
        citations=(
            list[citation],
            Field(
                default_factory=list,
                max_length=8,
                description="The evidence for the claim: each an evidence id and a verbatim "
                "quote from it",
            ),
        ),
    )
    return create_model(
        name,
        __base__=ArgumentDraft,
        claims=(
            list[claim],
            Field(min_length=1, max_length=6, description="2 to 4 claims, each with citations"),
        ),
    )


ArgumentForm = _argument_schema(
    Annotated[str, Field(max_length=300, description="An id from the evidence table")],
    "ArgumentForm",
)
"""The argument as a persona's system text shows it: the per-call schema without its enum of
evidence ids (the request's evidence table lists them)."""


PHASE_FORMS: dict[str, type[BaseModel]] = {
    "ARGUMENT": ArgumentForm,
    "REBUTTAL": RebuttalForm,
    "REFLECTION": ReflectionForm,
}
"""The answer format of each phase, stable for a whole debate (no per-call enum): what a
persona's system text lists when its model reads schemas from the prompt
(:func:`argue.engine.prompts.phase_guide`). Each per-call schema names its form
(``prompt_form``), so an adapter that finds the form in the system text adds no schema of its
own; the answer is still validated against the per-call schema."""


class PhaseAnswer(BaseModel):
    """Any phase's answer, in its form, or a research plan: the one output schema a persona's
    requests carry on the wire when their phase guide is in the system text
    (``argue.llm._structured.stable_output``). The same for every request of every persona, so
    it keys no request's cache apart from the one before it, while the API still holds the
    answer to a form; which phase is due and the per-call enums are checked by code against the
    per-call schema. One field, since an API that constrains decoding takes an object at the
    root, not a union."""

    reply: ArgumentForm | RebuttalForm | ReflectionForm | ResearchPlanDraft = Field(  # type: ignore[valid-type]
        description="Your answer, in the format this request asks for"
    )

    # The forms a caller's system text shows when it sends this schema (the phase guide).
    shown_forms: ClassVar[tuple[type[BaseModel], ...]] = tuple(PHASE_FORMS.values())


for _holder in (*PHASE_FORMS.values(), ResearchPlanDraft):  # a plan's per-call schema inherits it
    setattr(_holder, "stable_output", PhaseAnswer)  # noqa: B010 (as prompt_form: no field)


@functools.lru_cache(maxsize=256)
def argument_model(evidence_ids: tuple[str, ...]) -> type[ArgumentDraft]:
    """The argument schema for one persona's evidence table: a citation's ``evidence_id`` is an
    enum of the ids in the table, so a grammar-constrained model cannot cite an id it was not
    shown. The enum binds the schema only: a model that writes another id anyway is not
    re-asked, its citation is checked (and marked unverified) like any other."""
    if not evidence_ids:
        # Nothing to cite: the lenient base (a citation without a quote is checked, not
        # refused), shown as the form, which only asks for more.
        return _shown_as(ArgumentForm, create_model("ArgumentDraft", __base__=ArgumentDraft))
    names = json.dumps(list(dict.fromkeys(evidence_ids)))
    base, template = _quoted_argument()

    def model_json_schema(cls: type[BaseModel], *args: Any, **kwargs: Any) -> dict[str, Any]:
        shown = (
            template
            if not (args or kwargs)
            else json.dumps(base.model_json_schema(*args, **kwargs))
        )
        return typing.cast(dict[str, Any], json.loads(shown.replace(_IDS_JSON, names)))

    # A subclass that adds no field (about 1 ms) with the ids in its JSON schema: three
    # classes built per call and their schema generated were ~15 ms of CPU before each
    # argument request, on the critical path of a round's first wave (issue 43 item 4).
    model = type(
        "ArgumentDraft",
        (base,),
        {"__module__": base.__module__, "model_json_schema": classmethod(model_json_schema)},
    )
    setattr(model, "result_as", base)  # noqa: B010 (see argue.llm._structured.result_type)
    return _shown_as(ArgumentForm, model)


_IDS = "\u0000evidence ids"
_IDS_JSON = json.dumps([_IDS])


@functools.cache
def _quoted_argument() -> tuple[type[ArgumentDraft], str]:
    """The argument schema with quoted citations, built once, and its JSON schema with a
    placeholder where a call's enum of evidence ids goes: validation is the same for every
    table (an id outside it is checked, not refused), only the schema shown differs."""
    evidence_id = Annotated[
        str,
        Field(max_length=300),
        WithJsonSchema(
            {"type": "string", "enum": [_IDS], "description": "An id from the evidence table"}
        ),
    ]
    base = _argument_schema(evidence_id, "ArgumentDraft")
    return base, json.dumps(base.model_json_schema())


@functools.lru_cache(maxsize=256)
def reflection_model(
    plan: type[ResearchPlanDraft] | None, answer: bool = False
) -> type[ReflectionDraft]:
    """The reflection schema: with ``plan``, ``next_research`` is that plan, required; without
    (the last round), ``next_research`` is not offered and whatever comes in it is ignored.
    ``answer`` (an answer-seeking debate) adds a required ``answer``: the persona's short answer."""
    extra: dict[str, Any] = {}
    if answer:
        extra["answer"] = (
            str,
            Field(max_length=300, description="Your current short answer to the question, alone"),
        )
    next_research: tuple[Any, Any] = (
        (SkipJsonSchema[Any], Field(default=None, exclude=True))  # type: ignore[misc]
        if plan is None
        else (plan, Field(description="Your research plan for the next round"))
    )
    return _shown_as(
        ReflectionForm,
        create_model(
            "ReflectionDraft", __base__=ReflectionDraft, next_research=next_research, **extra
        ),
    )


# The synthesis prose is also a record (render reads it): it lives with the records.
from argue.records.prose import (  # noqa: E402
    AgreementDraft,
    AnswerSynthesisDraft,
    DisagreementDraft,
    Side,
    SynthesisDraft,
)

__all__ = [
    "PHASE_FORMS",
    "QUERY_CHARS",
    "AgreementDraft",
    "AnswerSynthesisDraft",
    "ArgumentDraft",
    "ArgumentForm",
    "BeliefUpdateDraft",
    "CitationDraft",
    "ClaimDraft",
    "CoherenceRating",
    "ColleagueQuestionDraft",
    "ConcessionDraft",
    "CounterDraft",
    "DisagreementDraft",
    "FramingDraft",
    "FreeCallDraft",
    "JudgeDraft",
    "PanelAngle",
    "PhaseAnswer",
    "PlanRepair",
    "PrivateViewDraft",
    "RebuttalDraft",
    "RebuttalForm",
    "ReflectionDraft",
    "ReflectionForm",
    "ResearchCallDraft",
    "ResearchPlanDraft",
    "SalvagingPlan",
    "Side",
    "SupportDraft",
    "SupportVerdictDraft",
    "SynthesisDraft",
    "argument_model",
    "reflection_model",
    "research_plan_model",
    "slot_budget",
]
