"""The report's own defences (issue 24, item 6): a strict Content-Security-Policy whose
style-src is the sha256 of the page's one stylesheet, long tokens that break instead of
widening the page, and no control or bidi character in any attribute or SVG tooltip.

Teeth (checked once each, on the report before this change): there was no CSP meta tag (the
CSP test fails), only ``code`` had ``overflow-wrap: anywhere`` (a 600-character token widened
the page to 6,276 px; the wrap test fails), and ESC, U+202E and U+2066 in a claim or a judge's
reason reached the map's ``<title>`` tooltips and the score cells' ``title`` attributes, and a
persona's name the page's text (the attribute test fails; the character-class test cannot
import ``UNSAFE`` from argue.report.svg). The persona colours were ``style`` attributes, which
the CSP blocks: they are classes now, and the test checks no ``style`` attribute is left.
"""

from __future__ import annotations

import base64
import hashlib
import re
from html.parser import HTMLParser

from argue.app import write_report
from argue.report.svg import UNSAFE, safe_text
from tests.report.test_report_html import Page, _rewrite

LONG_TOKEN = "https://example.org/" + "x" * 600
HOSTILE = (
    "evil\x1b[31m red \u202etxt.exe\u2066 isolate\u2069 \x07bell\x9b end"
    " \u200eLRM\u200fRLM\u061cALM"  # issue 39 item 3: every Bidi_Control character
)


class Tooltips(HTMLParser):
    """The text of every ``<title>`` inside an ``<svg>``."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.titles: list[str] = []
        self._in_svg = 0
        self._in_title = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "svg":
            self._in_svg += 1
        elif tag == "title" and self._in_svg:
            self._in_title = True
            self.titles.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._in_svg -= 1
        elif tag == "title":
            self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.titles[-1] += data


def _directives(policy: str) -> dict[str, list[str]]:
    parts = [p.split() for p in policy.split(";") if p.strip()]
    return {p[0]: p[1:] for p in parts}


def test_the_report_has_a_strict_csp_naming_its_stylesheet(run_debate):
    run = run_debate(rounds=1)
    html = write_report(run.store).read_text(encoding="utf-8")
    page = Page(html)
    csp = "content-security-policy"
    metas = [m for m in page.all("meta") if m.get("http-equiv", "").lower() == csp]
    assert len(metas) == 1, page.all("meta")
    # Before the title and the stylesheet: the first thing after the charset.
    assert html.index("Content-Security-Policy") < html.index("<title>") < html.index("<style>")
    policy = _directives(metas[0]["content"])
    assert policy["default-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"] and policy["form-action"] == ["'none'"]
    assert "script-src" not in policy  # default-src 'none': no script at all
    assert not any("unsafe" in source for sources in policy.values() for source in sources)
    styles = re.findall(r"<style>(.*?)</style>", html, flags=re.S)
    assert len(styles) == 1
    digest = base64.b64encode(hashlib.sha256(styles[0].encode("utf-8")).digest()).decode()
    assert policy["style-src"] == [f"'sha256-{digest}'"]
    # Inline style attributes would be blocked: the colours are classes of the stylesheet.
    assert not [attrs for _, attrs in page.tags if "style" in attrs]
    assert page.with_class("span", "swatch") and page.with_class("div", "cell")
    for letter in run.history.config.personas:
        assert f".swatch.p-{letter} {{ background: #" in styles[0], letter
        assert f".cell.p-{letter} {{ border-top-color: #" in styles[0], letter


def test_long_tokens_break_instead_of_widening_the_page(run_debate):
    run = run_debate(rounds=1)

    def long_claim(data):
        data["claims"][0]["text"] = f"see {LONG_TOKEN} now"

    _rewrite(run.store.paths.argument("A", 1), long_claim)
    html = write_report(run.store).read_text(encoding="utf-8")
    assert LONG_TOKEN in html
    css = re.findall(r"<style>(.*?)</style>", html, flags=re.S)[0]
    breaking: set[str] = set()
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        if re.search(r"overflow-wrap:\s*anywhere", body):
            breaking |= {s.strip() for s in selectors.split(",")}
    # The page's text inherits it from body; the containers (cells, list items) say it too.
    assert {"body", "p", "li", "td", "th", ".claim", ".quote", "code"} <= breaking, breaking


def test_no_control_or_bidi_character_reaches_an_attribute_or_a_tooltip(run_debate):
    run = run_debate(rounds=1)
    paths = run.store.paths

    def hostile_claim(data):
        data["claims"][0]["text"] = HOSTILE

    _rewrite(paths.argument("A", 1), hostile_claim)

    def hostile_reason(data):
        for persona in data["personas"].values():
            for component in persona["components"]:
                component["reason"] = HOSTILE
                component["parts"] = None

    _rewrite(paths.round_score(1), hostile_reason)

    def hostile_name(data):
        data["display_name"] = "Em\u202ebry\x1b]0;x\x07"

    _rewrite(paths.persona_snapshot("A"), hostile_name)

    html = write_report(run.store).read_text(encoding="utf-8")
    page = Page(html)
    values = [v for _, attrs in page.tags for v in attrs.values()]
    titles = Tooltips(html).titles
    assert any("evil" in t and "txt.exe" in t for t in titles), titles  # the claim's tooltip
    assert any("evil" in v and "txt.exe" in v for v in values)  # the score cell's title
    for where, shown in [*(("attribute", v) for v in values), *(("title", t) for t in titles)]:
        assert not UNSAFE.search(shown), (where, shown)
        assert "\t" not in shown and "\n" not in shown.strip("\n"), (where, shown)
    assert not UNSAFE.search(html)  # nor anywhere else on the page


def test_the_character_class_is_the_consoles():
    """Teeth (issue 39 item 3): the report's class once missed U+200E/U+200F/U+061C; with
    them dropped from ``argue.text.controls`` the hardening test above finds them in tooltips."""
    from argue.console import _UNSAFE
    from argue.text.controls import UNSAFE as POLICY

    assert UNSAFE.pattern == _UNSAFE.pattern == POLICY.pattern
    assert safe_text("a\u200eb\u200fc\u061cd") == "abcd"
    assert safe_text("a\x1b[2J\u202eb\u2066c\n\td") == "a[2Jbc d"


def test_svg_attribute_values_are_escaped_as_data():
    """No figure attribute carries model text today (ids and classes are code's), so this holds
    the escaping of ``argue.report.svg.el`` itself. Teeth: with ``escape`` dropped from
    ``_attrs`` the hostile value opens an ``onload`` attribute and a ``script`` element."""
    from argue.report.svg import el

    hostile = 'x" onload="alert(1)"><script>alert(2)</script><g a="'
    markup = str(el("g", {"class": hostile, "data_round": 3, "hidden": False}, "<b>bold</b>"))
    page = Page(f"<svg>{markup}</svg>")
    [(_, attrs)] = [t for t in page.tags if t[0] == "g"]
    assert attrs == {"class": safe_text(hostile), "data-round": "3"}
    assert "script" not in {t for t, _ in page.tags} and "b" not in {t for t, _ in page.tags}
    assert "&lt;b&gt;bold&lt;/b&gt;" in markup
