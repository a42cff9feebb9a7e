"""Untrusted text as inert HTML: model prose with its references checked, titles, links.

The HTML twin of ``model_text`` / ``inert_text`` / ``safe_link`` in :mod:`argue.render.inline`:
everything is escaped; a URL, DOI or arXiv id written by a model is shown as code, never as a
link; a reference that matches no retrieved document is followed by code's **unverified**
marker (model text, its look-alikes folded first, never looks like it); an existing claim id
links to its node on the argument map. Only a retrieved document's http(s) URL becomes a link
(:func:`document_link`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

from markupsafe import Markup, escape

from argue.domain import Citation
from argue.grounding.index import ReferenceIndex
from argue.records.labels import label
from argue.records.strongest import sentence_parts
from argue.render.inline import BARE_LINK, fold_lookalikes, one_line

# BARE_LINK: what a browser or a reader would take for a link, beyond what the reference
# finder reports (linear on any text).

_LINKISH = frozenset({"url", "doi", "arxiv"})


def node_anchor(claim_id: str) -> str:
    """The argument-map node of a claim (``id`` of its SVG group)."""
    return f"node-{claim_id}"


def claim_anchor(claim_id: str) -> str:
    """The claim's full text in the Claims section."""
    return f"claim-{claim_id}"


def evidence_anchor(evidence_id: str) -> str:
    return f"ev-{evidence_id}"


def unverified_marker(lang: str) -> Markup:
    return Markup('<strong class="unverified">{}</strong>').format(label("unverified", lang))


def _inert_segment(segment: str) -> Markup:
    """Escaped text in which anything link-like becomes a code span."""
    out: list[Markup] = []
    last = 0
    for match in BARE_LINK.finditer(segment):
        out.append(escape(segment[last : match.start()]))
        out.append(Markup("<code>{}</code>").format(match.group()))
        last = match.end()
    out.append(escape(segment[last:]))
    return Markup("").join(out)


def inert_html(text: object) -> Markup:
    """Untrusted text that is not model prose (titles, snippets, error messages): one line,
    look-alikes folded, escaped, no live link."""
    return _inert_segment(one_line(fold_lookalikes(text)))


def _inert_piece(text: str) -> Markup:
    """Part of a line, inert (:func:`inert_html`), keeping one space at either end where the
    text had white space there (a sentence cut around a marked span)."""
    core = inert_html(text)
    if not core:
        return Markup(" ") if text and text.isspace() else Markup("")
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return Markup("{}{}{}").format(lead, core, trail)


def marked_sentence_html(citation: Citation) -> Markup:
    """A located quote in its sentence, escaped, the quoted words in ``<mark>``."""
    before, located, after = sentence_parts(citation)
    marked = Markup("<mark>{}</mark>").format(_inert_piece(located)) if located else Markup("")
    return Markup("{}{}{}").format(_inert_piece(before), marked, _inert_piece(after))


def model_html(
    text: object,
    references: ReferenceIndex | None,
    lang: str = "en",
    *,
    evidence_link: Callable[[str], str | None] = lambda _: None,
) -> Markup:
    """Model prose as one inert line of HTML, each reference it writes checked.

    ``evidence_link`` names the in-page anchor of an evidence id (None: not shown here).
    Look-alikes are folded first (``𝐮𝐧𝐯𝐞𝐫𝐢𝐟𝐢𝐞𝐝`` reads as plain text, never as code's bold).
    """
    line = one_line(fold_lookalikes(text))
    if references is None:
        return _inert_segment(line)
    # Parts joined once at the end: ``Markup +=`` copies the whole line each time (quadratic
    # on a long field with many references: 1 MB took about a minute).
    out: list[Markup] = []
    last = 0
    for ref, resolution in references.check(line):
        if ref.start < last:
            continue
        out.append(_inert_segment(line[last : ref.start]))
        if ref.kind in _LINKISH:
            shown = Markup("<code>{}</code>").format(ref.text)
        elif ref.kind == "claim_id" and resolution.verified:
            shown = Markup('<a class="cid" href="#{}">{}</a>').format(
                node_anchor(ref.key), ref.text
            )
        elif ref.kind == "evidence_id" and resolution.verified and evidence_link(ref.key):
            shown = Markup('<a href="#{}">{}</a>').format(evidence_link(ref.key), ref.text)
        else:
            shown = escape(ref.text)
        if not resolution.verified:
            shown += Markup(" ") + unverified_marker(lang)
        elif ref.kind in _LINKISH and resolution.evidence_id:
            target = evidence_link(resolution.evidence_id)
            shown += (
                Markup(' <strong>(= <a href="#{}">{}</a>)</strong>').format(
                    target, resolution.evidence_id
                )
                if target
                else Markup(" <strong>(= {})</strong>").format(resolution.evidence_id)
            )
        out.append(shown)
        last = ref.end
    out.append(_inert_segment(line[last:]))
    return Markup("").join(out)


def model_paragraphs_html(
    text: object,
    references: ReferenceIndex | None,
    lang: str = "en",
    *,
    evidence_link: Callable[[str], str | None] = lambda _: None,
) -> Markup:
    """Longer model prose (the conclusion): one ``<p>`` per paragraph, each line inert."""
    paragraphs = [p for p in re.split(r"\n\s*\n", str(text)) if one_line(p)]
    return Markup("").join(
        Markup("<p>{}</p>\n").format(model_html(p, references, lang, evidence_link=evidence_link))
        for p in paragraphs
    )


def document_link(url: object, text: object | None = None) -> Markup:
    """A retrieved document's URL as a link (percent-encoded); anything but http(s) —
    ``javascript:``, ``file:``, ``data:`` — is shown as inert code instead."""
    raw = one_line(url)
    shown = raw if text is None else one_line(text)
    if not re.match(r"(?i)https?://[^\s/]", raw):
        return Markup("<code>{}</code>").format(raw)
    href = quote(raw, safe=":/?#[]@!$&'()*+,;=%~")
    return Markup('<a class="doc" href="{}" rel="noopener noreferrer">{}</a>').format(href, shown)


def attribute_text(value: object) -> str:
    """An attribute's value (a tooltip) as one line without control or bidi characters, its
    French no-break spaces kept (``argue.report.svg.safe_text`` makes them plain); Markup stays
    Markup."""
    line = one_line(value)
    return Markup(line) if isinstance(value, Markup) else line
