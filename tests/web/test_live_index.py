"""The live index and a debate page's title (issue 41 items 6 and 7), in headless Chromium: at
1440 px no debate id breaks over two lines, however long the questions beside it (a phone's
card may wrap it, and nothing scrolls sideways at 375 px); the page's title is the question,
without the bidi marks it came with (U+200F and the others, ``argue.text.controls``).

Skipped, saying why, when ``chromium`` is not on PATH.
"""

from __future__ import annotations

import json

import pytest

from argue.text.controls import BIDI_CONTROLS
from tests.chromium import Browser, needs_chromium

pytestmark = needs_chromium

LONG_QUESTION = (
    "Should a city that already runs buses every six minutes on its main corridors spend the "
    "next decade's transport budget on a tram line, on more buses, or on protected bike lanes, "
    "given what each did to ridership elsewhere?"
)


def _set_question(store, question: str) -> None:
    config = store.paths.config
    data = json.loads(config.read_text(encoding="utf-8"))
    data["question"] = question
    config.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.timeout(240)
def test_the_index_keeps_each_debate_id_on_one_line_at_1440_px(live_server, new_store, tmp_path):
    stores = [new_store("debates") for _ in range(3)]
    for store in stores:
        _set_question(store, LONG_QUESTION)
    browser = Browser(tmp_path / "profile", width=1440, height=900)
    try:
        browser.goto(live_server.url("/"))
        browser.wait_for("document.body.dataset.stream === 'open'")
        lines = browser.evaluate(
            "[...document.querySelectorAll('a.debate-id')].map((a) => a.getClientRects().length)"
        )
        # Teeth: drop the .debate-id rule from live.css and each id breaks over two lines.
        assert lines == [1, 1, 1]
        assert browser.evaluate("document.documentElement.scrollWidth") <= 1440
        browser.resize(375, 812)
        assert browser.evaluate("document.documentElement.scrollWidth") <= 375
    finally:
        browser.close()


@pytest.mark.timeout(240)
def test_a_debate_page_s_title_is_its_question_without_bidi_marks(live_server, new_store, tmp_path):
    store = new_store("debates")
    _set_question(store, "\u200fIs \u202edecidable\u202c the\u200e Collatz \u2067map\u2069?\u061c")
    browser = Browser(tmp_path / "profile")
    try:
        browser.goto(live_server.url(f"/debates/{store.debate_id}"))
        browser.wait_for("document.body.dataset.stream === 'open'")
        title = browser.evaluate("document.title")
        heading = browser.evaluate("document.querySelector('h1').textContent")
        # Teeth: drop strip_controls from Pages._render and U+200F comes back in both.
        assert title == "Is decidable the Collatz map? · argue"
        assert heading == "Is decidable the Collatz map?"
        assert not set(title + heading) & set(BIDI_CONTROLS)
    finally:
        browser.close()
