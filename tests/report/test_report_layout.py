"""The report's page (issue 26, items 3 and 4, read from the HTML): summary first, the contents
list in the page's order, the map in words for screen readers, charts named as images with their
numbers in tables, and figures and wide tables in their own scroll boxes.

The page is parsed (``html.parser``) with each element's ancestors, so "inside a scroll box" or
"before the map" is about the document's structure, not about text matches. The browser's view
(widths at 375 px, the dark theme's colours, print) is checked in test_report_chromium.py.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from argue.app import write_report
from argue.report.charts import FONT_PX
from argue.report.html import readable_min_width
from tests.engine.script import DebateScript
from tests.report.test_report_html import names_of_pair

VOID = {"meta", "br", "img", "input", "link", "hr", "wbr", "source", "col", "area", "base"}


class Tree(HTMLParser):
    """Every start tag in document order, with its attributes, its ancestors and its text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[dict] = []
        self._open: list[dict] = []
        self.css = ""
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = {
            "tag": tag,
            "attrs": {k: v or "" for k, v in attrs},
            "ancestors": list(self._open),
            "text": "",
        }
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(
            {"tag": tag, "attrs": {k: v or "" for k, v in attrs}, "ancestors": list(self._open)}
        )

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self._open) - 1, -1, -1):
            if self._open[i]["tag"] == tag:
                del self._open[i:]
                break

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1]["tag"] == "style":
            self.css += data
        for element in self._open:
            element["text"] += data

    def by_id(self, ident: str) -> dict:
        return next(e for e in self.elements if e["attrs"].get("id") == ident)

    def position(self, ident: str) -> int:
        return self.elements.index(self.by_id(ident))

    def all(self, tag: str) -> list[dict]:
        return [e for e in self.elements if e["tag"] == tag]


def classes(element: dict) -> list[str]:
    return element["attrs"].get("class", "").split()


def words(element: dict) -> str:
    return " ".join(element["text"].split())


def test_the_summary_comes_first_and_the_contents_list_follows_the_page(run_debate):
    run = run_debate(rounds=2, script=DebateScript(names=names_of_pair()))
    tree = Tree(write_report(run.store).read_text(encoding="utf-8"))

    # Conclusion, disagreements (with their cruxes) and agreements, before the map and charts.
    summary = tree.position("summary")
    inside = [tree.position(i) for i in ("conclusion", "disagreements", "agreements")]
    after = [tree.position(i) for i in ("participants", "map", "confidence", "scores", "claims")]
    # Teeth: the old page had the conclusion as section 11, after the map and the charts.
    assert summary < min(inside) and sorted(inside) == inside and max(inside) < min(after)
    assert tree.by_id("summary") in tree.by_id("conclusion")["ancestors"]
    summary_words = words(tree.by_id("summary"))
    assert "A nuanced conclusion." in summary_words
    assert "Crux: a proof" in summary_words  # the scripted disagreement's crux
    assert "Both accept the base facts" in summary_words

    # The contents list names every section, in the page's order; every link has a target.
    toc = next(e for e in tree.all("nav") if "toc" in classes(e))
    links = [
        e["attrs"]["href"][1:]
        for e in tree.elements
        if e["tag"] == "a" and toc in e["ancestors"] and e["attrs"].get("href", "").startswith("#")
    ]
    sections = [e["attrs"]["id"] for e in tree.all("section")]
    assert links == sections, (links, sections)
    headed = [e["attrs"]["id"] for e in tree.all("section") if _heading(tree, e)]
    assert headed == sections


def _heading(tree: Tree, section: dict) -> bool:
    return any(
        e["tag"] in ("h2", "h3") and e["ancestors"] and e["ancestors"][-1] is section
        for e in tree.elements
    )


def test_without_the_synthesis_prose_there_is_no_empty_summary(run_debate):
    run = run_debate(rounds=1)
    run.store.paths.synthesis_prose.unlink()
    tree = Tree(write_report(run.store).read_text(encoding="utf-8"))
    ids = {e["attrs"].get("id") for e in tree.elements}
    assert "summary" not in ids and "conclusion" not in ids
    hrefs = [e["attrs"].get("href", "") for e in tree.all("a")]
    assert all(h[1:] in ids for h in hrefs if h.startswith("#")), "a dangling contents link"


def test_the_map_in_words_says_who_claimed_what_and_who_countered_or_conceded_which(run_debate):
    run = run_debate(rounds=3, script=DebateScript(names=names_of_pair(), cite_bogus=True))
    tree = Tree(write_report(run.store).read_text(encoding="utf-8"))
    history = run.history
    box = tree.by_id("map-summary")
    assert box["tag"] == "details"
    inside = [e for e in tree.elements if box in e["ancestors"]]

    # Every claim, linked to its full text, with its words.
    claimed = [
        e["attrs"]["href"][len("#claim-") :]
        for e in inside
        if e["tag"] == "a" and e["attrs"].get("href", "").startswith("#claim-")
    ]
    assert sorted(claimed) == sorted(history.claim_index())
    text = words(box)
    for claim in history.all_claims():
        assert claim.text in text

    # Every counter and concession, once, by its kind's words and its target.
    moves = [e for e in inside if "move" in classes(e)]
    expected = []
    for record in history.ordered_rounds():
        for rebuttal in record.rebuttals.values():
            expected += [c.target_claim_id for c in rebuttal.counters]
            expected += [c.claim_id for c in rebuttal.concessions]
    assert len(moves) == len(expected) == 18
    # In the record's order (round, persona, counters then concessions), by target.
    assert [m["attrs"]["data-target"] for m in moves] == expected
    for move in moves:
        assert move["attrs"]["data-target"] in words(move)
    strawmen = [m for m in moves if "Q9.c9" in words(m)]
    assert strawmen and all("no such claim" in words(m) for m in strawmen)
    assert all("not counted" in words(m) for m in strawmen)
    # Words of code and of the debate, round by round.
    assert "Round 1" in text and "Round 3" in text and "refutes" in text and "concedes" in text


def test_charts_are_named_images_with_their_numbers_and_the_map_stays_reachable(run_debate):
    run = run_debate(rounds=2)
    tree = Tree(write_report(run.store).read_text(encoding="utf-8"))
    ids = {e["attrs"].get("id"): e for e in tree.elements}
    charts = [e for e in tree.all("svg") if "chart" in classes(e)]
    assert len(charts) == 2
    for chart in charts:
        assert chart["attrs"]["role"] == "img" and chart["attrs"]["aria-label"]
        described = ids[chart["attrs"]["aria-describedby"]]
        # The numbers behind the picture, as a table a screen reader can walk.
        assert described["tag"] == "table"
    argmap = next(e for e in tree.all("svg") if "argmap" in classes(e))
    # Teeth: role="img" made the map's claim titles and texts invisible to a screen reader.
    assert argmap["attrs"].get("role") != "img"
    assert argmap["attrs"].get("aria-label")


def test_figures_and_tables_scroll_in_their_own_box_at_a_readable_scale(run_debate):
    run = run_debate(rounds=2)
    tree = Tree(write_report(run.store).read_text(encoding="utf-8"))
    for element in [*tree.all("svg"), *tree.all("table")]:
        if any("print-map" in classes(a) for a in element["ancestors"]):
            continue  # the map's printed parts: shown on paper only, at the paper's width
        boxes = [a for a in element["ancestors"] if "scroll" in classes(a)]
        assert boxes, f"a {element['tag']} outside a scroll box: {element['attrs']}"
        # A scroll box is reachable by keyboard and named.
        assert boxes[-1]["attrs"].get("tabindex") == "0" and boxes[-1]["attrs"].get("aria-label")
    css = tree.css
    assert re.search(r"\.scroll \{[^}]*overflow-x: auto", css)
    # Each chart keeps a min-width at which its smallest text is at least 10 px.
    smallest = min(FONT_PX.values())
    for figure in ("confidence", "scores"):
        svg = next(
            e for e in tree.all("svg") if e["ancestors"][-2]["attrs"].get("id") == f"fig-{figure}"
        )
        width = float(svg["attrs"]["viewbox"].split()[2])
        floor = re.search(rf"#fig-{figure} svg \{{ min-width: (\d+)px; \}}", css)
        assert floor, f"no min-width for {figure}"
        assert int(floor.group(1)) == readable_min_width(width, smallest)
        assert int(floor.group(1)) * smallest / width >= 10 - 1e-9


def test_the_stylesheet_has_phone_dark_and_print_rules(run_debate):
    run = run_debate(rounds=1)
    css = Tree(write_report(run.store).read_text(encoding="utf-8")).css
    # The contents list: columns of at least 15rem, so one on a phone (it was forced into 3).
    assert "columns: 15rem 3" in css
    # Claim cells never wider than the screen.
    assert "minmax(min(360px, 100%), 1fr)" in css
    dark = css[css.index("@media screen and (prefers-color-scheme: dark)") :]
    assert "--bg: #" in dark and "--ink: #" in dark
    printing = css[css.index("@media print") :]
    assert "break-inside: avoid" in printing and ".scroll { overflow: visible; }" in printing
    # SVG text takes the theme's ink, never a fixed colour.
    assert "svg text {" in css and "fill: var(--ink)" in css


def test_a_french_report_says_summary_and_units_in_french(run_debate):
    run = run_debate(rounds=1)
    config = run.store.config()
    config.language = "fr"
    run.store.save_config(config)
    path: Path = write_report(run.store)
    text = " ".join(Tree(path.read_text(encoding="utf-8")).by_id("summary")["text"].split())
    assert "En résumé" in text
    page = path.read_text(encoding="utf-8")
    assert "score (sur 8)" in page and "confiance (de 0 à 1)" in page and "La carte en mots" in page
