"""Records the library hands out, and its one error type."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from argue.skills.base import SkillItem


class LibraryError(Exception):
    """An expected failure (missing, unsupported or corrupt file; unreadable database).

    The message is one line, meant to be shown to the user as is.
    """


class AddResult(BaseModel):
    doc_id: str = Field(description="sha256 prefix of the file content")
    title: str
    kind: str = Field(description="txt, md, pdf, epub, vtt or srt")
    chunk_count: int
    duplicate: bool = Field(description="True when the same content was already in the library")
    path: str = Field(description="Path the document is known under in the library")
    encoding: str | None = Field(
        default=None,
        description="Character encoding a text file was decoded from (utf-8, utf-16-le, cp1251,"
        " shift_jis…); None for PDF and EPUB",
    )


class DocumentInfo(BaseModel):
    doc_id: str
    title: str
    kind: str
    path: str
    chunk_count: int
    size_bytes: int
    added_at: str
    encoding: str | None = Field(
        default=None, description="Decoded from; None for PDF/EPUB and documents added before"
    )


class LibraryHit(BaseModel):
    item_id: str = Field(description="library:<doc_id>:<chunk_no>")
    doc_id: str
    chunk_no: int
    title: str = Field(description="Document title")
    kind: str
    locator: str = Field(description="p. 3, ch. 2: Title, 00:01:30, § Heading or lines 10-24")
    path: str
    snippet: str
    score: float = Field(ge=0.0, le=1.0, description="Relevance 0-1 (coverage × relative bm25)")
    bm25: float = Field(description="Raw FTS5 bm25(); lower is better")

    def file_url(self) -> str:
        return Path(self.path).resolve().as_uri()

    def to_skill_item(self) -> SkillItem:
        return SkillItem(
            id=self.item_id,
            title=f"{self.title} — {self.locator}",
            url=self.file_url(),
            locator=self.locator,
            snippet=self.snippet,
            source="library",
            score=round(self.score, 4),
        )
