"""PDF: text per page with pypdf; one or more chunks per page, located as ``p. N``."""

from __future__ import annotations

import io
import logging
from typing import Any

from argue.skills.library.chunking import Chunk, ParsedDocument, numbered, pack_lines
from argue.skills.library.models import LibraryError


def parse_pdf(data: bytes, name: str, stem: str) -> ParsedDocument:
    # pypdf logs its repairs of damaged files ("EOF marker not found") as warnings; the outcome
    # is reported through LibraryError instead, so keep them off the user's terminal.
    pypdf_logger = logging.getLogger("pypdf")
    previous_level = pypdf_logger.level
    pypdf_logger.setLevel(logging.ERROR)
    try:
        pages, meta_title = _read_pages(data, name)
    finally:
        pypdf_logger.setLevel(previous_level)

    chunks: list[Chunk] = []
    for page_no, text in enumerate(pages, 1):
        for block in pack_lines(numbered(text.splitlines())):
            chunks.append(Chunk(f"p. {page_no}", block.text))
    if not chunks:
        raise LibraryError(
            f"{name}: no extractable text in {len(pages)} page(s) (scanned images need OCR first)"
        )
    return ParsedDocument(title=meta_title or stem, kind="pdf", chunks=chunks)


def _read_pages(data: bytes, name: str) -> tuple[list[str], str | None]:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    # pypdf raises a wide range of exception types on damaged input (PdfReadError, ValueError,
    # KeyError, AssertionError...); any of them means "this PDF cannot be read".
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                unlocked = reader.decrypt("")
            except Exception as exc:
                raise LibraryError(f"{name}: encrypted PDF, cannot decrypt ({exc})") from exc
            if not unlocked:
                raise LibraryError(f"{name}: PDF is password-protected")
        pages = [page.extract_text() or "" for page in reader.pages]
        return pages, _metadata_title(reader)
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
        return " ".join(title.split())
    return None
