"""Rendering untrusted text takes time linear in its length (issue 24, item 3).

A 1 MB field of long word runs, dots, slashes, ``@`` and ``http`` fragments goes through the
Markdown and HTML escapers and through whole pages (transcript, synthesis, report) under a
generous timeout; the ratio against a 10 KB field is measured by ``bench/render_linear.py``,
never timed here. A property test feeds random long inputs and checks what the output must
escape, and that the linear bare-link pattern finds what the old one found.

Teeth (checked once): with the old bare-link pattern (``[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+``
tried from every position of a run) back in ``argue/render/inline.py``, the 1 MB tests time
out (32,000 characters of ``a`` alone took 6 s); with ``model_html`` building its Markup by
``+=`` again, the report's 1 MB field with many references took about a minute and times out;
with the identifier pattern's trailing ``\\s*`` back in ``argue/grounding/index.py``, a
document identifier of 1 MB of spaces (a shared folder's evidence) times out.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from argue.grounding import DocumentRef, ReferenceIndex
from argue.render.inline import BARE_LINK, inert_text, model_text
from argue.report.text import inert_html, model_html
from tests.test_render_structure import _load, recorded  # noqa: F401  (a module fixture)

MB = 1_000_000
CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# The pattern before issue 24 (quadratic on long runs): the reference on short inputs.
OLD_BARE_LINK = re.compile(
    r"(?i)\b(?:[a-z][a-z0-9+.-]{1,20}://|www\.)[^\s<>`\"']+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
)
URL_START = re.compile(r"(?i)(?:[a-z][a-z0-9+.-]{1,20}://|www\.)")
INDEX = ReferenceIndex(
    [
        DocumentRef(
            evidence_id="A-R1-E1",
            title="Smith et al",
            url="https://example.org/p",
            snippet="Smith (2019) said so",
            authors=("J Smith",),
            year=2019,
        )
    ],
    claim_ids=["A1.c1"],
)


def adversarial(size: int) -> str:
    """Every shape that made a pattern backtrack, in six long runs (about 60% of the field,
    scaled with ``size``), then many small references."""
    k = max(size // 100, 1)  # 10,000 at 1 MB
    runs = [
        "a" * (20 * k),
        "a." * (5 * k),
        "a/" * (5 * k),
        "http" * (2 * k),
        "x" * 64 + "@" + "b" * (5 * k),
        "https:/www." * (k // 2),
    ]
    pieces = "ab.cd/ef-gh+ij_kl http:x www.y @z a@b.c arXiv:1234.5678 Smith (2019) A1.c1 "
    text = " ".join(runs) + " "
    return (text + pieces * (size // len(pieces) + 1))[:size]


@pytest.mark.timeout(60)
def test_a_1mb_field_goes_through_every_escaper() -> None:
    field = adversarial(MB)
    for render in (
        lambda t: model_text(t, INDEX),
        lambda t: model_text(t, None),
        inert_text,
        lambda t: model_html(t, INDEX),
        inert_html,
    ):
        out = render(field)
        assert len(out) >= len(field) // 2


@pytest.mark.timeout(30)
def test_a_1mb_document_identifier_is_read_in_linear_time() -> None:
    spaces = " " * MB
    index = ReferenceIndex(
        [
            DocumentRef(
                evidence_id="A-R1-E1",
                title="t",
                identifiers=(
                    f"doi:10.{spaces}x{spaces}",
                    f"arXiv:{spaces}1{spaces}",
                    "doi:10.1234/x ",
                ),
            )
        ]
    )
    (resolution,) = [r for _, r in index.check("see doi:10.1234/x today")]
    assert resolution.verified  # the well-formed identifier, surrounded by space, still counts


@pytest.mark.timeout(120)
def test_a_1mb_field_renders_in_every_page(recorded: tuple[str, str, str]) -> None:  # noqa: F811
    from argue.render import render_synthesis, render_transcript
    from argue.report import render_report

    history, state, prose = _load(recorded)
    claim = next(iter(history.rounds[1].arguments.values())).claims[0]
    claim.text = adversarial(MB)
    prose.conclusion = adversarial(MB)
    pages = [
        render_transcript(history, state, []),
        render_synthesis(history, state, [], prose, None),
        render_report(history, state, [], prose, None),
    ]
    for page in pages:
        assert "a" * 100_000 in page  # the whole run, once at least


_CHUNKS = ["a", "A", ".", "/", "@", ":", "-", "+", "_", "<", ">", "&", "`", "*", "#", " ",
           "\n", "http", "https://", "www.", "x@y.z", "\x1b[2J", "\u202e", "\x00", "é"]  # fmt: skip


@st.composite
def long_text(draw: st.DrawFn) -> str:
    """Up to a few thousand characters: a few chunks, each repeated up to 400 times."""
    parts = draw(
        st.lists(st.tuples(st.sampled_from(_CHUNKS), st.integers(1, 400)), min_size=1, max_size=12)
    )
    return "".join(chunk * count for chunk, count in parts)


_AUTOLINK = re.compile(r"(?i)\b(?:[a-z][a-z0-9+.-]{1,20}://|www\.)[^\s<>`\"']|[\w.+-]@[\w-]+\.\w")
_TAGS = re.compile(
    r'</?code>|<strong class="unverified">|</strong>|</a>'
    r'|<a (?:class="\w+" )?href="[^"<>]*"(?: rel="noopener noreferrer")?>'
)


def _inline_tokens(markdown: str) -> list[Any]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [child for token in tokens for child in (token.children or [])]


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_text())
def test_property_long_text_renders_escaped(text: str) -> None:
    # The linear pattern finds what the old one found; where an address's local part is over
    # 64 characters, its last 64, the ``@`` and all that follows are still in a match.
    old = [(m.start(), m.end()) for m in OLD_BARE_LINK.finditer(text)]
    new = [(m.start(), m.end()) for m in BARE_LINK.finditer(text)]
    if all(end - start <= 64 or "@" not in text[start:end] for start, end in old):
        assert new == old
    covered = bytearray(len(text))
    for start, end in new:
        covered[start:end] = b"\x01" * (end - start)
    for start, end in old:
        is_url = URL_START.match(text, start) is not None
        first = start if is_url else max(start, text.index("@", start, end) - 64)
        assert all(covered[first:end]), (text[start:end], text)

    for markdown in (model_text(text, INDEX), inert_text(text)):
        assert not CONTROLS.search(markdown)
        for token in _inline_tokens(markdown):
            assert token.type not in ("html_inline", "link_open"), (token, text)
            if token.type == "text":  # anything a reader would autolink is in a code span
                assert not _AUTOLINK.search(token.content), (token.content, text)
    for html in (model_html(text, INDEX), inert_html(text)):
        assert not CONTROLS.search(html)
        bare = _TAGS.sub("", str(html))
        assert "<" not in bare and ">" not in bare and '"' not in bare, (bare, text)
