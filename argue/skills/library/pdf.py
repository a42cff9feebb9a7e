"""PDF: text per page with pypdf; one or more chunks per page, located as ``p. N``.

A PDF with more than ``max_pages`` pages is refused before any page is read; the time budget
and the chunk count are checked after each page.
"""

from __future__ import annotations

import logging
from typing import Any, BinaryIO

from argue.skills.library.chunking import Chunk, ParsedDocument, clip_label, numbered, pack_lines
from argue.skills.library.limits import IngestBudget
from argue.skills.library.models import LibraryError


def parse_pdf(stream: BinaryIO, name: str, stem: str, budget: IngestBudget) -> ParsedDocument:
    # pypdf logs its repairs of damaged files ("EOF marker not found") as warnings; the outcome
    # is reported through LibraryError instead, so keep them off the user's terminal.
    pypdf_logger = logging.getLogger("pypdf")
    previous_level = pypdf_logger.level
    pypdf_logger.setLevel(logging.ERROR)
    try:
        chunks, page_count, meta_title = _read_pages(stream, name, budget)
    finally:
        pypdf_logger.setLevel(previous_level)
    if not chunks:
        raise LibraryError(
            f"{name}: no extractable text in {page_count} page(s) (scanned images need OCR first)"
        )
    return ParsedDocument(title=meta_title or stem, kind="pdf", chunks=chunks)


def _read_pages(
    stream: BinaryIO, name: str, budget: IngestBudget
) -> tuple[list[Chunk], int, str | None]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    # pypdf raises a wide range of exception types on damaged input (PdfReadError, ValueError,
    # KeyError, AssertionError...); any of them means "this PDF cannot be read".
    try:
        reader = PdfReader(stream)
        if reader.is_encrypted:
            try:
                unlocked = reader.decrypt("")
            except Exception as exc:
                raise LibraryError(f"{name}: encrypted PDF, cannot decrypt ({exc})") from exc
            if not unlocked:
                raise LibraryError(f"{name}: PDF is password-protected")
        page_count = len(reader.pages)
        if page_count > budget.limits.max_pages:
            raise budget.over(f"page count ({page_count})", "max_pages")
        chunks: list[Chunk] = []
        for page_no, page in enumerate(reader.pages, 1):
            budget.check_time()
            text = page.extract_text() or ""
            for block in pack_lines(numbered(text.splitlines()), budget=budget):
                chunks.append(Chunk(f"p. {page_no}", block.text))
        budget.check_time()
        return chunks, page_count, _metadata_title(reader)
    except LibraryError:
        raise
    except PdfReadError as exc:
        raise LibraryError(f"{name}: not a readable PDF ({exc})") from exc
    except Exception as exc:
        raise LibraryError(f"{name}: not a readable PDF ({type(exc).__name__}: {exc})") from exc


def _metadata_title(reader: Any) -> str | None:
    metadata = reader.metadata
    title = metadata.title if metadata is not None else None
    if isinstance(title, str) and title.strip():
        return clip_label(" ".join(title.split()))
    return None
