"""Check references found in model text against the documents a debate retrieved.

Only documents verify: model-written evidence (a colleague's answer, memory, a taxonomy label)
is citable but never counts as a match. Pure: no I/O, no state beyond the index built here.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from urllib.parse import unquote

from argue.grounding.references import (
    _ELISION_RE,
    _POSSESSIVE_RE,
    _SURNAME_RE,
    DocumentRef,
    Reference,
    Resolution,
    _url_key,
    find_references,
)

_NO_PROVENANCE: Mapping[str, str] = MappingProxyType({})
_PROVENANCE_WORDS = {
    "testimony": "a colleague's answer",
    "recall": "recalled from memory",
    "label": "a taxonomy label",
}
_ARXIV_PAGE_RE = re.compile(
    r"(?:export\.)?arxiv\.org/(?:abs|pdf)/(?P<id>.+?)(?:v[0-9]+)?(?:\.pdf)?"
)
_ARXIV_DOI_PREFIX = "10.48550/arxiv."
# After a DOI: the end, a separator that cannot continue it, or sentence punctuation that ends it.
_DOI_END = "(?=$|[\\s/?#&<>\"'`“”«»]|[.,;:!?)\\]}*]+(?:$|[\\s<>\"'`“”«»]))"


def _fold(value: str) -> str:
    """Case- and accent-insensitive form: Erdős, ERDOS and erdos compare equal."""
    return _strip_accents(value).casefold().replace("’", "'")


def _strip_accents(value: str) -> str:
    decomposed = unicodedata.normalize("NFKD", value)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _page_key(normalised: str) -> str:
    """Beyond ``normalise_url``: percent-escapes and arXiv abs/pdf/version make no new page."""
    key = unquote(normalised)
    arxiv = _ARXIV_PAGE_RE.fullmatch(key)
    return f"arxiv.org/abs/{arxiv.group('id').lower()}" if arxiv else key


def _contains_doi(haystack: str, doi: str) -> bool:
    pattern = f"(?<![0-9A-Za-z.]){re.escape(doi)}{_DOI_END}"
    return re.search(pattern, haystack, re.IGNORECASE) is not None


def _contains_arxiv_id(haystack: str, arxiv_id: str) -> bool:
    before = "(?<![0-9])" if arxiv_id[0].isdigit() else "(?<![A-Za-z-])"
    pattern = f"{before}{re.escape(arxiv_id)}(?![0-9])"
    return re.search(pattern, haystack, re.IGNORECASE) is not None


def _has_word(haystack: str, word: str) -> bool:
    return re.search(f"(?<!\\w){re.escape(word)}(?!\\w)", haystack) is not None


@dataclass(frozen=True)
class _Indexed:
    """A document with its fields pre-folded for matching."""

    document: DocumentRef
    url: str  # percent-decoded, "" when the document has none
    text: str  # title and snippet, accents stripped, case kept
    authors: tuple[str, ...]  # folded
    page: str  # the URL's page key, "" when the document has none


@functools.lru_cache(maxsize=65536)
def _indexed(document: DocumentRef) -> _Indexed:
    """Folding is the costly part of an index, and a debate's documents never change: each is
    folded once, not once per index (an index is built for every argument of every round)."""
    return _Indexed(
        document=document,
        url=unquote(document.url or ""),
        text=_strip_accents(f"{document.title}\n{document.snippet}"),
        authors=tuple(_fold(author) for author in document.authors),
        page=_page_key(_url_key(document.url)) if document.url else "",
    )


class ReferenceIndex:
    """What a debate actually retrieved, ready to check references against.

    ``model_written`` maps evidence ids that are *not* documents to their provenance word
    ("testimony", "recall", "label"): they exist, but citing them verifies nothing.
    """

    def __init__(
        self,
        documents: Iterable[DocumentRef],
        *,
        claim_ids: Iterable[str] = (),
        model_written: Mapping[str, str] = _NO_PROVENANCE,
    ) -> None:
        self._documents = tuple(_indexed(document) for document in documents)
        self._document_ids = frozenset(item.document.evidence_id for item in self._documents)
        self._claim_ids = frozenset(claim_ids)
        self._model_written = dict(model_written)
        # One id cannot be both; a caller that says so has a bug worth hearing about.
        both = sorted(self._document_ids & self._model_written.keys())
        if both:
            raise ValueError(f"evidence ids listed both as documents and model-written: {both}")
        documents_claimed = sorted(
            key for key, word in self._model_written.items() if word == "document"
        )
        if documents_claimed:
            raise ValueError(f"model_written lists documents: {documents_claimed}")
        self._pages: dict[str, str] = {}
        for item in self._documents:
            if item.page:
                self._pages.setdefault(item.page, item.document.evidence_id)

    def resolve(self, ref: Reference) -> Resolution:
        """Whether ``ref`` matches a retrieved document (or, for a claim id, an existing claim)."""
        match ref.kind:
            case "url":
                return self._resolve_url(ref)
            case "doi":
                return self._resolve_doi(ref)
            case "arxiv":
                return self._resolve_arxiv(ref.key)
            case "evidence_id":
                return self._resolve_evidence_id(ref.key)
            case "claim_id":
                if ref.key in self._claim_ids:
                    return Resolution(True, None, f"claim {ref.key} exists in this debate")
                return Resolution(False, None, f"no claim {ref.key} in this debate")
            case "author_year":
                return self._resolve_author_year(ref)
        raise ValueError(f"unknown reference kind: {ref.kind!r}")

    def check(self, text: str) -> list[tuple[Reference, Resolution]]:
        """Every reference in ``text`` with its resolution, in text order."""
        return [(ref, self.resolve(ref)) for ref in find_references(text)]

    def unverified(self, text: str) -> list[Reference]:
        """The references in ``text`` that match nothing real, in text order."""
        return [ref for ref, resolution in self.check(text) if not resolution.verified]

    def _resolve_url(self, ref: Reference) -> Resolution:
        evidence_id = self._pages.get(_page_key(ref.key))
        if evidence_id is not None:
            return _matches(evidence_id)
        return Resolution(False, None, "no retrieved document has this URL")

    def _resolve_doi(self, ref: Reference) -> Resolution:
        for item in self._documents:
            if any(_contains_doi(field, ref.key) for field in (item.url, item.text) if field):
                return _matches(item.document.evidence_id)
        if ref.key.startswith(_ARXIV_DOI_PREFIX):  # arXiv's own DOIs name the arXiv id
            by_arxiv = self._resolve_arxiv(ref.key.removeprefix(_ARXIV_DOI_PREFIX))
            if by_arxiv.verified:
                return by_arxiv
        return Resolution(False, None, f"no retrieved document has DOI {ref.key}")

    def _resolve_arxiv(self, arxiv_id: str) -> Resolution:
        for item in self._documents:
            if any(_contains_arxiv_id(field, arxiv_id) for field in (item.url, item.text) if field):
                return _matches(item.document.evidence_id)
        return Resolution(False, None, f"no retrieved document is arXiv {arxiv_id}")

    def _resolve_evidence_id(self, evidence_id: str) -> Resolution:
        if evidence_id in self._document_ids:
            return _matches(evidence_id)
        provenance = self._model_written.get(evidence_id)
        if provenance is not None:
            what = _PROVENANCE_WORDS.get(provenance, f"{provenance} evidence")
            return Resolution(
                False, None, f"{evidence_id} is {what} (model-written), not a document"
            )
        return Resolution(False, None, f"no evidence {evidence_id} in this debate")

    def _resolve_author_year(self, ref: Reference) -> Resolution:
        """The same document must carry both the surname and the year.

        The surname counts when it is among the authors (case- and accent-insensitive) or a
        whole word of the title/snippet starting with a capital, so Young (2019) is not
        verified by "young people in 2019".
        """
        folded_surname, _, year_text = ref.key.rpartition("|")
        year = int(year_text)
        written = _SURNAME_RE.match(ref.text)
        surname = _POSSESSIVE_RE.sub("", written.group()) if written else folded_surname
        core = _strip_accents(_ELISION_RE.sub("", surname.split()[-1]))
        names = {_fold(surname), _fold(core)}
        in_text = f"(?<!\\w){re.escape(core[:1].upper())}(?i:{re.escape(core[1:])})(?!\\w)"
        year_word = f"(?<![0-9]){year}(?![0-9])"
        named_only: str | None = None
        for item in self._documents:
            by_author = any(_has_word(author, name) for author in item.authors for name in names)
            if not (by_author or re.search(in_text, item.text)):
                continue
            if item.document.year == year or re.search(year_word, item.text):
                return _matches(item.document.evidence_id)
            named_only = named_only or item.document.evidence_id
        if named_only is not None:
            return Resolution(False, None, f"{named_only} names {surname}, but not the year {year}")
        return Resolution(False, None, f"no retrieved document by or about {surname} from {year}")


def _matches(evidence_id: str) -> Resolution:
    return Resolution(True, evidence_id, f"matches {evidence_id}")
