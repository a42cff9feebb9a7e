"""The HTML report (issue 10, item 1): self-contained, a figure per SVG, every claim a node, every
counter and concession an edge, model text inert, partial debates labelled.

The page is parsed with ``html.parser``, never matched as text, so a test sees what a browser
sees: a ``<script>`` that is really a tag, an ``href`` that is really an attribute.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

from typer.testing import CliRunner

from argue.app import write_report
from argue.cli import app
from argue.store import DebateStore
from argue.store.history import load_history
from tests.engine.script import DebateScript, names_of

# Tags that fetch something or run something: none may appear in the report.
FETCHING_TAGS = {"script", "link", "img", "iframe", "object", "embed", "image", "use", "video"}
FETCHING_TAGS |= {"audio", "source", "track", "frame", "base", "form", "input", "meta-refresh"}


class Page(HTMLParser):
    """Every start tag with its attributes, the text outside tags, and the inline CSS. The map's
    printed parts (``div.print-map``: a copy of the map, shown on paper only) are kept apart,
    in ``printed``; ``every_tag`` has both."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.printed: list[tuple[str, dict[str, str]]] = []
        self._printing_at: int | None = None
        self.text: list[str] = []
        self.css: list[str] = []
        self._stack: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if self._printing_at is None and "print-map" in values.get("class", "").split():
            self._printing_at = len(self._stack)
        (self.tags if self._printing_at is None else self.printed).append((tag, values))
        self._stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        (self.tags if self._printing_at is None else self.printed).append((tag, values))

    def handle_endtag(self, tag: str) -> None:
        if tag in self._stack:
            while self._stack and self._stack.pop() != tag:
                pass
        if self._printing_at is not None and len(self._stack) <= self._printing_at:
            self._printing_at = None

    @property
    def every_tag(self) -> list[tuple[str, dict[str, str]]]:
        return self.tags + self.printed

    def handle_data(self, data: str) -> None:
        if self._stack and self._stack[-1] == "style":
            self.css.append(data)
        else:
            self.text.append(data)

    def all(self, tag: str) -> list[dict[str, str]]:
        return [attrs for name, attrs in self.tags if name == tag]

    def ids(self) -> set[str]:
        return {attrs["id"] for _, attrs in self.tags if "id" in attrs}

    def with_class(self, tag: str, css_class: str) -> list[dict[str, str]]:
        return [a for a in self.all(tag) if css_class in a.get("class", "").split()]

    def links(self) -> list[str]:
        return [v for _, a in self.every_tag for k, v in a.items() if k in ("href", "xlink:href")]

    @property
    def plain(self) -> str:
        return " ".join(" ".join(self.text).split())


def document_urls(store: DebateStore) -> set[str]:
    history = load_history(store)
    return {e.url for e in history.all_evidence() if e.is_document and e.url}


def assert_self_contained(page: Page, allowed_urls: set[str]) -> None:
    fetching = [tag for tag, _ in page.every_tag if tag in FETCHING_TAGS]
    assert not fetching, f"tags that fetch or run something: {fetching}"
    for _, attrs in page.every_tag:
        assert "src" not in attrs and "srcset" not in attrs, attrs
        assert not any(k.startswith("on") for k in attrs), f"event handler in {attrs}"
        style = attrs.get("style", "")
        assert "url(" not in style and "@import" not in style, style
    for link in page.links():
        if link.startswith("#"):
            continue
        # Teeth: a model-written URL made into a link, or any other way out, lands here.
        assert link.startswith(("http://", "https://")), f"not a page anchor: {link!r}"
        assert link in allowed_urls, f"a link that is no retrieved document: {link!r}"
    css = "\n".join(page.css)
    assert "@import" not in css and "@font-face" not in css, "external CSS or font"
    for fragment in css.split("url(")[1:]:
        assert fragment.lstrip("'\"").startswith("#"), f"CSS fetches: url({fragment[:40]}"


def test_the_report_is_self_contained_and_maps_every_claim_counter_and_concession(run_debate):
    run = run_debate(rounds=3, script=DebateScript(names=names_of_pair(), cite_bogus=True))
    path = write_report(run.store)
    assert path == run.store.paths.root / "report.html"
    page = Page(path.read_text(encoding="utf-8"))
    history = run.history

    assert_self_contained(page, document_urls(run.store))
    # Teeth: a retrieved document's URL must stay a link (the only links leaving the page).
    assert any(link.startswith("https://example.org/") for link in page.links())

    # One SVG per figure, three figures: the map, the confidence chart, the score chart.
    figures = page.all("figure")
    assert len(figures) == 3
    assert len(page.all("svg")) == 3, "an SVG outside a figure, or a figure without one"
    # And on paper, the map again, round by round (issue 41): a part per round at least.
    printed = [a for tag, a in page.printed if tag == "svg"]
    assert printed and all("printed" in a["class"].split() for a in printed)
    assert printed[0]["aria-label"] == "Argument map — Round 1"

    # Every claim is a node (and has its full text below); every claim-id link has a target.
    claims = history.claim_index()
    assert len(claims) == 12  # 3 rounds x 2 personas x 2 claims
    ids = page.ids()
    for claim_id in claims:
        assert f"node-{claim_id}" in ids, claim_id
        assert f"claim-{claim_id}" in ids, claim_id
    for link in page.links():
        if link.startswith("#"):
            assert link[1:] in ids, f"dangling in-page link {link}"

    # One edge per counter and per concession, typed, from the right rebuttal to the target.
    expected = Counter()
    conceded = set()
    for record in history.ordered_rounds():
        for letter, rebuttal in record.rebuttals.items():
            for c in rebuttal.counters:
                expected[(f"{letter}{record.round}", c.target_claim_id, c.kind)] += 1
            for c in rebuttal.concessions:
                expected[(f"{letter}{record.round}", c.claim_id, f"concede_{c.kind}")] += 1
                if c.valid_target:
                    conceded.add(c.claim_id)
    drawn = Counter(
        (g["data-from"], g["data-target"], g["data-kind"]) for g in page.with_class("g", "edge")
    )
    assert sum(expected.values()) == 18  # per rebuttal: 2 counters (one a strawman) + 1 concession
    assert drawn == expected
    # Kinds present in the scripted debate: refute, question (the strawman), full concessions.
    assert {kind for _, _, kind in drawn} == {"refute", "question", "concede_full"}
    # The strawman Q9.c9 is drawn, to a "no such claim" node, and marked not counted.
    strawmen = [g for g in page.with_class("g", "edge") if g["data-target"] == "Q9.c9"]
    assert len(strawmen) == 6 and all("not-counted" in g["class"] for g in strawmen)
    assert len(page.with_class("g", "ghost")) == 6

    # Conceded claims, and claims citing an id nobody retrieved, are marked on the map.
    nodes = {g["id"][5:]: g["class"].split() for g in page.with_class("g", "node")}
    assert {cid for cid, classes in nodes.items() if "conceded" in classes} == conceded
    assert conceded, "the scripted debate concedes every round"
    assert all("unverified" in classes for classes in nodes.values())  # all cite Z-R9-E9

    # The synthesis sections, sources with their citing claims, failures and cost are there.
    text = page.plain
    for heading in (
        "Argument map",
        "Confidence over rounds",
        "Score components per round",
        "Points of agreement",
        "Genuine disagreements",
        "Concession log",
        "Strongest arguments",
        "Open questions",
        "Nuanced conclusion",
        "Sources",
        "Usage and cost",
    ):
        assert heading in [" ".join(t.split()) for t in page.text], heading
    assert "cited by A1.c1" in text or "cited by B1.c1" in text
    assert "scripted/scripted-1" in text
    assert "Partial report" not in text


def names_of_pair() -> dict[str, str]:
    from argue.personas import load_catalog

    catalog = load_catalog()
    return names_of([catalog.get("embry"), catalog.get("horus")])


def _rewrite(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


HOSTILE = (
    '<script>alert("claim")</script> see https://evil.example/phish and '
    "javascript:alert(1) and doi:10.9999/fake.2020 as Tao (2019) showed"
)


def test_model_text_stays_inert(run_debate):
    """A folder can come from anyone, and model text is data: a claim, a conclusion, a persona
    name or a document title that holds markup or a URL must come out as text."""
    run = run_debate(rounds=1)
    paths = run.store.paths

    def hostile_claim(data):
        data["claims"][0]["text"] = HOSTILE

    _rewrite(paths.argument("A", 1), hostile_claim)

    def hostile_conclusion(data):
        data["conclusion"] = '<img src=x onerror="alert(2)"> https://evil.example/conclusion'

    _rewrite(paths.synthesis_prose, hostile_conclusion)

    def hostile_document(data):
        data["evidence"][0]["title"] = "<script>alert(3)</script>"
        data["evidence"][1]["url"] = "javascript:alert(4)"

    _rewrite(paths.research("A", 1), hostile_document)

    def hostile_name(data):
        data["display_name"] = "<b onclick=alert(5)>Embry</b>"

    _rewrite(paths.persona_snapshot("A"), hostile_name)

    page = Page(write_report(run.store).read_text(encoding="utf-8"))
    # Teeth: turn autoescape off, or let model_html link a URL, and these fail.
    assert_self_contained(page, document_urls(run.store) - {"javascript:alert(4)"})
    assert not page.all("b"), "a persona name became markup"
    text = page.plain
    assert '<script>alert("claim")</script>' in text  # shown, as text
    assert "<script>alert(3)</script>" in text
    assert '<img src=x onerror="alert(2)">' in text
    assert "<b onclick=alert(5)>Embry</b>" in text
    # The fabricated URL is code, not a link, and code marks it unverified right after it.
    assert not any("evil.example" in link for link in page.links())
    assert "https://evil.example/phish unverified" in text
    assert "Tao (2019) unverified" in text
    assert "doi:10.9999/fake.2020 unverified" in text or "10.9999/fake.2020 unverified" in text
    codes = [attrs for tag, attrs in page.tags if tag == "code"]
    assert codes
    assert "javascript:alert(4)" in text  # the document's non-web URL, shown inert


def test_an_unfinished_debate_is_labelled_partial(run_debate):
    run = run_debate(rounds=2)
    store = run.store
    # As if the runner died in round 2's reflection: no score, no reflections, state running.
    store.paths.round_score(2).unlink()
    for letter in ("A", "B"):
        store.paths.reflection(letter, 2).unlink()
    store.paths.synthesis_prose.unlink()
    store.update_state(status="running", round=2, phase="reflection", termination=None, pid=None)

    page = Page(write_report(store).read_text(encoding="utf-8"))
    text = page.plain
    # Teeth: drop the banner (or the running-but-unlocked check) and this fails.
    assert "Partial report. the debate is interrupted, not completed" in text
    assert "Round 2 (incomplete)" in text
    assert "no synthesis prose on disk yet" in text
    # What round 2 did say is still mapped.
    assert "node-A2.c1" in page.ids()
    assert len(page.all("svg")) == 3


def test_a_french_debate_gets_french_headings(run_debate):
    run = run_debate(rounds=1)
    config = run.store.config()
    config.language = "fr"
    run.store.save_config(config)
    page = Page(write_report(run.store).read_text(encoding="utf-8"))
    assert page.all("html")[0]["lang"] == "fr"
    for heading in ("Carte des arguments", "Confiance au fil des rounds", "Points d'accord"):
        assert heading in page.plain


def test_report_and_synthesize_write_the_report_from_the_cli(run_debate, tmp_path):
    run = run_debate(rounds=1)
    debates = str(run.store.paths.root.parent)
    runner = CliRunner()

    result = runner.invoke(app, ["report", run.store.debate_id, "--debates-dir", debates])
    assert result.exit_code == 0, result.output
    default = run.store.paths.root / "report.html"
    assert result.stdout.strip() == str(default)
    assert default.is_file()

    out = tmp_path / "elsewhere" / "r.html"
    result = runner.invoke(
        app, ["report", run.store.debate_id, "--out", str(out), "--debates-dir", debates]
    )
    assert result.exit_code == 0, result.output
    assert Page(out.read_text(encoding="utf-8")).all("svg")

    # `synthesize` refreshes it (prose is on disk: no model needed).
    default.unlink()
    result = runner.invoke(
        app, ["synthesize", run.store.debate_id, "--raw", "--debates-dir", debates]
    )
    assert result.exit_code == 0, result.output
    assert default.is_file(), "synthesize did not refresh report.html"
    assert "Report written to" in result.stderr

    result = runner.invoke(app, ["report", "argue_20000101_000000", "--debates-dir", debates])
    assert result.exit_code == 2 and "no debate" in result.stderr


def test_the_report_reads_records_only_and_ships_its_template():
    # Layers: like argue.render, the report reads records; it never imports engine or store.
    code = (
        "import sys, argue.report; "
        "print(sorted(m for m in sys.modules if m.startswith(('argue.engine', 'argue.store'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
    # Teeth: drop the glob from package-data and a wheel install would lack the template.
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"report/templates/*.j2"' in pyproject
