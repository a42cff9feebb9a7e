"""Untrusted text made inert for Markdown: user text (``md``), other outside text (``inert``)
and model prose (``model``), whose references are checked against the debate's documents.

Model text is data: it cannot open a block, write Markdown syntax (code's markers are bold, so
a model cannot imitate them), or become a link; only retrieved documents' http(s) URLs are links.
Before it is escaped, model and outside text is folded (:func:`fold_lookalikes`): NFKC maps
mathematical bold or italic letters and full-width forms to the ASCII they imitate, so
``𝐮𝐧𝐯𝐞𝐫𝐢𝐟𝐢𝐞𝐝`` or ``＊＊bold＊＊`` are shown as the plain (escaped) text they spell.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

from jinja2 import pass_context
from jinja2.runtime import Context

from argue.domain import Citation
from argue.grounding.index import ReferenceIndex
from argue.records.labels import Labels, label
from argue.records.strongest import sentence_parts
from argue.text.controls import UNSAFE

# What can start a block at the beginning of a line (after up to three spaces; one_line leaves
# none): an ATX heading (any run of ``#``, with or without a space after it), a quote, a
# bullet, a thematic break or Setext underline (``---``, ``===``, ``***``, ``___``), a fence
# (three backticks with none after them, three tildes), a link reference definition
# (``[x]: url``), an ordered list marker (``1.`` / ``1)``). Every character of the leading run
# is escaped (an ordered marker gets its ``.`` or ``)`` escaped); once the first character is
# escaped, nothing later on the line can start a block. ``<`` is written ``&lt;`` before this.
_BLOCK_START = re.compile(
    r"^(\s*)(#+|=+|-+|\++|>|\*(?=\s|[*\s]*$)|_(?=[_\s]*$)|`{3,}(?=[^`]*$)|~{3,}|\[(?=[^\]]*\]:))"
)
_ORDERED_START = re.compile(r"^(\s*)(\d{1,9})([.)])(?=\s|$)")

# Look-alikes NFKC leaves alone, folded to the ASCII mark they imitate: asterisk operators and
# stars (``∗∗unverified∗∗``), two-asterisk and number-sign look-alikes.
_LOOKALIKES = str.maketrans(
    {
        "\u2217": "*",  # ASTERISK OPERATOR
        "\u204e": "*",  # LOW ASTERISK
        "\u2051": "**",  # TWO ASTERISKS ALIGNED VERTICALLY
        "\u066d": "*",  # ARABIC FIVE POINTED STAR
        "\u2731": "*",  # HEAVY ASTERISK
        "\u22c6": "*",  # STAR OPERATOR
        "\u266f": "#",  # MUSIC SHARP SIGN
    }
)
# Invisible characters that would hide a marker or a block start (``\u200b## x``): removed.
# Zero-width (non-)joiners are kept inside text (scripts and emoji need them) but not at its start.
_INVISIBLE = re.compile(r"[\u00ad\u180e\u200b\u2060-\u2064\ufeff]|^[\u200c\u200d\s]+")


# French typography's no-break spaces (``argue.text.typography``): kept as they are, where NFKC
# would make them plain spaces and a line could break before a French ``:`` or ``?``.
_NO_BREAK = re.compile(r"([\u00a0\u202f])")
_BREAKING_SPACE = re.compile(r"[^\S\u00a0\u202f]+")


def fold_lookalikes(text: object) -> str:
    """Text with its compatibility look-alikes folded (NFKC: ``𝐮``→``u``, ``＃``→``#``,
    ``＊``→``*``), a few look-alike marks NFKC keeps, and invisible characters removed; the
    no-break spaces of French typography are kept (they start no block and forge no marker)."""
    pieces = _NO_BREAK.split(str(text))
    folded = "".join(
        piece if i % 2 else unicodedata.normalize("NFKC", piece) for i, piece in enumerate(pieces)
    ).translate(_LOOKALIKES)
    return _INVISIBLE.sub("", folded)


def one_line(text: object) -> str:
    """Text as one line without control or bidi characters (``argue.text.controls``: the one
    character policy of every output); a no-break space stays one."""
    return _BREAKING_SPACE.sub(" ", UNSAFE.sub("", str(text))).strip()


def inline_markdown(text: object) -> str:
    """User text as one inert line: it cannot open a heading, list, quote or tag (its inline
    Markdown, ``*emphasis*``, is kept)."""
    line = one_line(text)
    line = line.replace("<", "&lt;")
    return _block_safe(line)


def markdown_paragraphs(text: object) -> str:
    """Longer model text (the conclusion): paragraphs kept, each line made inert."""
    paragraphs = [p for p in re.split(r"\n\s*\n", str(text)) if p.strip()]
    return "\n\n".join(inline_markdown(p) for p in paragraphs)


# Model text cannot use Markdown's inline syntax either: code's markers are bold (``**evidence:**``,
# ``**unverified**``), so a model that writes them gets visibly different, escaped text.
_INLINE_SYNTAX = re.compile(r"([\\`*\[\]~|]|(?<![^\W_])_|_(?![^\W_]))")
# Linear on any text (issue 24, item 3): each quantifier is possessive, and the address's
# local part is at most 64 characters (RFC 5321), so no start re-reads a long run of word
# characters, dots or slashes (the unbounded ``[\w.+-]+@`` tried from every position of a run
# was quadratic: 32,000 characters took seconds). A longer local part still has its last 64
# characters, the ``@`` and the domain in the code span, so no autolink is left outside it.
BARE_LINK = re.compile(
    r"(?i)\b(?:[a-z][a-z0-9+.-]{1,20}+://|www\.)[^\s<>`\"']++"
    r"|[\w.+-]{1,64}+@[\w-]++(?:\.[\w-]++)+"
)


# An HTML character reference (``&#x1D42E;``, ``&ast;``) would put back a look-alike or a mark
# after folding: its ``&`` is escaped, so it shows as written.
_CHARACTER_REFERENCE = re.compile(
    r"&(?=#[0-9]{1,8};|#[xX][0-9a-fA-F]{1,8};|[A-Za-z][A-Za-z0-9]{1,31};)"
)


def _escape_inline(segment: str) -> str:
    segment = _CHARACTER_REFERENCE.sub("&amp;", segment)
    segment = segment.replace("<", "&lt;").replace(">", "&gt;")
    return _INLINE_SYNTAX.sub(r"\\\1", segment)


def _inert_segment(segment: str) -> str:
    """Escaped text in which anything a renderer would autolink becomes a code span."""
    out, last = [], 0
    for match in BARE_LINK.finditer(segment):
        out += [_escape_inline(segment[last : match.start()]), _code_span(match.group())]
        last = match.end()
    out.append(_escape_inline(segment[last:]))
    return "".join(out)


def _code_span(text: str) -> str:
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _block_safe(line: str) -> str:
    """The line with whatever would start a block at its beginning escaped."""
    ordered = _ORDERED_START.match(line)
    if ordered:
        indent, number, mark = ordered.groups()
        return f"{indent}{number}\\{mark}{line[ordered.end() :]}"
    return _BLOCK_START.sub(
        lambda m: m.group(1) + "".join("\\" + c for c in m.group(2)), line, count=1
    )


def inert_text(text: object) -> str:
    """Untrusted text that is not model prose (titles, snippets, error messages): one line,
    look-alikes folded, no Markdown syntax, no live link."""
    return _block_safe(_inert_segment(one_line(fold_lookalikes(text))))


def _inert_piece(text: str) -> str:
    """Part of a line made inert (:func:`inert_text` without the block rule), keeping one space
    at either end where the text had white space there (a sentence cut around a marked span)."""
    core = _inert_segment(one_line(fold_lookalikes(text)))
    if not core:
        return " " if text and text.isspace() else ""
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return f"{lead}{core}{trail}"


def marked_sentence(citation: Citation) -> str:
    """A located quote in its sentence, as one inert line with the quoted words in bold:
    ``before **located** after`` (what the document says around what the model quoted)."""
    before, located, after = sentence_parts(citation)
    head, core, tail = _inert_piece(before), _inert_piece(located).strip(), _inert_piece(after)
    if not core:
        return _block_safe(f"{head}{tail}".strip())
    # CommonMark opens ``**`` before punctuation only after a space or punctuation, and closes
    # it after punctuation only before one: a space is shown there, or the bold would not hold.
    if _is_punctuation(core[0]) and head and head[-1].isalnum():
        head += " "
    if _is_punctuation(core[-1]) and tail and tail[0].isalnum():
        tail = " " + tail
    return _block_safe(f"{head}**{core}**{tail}".strip())


def _is_punctuation(char: str) -> bool:
    return not char.isalnum() and not char.isspace()


def model_text(text: object, references: ReferenceIndex | None, lang: str = "en") -> str:
    """Model prose as one inert line, each reference it writes checked against the debate.

    URLs, DOIs and arXiv ids become code spans (never clickable); a reference that matches no
    retrieved document gets **unverified** right after it, and a URL/DOI/arXiv id that does
    match names the document's evidence id.
    """
    line = one_line(fold_lookalikes(text))
    if references is None:
        return _block_safe(_inert_segment(line))
    out, last = [], 0
    for ref, resolution in references.check(line):
        if ref.start < last:
            continue
        out.append(_inert_segment(line[last : ref.start]))
        shown = _code_span(ref.text) if ref.kind in _LINKISH else _escape_inline(ref.text)
        if not resolution.verified:
            shown += f" **{label('unverified', lang)}**"
        elif ref.kind in _LINKISH and resolution.evidence_id:
            shown += f" **(= {resolution.evidence_id})**"
        out.append(shown)
        last = ref.end
    out.append(_inert_segment(line[last:]))
    return _block_safe("".join(out))


_LINKISH = frozenset({"url", "doi", "arxiv"})


def model_paragraphs(text: object, references: ReferenceIndex | None, lang: str = "en") -> str:
    paragraphs = [p for p in re.split(r"\n\s*\n", str(text)) if one_line(p)]
    return "\n\n".join(model_text(p, references, lang) for p in paragraphs)


@pass_context
def _model_filter(context: Context, text: object) -> str:
    return model_text(text, context.get("references"), _lang(context))


@pass_context
def _model_paragraphs_filter(context: Context, text: object) -> str:
    return model_paragraphs(text, context.get("references"), _lang(context))


def _lang(context: Context) -> str:
    labels = context.get("L")
    return labels.lang if isinstance(labels, Labels) else "en"


def safe_link(url: object) -> str:
    """A retrieved document's URL as one autolink (spaces and angle brackets percent-encoded);
    anything but http(s) — ``javascript:``, ``file:`` — is shown as inert code instead."""
    text = one_line(url)
    if not re.match(r"(?i)https?://[^\s/]", text):
        return _code_span(text)
    return "<" + quote(text, safe=":/?#[]@!$&'()*+,;=%~") + ">"
