"""The one contract every skill honours: an async call that returns a SkillResult.

Expected failures (no key, no network, rate limit, bad payload) never raise: they come back as
``refused`` (nothing happened, e.g. "BRAVE_API_KEY not set") or ``failed`` (tried; effect unknown,
with the reason). ``empty`` means the call worked and found nothing. Never an empty success.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from argue.domain import Provenance, Usage

SkillStatus = Literal["ok", "empty", "refused", "failed"]


class SkillItem(BaseModel):
    id: str = Field(description="Stable id within its source, e.g. 'arxiv:2101.00001'")
    title: str
    url: str | None = None
    locator: str | None = Field(default=None, description="page, chapter or timestamp")
    snippet: str = ""
    source: str = Field(description="arxiv, github, brave, perplexity, youtube, library, ...")
    score: float | None = None
    provenance: Provenance = Field(
        default="document",
        description="document (retrieved) or model-written: testimony, recall, label",
    )
    byline: str = Field(
        default="",
        description="the start of the snippet argue wrote from the source's metadata (never "
        "quotable)",
    )
    filler: bool = Field(
        default=False, description="the snippet is argue's placeholder, not the source's text"
    )


class SourceStatus(BaseModel):
    """How one source of a fan-out skill (dogpile) fared."""

    source: str
    status: SkillStatus
    note: str = ""
    count: int = 0
    elapsed_s: float = 0.0


class SkillResult(BaseModel):
    skill: str
    query: str
    status: SkillStatus
    items: list[SkillItem] = Field(default_factory=list)
    note: str = Field(default="", description="Why, in plain words")
    elapsed_s: float = 0.0
    sources: list[SourceStatus] = Field(default_factory=list)
    usage: list[Usage] = Field(
        default_factory=list,
        exclude_if=lambda v: not v,
        description="One Usage per billed request the skill made to a model-backed service "
        "(Perplexity's answer engine), a timed-out one included (possibly billed); the "
        "debate's toolkit records each in the usage ledger",
    )

    @classmethod
    def refused(cls, skill: str, query: str, note: str) -> SkillResult:
        return cls(skill=skill, query=query, status="refused", note=note)

    @classmethod
    def failed(cls, skill: str, query: str, note: str, elapsed_s: float = 0.0) -> SkillResult:
        return cls(skill=skill, query=query, status="failed", note=note, elapsed_s=elapsed_s)

    @classmethod
    def from_items(
        cls, skill: str, query: str, items: list[SkillItem], note: str = "", elapsed_s: float = 0.0
    ) -> SkillResult:
        status: SkillStatus = "ok" if items else "empty"
        if not note:
            note = f"{len(items)} result(s)" if items else "no results"
        return cls(
            skill=skill, query=query, status=status, items=items, note=note, elapsed_s=elapsed_s
        )
