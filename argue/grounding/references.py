"""Find references written in model free text and check them against retrieved documents.

Models write prose (claims, rebuttals, conclusions) and may invent what they cite: a URL nobody
fetched, a plausible DOI, "Tao (2019)". Model text is data, so every reference in it is found
here and checked against what research actually returned; whatever does not match is shown as
unverified. Only documents verify: model-written evidence (a colleague's answer, memory, a
taxonomy label) is citable but never counts as a match.

The module is pure: no I/O, no model calls, no state beyond the index built from its inputs.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal
from urllib.parse import unquote, urlsplit

from argue.grounding.urls import normalise_url

__all__ = [
    "DocumentRef",
    "Reference",
    "ReferenceKind",
    "Resolution",
    "find_references",
]


ReferenceKind = Literal["url", "doi", "arxiv", "evidence_id", "claim_id", "author_year"]


@dataclass(frozen=True)
class Reference:
    """One reference as written: ``text == source[start:end]``; ``key`` is what matching uses."""

    kind: ReferenceKind
    text: str
    start: int
    end: int
    key: str


@dataclass(frozen=True)
class DocumentRef:
    """One retrieved document (the caller fills it from the debate's evidence)."""

    evidence_id: str
    title: str
    url: str | None = None
    snippet: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None


@dataclass(frozen=True)
class Resolution:
    """Whether a reference matches something real, and why, in plain words."""

    verified: bool
    evidence_id: str | None
    why: str


# ---------------------------------------------------------------------------------------------
# Detection
# ---------------------------------------------------------------------------------------------

# Characters that end a URL or DOI: whitespace, angle brackets, quotes (ASCII and typographic).
_STOP = "\\s<>\"'`“”‘’«»"
_TRAILING = ".,;:!?*"  # '*' too: models wrap URLs in Markdown bold
_CLOSERS = {")": "(", "]": "[", "}": "{"}

# "](" ends a URL too: in [https://a.org](https://a.org) the Markdown link holds two URLs.
_URL_RE = re.compile(rf"(?<![\w.@/-])(?i:https?://|www\.)(?:(?!\]\()[^{_STOP}])+")
_URL_HAS_HOST_RE = re.compile(r"(?i:https?://|www\.)[^\W_]")
_DOI_BODY = rf"10\.[0-9]{{4,9}}/[^{_STOP}]+"
_DOI_RE = re.compile(rf"(?<![\w.])(?:(?i:doi)(?:\s*:\s*|\s+))?(?P<doi>{_DOI_BODY})")
_DOI_SHAPE_RE = re.compile(r"10\.[0-9]{4,9}/.+", re.DOTALL)
_ARXIV_NEW = r"[0-9]{4}\.[0-9]{4,5}(?![0-9])"
_ARXIV_OLD = r"[A-Za-z][A-Za-z-]*(?:\.[A-Za-z]{2})?/[0-9]{7}(?![0-9])"
_ARXIV_RE = re.compile(
    rf"(?<![\w.])(?i:arxiv)(?:\s*:\s*|\s+)(?P<id>{_ARXIV_NEW}|{_ARXIV_OLD})(?:v[0-9]+(?![0-9]))?"
)
_ARXIV_URL_PATH_RE = re.compile(
    r"/(?:abs|pdf)/(?P<id>[0-9]{4}\.[0-9]{4,5}|[a-z][a-z-]*(?:\.[a-z]{2})?/[0-9]{7})"
    r"(?:v[0-9]+)?(?:\.pdf)?/?",
    re.IGNORECASE,
)
_ARXIV_HOSTS = frozenset({"arxiv.org", "export.arxiv.org"})
_DOI_HOSTS = frozenset({"doi.org", "dx.doi.org"})
_EVIDENCE_RE = re.compile(r"\b[A-Z]-R[0-9]{1,3}-E[0-9]{1,4}\b")
_CLAIM_RE = re.compile(r"\b[A-Z][0-9]{1,3}\.c[0-9]{1,3}\b")

# Author–year. A surname is letters joined by apostrophes or hyphens (O'Neil, Lévy-Leblond),
# optionally after name particles (van der Waals). The regex is deliberately permissive about
# case; capitalisation and the stoplists are checked in code (``_name_ok``), which can say
# things a regex cannot (Unicode upper case, elisions like d'Alembert vs D'ici).
_LETTERS = r"[^\W\d_]"
_NAME = rf"(?!al\b){_LETTERS}+(?:['’-]{_LETTERS}+)*"
_PARTICLE = r"(?i:van|von|der|den|de|del|della|di|da|du|dos|das|le|la|ter|ten)"
_SURNAME = rf"(?:{_PARTICLE}\s+){{0,3}}{_NAME}"
_CONJ = r"(?:\s*&\s*|,?\s+(?:and|et)\s+)"
_ET_AL = r"\s+et\s+al\b\.?"
_AUTHORS = rf"{_SURNAME}(?:(?:\s*,\s*{_SURNAME}){{0,8}}{_CONJ}{_SURNAME}|{_ET_AL})?"
_YEAR = r"(?:18|19|20)[0-9]{2}[a-z]?(?!\w)(?![.,][0-9])"
_LOCATOR = r"(?:\s*[,:]\s*(?:pp?|ch|chap|sec|§)\.?\s*[0-9]+(?:\s*[-–]\s*[0-9]+)?)"
_AUTHOR_YEAR_RE = re.compile(
    rf"(?<![\w'’-])(?P<authors>{_AUTHORS})"
    rf"(?:\s*\(\s*(?P<paren>{_YEAR}){_LOCATOR}?(?:\s*\)|(?=\s*[;,]))"
    rf"|\s*,\s*(?P<comma>{_YEAR})"
    rf"|\s+(?P<bare>{_YEAR}))"
)
_SURNAME_RE = re.compile(_SURNAME)
_AUTHOR_SEPARATOR_RE = re.compile(r",?\s+(?:and|et)\s+|\s*[,&]\s*")
_ET_AL_TAIL_RE = re.compile(rf"{_ET_AL}$")
_POSSESSIVE_RE = re.compile(r"['’]s$")
_ELISION_RE = re.compile(r"^[dlDL]['’]")

# Capitalised words that are never surnames: prepositions, articles, discourse words, pronouns,
# in English and French (the product also debates in French). Rejected in every shape.
_NEVER_NAMES_TEXT = """
    a an the this that these those in on at by for from of to with within without since until till
    before after during around circa ca about between through throughout across over under into
    onto upon per via as and or but nor so yet if when while whereas where because although though
    unless however moreover furthermore additionally also indeed thus hence therefore similarly
    likewise notably finally first firstly second secondly third then now today here there
    meanwhile conversely instead still later earlier recently again overall importantly
    specifically crucially critically interestingly unlike like following according see cf eg ie
    note yes no not only even just both all some many most each every any it its we our they their
    he his she her i you your my me us them who which what whose is was were are be been has had
    have do did does
    en depuis dès des avant après pendant vers entre dans sur sous pour par avec sans selon chez au
    aux le la les un une du de ce cet cette ces et ou mais donc ni car ainsi cependant pourtant
    toutefois néanmoins enfin puis ensuite alors aussi comme il elle ils elles nous vous voir dont
    où lors jusqu'en jusqu'à jusqu’en jusqu’à lorsqu'en qu'en aujourd'hui aujourd’hui
"""
_NEVER_NAMES = frozenset(_NEVER_NAMES_TEXT.split())
# Words that name dates or things rather than people: rejected before a bare or comma year
# ("March 2020", "Report, 2019") but allowed before "(year)", where March (1991) and May (1976)
# are real citations.
_DATE_WORDS_TEXT = """
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    monday tuesday wednesday thursday friday saturday sunday
    spring summer autumn fall winter early late mid end
    year years report survey study review census budget version edition release update class
    cohort election elections season act law vision horizon agenda windows office euro expo
    figure fig table section chapter page appendix volume vol issue round phase step
    janvier février mars avril mai juin juillet août septembre octobre novembre décembre
    lundi mardi mercredi jeudi vendredi samedi dimanche printemps été automne hiver fin début mi
    année an rapport enquête étude loi recensement édition élection élections saison classe
    promotion tableau chapitre annexe tome numéro tour étape
"""
_DATE_WORDS = frozenset(_DATE_WORDS_TEXT.split())


def find_references(text: str) -> list[Reference]:
    """Every reference in ``text``, sorted by start, spans never overlapping.

    Detectors run from most to least specific; a later candidate that overlaps an accepted
    one is dropped, so a DOI inside a doi.org URL is reported once (as the URL's span, kind
    ``doi``) and an id written inside a URL is part of that URL.
    """
    accepted: list[Reference] = []  # kept sorted by start; spans never overlap
    starts: list[int] = []
    for candidate in _candidates(text):
        position = bisect.bisect_left(starts, candidate.start)
        if position > 0 and accepted[position - 1].end > candidate.start:
            continue
        if position < len(accepted) and accepted[position].start < candidate.end:
            continue
        accepted.insert(position, candidate)
        starts.insert(position, candidate.start)
    return accepted


def _candidates(text: str) -> Iterator[Reference]:
    """All detections, most specific kind first (the order ``find_references`` relies on)."""
    yield from _find_urls(text)
    yield from _find_dois(text)
    yield from _find_arxiv_ids(text)
    for match in _EVIDENCE_RE.finditer(text):
        yield Reference("evidence_id", match.group(), match.start(), match.end(), match.group())
    for match in _CLAIM_RE.finditer(text):
        yield Reference("claim_id", match.group(), match.start(), match.end(), match.group())
    yield from _find_author_years(text)


def _strip_trailing(candidate: str) -> str:
    """Drop sentence punctuation after a URL or DOI, keeping closers the URL itself opened."""
    while candidate:
        last = candidate[-1]
        unbalanced = last in _CLOSERS and candidate.count(last) > candidate.count(_CLOSERS[last])
        if last not in _TRAILING and not unbalanced:
            break
        candidate = candidate[:-1]
    return candidate


def _with_scheme(url: str) -> str:
    return url if re.match(r"(?i)https?://", url) else f"http://{url}"


def _url_key(url: str) -> str:
    full = _with_scheme(url)
    try:
        return normalise_url(full)
    except ValueError:
        # A malformed port or IPv6 literal: still a reference, keyed by a plain lowercase form.
        return full.split("://", 1)[1].split("#", 1)[0].rstrip("/").casefold()


def _find_urls(text: str) -> Iterator[Reference]:
    for match in _URL_RE.finditer(text):
        raw = _strip_trailing(match.group())
        if not _URL_HAS_HOST_RE.match(raw):
            continue
        start, end = match.start(), match.start() + len(raw)
        yield _classify_url(raw, start, end)


def _classify_url(raw: str, start: int, end: int) -> Reference:
    """A doi.org URL is a DOI and an arxiv.org abs/pdf URL is an arXiv id; anything else a URL."""
    try:
        parts = urlsplit(_with_scheme(raw))
        host = (parts.hostname or "").lower().removeprefix("www.")
    except ValueError:
        return Reference("url", raw, start, end, _url_key(raw))
    path = unquote(parts.path)
    if host in _DOI_HOSTS and _DOI_SHAPE_RE.fullmatch(path[1:]):
        return Reference("doi", raw, start, end, path[1:].lower())
    if host in _ARXIV_HOSTS:
        arxiv = _ARXIV_URL_PATH_RE.fullmatch(path)
        if arxiv:
            return Reference("arxiv", raw, start, end, arxiv.group("id").lower())
    return Reference("url", raw, start, end, _url_key(raw))


def _find_dois(text: str) -> Iterator[Reference]:
    for match in _DOI_RE.finditer(text):
        doi = _strip_trailing(match.group("doi"))
        if not _DOI_SHAPE_RE.fullmatch(doi):
            continue
        end = match.start("doi") + len(doi)
        yield Reference("doi", text[match.start() : end], match.start(), end, doi.lower())


def _find_arxiv_ids(text: str) -> Iterator[Reference]:
    for match in _ARXIV_RE.finditer(text):
        key = match.group("id").lower()
        yield Reference("arxiv", match.group(), match.start(), match.end(), key)


def _find_author_years(text: str) -> Iterator[Reference]:
    for match in _AUTHOR_YEAR_RE.finditer(text):
        shape = "paren" if match.group("paren") else "comma" if match.group("comma") else "bare"
        year = match.group(shape)[:4]
        first = _first_real_surname(match.group("authors"), shape)
        if first is None:
            continue
        offset, surname = first
        start = match.start("authors") + offset
        key = f"{_POSSESSIVE_RE.sub('', ' '.join(surname.split())).casefold()}|{year}"
        yield Reference("author_year", text[start : match.end()], start, match.end(), key)


def _first_real_surname(authors: str, shape: str) -> tuple[int, str] | None:
    """The first surname of the list once leading non-names are dropped, with its offset.

    "However, Smith and Jones" starts at Smith; a list whose last name is not a name (the
    word right before the year) is no reference at all.
    """
    body = _ET_AL_TAIL_RE.sub("", authors)
    pieces: list[tuple[int, str]] = []
    position = 0
    for separator in _AUTHOR_SEPARATOR_RE.finditer(body):
        pieces.append((position, body[position : separator.start()]))
        position = separator.end()
    pieces.append((position, body[position:]))
    keep = pieces
    for index, (_, piece) in enumerate(pieces):
        if not _name_ok(piece, shape):
            keep = pieces[index + 1 :]
    return keep[0] if keep else None


def _name_ok(surname: str, shape: str) -> bool:
    words = surname.split()
    if not words:
        return False
    core = _POSSESSIVE_RE.sub("", words[-1])
    folded = core.casefold()
    if folded in _NEVER_NAMES or (shape != "paren" and folded in _DATE_WORDS):
        return False
    bare = _ELISION_RE.sub("", core)  # d'Alembert, l'Hôpital: the name starts after the elision
    letters = [char for char in bare if char.isalpha()]
    if len(letters) < 2 or not bare[0].isupper():
        return False
    # Acronyms are corporate authors in "IPCC (2021)" or "(WHO, 2020)", but "COP 2021" is an event.
    return not (shape == "bare" and all(char.isupper() for char in letters))
