"""What the model is asked to return in each phase (JSON schema from these models).

The model answers with ids from the tables it was shown; code assigns and checks every id.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class PanelAngle(BaseModel):
    persona: str = Field(description="Persona letter, e.g. A")
    angle: str = Field(description="The angle that persona takes")


class FramingDraft(BaseModel):
    proposition: str = Field(
        description="The question restated as one clear, debatable proposition"
    )
    angles: list[PanelAngle] = Field(
        default_factory=list, description="panel mode only: one angle per persona letter"
    )


class PrivateViewDraft(BaseModel):
    holds_proposition: bool = Field(description="Would you, in your own voice, hold it true?")
    view: str = Field(description="Your honest view in one or two sentences")


class ResearchCallDraft(BaseModel):
    skill: Literal["dogpile", "ask", "memory", "taxonomy", "library"] | str
    query: str
    colleague: str | None = Field(default=None, description="ask only: colleague persona name")
    sources: list[str] = Field(default_factory=list, description="dogpile only: subset of sources")


class ResearchPlanDraft(BaseModel):
    calls: list[ResearchCallDraft] = Field(description="At most 3 research calls")
    why: str = Field(default="", description="What you are looking for and why")


class ClaimDraft(BaseModel):
    text: str = Field(description="One claim, one or two sentences")
    evidence_ids: list[str] = Field(
        default_factory=list, description="Ids from the evidence table, e.g. A-R2-E1"
    )
    warrant: str = Field(default="", description="Why the evidence supports the claim")


class ArgumentDraft(BaseModel):
    position: str = Field(description="Your position this round in one or two sentences")
    claims: list[ClaimDraft] = Field(description="2 to 4 claims, each citing evidence ids")
    taxonomy_tags: list[str] = Field(
        default_factory=list,
        description="Bridges this argument uses: precision, resilience, fragility, corruption, "
        "loyalty, stealth",
    )


class CounterDraft(BaseModel):
    target_claim_id: str = Field(description="An opponent claim id, e.g. B2.c1")
    kind: Literal["refute", "undercut", "question"]
    text: str
    evidence_ids: list[str] = Field(default_factory=list)


class ConcessionDraft(BaseModel):
    target_claim_id: str = Field(description="The opponent claim id you concede")
    kind: Literal["full", "partial"]
    text: str = Field(description="What you concede, in your words")
    reason: str = Field(description="Why it is strong")


class RebuttalDraft(BaseModel):
    counters: list[CounterDraft] = Field(default_factory=list)
    concessions: list[ConcessionDraft] = Field(
        default_factory=list,
        description="You MUST concede the opponent's strongest point (at least one)",
    )
    common_ground: list[str] = Field(default_factory=list)


class BeliefUpdateDraft(BaseModel):
    belief: str
    new_strength: float = Field(ge=0.0, le=1.0)
    because_claim_id: str | None = None


class ReflectionDraft(BaseModel):
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence in your position now")
    belief_updates: list[BeliefUpdateDraft] = Field(default_factory=list)
    would_change_my_mind: str = Field(description="What evidence would change your mind")
    position_now: str = Field(description="Your position now, in one sentence")


class CoherenceRating(BaseModel):
    persona: str = Field(description="Persona letter")
    coherence: float = Field(ge=0.0, le=1.0)
    reason: str


class JudgeDraft(BaseModel):
    ratings: list[CoherenceRating]
    synthesis_ready: bool = Field(
        description="True when the material suffices for a nuanced conclusion"
    )
    ready_reason: str


class AgreementDraft(BaseModel):
    point: str
    claim_ids: list[str] = Field(default_factory=list)


class Side(BaseModel):
    persona: str = Field(description="Persona letter, e.g. A")
    position: str


class DisagreementDraft(BaseModel):
    point: str
    sides: list[Side] = Field(default_factory=list, description="Each persona's side")
    crux: str = Field(default="", description="What would settle it")


class SynthesisDraft(BaseModel):
    agreements: list[AgreementDraft] = Field(default_factory=list)
    disagreements: list[DisagreementDraft] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    conclusion: str
