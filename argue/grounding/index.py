"""Check references found in model text against the documents a debate retrieved.

Only documents verify: model-written evidence (a colleague's answer, memory, a taxonomy label)
is citable but never counts as a match. Matching is strict:

- a URL matches the document at that page;
- a DOI or an arXiv id matches only the document's *own* identifier — its URL or its
  ``identifiers`` — never one its title or snippet merely mentions (a survey's snippet citing
  another paper's DOI is not that paper);
- an author–year matches only a document whose author field has that surname and whose year is
  that year (or in that range), or whose snippet has the surname as a person's name and the
  year in one sentence ("Tao" in one sentence and "2019" in the next is no match, nor "The
  Kurtz Street bakery opened in 2007", nor a title word);
- an ISBN or PMID only the document's own identifier; a journal volume and pages, a numbered
  reference (``[12]``) and a marker (``Ibid.``, ``(in press)``) never verify;
- an evidence id matches only this debate's documents; one written inside an item recalled from
  memory is an earlier debate's id and never verifies (``recalled``).

Pure: no I/O, no state beyond the index built here.
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
    fold_text,
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
# Matched against the stripped identifier: a lazy ``.+?`` before a trailing ``\s*`` re-read the
# whitespace at every step (quadratic: 8,000 spaces took 0.4 s, a 100 KB identifier a minute).
_IDENTIFIER_RE = re.compile(
    r"(?i)(?:(?P<doi>doi:\s*|https?://(?:dx\.)?doi\.org/)(?P<doi_id>10\..+?)"
    r"|(?:arxiv:\s*|https?://(?:export\.)?arxiv\.org/(?:abs|pdf)/)(?P<arxiv_id>.+?)"
    r"(?:v[0-9]+)?(?:\.pdf)?)"
)
_YEAR_TOKEN_RE = re.compile(r"(?<![0-9])(?:1[5-9]|20)[0-9]{2}(?![0-9])")
# Sentence ends: a newline, or . ! ? (one or more) before whitespace or the end. A full stop
# after an initial ("J. Tao") or a common abbreviation ("et al.", "p.", "Fig.") ends nothing.
_SENTENCE_END_RE = re.compile(r"\n|[.!?]++(?=\s|$)")
_LAST_WORD_RE = re.compile(r"(\w+)$")
_ABBREVIATIONS_TEXT = """
    al coll eg ie cf vs dr mr mrs ms prof st jr sr no nos p pp fig figs vol vols ch chap sec eq
    eqs ref refs ed eds approx ca mme mlle inc ltd co corp art op ibid resp
    """
_ABBREVIATIONS = frozenset(_ABBREVIATIONS_TEXT.split())


def _fold(value: str) -> str:
    """Case- and accent-insensitive form: Erdős, ERDOS and erdos compare equal."""
    return _strip_accents(value).casefold().replace("’", "'")


def _strip_accents(value: str) -> str:
    decomposed = unicodedata.normalize("NFKD", fold_text(value))
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


def _sentences(text: str) -> tuple[str, ...]:
    """``text`` cut into sentences (title and snippet are never one sentence)."""
    pieces: list[str] = []
    last = 0
    for end in _SENTENCE_END_RE.finditer(text):
        if end.group().startswith("."):
            word = _LAST_WORD_RE.search(text[max(last, end.start() - 24) : end.start()])
            if word and (len(word.group(1)) == 1 or word.group(1).casefold() in _ABBREVIATIONS):
                continue
        pieces.append(text[last : end.start()])
        last = end.end()
    pieces.append(text[last:])
    return tuple(piece for piece in pieces if piece.strip())


def _own_identifiers(identifiers: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The DOIs and arXiv ids a document's source gave for the document itself, lowercased."""
    dois: set[str] = set()
    arxiv_ids: set[str] = set()
    for identifier in identifiers:
        parsed = _IDENTIFIER_RE.fullmatch(fold_text(identifier).strip())
        if parsed is None:
            continue
        if parsed.group("doi_id"):
            doi = parsed.group("doi_id").lower()
            dois.add(doi)
            if doi.startswith(_ARXIV_DOI_PREFIX):
                arxiv_ids.add(re.sub(r"v[0-9]+$", "", doi.removeprefix(_ARXIV_DOI_PREFIX)))
        else:
            arxiv_ids.add(parsed.group("arxiv_id").lower())
    return frozenset(dois), frozenset(arxiv_ids)


@dataclass(frozen=True)
class _Indexed:
    """A document with its fields pre-folded for matching."""

    document: DocumentRef
    url: str  # percent-decoded, "" when the document has none
    text: str  # title and snippet, folded and accents stripped, case kept
    sentences: tuple[str, ...]  # ``text`` cut into sentences
    snippet_sentences: tuple[str, ...]  # the snippet's sentences (a title names, it does not cite)
    authors: tuple[str, ...]  # folded
    page: str  # the URL's page key, "" when the document has none
    dois: frozenset[str]  # from ``identifiers``, lowercased
    arxiv_ids: frozenset[str]  # from ``identifiers``, lowercased, no version


@functools.lru_cache(maxsize=65536)
def _indexed(document: DocumentRef) -> _Indexed:
    """Folding is the costly part of an index, and a debate's documents never change: each is
    folded once, not once per index (an index is built for every argument of every round)."""
    title = _strip_accents(document.title)
    snippet = _strip_accents(document.snippet)
    dois, arxiv_ids = _own_identifiers(document.identifiers)
    return _Indexed(
        document=document,
        url=unquote(document.url or ""),
        text=f"{title}\n{snippet}",
        sentences=_sentences(f"{title}\n{snippet}"),
        snippet_sentences=_sentences(snippet),
        authors=tuple(_fold(author) for author in document.authors),
        page=_page_key(_url_key(document.url)) if document.url else "",
        dois=dois,
        arxiv_ids=arxiv_ids,
    )


def _years(key: str) -> tuple[int, int]:
    first, _, last = key.partition("-")
    return int(first), int(last or first)


# After a surname, the words that make it a place, a company or a thing named after the person
# ("The Kurtz Street bakery", "Kurtz Inc.", "la rue Kurtz" is caught by the word before).
_NOT_A_PERSON_AFTER_TEXT = """
    street st avenue ave road rd boulevard blvd square lane drive park place bridge station
    inc ltd llc corp corporation company co group holdings foundation institute university
    college school hospital clinic bakery hotel restaurant cafe bank prize award medal lab
    laboratory center centre building hall museum library brand family trust fund
    """
_NOT_A_PERSON_BEFORE_TEXT = """
    the a an rue avenue boulevard place pont gare société entreprise groupe famille prix
    hôtel hotel café boulangerie le la les du des au aux
    """
_NOT_A_PERSON_AFTER = frozenset(_NOT_A_PERSON_AFTER_TEXT.split())
_NOT_A_PERSON_BEFORE = frozenset(_NOT_A_PERSON_BEFORE_TEXT.split())
_NEXT_WORD_RE = re.compile(r"\s*+([^\W\d_]+)")
_PREVIOUS_WORD_RE = re.compile(r"([^\W\d_]+)\s*+$")
_YEAR_WINDOW = 80  # characters between a person's name and the year, either side


def _person_with_year(sentence: str, surname: re.Pattern[str], first: int, last: int) -> bool:
    """The surname used as a person's name in ``sentence`` (not a street, a company or a
    thing named after them), with a year in range within :data:`_YEAR_WINDOW` characters."""
    for match in surname.finditer(sentence):
        after = _NEXT_WORD_RE.match(sentence, match.end())
        if after and (
            after.group(1).casefold() in _NOT_A_PERSON_AFTER or after.group(1)[0].isupper()
        ):
            continue
        before = _PREVIOUS_WORD_RE.search(sentence, max(0, match.start() - 40), match.start())
        if before and before.group(1).casefold() in _NOT_A_PERSON_BEFORE:
            continue
        window = sentence[max(0, match.start() - _YEAR_WINDOW) : match.end() + _YEAR_WINDOW]
        if _years_in(window, first, last):
            return True
    return False


def _years_in(sentence: str, first: int, last: int) -> bool:
    return any(first <= int(year) <= last for year in _YEAR_TOKEN_RE.findall(sentence))


_CHECKED_TEXTS = 256  # texts whose references an index remembers


class ReferenceIndex:
    """What a debate actually retrieved, ready to check references against.

    ``model_written`` maps evidence ids that are *not* documents to their provenance word
    ("testimony", "recall", "label"): they exist, but citing them verifies nothing.

    ``recalled`` maps the ids of items recalled from memory to their text (title and snippet).
    A memory is an earlier debate's words, and the evidence ids written in it are that debate's:
    an id mentioned there is reported as recalled, never as this debate's evidence, even when
    this debate has an item with the same id (which one a model meant cannot be told).
    """

    def __init__(
        self,
        documents: Iterable[DocumentRef],
        *,
        claim_ids: Iterable[str] = (),
        model_written: Mapping[str, str] = _NO_PROVENANCE,
        recalled: Mapping[str, str] = _NO_PROVENANCE,
    ) -> None:
        self._documents = tuple(_indexed(document) for document in documents)
        self._document_ids = frozenset(item.document.evidence_id for item in self._documents)
        self._claim_ids = frozenset(claim_ids)
        self._checked: dict[str, list[tuple[Reference, Resolution]]] = {}
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
        recalled_documents = sorted(self._document_ids & recalled.keys())
        if recalled_documents:
            raise ValueError(f"recalled lists documents: {recalled_documents}")
        self._recalled_mentions: dict[str, str] = {}
        for recall_id, text in recalled.items():
            for ref in find_references(text):
                if ref.kind == "evidence_id" and ref.key != recall_id:
                    self._recalled_mentions.setdefault(ref.key, recall_id)
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
            case "isbn" | "pmid":
                return self._resolve_identifier(ref)
            case "journal":
                return Resolution(
                    False, None, "a journal volume and pages, matching no retrieved document"
                )
            case "numbered":
                return Resolution(False, None, "a numbered reference to no retrieved document")
            case "marker":
                return Resolution(False, None, f"“{ref.text}” refers to no retrieved document")
        raise ValueError(f"unknown reference kind: {ref.kind!r}")

    def check(self, text: str) -> list[tuple[Reference, Resolution]]:
        """Every reference in ``text`` with its resolution, in text order (remembered per
        text: a page checks the same claim in several places)."""
        found = self._checked.get(text)
        if found is None:
            found = [(ref, self.resolve(ref)) for ref in find_references(text)]
            if len(self._checked) >= _CHECKED_TEXTS:
                self._checked.pop(next(iter(self._checked)))
            self._checked[text] = found
        return list(found)

    def unverified(self, text: str) -> list[Reference]:
        """The references in ``text`` that match nothing real, in text order."""
        return [ref for ref, resolution in self.check(text) if not resolution.verified]

    def _resolve_url(self, ref: Reference) -> Resolution:
        evidence_id = self._pages.get(_page_key(ref.key))
        if evidence_id is not None:
            return _matches(evidence_id)
        return Resolution(False, None, "no retrieved document has this URL")

    def _resolve_doi(self, ref: Reference) -> Resolution:
        """Only the document's own DOI: in its URL or its identifiers, not in its text."""
        for item in self._documents:
            if ref.key in item.dois or (item.url and _contains_doi(item.url, ref.key)):
                return _matches(item.document.evidence_id)
        if ref.key.startswith(_ARXIV_DOI_PREFIX):  # arXiv's own DOIs name the arXiv id
            by_arxiv = self._resolve_arxiv(ref.key.removeprefix(_ARXIV_DOI_PREFIX))
            if by_arxiv.verified:
                return by_arxiv
        return Resolution(False, None, f"no retrieved document has DOI {ref.key}")

    def _resolve_arxiv(self, arxiv_id: str) -> Resolution:
        """Only the document's own arXiv id: in its URL or its identifiers, not in its text."""
        for item in self._documents:
            if arxiv_id in item.arxiv_ids or (item.url and _contains_arxiv_id(item.url, arxiv_id)):
                return _matches(item.document.evidence_id)
        return Resolution(False, None, f"no retrieved document is arXiv {arxiv_id}")

    def _resolve_identifier(self, ref: Reference) -> Resolution:
        """An ISBN or PMID matches only a document whose own identifiers list it."""
        wanted = f"{ref.kind}:{ref.key}".casefold()
        for item in self._documents:
            own = {fold_text(i).replace(" ", "").replace("-", "").casefold()
                   for i in item.document.identifiers}  # fmt: skip
            if wanted.replace("-", "") in own:
                return _matches(item.document.evidence_id)
        return Resolution(False, None, f"no retrieved document has {ref.kind.upper()} {ref.key}")

    def _resolve_evidence_id(self, evidence_id: str) -> Resolution:
        recalled_in = self._recalled_mentions.get(evidence_id)
        if recalled_in is not None:
            also = "also " if evidence_id in self._document_ids else ""
            return Resolution(
                False,
                None,
                f"{evidence_id} is {also}written in {recalled_in}, recalled from memory: "
                "an earlier debate's id, not this debate's evidence",
            )
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
        """By the author field and the document's year, or surname and year in one sentence.

        The surname counts when it is among the authors (case- and accent-insensitive) or a
        whole word of a title/snippet sentence starting with a capital, so Young (2019) is not
        verified by "young people in 2019".
        """
        folded_surname, _, year_key = ref.key.rpartition("|")
        first, last = _years(year_key)
        shown_year = year_key
        written = _SURNAME_RE.match(fold_text(ref.text))
        surname = _POSSESSIVE_RE.sub("", written.group()) if written else folded_surname
        core = _strip_accents(_ELISION_RE.sub("", surname.split()[-1]))
        names = {_fold(surname), _fold(core)}
        in_text = re.compile(
            f"(?<!\\w){re.escape(core[:1].upper())}(?i:{re.escape(core[1:])})(?!\\w)"
        )
        named_only: str | None = None
        apart: str | None = None
        for item in self._documents:
            by_author = any(_has_word(author, name) for author in item.authors for name in names)
            year = item.document.year
            if by_author and year is not None and first <= year <= last:
                return _matches(item.document.evidence_id)
            named = [s for s in item.snippet_sentences if in_text.search(s)]
            if any(_person_with_year(s, in_text, first, last) for s in named):
                return _matches(item.document.evidence_id)
            if by_author or named:
                if _years_in(item.text, first, last):
                    apart = apart or item.document.evidence_id
                named_only = named_only or item.document.evidence_id
        if apart is not None:
            return Resolution(
                False,
                None,
                f"{apart} names {surname} and mentions {shown_year}, but not as its year "
                "nor in one sentence with the name",
            )
        if named_only is not None:
            return Resolution(
                False, None, f"{named_only} names {surname}, but not the year {shown_year}"
            )
        return Resolution(
            False, None, f"no retrieved document by or about {surname} from {shown_year}"
        )


def _matches(evidence_id: str) -> Resolution:
    return Resolution(True, evidence_id, f"matches {evidence_id}")
