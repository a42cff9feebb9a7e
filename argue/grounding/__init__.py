"""Grounding: find references in model free text and check them against retrieved documents."""

from argue.grounding.index import ReferenceIndex
from argue.grounding.references import (
    DocumentRef,
    Reference,
    ReferenceKind,
    Resolution,
    find_references,
)

__all__ = [
    "DocumentRef",
    "Reference",
    "ReferenceIndex",
    "ReferenceKind",
    "Resolution",
    "find_references",
]
