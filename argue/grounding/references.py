"""Find references written in model free text and check them against retrieved documents.

Models write prose (claims, rebuttals, conclusions) and may invent what they cite: a URL nobody
fetched, a plausible DOI, "Tao (2019)". Model text is data, so every reference in it is found
here and checked against what research actually returned; whatever does not match is shown as
unverified. Only documents verify: model-written evidence (a colleague's answer, memory, a
taxonomy label) is citable but never counts as a match.

Detection reads a *folded view* of the text (``fold_text``): NFKC (full-width digits and
letters, mathematical bold, non-breaking spaces become plain ones), format characters removed
(zero-width space and joiners, soft hyphen, BOM, bidi controls) and Unicode hyphens, dashes and
full stops written as ``-`` and ``.``. So ``Ta\u200bo (２０１９)`` or ``A‑R2‑E3`` (non-breaking
hyphens) are found like their plain forms, while every span still points into the text as
written (``text == source[start:end]``).

Every pattern is linear-time: quantifiers that could re-split a run of characters are
possessive (``++``, ``*+``) or bounded, and every match starts at a word boundary.

The module is pure: no I/O, no model calls, no state beyond the index built from its inputs.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
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
    "fold_text",
]


ReferenceKind = Literal[
    "url",
    "doi",
    "arxiv",
    "isbn",
    "pmid",
    "evidence_id",
    "claim_id",
    "author_year",
    "journal",
    "numbered",
    "marker",
]
"""``journal`` (``Ann. Math. 190(3):1-45``), ``numbered`` (``[12]``, a footnote ``[^1]``) and
``marker`` (``Ibid.``, ``op. cit.``, ``n.d.``, ``(in press)``, ``(sous presse)``…) point at
works no retrieved document can be shown to be: they are always unverified."""


@dataclass(frozen=True)
class Reference:
    """One reference as written: ``text == source[start:end]``; ``key`` is what matching uses.

    For an author–year the key is ``surname|year`` or ``surname|first-last`` for a range.
    """

    kind: ReferenceKind
    text: str
    start: int
    end: int
    key: str


@dataclass(frozen=True)
class DocumentRef:
    """One retrieved document (the caller fills it from the debate's evidence).

    ``identifiers`` are the document's *own* identifiers as its source gave them
    (``doi:10.1234/x``, ``arxiv:2101.00001``); a DOI or arXiv id matches only these or the
    document's URL, never one its title or snippet merely mentions.
    """

    evidence_id: str
    title: str
    url: str | None = None
    snippet: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    identifiers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Resolution:
    """Whether a reference matches something real, and why, in plain words."""

    verified: bool
    evidence_id: str | None
    why: str


# ---------------------------------------------------------------------------------------------
# The folded view
# ---------------------------------------------------------------------------------------------

# Hyphens, dashes and minus signs that NFKC keeps, written as "-"; full stops it keeps, as ".".
_FOLDS = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u2e3a\u2e3b", "-"),
        **dict.fromkeys("\ufe58\ufe63\uff0d", "-"),
        **dict.fromkeys("\u3002\uff61", "."),
    }
)


def _without_format(text: str) -> str:
    return "".join(char for char in text if unicodedata.category(char) != "Cf")


def _fold_piece(piece: str) -> str:
    # Format characters go before NFKC too, so "e\u200b\u0301" composes like "e\u0301".
    folded = unicodedata.normalize("NFKC", _without_format(piece))
    return (folded if folded.isascii() else _without_format(folded)).translate(_FOLDS)


def fold_text(text: str) -> str:
    """The view detection reads: NFKC, format characters removed, dashes and stops plain."""
    if text.isascii() or _already_folded(text):
        return text
    return _fold_piece(text)


def _already_folded(text: str) -> bool:
    """Most non-ASCII text (accented prose) needs no folding; checked per distinct character."""
    return unicodedata.is_normalized("NFKC", text) and not any(
        ord(char) in _FOLDS or unicodedata.category(char) == "Cf" for char in set(text)
    )


@dataclass(frozen=True)
class _View:
    """The folded text, and for each of its characters the span of the original it came from."""

    text: str
    starts: tuple[int, ...] | None  # None: the view is the original (ASCII text)
    ends: tuple[int, ...] | None

    def original(self, start: int, end: int) -> tuple[int, int]:
        if self.starts is None or self.ends is None:
            return start, end
        return self.starts[start], self.ends[end - 1]


def _view(text: str) -> _View:
    """Fold ``text`` one base character (with its combining marks and any format characters
    after it) at a time, keeping offsets."""
    if text.isascii() or _already_folded(text):
        return _View(text, None, None)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position, length = 0, len(text)
    while position < length:
        after = position + 1
        while after < length and (
            unicodedata.combining(text[after]) or unicodedata.category(text[after]) == "Cf"
        ):
            after += 1
        piece = text[position:after]
        folded = piece if piece.isascii() else _fold_piece(piece)
        out.append(folded)
        starts += [position] * len(folded)
        ends += [after] * len(folded)
        position = after
    return _View("".join(out), tuple(starts), tuple(ends))


# ---------------------------------------------------------------------------------------------
# Detection
# ---------------------------------------------------------------------------------------------

# Characters that end a URL or DOI: whitespace, angle brackets, quotes (ASCII and typographic).
_STOP = "\\s<>\"'`“”‘’«»"
_TRAILING = ".,;:!?*"  # '*' too: models wrap URLs in Markdown bold
_CLOSERS = {")": "(", "]": "[", "}": "{"}

# "](" ends a URL too: in [https://a.org](https://a.org) the Markdown link holds two URLs.
_SCHEMES = r"(?i:(?:https?|ftps?|sftp|hxxps?|hxxp|h\*\*ps?)://|www\.)"
_URL_RE = re.compile(rf"(?<![\w.@/-]){_SCHEMES}(?:(?!\]\()[^{_STOP}])++")
_URL_HAS_HOST_RE = re.compile(rf"{_SCHEMES}[^\W_]")
# A defanged host ("fabricated[.]org/paper", "evil(.)com"): written so that nothing links it,
# still a reference to a page.
_DEFANGED_RE = re.compile(
    r"(?<![\w.@/:%+-])(?P<host>[A-Za-z0-9-]{1,63}+(?:(?:\[\.\]|\(\.\)|\{\.\})[A-Za-z0-9-]{1,63}+){1,8}+)"
    rf"(?P<path>/(?:(?!\]\()[^{_STOP}])*+)?"
)
_DEFANGED_DOT_RE = re.compile(r"\[\.\]|\(\.\)|\{\.\}")
# A bare host with no path ("fabricated-journal.org"): lowercase, a known top-level domain that
# is not also a common file extension ("notes.md", "run.sh").
_BARE_HOST_RE = re.compile(
    r"(?<![\w.@/:%+\\-])(?P<host>[a-z0-9](?:[a-z0-9-]{0,62}+)(?:\.[a-z0-9-]{1,63}+){1,8}+)"
    r"(?![\w/@-]|\.[\w-])"
)
_FILE_LIKE_TLDS = frozenset({"md", "py", "sh", "rs", "pl", "ps", "cc", "so", "ml", "mk", "in"})
# A URL written without a scheme: host labels, then a path ("example.org/paper/12",
# "arxiv.org/abs/2301.01234"). The last label must be a known top-level domain (checked in
# code), so "and/or", "Node.js/Deno" or "3.5/10" are not URLs.
_HOST_URL_RE = re.compile(
    rf"(?<![\w.@/:%+-])(?P<host>[A-Za-z0-9](?:[A-Za-z0-9-]{{0,62}}+)(?:\.[A-Za-z0-9-]{{1,63}}+){{1,8}}+)"
    rf"/(?:(?!\]\()[^{_STOP}])*+"
)
_DOI_BODY = rf"10\.[0-9]{{4,9}}\s{{0,3}}/\s{{0,3}}[^{_STOP}]++"
_DOI_RE = re.compile(rf"(?<![\w.])(?:(?i:doi)(?:\s*+:\s*+|\s++))?(?P<doi>{_DOI_BODY})")
_DOI_SHAPE_RE = re.compile(r"10\.[0-9]{4,9}\s{0,3}/\s{0,3}.+", re.DOTALL)
_ARXIV_NEW = r"[0-9]{4}\.[0-9]{4,5}(?![0-9])"
_ARXIV_OLD = r"[A-Za-z][A-Za-z-]{0,20}+(?:\.[A-Za-z]{2})?/[0-9]{7}(?![0-9])"
_VERSION = r"(?:v[0-9]{1,3}+(?![0-9]))?"
# "arXiv:2301.01234v2", "arXiv 2301.01234", "arXiv preprint arXiv:2301.01234", "arXiv e-print …".
_ARXIV_RE = re.compile(
    r"(?<![\w.])(?i:arxiv)(?:\s++(?i:preprint|e-?print|id|no\.?))?(?:\s*+:\s*+|\s++)"
    rf"(?:(?i:arxiv)\s*+:\s*+)?(?P<id>{_ARXIV_NEW}|{_ARXIV_OLD}){_VERSION}"
)
# A bare new-style id ("2399.00413", "2301.01234v2"): four digits, a dot, four or five digits,
# nothing numeric around it — "3.5", "version 1.2" or "12019.5" are not ids.
_ARXIV_BARE_RE = re.compile(
    rf"(?<![\w.,/-])(?P<id>[0-9]{{4}}\.[0-9]{{4,5}}){_VERSION}(?![\w-]|[.,][0-9])"
)
# A bare old-style id ("hep-th/9901001"): only with a real archive name.
_ARXIV_OLD_BARE_RE = re.compile(
    r"(?<![\w./-])(?P<id>(?P<archive>[a-z]{2,8}+(?:-[a-z]{2,5}+)?)(?:\.[A-Z]{2})?/[0-9]{7})"
    rf"{_VERSION}(?![\w/])"
)
_ARXIV_ARCHIVES_TEXT = """
    acc-phys adap-org alg-geom ao-sci astro-ph atom-ph bayes-an chao-dyn chem-ph cmp-lg comp-gas
    cond-mat cs dg-ga econ eess funct-an gr-qc hep-ex hep-lat hep-ph hep-th math math-ph
    mtrl-th nlin nucl-ex nucl-th patt-sol physics plasm-ph q-alg q-bio q-fin quant-ph solv-int
    stat supr-con
    """
_ARXIV_ARCHIVES = frozenset(_ARXIV_ARCHIVES_TEXT.split())
_ARXIV_URL_PATH_RE = re.compile(
    r"/(?:abs|pdf)/(?P<id>[0-9]{4}\.[0-9]{4,5}|[a-z][a-z-]*(?:\.[a-z]{2})?/[0-9]{7})"
    r"(?:v[0-9]+)?(?:\.pdf)?/?",
    re.IGNORECASE,
)
_ARXIV_HOSTS = frozenset({"arxiv.org", "export.arxiv.org"})
_DOI_HOSTS = frozenset({"doi.org", "dx.doi.org"})
_EVIDENCE_RE = re.compile(r"\b[A-Z]-R[0-9]{1,3}-E[0-9]{1,4}\b")
_CLAIM_RE = re.compile(r"\b[A-Z][0-9]{1,3}\.c[0-9]{1,3}\b")

# Top-level domains a scheme-less URL may end in: generic ones and every country code.
_TLDS_TEXT = """
    com org net edu gov mil int info biz name pro aero coop museum mobi asia tel travel jobs cat
    xyz online site tech app dev page blog news wiki science io ai club shop store cloud academy
    institute foundation university school education health ngo ong eu global world media
    press today review research network systems software
    ac ad ae af ag al am ao aq ar as at au aw ax az ba bb bd be bf bg bh bi bj bm bn bo br bs bt
    bw by bz ca cc cd cf cg ch ci ck cl cm cn co cr cu cv cw cx cy cz de dj dk dm do dz ec ee eg
    er es et fi fj fk fm fo fr ga gd ge gf gg gh gi gl gm gn gp gq gr gs gt gu gw gy hk hm hn hr
    ht hu id ie il im in iq ir is it je jm jo jp ke kg kh ki km kn kp kr kw ky kz la lb lc li lk
    lr ls lt lu lv ly ma mc md me mg mh mk ml mm mn mo mp mq mr ms mt mu mv mw mx my mz na nc ne
    nf ng ni nl no np nr nu nz om pa pe pf pg ph pk pl pm pn pr ps pt pw py qa re ro rs ru rw sa
    sb sc sd se sg sh si sk sl sm sn so sr ss st sv sx sy sz tc td tf tg th tj tk tl tm tn to tr
    tt tv tw tz ua ug uk us uy uz va vc ve vg vi vn vu wf ws ye yt za zm zw
    """
_TLDS = frozenset(_TLDS_TEXT.split())

# Author–year. A surname is letters joined by apostrophes or hyphens (O'Neil, Lévy-Leblond),
# optionally after name particles (van der Waals), optionally followed by APA initials
# ("Tao, T.", "Lévy-Leblond, J.-M."). The regex is deliberately permissive about case;
# capitalisation and the stoplists are checked in code (``_name_ok``), which can say things a
# regex cannot (Unicode upper case, elisions like d'Alembert vs D'ici).
_LETTERS = r"[^\W\d_]"
_NAME = rf"(?!(?:al|coll|collab)\b){_LETTERS}++(?:['’-]{_LETTERS}++){{0,4}}+"
_PARTICLE = r"(?i:van|von|der|den|de|del|della|di|da|du|dos|das|le|la|ter|ten)"
_SURNAME = rf"(?:{_PARTICLE}\s++){{0,3}}{_NAME}"
_INITIAL = r"[A-ZÀ-ÖØ-Þ][a-z]?\."
_INITIALS = rf"{_INITIAL}(?:[ -]?{_INITIAL}){{0,4}}+"
_AUTHOR = rf"(?>{_SURNAME}(?:\s*+,\s*+{_INITIALS})?)"
_CONJ = r"(?:\s*+,?\s*+&\s*+|,?\s++(?:and|et)\s++)"
_ET_AL = r",?\s++et\s++(?:al|coll|collab)\b\.?"
_AUTHORS = rf"{_AUTHOR}(?:(?:\s*+,\s*+{_AUTHOR}){{0,8}}{_CONJ}{_AUTHOR}|{_ET_AL})?"
_Y = r"(?:1[5-9]|20)[0-9]{2}"
# A year 1500–2099 with an optional letter (2019a), or a range (2019–2021, 2019-20).
_YEAR = rf"{_Y}[a-z]?(?:\s?-\s?(?:{_Y}|[0-9]{{2}})[a-z]?)?(?!\w)(?![.,][0-9])"
_LOCATOR = (
    r"(?:\s*+[,:]\s*+(?:pp?|ch|chap|sec|§)\.?\s*+[0-9]{1,6}+(?:\s*+-\s*+[0-9]{1,6}+)?"
    r"|\s*+:\s*+[0-9]{1,6}+(?:\s*+-\s*+[0-9]{1,6}+)?)"
)
_AUTHOR_YEAR_RE = re.compile(
    rf"(?<![\w'’-])(?P<authors>{_AUTHORS})"
    rf"(?:\s*+\(\s*+(?P<paren>{_YEAR}){_LOCATOR}?(?:\s*+\)|(?=\s*+[;,]))"
    rf"|\s*+\[\s*+(?P<bracket>{_YEAR}){_LOCATOR}?\s*+\]"
    rf"|\s*+,\s*+(?P<comma>{_YEAR})"
    rf"|\s++['’](?P<short>[0-9]{{2}})(?![\w'’])"
    rf"|\s++(?P<bare>{_YEAR}))"
)
# "According to a 2007 study by Kurtz", "a study by Kurtz in 2007", "D'après une étude de Kurtz
# parue en 2007", "selon Kurtz en 2007", "the Green-Kurtz theorem (2007)".
_WORK = (
    r"(?i:study|paper|article|report|survey|analysis|review|preprint|book|thesis|work|"
    r"experiment|trial|proof|result|results|note|letter|monograph)"
)
_OEUVRE = (
    r"(?i:[ée]tude|article|rapport|travail|travaux|publication|th[èe]se|ouvrage|livre|papier|"
    r"preuve|r[ée]sultat|note|enqu[êe]te|analyse|revue)"
)
_RESULT = (
    r"(?i:theorem|lemma|conjecture|inequality|bound|model|method|algorithm|hypothesis|"
    r"principle|law|effect|equation|formula|criterion|test|index|paradox|problem|constant|"
    r"th[ée]or[èe]me|lemme|in[ée]galit[ée]|borne|mod[èe]le|m[ée]thode|algorithme|"
    r"hypoth[èe]se|principe|loi|effet|[ée]quation|formule|crit[èe]re)"
)
_PROSE_AUTHOR_YEAR_RES = (
    re.compile(
        rf"(?<!\w)(?P<year>{_YEAR})\s++{_WORK}\s++(?i:by|from|of)\s++(?P<authors>{_AUTHORS})"
    ),
    re.compile(
        rf"(?<!\w){_WORK}\s++(?i:by)\s++(?P<authors>{_AUTHORS})(?:\s*+,)?\s++(?i:in|from)"
        rf"\s++(?P<year>{_YEAR})"
    ),
    re.compile(
        rf"(?<!\w){_OEUVRE}\s++(?i:de\s++|d['’]|par\s++)(?P<authors>{_AUTHORS})(?:\s*+,)?"
        rf"(?:\s++(?i:paru|publi[ée]|sorti|r[ée]alis[ée]|men[ée])e?s?)?\s++(?i:en)\s++(?P<year>{_YEAR})"
    ),
    re.compile(
        rf"(?<!\w)(?i:selon|d['’]apr[èe]s|according\s++to)\s++(?P<authors>{_AUTHORS})(?:\s*+,)?"
        rf"\s++(?i:en|in)\s++(?P<year>{_YEAR})"
    ),
    re.compile(
        rf"(?<![\w'’-])(?P<authors>{_NAME}(?:-{_NAME}){{0,3}})(?:['’]s)?\s++{_RESULT}"
        rf"\s*+\(\s*+(?P<year>{_YEAR})\s*+\)"
    ),
    re.compile(
        rf"(?<!\w){_RESULT}\s++(?i:de|d['’]|of)\s*+(?P<authors>{_NAME}(?:-{_NAME}){{0,3}})"
        rf"\s*+\(\s*+(?P<year>{_YEAR})\s*+\)"
    ),
)
_NAMED_RESULTS = 4  # the patterns from this index on name a result after its authors
_ISBN_RE = re.compile(
    r"(?<![\w-])(?i:isbn)(?:-1[03])?\s*+:?\s*+(?P<isbn>[0-9](?:[ -]?[0-9]){8,11}(?:[ -]?[0-9Xx])?)"
    r"(?![\w-])"
)
_PMID_RE = re.compile(r"(?<![\w-])(?i:pmid|pmcid)\s*+:?\s*+(?P<pmid>(?i:pmc)?[0-9]{1,9})(?![0-9])")
_JOURNAL_RE = re.compile(
    r"(?<![\w.])(?P<volume>[0-9]{1,4})\s?\(\s?(?P<issue>[0-9]{1,4}(?:\s?-\s?[0-9]{1,4})?)\s?\)"
    r"\s?:\s?(?P<pages>[0-9]{1,6}(?:\s?-\s?[0-9]{1,6})?)(?![\w.])"
    r"|(?<!\w)(?i:vol)\.\s?[0-9]{1,4},\s?(?:(?i:no)\.\s?[0-9]{1,4},\s?)?(?i:pp?)\.\s?[0-9]{1,6}"
    r"(?:\s?-\s?[0-9]{1,6})?"
)
_NUMBERED_RE = re.compile(r"(?<![\w\]])\[\^?[0-9]{1,3}(?:\s?-\s?[0-9]{1,3})?\](?!\()")
_MARKER_RE = re.compile(
    r"(?<!\w)(?:(?i:ibid(?:em)?)\b\.?|(?i:op|loc)\.\s?(?i:cit)\b\.?|(?i:n|s)\.\s?(?i:d)\.)"
    r"|\(\s*+(?i:in\s++press|forthcoming|to\s++appear|under\s++review|submitted|unpublished"
    r"|sous\s++presse|[àa]\s++para[îi]tre|en\s++pr[ée]paration|en\s++cours\s++de\s++publication"
    r"|non\s++publi[ée]e?)\s*+\)"
)
_YEAR_PARTS_RE = re.compile(r"(?P<first>[0-9]{4})[a-z]?(?:\s?-\s?(?P<last>[0-9]{2,4}))?")
_SURNAME_RE = re.compile(_SURNAME)
_INITIALS_RE = re.compile(_INITIALS)
_AUTHOR_SEPARATOR_RE = re.compile(r"\s*+,?\s*+&\s*+|,?\s++(?:and|et)\s++|\s*+,\s*+")
_ET_AL_TAIL_RE = re.compile(rf"{_ET_AL}$")
_POSSESSIVE_RE = re.compile(r"['’]s$")
_ELISION_RE = re.compile(r"^[dlDL]['’]")
_ROMAN_RE = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")
_WORD_BEFORE_RE = re.compile(rf"({_LETTERS}+)['’]?\s*+$")
# A range longer than this is a life span ("Napoléon (1769–1821)"), not a citation.
_LONGEST_RANGE = 30

# Capitalised words that are never surnames: prepositions, articles, discourse words, pronouns,
# quantity words, in English and French (the product also debates in French). Rejected in every
# shape.
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
    have do did does nearly roughly approximately almost exactly precisely more less fewer than
    another total totalling totaling least
    en depuis dès des avant après pendant vers entre dans sur sous pour par avec sans selon chez au
    aux le la les un une du de ce cet cette ces et ou mais donc ni car ainsi cependant pourtant
    toutefois néanmoins enfin puis ensuite alors aussi comme il elle ils elles nous vous voir dont
    où lors jusqu'en jusqu'à jusqu’en jusqu’à lorsqu'en qu'en aujourd'hui aujourd’hui environ
    près presque quelque quelques plus moins seulement exactement jusque dès
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
    flight room route model type series number item line level grade unit article paragraph
    janvier février mars avril mai juin juillet août septembre octobre novembre décembre
    lundi mardi mercredi jeudi vendredi samedi dimanche printemps été automne hiver fin début mi
    année an rapport enquête étude loi recensement édition élection élections saison classe
    promotion tableau chapitre annexe tome numéro tour étape vol salle modèle alinéa
"""
_DATE_WORDS = frozenset(_DATE_WORDS_TEXT.split())
# A place or time complement, not an author: "In France, 2019 was…", "En France 2019…". Checked
# on the word before the name, for the comma and bare shapes only ("as in Tao (2019)" stays).
_PREPOSITIONS_TEXT = """
    in at on from to for across throughout around within since until by of
    en à au aux dans de du des pour depuis vers par sur chez jusqu entre
    """
_PREPOSITIONS = frozenset(_PREPOSITIONS_TEXT.split())


def find_references(text: str) -> list[Reference]:
    """Every reference in ``text`` (:func:`_find_references`); the last texts' answers are
    kept, since one page asks about the same claim text several times (the strongest list,
    the map, the text itself) and a hostile megabyte takes seconds to scan."""
    return list(_remembered_references(text))


@functools.lru_cache(maxsize=64)
def _remembered_references(text: str) -> tuple[Reference, ...]:
    return tuple(_find_references(text))


def _find_references(text: str) -> list[Reference]:
    """Every reference in ``text``, sorted by start, spans never overlapping.

    Detectors run on the folded view, from most to least specific; a later candidate that
    overlaps an accepted one is dropped, so a DOI inside a doi.org URL is reported once (as the
    URL's span, kind ``doi``) and an id written inside a URL is part of that URL.
    """
    view = _view(text)
    accepted: list[Reference] = []  # kept sorted by start; spans never overlap
    starts: list[int] = []
    for candidate in _candidates(view.text):
        position = bisect.bisect_left(starts, candidate.start)
        if position > 0 and accepted[position - 1].end > candidate.start:
            continue
        if position < len(accepted) and accepted[position].start < candidate.end:
            continue
        accepted.insert(position, candidate)
        starts.insert(position, candidate.start)
    if view.starts is None:
        return accepted
    found: list[Reference] = []
    for ref in accepted:
        start, end = view.original(ref.start, ref.end)
        if found and found[-1].end > start:
            continue  # two references folded out of one character ("㍻"-like): keep the first
        found.append(Reference(ref.kind, text[start:end], start, end, ref.key))
    return found


def _candidates(text: str) -> Iterator[Reference]:
    """All detections, most specific kind first (the order ``find_references`` relies on)."""
    yield from _find_urls(text)
    yield from _find_defanged(text)
    yield from _find_host_urls(text)
    yield from _find_dois(text)
    yield from _find_arxiv_ids(text)
    for match in _ISBN_RE.finditer(text):
        key = re.sub(r"[ -]", "", match.group("isbn")).upper()
        yield Reference("isbn", match.group(), match.start(), match.end(), key)
    for match in _PMID_RE.finditer(text):
        key = match.group("pmid").upper()
        yield Reference("pmid", match.group(), match.start(), match.end(), key)
    for match in _EVIDENCE_RE.finditer(text):
        yield Reference("evidence_id", match.group(), match.start(), match.end(), match.group())
    for match in _CLAIM_RE.finditer(text):
        yield Reference("claim_id", match.group(), match.start(), match.end(), match.group())
    yield from _find_bare_arxiv_ids(text)
    yield from _find_bare_hosts(text)
    for kind, pattern in (("journal", _JOURNAL_RE), ("numbered", _NUMBERED_RE)):
        for match in pattern.finditer(text):
            key = " ".join(match.group().split())
            yield Reference(kind, match.group(), match.start(), match.end(), key)  # type: ignore[arg-type]
    for match in _MARKER_RE.finditer(text):
        key = " ".join(match.group().split()).casefold()
        yield Reference("marker", match.group(), match.start(), match.end(), key)
    yield from _find_prose_author_years(text)
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


_OTHER_SCHEME_RE = re.compile(r"(?i)^(?:ftps?|sftp|hxxps?|hxxp|h\*\*ps?)://")


def _with_scheme(url: str) -> str:
    """The http(s) form a URL is keyed by: a defanged ``hxxps://`` or an ``ftp://`` URL names
    the same page as its ``https://`` form."""
    if re.match(r"(?i)https?://", url):
        return url
    other = _OTHER_SCHEME_RE.match(url)
    if other:
        return "https://" + url[other.end() :]
    return f"http://{url}"


def _url_key(url: str) -> str:
    full = _with_scheme(url)
    plain = full.split("://", 1)[1].split("#", 1)[0].rstrip("/").casefold()
    try:
        # No host left ("www.0@" is user info): still a reference, keyed by its plain form.
        return normalise_url(full) or plain
    except ValueError:
        # A malformed port or IPv6 literal: still a reference, keyed by a plain lowercase form.
        return plain


def _find_urls(text: str) -> Iterator[Reference]:
    for match in _URL_RE.finditer(text):
        raw = _strip_trailing(match.group())
        if not _URL_HAS_HOST_RE.match(raw):
            continue
        start, end = match.start(), match.start() + len(raw)
        yield _classify_url(raw, start, end)


def _find_defanged(text: str) -> Iterator[Reference]:
    for match in _DEFANGED_RE.finditer(text):
        host = _DEFANGED_DOT_RE.sub(".", match.group("host"))
        if host.rsplit(".", 1)[-1].lower() not in _TLDS:
            continue
        raw = _strip_trailing(match.group())
        path = _strip_trailing(match.group("path") or "")
        yield Reference("url", raw, match.start(), match.start() + len(raw), _url_key(host + path))


def _find_bare_hosts(text: str) -> Iterator[Reference]:
    for match in _BARE_HOST_RE.finditer(text):
        host = _strip_trailing(match.group("host"))
        labels = host.split(".")
        tld = labels[-1]
        if tld not in _TLDS or tld in _FILE_LIKE_TLDS or len(labels) < 2:
            continue
        if not any(len(label) >= 2 and not label.isdigit() for label in labels[:-1]):
            continue
        start = match.start()
        yield Reference("url", host, start, start + len(host), _url_key(host))


def _find_host_urls(text: str) -> Iterator[Reference]:
    for match in _HOST_URL_RE.finditer(text):
        if match.group("host").rsplit(".", 1)[-1].lower() not in _TLDS:
            continue
        raw = _strip_trailing(match.group())
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
        key = re.sub(r"\s*/\s*", "/", doi, count=1).lower()
        yield Reference("doi", text[match.start() : end], match.start(), end, key)


def _find_arxiv_ids(text: str) -> Iterator[Reference]:
    for match in _ARXIV_RE.finditer(text):
        key = match.group("id").lower()
        yield Reference("arxiv", match.group(), match.start(), match.end(), key)


def _find_bare_arxiv_ids(text: str) -> Iterator[Reference]:
    for match in _ARXIV_BARE_RE.finditer(text):
        yield Reference("arxiv", match.group(), match.start(), match.end(), match.group("id"))
    for match in _ARXIV_OLD_BARE_RE.finditer(text):
        if match.group("archive") in _ARXIV_ARCHIVES:
            key = match.group("id").lower()
            yield Reference("arxiv", match.group(), match.start(), match.end(), key)


def year_range(written: str) -> tuple[int, int] | None:
    """``2019`` → (2019, 2019); ``2019–2021`` or ``2019-21`` → (2019, 2021); None if backwards."""
    parts = _YEAR_PARTS_RE.match(fold_text(written))
    if parts is None:
        return None
    first = int(parts.group("first"))
    last_text = parts.group("last")
    if last_text is None:
        return first, first
    last = int(last_text) if len(last_text) == 4 else first // 100 * 100 + int(last_text[-2:])
    return (first, last) if last >= first else None


def _author_year_key(surname: str, years: tuple[int, int]) -> str:
    year_key = str(years[0]) if years[0] == years[1] else f"{years[0]}-{years[1]}"
    return f"{_POSSESSIVE_RE.sub('', ' '.join(surname.split())).casefold()}|{year_key}"


def _find_prose_author_years(text: str) -> Iterator[Reference]:
    """Author–year written as prose: "a 2007 study by Kurtz", "une étude de Kurtz parue en
    2007", "selon Kurtz en 2007", "the Green–Kurtz theorem (2007)"."""
    for index, pattern in enumerate(_PROSE_AUTHOR_YEAR_RES):
        named_result = index >= _NAMED_RESULTS  # "the Green–Kurtz theorem": names joined by "-"
        for match in pattern.finditer(text):
            years = year_range(match.group("year"))
            if years is None or years[1] - years[0] > _LONGEST_RANGE:
                continue
            names = match.group("authors").split("-") if named_result else [match.group("authors")]
            first = _first_real_surname(names[0], "comma")
            if first is None:
                continue
            surname = first[1]
            yield Reference(
                "author_year",
                match.group(),
                match.start(),
                match.end(),
                _author_year_key(surname, years),
            )


def _short_year(two_digits: str) -> str:
    value = int(two_digits)
    return str(2000 + value if value <= 30 else 1900 + value)


def _find_author_years(text: str) -> Iterator[Reference]:
    for match in _AUTHOR_YEAR_RE.finditer(text):
        shape = next(s for s in ("paren", "bracket", "comma", "short", "bare") if match.group(s))
        written_year = match.group(shape)
        if shape == "short":
            written_year = _short_year(written_year)
        years = year_range(written_year)
        if years is None or years[1] - years[0] > _LONGEST_RANGE or written_year.endswith("s"):
            continue  # backwards, a life span, or a decade ("the Beatles 1960s")
        first = _first_real_surname(match.group("authors"), shape)
        if first is None and shape == "paren":
            first = _lowercase_surname(text, match)
        if first is None:
            continue
        offset, surname = first
        start = match.start("authors") + offset
        if shape in ("comma", "bare") and _after_preposition(text, start):
            continue
        key = _author_year_key(surname, years)
        yield Reference("author_year", text[start : match.end()], start, match.end(), key)


# Suffixes of common nouns, adjectives and verbs: "the crisis (2008)" or "sales rose (2019)"
# is no author written in lower case; "kurtz (2007)" is.
_COMMON_SUFFIXES = (
    "tion", "sion", "ment", "ness", "ity", "ing", "ed", "ly", "al", "ic", "ous", "ive", "ance",
    "ence", "ism", "sis", "ure", "ship", "ers", "ies", "es", "ble", "ful", "less", "ist",
    "ant", "ent", "age", "ery", "ise", "ize", "ité", "eur", "euse", "ique", "aire", "isme",
)  # fmt: skip
_DETERMINERS_TEXT = """
    the a an this that these those its their our his her my your each every some no
    le la les un une ce cet cette ces son sa ses leur leurs notre votre du des au aux
"""
_DETERMINERS = frozenset(_DETERMINERS_TEXT.split())


def _lowercase_surname(text: str, match: re.Match[str]) -> tuple[int, str] | None:
    """A surname written in lower case before "(year)": one word, not a function, date or
    common word, not after a determiner ("the committee (2019)" is no citation)."""
    authors = match.group("authors")
    if " " in authors.strip() or "," in authors:
        return None
    word = _POSSESSIVE_RE.sub("", authors.strip())
    folded = word.casefold()
    if (
        len(word) < 4
        or not word.isalpha()
        or not word.islower()
        or folded in _NEVER_NAMES
        or folded in _DATE_WORDS
        or folded.endswith(_COMMON_SUFFIXES)
    ):
        return None
    before = _WORD_BEFORE_RE.search(text[max(0, match.start("authors") - 40) : match.start()])
    if before is not None and before.group(1).casefold() in _DETERMINERS:
        return None
    return 0, word


def _after_preposition(text: str, start: int) -> bool:
    """A sentence-initial preposition right before the name: "In France, 2019 was…".

    Only a capitalised one: "as reported in Tao, 2019" is still a citation."""
    before = _WORD_BEFORE_RE.search(text[max(0, start - 40) : start])
    if before is None or not before.group(1)[0].isupper():
        return False
    return before.group(1).casefold() in _PREPOSITIONS


def _first_real_surname(authors: str, shape: str) -> tuple[int, str] | None:
    """The first surname of the list once leading non-names are dropped, with its offset.

    "However, Smith and Jones" starts at Smith; a list whose last name is not a name (the
    word right before the year) is no reference at all. APA initials ("Tao, T.") are skipped.
    """
    body = _ET_AL_TAIL_RE.sub("", authors)
    pieces: list[tuple[int, str]] = []
    position = 0
    for separator in _AUTHOR_SEPARATOR_RE.finditer(body):
        pieces.append((position, body[position : separator.start()]))
        position = separator.end()
    pieces.append((position, body[position:]))
    pieces = [(at, piece) for at, piece in pieces if not _INITIALS_RE.fullmatch(piece)]
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
    in_brackets = shape in ("paren", "bracket")
    if folded in _NEVER_NAMES or (not in_brackets and folded in _DATE_WORDS):
        return False
    bare = _ELISION_RE.sub("", core)  # d'Alembert, l'Hôpital: the name starts after the elision
    letters = [char for char in bare if char.isalpha()]
    if len(letters) < 2 or not bare[0].isupper() or _ROMAN_RE.fullmatch(bare):
        return False  # "Louis XIV (1643–1715)": a regnal number, not an author
    # Acronyms are corporate authors in "IPCC (2021)" or "(WHO, 2020)", but "COP 2021" is an event.
    return not (shape == "bare" and all(char.isupper() for char in letters))
