"""Big maps a person can follow (issue 41, item 2), read from the SVG: above four personas the
report draws the map round by round (argument_map.stack), and there

- every figure keeps the map's promises (nothing over anything, arrows around boxes, no two
  arrows on one stretch, arrowheads apart): test_map_geometry.py's checks, on each round;
- brackets nest: a bracket whose span holds another's runs outside it, so arrows cross only
  where their spans interleave, and no arrow runs closer than 10 px beside another;
- on the 10-persona stress debate, crossings and arrows in a shared corridor fall far below
  the columns view's (bench/map_tangle.py prints the figures for the scripted debate);
- a figure is at most 700 px wide (a printed page's width at 8 pt), and an arrow to a claim of
  another round ends at a node naming that round and linking to the claim.

Teeth (checked once each): levels from the interval-colouring greedy (routing.assign_tracks)
instead of nest_levels: 24 crossings in a 5-persona stress round where only 4 pairs of spans
interleave; stubs in one order (stub_order without its up/down split): 13 crossings there; a
PITCH of 6 px: arrowheads 6 px apart.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from itertools import pairwise

import pytest

from argue.domain import Claim
from argue.report.argument_map import ArgumentMap, ClaimNode, Edge, RebuttalNode, render_map_svg
from argue.report.argument_map.stack import (
    STACK_WIDTH,
    build_round_maps,
    nest_levels,
    stacked,
    stub_order,
)
from argue.report.argument_map.tangle import tangle, views_tangle
from tests.report import test_map_geometry as geometry

NS = geometry.NS


def test_above_four_personas_the_report_draws_round_by_round() -> None:
    assert not stacked(4) and stacked(5) and stacked(10)


def test_a_span_holding_another_gets_an_outer_level_and_one_level_shares_no_item() -> None:
    spans = [(0, 10), (2, 4), (3, 8), (5, 6), (11, 12), (0, 10)]
    levels = nest_levels(spans)
    for i, (a, b) in enumerate(spans):
        for j, (c, d) in enumerate(spans):
            if i != j and a <= c and d <= b and (a, b) != (c, d):
                assert levels[i] > levels[j], (spans[i], spans[j], levels)
            if i != j and levels[i] == levels[j]:
                assert b < c or d < a, (spans[i], spans[j])
    assert levels[4] == 0  # apart from every other: nearest the column


def test_stubs_going_up_come_first_outer_ones_lower_then_those_going_down_outer_ones_higher():
    # (edge, level, other end above)
    assert stub_order([(0, 0, True), (1, 2, True), (2, 1, False), (3, 3, False)]) == [0, 1, 3, 2]


@pytest.fixture(params=[5, 10], ids=["5-personas", "10-personas"])
def rounds(request: pytest.FixtureRequest) -> list[tuple[ArgumentMap, geometry.Drawn]]:
    maps = build_round_maps(geometry.stress_map(request.param), "en")
    return [(m, geometry.parse(str(render_map_svg(m, "en")))) for m in maps]


def test_every_round_keeps_the_maps_promises(rounds) -> None:
    assert len(rounds) == 2
    for drawn in rounds:
        geometry.test_every_text_and_badge_stays_in_its_box_and_none_overlaps(drawn)
        geometry.test_claim_text_wraps_at_a_readable_size_instead_of_being_cut_to_two_lines(drawn)
        geometry.test_no_box_overlaps_another(drawn)
        geometry.test_edges_run_around_boxes_never_through_them(drawn)
        geometry.test_no_two_edges_share_a_stretch_of_line(drawn)
        _arrowheads_apart(drawn)
        geometry.test_edges_name_both_ends_for_the_stylesheet_to_follow(drawn)


def _arrowheads_apart(drawn: tuple[ArgumentMap, geometry.Drawn]) -> None:
    """test_map_geometry's check, less its count of the stress's heads at one box (a round
    has half of them, and they split between the box's two sides)."""
    m, d = drawn
    tips: dict[tuple[str, float], list[float]] = {}
    for g, points in d.edges:
        x, y = points[-1]
        tips.setdefault((g.get("data-target", ""), round(x, 1)), []).append(y)
    assert max(len(ys) for ys in tips.values()) >= 3
    for key, ys in tips.items():
        ys.sort()
        assert all(b - a >= 12 for a, b in pairwise(ys)), (key, ys)
    for (g, points), edge in zip(d.edges, m.edges, strict=True):
        box = edge.target.box
        x, y = points[-1]
        assert x in (pytest.approx(box.x), pytest.approx(box.x + box.w)), (g.attrib, box)
        assert box.y < y < box.y + box.h


def test_a_round_is_as_wide_as_a_printed_page_and_no_wider(rounds) -> None:
    for m, drawn in rounds:
        assert m.width <= STACK_WIDTH
        assert float(drawn.root.get("width", "0")) == pytest.approx(m.width)


def test_brackets_cross_only_where_their_spans_interleave_and_never_run_side_by_side(rounds):
    for m, drawn in rounds:
        order = {id(n): n.box.y for n in m.nodes.values()}
        order |= {id(r): r.box.y for r in m.rebuttals}
        brackets = [e for e in m.edges if isinstance(e.target, ClaimNode)]
        interleaved = 0
        for i, a in enumerate(brackets):
            for b in brackets[i + 1 :]:
                if a.source_side != b.source_side:
                    continue
                sa = sorted((order[id(a.source)], order[id(a.target)]))
                sb = sorted((order[id(b.source)], order[id(b.target)]))
                if sa[0] < sb[0] < sa[1] < sb[1] or sb[0] < sa[0] < sb[1] < sa[1]:
                    interleaved += 1
        drawn_paths = [points for _, points in drawn.edges]
        measured = tangle(drawn_paths)
        assert measured.crossings <= interleaved, (measured, interleaved)
        assert measured.shared == 0, measured


def test_the_ten_persona_stress_map_is_untangled_against_the_columns_view() -> None:
    columns = geometry.stress_map(10)
    before = tangle([e.points for e in columns.edges])
    after = views_tangle(
        [[e.points for e in m.edges] for m in build_round_maps(geometry.stress_map(10), "en")]
    )
    assert before.arrows == after.arrows
    assert after.crossings * 3 < before.crossings, (before, after)
    assert before.share > 0.5 and after.share == 0, (before, after)


def test_an_arrow_to_a_claim_of_another_round_ends_at_a_node_that_links_to_it() -> None:
    old = ClaimNode(Claim(id="B1.c1", persona="B", round=1, text="An early claim."), 1.0, [])
    new = ClaimNode(Claim(id="A2.c1", persona="A", round=2, text="A later claim."), 1.0, [])
    letters = ["A", "B", "C", "D", "E"]
    rebuttal = RebuttalNode("A", 2, 1, 0)
    edge = Edge("refute", rebuttal, old, True, "still wrong", "")
    m = ArgumentMap(
        letters,
        {k: f"Persona {k}" for k in letters},
        [1, 2],
        {"B1.c1": old, "A2.c1": new},
        [rebuttal],
        [],
        [edge],
    )
    second = build_round_maps(m, "fr")[1]
    svg = str(render_map_svg(second, "fr"))
    root = ET.fromstring(svg)
    links = [a for a in root.iter(f"{NS}a") if a.find(f"{NS}g[@class='ghost elsewhere']")]
    assert len(links) == 1
    assert links[0].get("href") == "#node-B1.c1"
    assert re.search(r"B1\.c1 — Round 1", "".join(links[0].itertext()))
    (drawn_edge,) = second.edges
    assert drawn_edge.points[-1][0] == pytest.approx(drawn_edge.target.box.x)
