"""A French report and live page in a real browser (issue 41, item 5 and item 7): at phone and
desktop widths no line the browser lays out starts with ``:`` ``;`` ``?`` ``!`` ``»`` or ``%``.

Headless Chromium lays the pages out; a script walks every character of the page's text (SVG
text aside: it never wraps) and reports each one that begins a new line box. The same pages
rendered with the French labels' plain spaces (the table as written, before
``argue.text.typography.french_spacing``) are measured too: there the browser does break
before a sign, which shows the measure can see it.

Teeth: the control below (plain spaces) is the broken guarantee, checked on every run.
Skipped, saying why, when ``chromium`` is not on PATH.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from argue.app import Workspace, live_debate, write_report
from argue.engine import create_debate
from argue.records import labels
from argue.store import DebateStore
from argue.web._pages import Pages
from tests.chromium import Chromium, needs_chromium
from tests.engine.conftest import personas, run_debate  # noqa: F401  (fixtures)
from tests.engine.script import DebateScript, ScriptedToolkit, names_of

# No sign of its own: the user's question is data, and a spaced "?" in it is not argue's.
QUESTION = "La conjecture de Collatz est-elle décidable"
WIDTHS = (320, 360, 375, 414, 768)

LINE_STARTS = r"""
(() => {
  const signs = ":;?!»%";
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => node.parentElement.closest("svg, style, script, [hidden]")
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const range = document.createRange();
  let lastTop = null, lastBlock = null;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.data;
    const block = node.parentElement.closest("p, li, h1, h2, h3, td, th, div, figcaption, dd");
    for (let i = 0; i < text.length; i++) {
      if (/\s/.test(text[i])) continue;
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rect = range.getClientRects()[0];
      if (!rect || rect.height === 0) continue;
      const newLine = lastTop === null || block !== lastBlock
        || rect.top > lastTop + rect.height / 2;
      if (newLine && block === lastBlock && signs.includes(text[i])) {
        found.push(text.slice(Math.max(0, i - 25), i + 15));
      }
      lastTop = rect.top;
      lastBlock = block;
    }
  }
  return found;
})()
"""


def _french_debate(root: Path, personas: dict[str, Any], run_debate: Any) -> DebateStore:  # noqa: F811
    names = ["embry", "horus"]
    store = create_debate(
        root / "debates",
        question=QUESTION,
        mode="adversarial",
        personas=[personas[n] for n in names],
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
        language="fr",
    )
    script = DebateScript(names=names_of([personas[n] for n in names]), cite_bogus=True)
    run = run_debate(names, store=store, script=script, toolkit=ScriptedToolkit(fail_skill="ask"))
    return run.store


def _render(store: DebateStore, folder: Path, tag: str) -> dict[str, Path]:
    """The report and the live page of ``store``'s debate, as files a browser can open."""
    report = write_report(store, folder / f"report-{tag}.html")
    debates = Workspace(debates_dir=store.paths.root.parent)
    live = folder / f"live-{tag}.html"
    page = Pages("token").debate(live_debate(store.debate_id, workspace=debates), note_max=2000)
    live.write_text(page, encoding="utf-8")
    return {"report": report, "live page": live}


def _line_starts(browser: Chromium, page: Path) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for width in WIDTHS:
        tab = browser.open(page.resolve().as_uri(), width)
        starts = tab.evaluate(LINE_STARTS)
        if starts:
            found[width] = starts
    return found


@needs_chromium
@pytest.mark.timeout(300)
def test_no_line_of_the_french_report_or_live_page_starts_with_a_sign(
    run_debate,  # noqa: F811
    personas,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = _french_debate(tmp_path, personas, run_debate)
    spaced = _render(store, tmp_path, "spaced")
    # The control: the same pages with the label table's plain spaces.
    monkeypatch.setattr(labels, "french_spacing", lambda text: text)
    monkeypatch.setattr(labels, "_FRENCH", {})
    plain = _render(store, tmp_path, "plain")
    monkeypatch.undo()

    browser = Chromium(tmp_path / "profile")
    try:
        for name in ("report", "live page"):
            assert re.search("\u00a0:", spaced[name].read_text(encoding="utf-8")), name
            found = _line_starts(browser, spaced[name])
            assert not found, f"{name}: lines that start with a sign, by width: {found}"
        control = _line_starts(browser, plain["report"])
        assert control, "with plain spaces no line started with a sign: the measure sees nothing"
        print("with plain spaces, lines that start with a sign:", control)
    finally:
        browser.close()
