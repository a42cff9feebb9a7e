"""What the model is asked to return in each phase (JSON schema from these models).

The model answers with ids from the tables it was shown; code assigns and checks every id.
Strings and lists carry generous upper bounds: they keep every answer bounded, and they let a
grammar-constrained local model (llama.cpp) terminate instead of filling max_tokens.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

Short = Annotated[str, Field(max_length=300)]


class PanelAngle(BaseModel):
    persona: str = Field(description="Persona letter, e.g. A")
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
    skill: Literal["dogpile", "ask", "memory", "taxonomy", "library"] | str
    query: str = Field(max_length=400)
    colleague: str | None = Field(default=None, description="ask only: colleague persona name")
    sources: list[Short] = Field(
        default_factory=list, max_length=6, description="dogpile only: subset of sources"
    )


class ResearchPlanDraft(BaseModel):
    calls: list[ResearchCallDraft] = Field(max_length=6, description="At most 3 research calls")
    why: str = Field(default="", max_length=800, description="What you are looking for and why")


class ClaimDraft(BaseModel):
    text: str = Field(max_length=1000, description="One claim, one or two sentences")
    evidence_ids: list[Short] = Field(
        default_factory=list, max_length=8, description="Ids from the evidence table, e.g. A-R2-E1"
    )
    warrant: str = Field(
        default="", max_length=800, description="Why the evidence supports the claim"
    )


class ArgumentDraft(BaseModel):
    position: str = Field(
        max_length=800, description="Your position this round in one or two sentences"
    )
    claims: list[ClaimDraft] = Field(
        max_length=6, description="2 to 4 claims, each citing evidence ids"
    )
    taxonomy_tags: list[Short] = Field(
        default_factory=list,
        max_length=6,
        description="Bridges this argument uses: precision, resilience, fragility, corruption, "
        "loyalty, stealth",
    )


class CounterDraft(BaseModel):
    target_claim_id: Short = Field(description="An opponent claim id, e.g. B2.c1")
    kind: Literal["refute", "undercut", "question"]
    text: str = Field(max_length=1000)
    evidence_ids: list[Short] = Field(default_factory=list, max_length=8)


class ConcessionDraft(BaseModel):
    target_claim_id: Short = Field(description="The opponent claim id you concede")
    kind: Literal["full", "partial"]
    text: str = Field(max_length=1000, description="What you concede, in your words")
    reason: str = Field(max_length=800, description="Why it is strong")


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
    next_calls: list[ResearchCallDraft] = Field(
        default_factory=list,
        max_length=6,
        description="Research for the next round (at most 3 calls); empty in the last round",
    )
    next_why: str = Field(
        default="", max_length=800, description="What the next round's research looks for"
    )


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


# The synthesis prose is also a record (render reads it): it lives with the records.
from argue.records.prose import (  # noqa: E402
    AgreementDraft,
    DisagreementDraft,
    Side,
    SynthesisDraft,
)

__all__ = [
    "AgreementDraft",
    "ArgumentDraft",
    "BeliefUpdateDraft",
    "ClaimDraft",
    "CoherenceRating",
    "ConcessionDraft",
    "CounterDraft",
    "DisagreementDraft",
    "FramingDraft",
    "JudgeDraft",
    "PanelAngle",
    "PrivateViewDraft",
    "RebuttalDraft",
    "ReflectionDraft",
    "ResearchCallDraft",
    "ResearchPlanDraft",
    "Side",
    "SynthesisDraft",
]
