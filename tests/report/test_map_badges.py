"""The argument map keeps every badge (issue 20, item 4): a claim that is conceded and carries
unverified references shows both badges, neither drawn over the score, the claim id or the other.

Teeth (checked once): put back the old rule in ``node_header`` — badges always beside the id,
whatever room is left before the score — and the overlap tests fail for narrow columns and the
French words; drop the node's growth in ``_layout`` and the height test fails.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from argue.domain import Claim
from argue.report.argument_map import ArgumentMap, Box, ClaimNode, render_map_svg
from argue.report.argument_map.layout import (
    LINE_H,
    MIN_COLUMN,
    NODE_H,
    _layout,
    node_badges,
    node_header,
    text_top,
)
from argue.report.svg import num


def _overlap(a: Box, b: Box) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def _node(claim_id: str, score: float | None, *, conceded: bool, unverified: bool) -> ClaimNode:
    claim = Claim(id=claim_id, persona="A", round=1, text="A claim that is long enough to wrap.")
    node = ClaimNode(claim, score, ["Tao (2019)"] if unverified else [])
    if conceded:
        node.conceded_by.append(("B", 1, "full"))
    return node


WIDTHS = [MIN_COLUMN, 220.0, 260.0, 330.0, 520.0]
IDS = ["A1.c1", "A12.c10", "A123.c100"]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("claim_id", IDS)
@pytest.mark.parametrize("score", [None, 0.5, 10.25])
def test_badges_overlap_neither_the_score_nor_the_id_nor_each_other(
    lang: str, width: float, claim_id: str, score: float | None
) -> None:
    node = _node(claim_id, score, conceded=True, unverified=True)
    box = Box(46.0, 100.0, width, 60.0)
    header = node_header(node, box, lang)
    assert [(b.word, b.css) for b in header.badges] == node_badges(node, lang)
    assert len(header.badges) == 2  # never dropped
    others = [header.id_box, header.score_box]
    assert not _overlap(header.id_box, header.score_box)
    for i, badge in enumerate(header.badges):
        for other in others + [b.box for b in header.badges[i + 1 :]]:
            assert not _overlap(badge.box, other), (badge, other)
        assert box.x < badge.box.x and badge.box.x + badge.box.w <= box.x + box.w


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("columns", [1, 2, 3, 4, 5, 6])
def test_the_node_grows_to_hold_its_badge_rows(lang: str, columns: int) -> None:
    letters = list("ABCDEF"[:columns])
    node = _node("A12.c10", 0.75, conceded=True, unverified=True)
    plain = _node("A12.c11", 0.75, conceded=False, unverified=False)
    m = ArgumentMap(letters, {k: k for k in letters}, [1], {}, [], [], [])
    m.nodes = {"A12.c10": node, "A12.c11": plain}
    _layout(m, lang)
    header = node_header(node, node.box, lang)
    lowest = max(b.y + b.h for b in [*(b.box for b in header.badges), header.score_box])
    first_line = text_top(node.box, header.rows)
    assert first_line >= lowest
    assert first_line + len(node.lines) * LINE_H <= node.box.y + node.box.h  # every line fits
    assert plain.box.y >= node.box.y + node.box.h
    assert plain.box.h == NODE_H - (2 - len(plain.lines)) * LINE_H  # no badge row


class _Badges(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self._in_badge = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "g" and "badge" in (dict(attrs).get("class") or "").split():
            self._in_badge += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "g" and self._in_badge:
            self._in_badge -= 1

    def handle_data(self, data: str) -> None:
        if self._in_badge and data.strip():
            self.words.append(data.strip())


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_drawn_map_shows_every_badge_where_the_header_puts_it(lang: str) -> None:
    node = _node("A12.c10", 0.5, conceded=True, unverified=True)
    m = ArgumentMap(["A", "B", "C", "D", "E"], dict.fromkeys("ABCDE", "X"), [1], {}, [], [], [])
    m.nodes["A12.c10"] = node
    _layout(m, lang)
    svg = str(render_map_svg(m, lang))
    parser = _Badges()
    parser.feed(svg)
    words = [w for w, _ in node_badges(node, lang)]
    assert parser.words == [*words, *words]  # the legend's two, then the node's two
    header = node_header(node, node.box, lang)
    for badge in header.badges:
        assert f'<rect x="{num(badge.box.x)}" y="{num(badge.box.y)}"' in svg
