"""The synthesis prose: what the model writes for the synthesis, kept as a record on disk
(``synthesis_prose.json``) and read by render. Its ids are checked by code before rendering."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

Short = Annotated[str, Field(max_length=300)]


class AgreementDraft(BaseModel):
    point: str = Field(max_length=800)
    claim_ids: list[Short] = Field(default_factory=list, max_length=10)


class Side(BaseModel):
    persona: Short = Field(description="Persona letter, e.g. A")
    position: str = Field(max_length=600)


class DisagreementDraft(BaseModel):
    point: str = Field(max_length=800)
    sides: list[Side] = Field(default_factory=list, max_length=10, description="Each side")
    crux: str = Field(default="", max_length=600, description="What would settle it")


class SynthesisDraft(BaseModel):
    agreements: list[AgreementDraft] = Field(default_factory=list, max_length=8)
    disagreements: list[DisagreementDraft] = Field(default_factory=list, max_length=8)
    open_questions: list[Annotated[str, Field(max_length=600)]] = Field(
        default_factory=list, max_length=8
    )
    conclusion: str = Field(max_length=4000)


class AnswerSynthesisDraft(SynthesisDraft):
    """The synthesis of an answer-seeking debate (``argue eval``): the prose plus one answer."""

    final_answer: str = Field(
        max_length=300, description="The debate's final short answer to the question, alone"
    )
