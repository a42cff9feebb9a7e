"""The synthesis prose: what the model writes for the synthesis, kept as a record on disk
(``synthesis_prose.json``) and read by render. Its ids are checked by code before rendering."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

Short = Annotated[str, Field(max_length=300)]

REFUSED_PROSE = "synthesis prose: the model declined in these sections"
"""The ``what`` of the failure recorded when synthesis sections are refusals (its ``reason``
lists the sections, English names joined by ", ")."""


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

    def refusing_sections(self) -> list[str]:
        """The sections whose text is the model declining rather than a synthesis (English
        names, in document order): a synthesis with any of them is partial."""
        from argue.text.refusal import is_refusal

        def refuses(text: str) -> bool:
            return is_refusal(text) or any(
                is_refusal(paragraph) for paragraph in text.split("\n\n") if paragraph.strip()
            )

        sections = {
            "agreements": [a.point for a in self.agreements],
            "disagreements": [
                text
                for d in self.disagreements
                for text in (d.point, d.crux, *(side.position for side in d.sides))
            ],
            "open questions": list(self.open_questions),
            "conclusion": [self.conclusion],
        }
        return [name for name, texts in sections.items() if any(refuses(t) for t in texts if t)]


class AnswerSynthesisDraft(SynthesisDraft):
    """The synthesis of an answer-seeking debate (``argue eval``): the prose plus one answer."""

    final_answer: str = Field(
        max_length=300, description="The debate's final short answer to the question, alone"
    )
