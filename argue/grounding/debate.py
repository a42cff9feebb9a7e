"""The reference check applied to one debate: its documents, its claims, its model-written items.

A reference written in model text is verified only by a document this debate retrieved; the
ids of model-written items (a colleague's answer, a memory, a taxonomy label) resolve to what
they are, never to verified evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from argue.domain import Evidence
from argue.grounding.index import ReferenceIndex
from argue.grounding.references import DocumentRef

_AUTHOR_YEAR = re.compile(r"^(?P<authors>[^():]{2,300}) \((?P<year>\d{4})\): ")


def document_ref(item: Evidence) -> DocumentRef:
    """Authors and year are read back from the byline sources put in front of a snippet.

    The source's own item id names the document when it is a DOI or an arXiv id
    (``arxiv:2101.00001v1``): that, with the URL, is what a cited DOI or arXiv id must match —
    not an id the snippet merely mentions.
    """
    authors: tuple[str, ...] = ()
    year: int | None = None
    match = _AUTHOR_YEAR.match(item.snippet)
    if match:
        names = match.group("authors").replace(" et al.", "")
        authors = tuple(name.strip() for name in names.split(",") if name.strip())
        year = int(match.group("year"))
    return DocumentRef(
        evidence_id=item.id,
        title=item.title,
        url=item.url,
        snippet=item.snippet,
        authors=authors,
        year=year,
        identifiers=_own_identifiers(item.origin_id),
    )


def _own_identifiers(origin_id: str) -> tuple[str, ...]:
    scheme = origin_id.partition(":")[0].casefold()
    return (origin_id,) if scheme in ("arxiv", "doi", "isbn", "pmid") else ()


def reference_index(evidence: Iterable[Evidence], claim_ids: Iterable[str] = ()) -> ReferenceIndex:
    items = list(evidence)
    return ReferenceIndex(
        [document_ref(e) for e in items if e.is_document],
        claim_ids=claim_ids,
        model_written={e.id: e.provenance for e in items if not e.is_document},
        # A memory's text may name an earlier debate's ids (A-R2-E3): never this debate's.
        recalled={e.id: f"{e.title}\n{e.snippet}" for e in items if e.provenance == "recall"},
    )


def unverified_in(index: ReferenceIndex, *texts: str) -> list[str]:
    """Every reference in ``texts`` that matches nothing retrieved, as written, once each."""
    found: list[str] = []
    for text in texts:
        found += [ref.text for ref in index.unverified(text)]
    return list(dict.fromkeys(found))
