"""The report on a phone (issue 41, items 3 and 7): headless Chromium at 375 x 812 (a phone's
first screen, mobile viewport), on a French 5-persona panel and a 10-persona panel, says

- the summary (conclusion, disagreements, agreements) is inside the first screen: the
  contents list is folded to one line (``<details>``) above it;
- every figure or table that is wider than the screen scrolls in its own box and says so: a
  "scroll sideways" line at the box's left, which stays in view as the box scrolls; a box that
  does not scroll shows no such line (it appears only while a scroll timeline is active, that
  is while its box can scroll: CSS, no script).

Skipped, saying why, when ``chromium`` is not on PATH (``apt-get install -y chromium``).

Teeth (checked once each): with the contents open above the summary, the French page's
conclusion ends at 830 px and its agreements at 1,100; without ``animation-timeline`` (the
animation alone, so the line always shows) a table that fits ("The values") and, at 1440 px,
the map's rounds and the charts had it too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from argue.records.labels import label
from tests.chromium import Chromium, needs_chromium
from tests.report.test_map_scale_chromium import TEN, scripted_panel

pytestmark = needs_chromium

PHONE = (375, 812)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    french = scripted_panel(
        tmp_path_factory.mktemp("fr"),
        ["embry", "horus", "noor", "priya", "odile"],
        2,
        "La conjecture de Syracuse est-elle décidable ?",
    )
    ten = scripted_panel(tmp_path_factory.mktemp("ten"), TEN, 2, "Is P equal to NP?")
    return {
        "fr": (french / "report.html").resolve().as_uri(),
        "ten": (ten / "report.html").resolve().as_uri(),
    }


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    devtools = Chromium(tmp_path_factory.mktemp("profile"))
    try:
        yield devtools
    finally:
        devtools.close()


def phone(browser: Chromium, url: str) -> Any:
    page = browser.new_page(*PHONE, mobile=True)
    page.color_scheme("light")
    page.goto(url, wait=True)
    return page


SUMMARY = """(() => {
  const at = id => { const r = document.getElementById(id).getBoundingClientRect();
                     return [r.top + scrollY, r.bottom + scrollY]; };
  const toc = document.querySelector('nav.toc');
  return {conclusion: at('conclusion'), disagreements: at('disagreements'),
          agreements: at('agreements'), lang: document.documentElement.lang,
          toc: toc.getBoundingClientRect().height, folded: !toc.querySelector('details').open};
})()"""


@pytest.mark.parametrize("which", ["fr", "ten"])
def test_on_a_phone_the_summary_is_inside_the_first_screen(browser, reports, which):
    tab = phone(browser, reports[which])
    got = tab.js(SUMMARY)
    assert got["lang"] == ("fr" if which == "fr" else "en")
    assert got["folded"] and got["toc"] < 50, got  # the contents: one line
    for part in ("conclusion", "disagreements", "agreements"):
        _, bottom = got[part]
        assert bottom <= PHONE[1], (part, got)
    # Opened, the contents list is there.
    tab.js("document.querySelector('nav.toc details').open = true")
    assert tab.js("document.querySelector('nav.toc ol').getBoundingClientRect().height") > 200


# Each displayed scroll box: whether it can scroll, and its hint line's box and words.
BOXES = """(() => [...document.querySelectorAll('.scroll')]
  .filter(s => s.getBoundingClientRect().height > 0)
  .map(s => { const h = s.querySelector(':scope > .scroll-hint');
    const r = h ? h.getBoundingClientRect() : null, b = s.getBoundingClientRect();
    return {name: s.getAttribute('aria-label'), scrolls: s.scrollWidth > s.clientWidth + 1,
            hint: h ? {h: r.height, left: r.left - b.left, right: r.right,
                       shown: getComputedStyle(h).visibility === 'visible' && r.height > 0,
                       words: h.textContent} : null}; }))()"""


@pytest.mark.parametrize("which", ["fr", "ten"])
def test_every_wide_figure_says_that_it_scrolls_and_only_those(browser, reports, which):
    lang = "fr" if which == "fr" else "en"
    tab = phone(browser, reports[which])
    tab.js("location.hash = '#map-all'")  # every round's map figure displayed
    # A scroll timeline takes effect at the next frame: wait (a bound, not a timing).
    tab.wait_for(f"({BOXES}).filter(b => b.scrolls).every(b => b.hint && b.hint.shown)")
    boxes = tab.js(BOXES)
    wide = [b for b in boxes if b["scrolls"]]
    names = {b["name"] for b in wide}
    # The map (each round), the charts and the score table are wider than a phone.
    assert len([n for n in names if n.startswith(label("argument_map", lang))]) == 2, names
    assert {label("confidence_over_rounds", lang), label("score_components", lang)} <= names
    for box in wide:
        hint = box["hint"]
        assert hint["shown"] and hint["words"] == label("scroll_hint", lang), box
        assert abs(hint["left"]) < 1 and hint["right"] <= PHONE[0], box
    for box in boxes:
        if not box["scrolls"]:
            assert box["hint"] is None or not box["hint"]["shown"], box
    # Scrolled sideways, the line stays at the box's left, in view.
    tab.js("document.querySelector('#map-round-1 .scroll').scrollLeft = 200")
    tab.wait_for("document.querySelector('#map-round-1 .scroll').scrollLeft > 0")
    moved = tab.js(
        "(() => { const s = document.querySelector('#map-round-1 .scroll');"
        " return s.querySelector('.scroll-hint').getBoundingClientRect().left"
        " - s.getBoundingClientRect().left; })()"
    )
    assert abs(moved) < 1


def test_on_a_wide_screen_a_box_that_fits_shows_no_scroll_line(browser, reports):
    tab = browser.open(reports["fr"], 1440)
    tab.js("location.hash = '#map-all'")
    boxes = tab.js(BOXES)
    fitting = [b for b in boxes if not b["scrolls"]]
    assert len(fitting) >= 3, boxes  # the map's rounds and the charts fit 1440 px
    assert not [b for b in fitting if b["hint"] and b["hint"]["shown"]], boxes
