"""PDF: text per page with pypdf; one or more chunks per page, located as ``p. N``."""

from __future__ import annotations

import io

from skills.library.chunking import Chunk, ParsedDocument, numbered, pack_lines
from skills.library.models import LibraryError


def parse_pdf(data: bytes, name: str, stem: str) -> ParsedDocument:
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
        meta_title = _metadata_title(reader)
    except LibraryError:
        raise
    except PdfReadError as exc:
        raise LibraryError(f"{name}: not a readable PDF ({exc})") from exc
    except Exception as exc:
        raise LibraryError(f"{name}: not a readable PDF ({type(exc).__name__}: {exc})") from exc

    chunks: list[Chunk] = []
    for page_no, text in enumerate(pages, 1):
        for block in pack_lines(numbered(text.splitlines())):
            chunks.append(Chunk(f"p. {page_no}", block.text))
    if not chunks:
        raise LibraryError(
            f"{name}: no extractable text in {len(pages)} page(s) (scanned images need OCR first)"
        )
    return ParsedDocument(title=meta_title or stem, kind="pdf", chunks=chunks)


def _metadata_title(reader: object) -> str | None:
    metadata = getattr(reader, "metadata", None)
    title = getattr(metadata, "title", None) if metadata is not None else None
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())
    return None
