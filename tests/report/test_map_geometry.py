"""The argument map reads (issue 26, item 1): nothing is drawn over anything else.

The map is drawn for 2-, 5- and 10-persona debates that stress it (long claims, a URL longer
than a line, both badges, ids of three digits, French words, seven arrowheads at one box, a
persona countering its own claim, a target in an earlier round, unknown targets), the SVG is
parsed back, and from what it says (positions, font sizes, anchors; text widths by the
layout's own estimate, which test_map_chromium.py holds against a real browser):

- every text, badge and score stays inside its box, and no two of them intersect;
- no two boxes intersect; every text is 11 px or more;
- no edge runs through a box it does not start or end at, no two edges share a stretch of
  line, and arrowheads arriving at one box are at least 12 px apart;
- each edge names both its ends in its classes, and the stylesheet follows them.

Teeth (checked once each): the old header rule (badges placed by where they start) overlaps
the score; drawing edges as curves between box centres runs them through boxes; arrowheads
spread over ``min(8, …)`` px are closer than 12; a node box that does not grow with its
lines lets the text out.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from itertools import combinations, pairwise

import pytest

from argue.domain import Claim
from argue.report.argument_map import (
    ArgumentMap,
    ClaimNode,
    Edge,
    EdgeKind,
    GhostNode,
    RebuttalNode,
    render_map_svg,
)
from argue.report.argument_map.layout import _layout
from argue.report.argument_map.metrics import Font, text_width

NS = "{http://www.w3.org/2000/svg}"
LONG = (
    "The stopping time of every orbit is bounded by a density argument that survives the "
    "2-adic extension, and no counterexample below two to the sixty-eighth was ever found "
    "by the exhaustive searches run since the nineteen-nineties on volunteer computers"
)
URL = "https://example.org/" + "a" * 90


def stress_map(personas: int, rounds: int = 2, lang: str = "en") -> ArgumentMap:
    """A debate that tries every way the map could overlap."""
    letters = [chr(ord("A") + i) for i in range(personas)]
    nodes: dict[str, ClaimNode] = {}
    for r in range(1, rounds + 1):
        for i, letter in enumerate(letters):
            for c in range(1, 3):
                claim_id = f"{letter}{r}.c{c}" if i % 3 else f"{letter}{r}{r}{r}.c{c}00"
                words = LONG if c == 1 else (URL if i % 2 else "Short.")
                claim = Claim(id=claim_id, persona=letter, round=r, text=words)
                node = ClaimNode(claim, 10.25 if c == 1 else None, ["Tao (2019)"] if c == 2 else [])
                if (i + c) % 2 == 0:
                    node.conceded_by.append(("B", r, "full"))
                nodes[claim_id] = node
    rebuttals: list[RebuttalNode] = []
    ghosts: list[GhostNode] = []
    edges: list[Edge] = []
    ids = list(nodes)
    kinds: list[EdgeKind] = ["refute", "undercut", "question", "concede_full", "concede_partial"]
    for r in range(1, rounds + 1):
        first = next(n for n in nodes.values() if n.claim.round == r)
        for i, letter in enumerate(letters):
            rebuttal = RebuttalNode(letter, r, 3, 1)
            rebuttals.append(rebuttal)
            targets: list[ClaimNode | GhostNode] = [first]  # everyone counters one claim
            round_ids = [k for k in ids if nodes[k].claim.round == r]
            targets.append(nodes[round_ids[(2 * i + 3) % len(round_ids)]])
            own = next(n for n in nodes.values() if n.claim.persona == letter)
            targets.append(own)  # its own claim (not counted)
            if r > 1:
                targets.append(nodes[ids[(i * 2 + 1) % len(ids)]])  # an earlier round's
            for g in range(1 + (i % 2) + (5 if i == 2 else 0)):  # up to 7 unknown targets
                ghost = GhostNode(f"Q{g}.c9", letter, r)
                ghosts.append(ghost)
                targets.append(ghost)
            for k, target in enumerate(targets):
                counted = not isinstance(target, GhostNode) and target is not own
                edges.append(Edge(kinds[(i + k) % len(kinds)], rebuttal, target, counted, "x", ""))
    m = ArgumentMap(
        letters,
        {
            k: f"Persona {k}" + (" Wolfeschlegelsteinhausen-Bergerdorff" if i % 2 else "")
            for i, k in enumerate(letters)
        },  # a name longer than its column head
        list(range(1, rounds + 1)),
        nodes,
        rebuttals,
        ghosts,
        edges,
    )
    _layout(m, lang)
    return m


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    what: str = ""

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    def overlaps(self, other: Rect) -> bool:
        return (
            self.x < other.right - 0.01
            and other.x < self.right - 0.01
            and self.y < other.bottom - 0.01
            and other.y < self.bottom - 0.01
        )

    def inside(self, other: Rect, margin: float = 0.0) -> bool:
        return (
            self.x >= other.x + margin - 0.01
            and self.right <= other.right - margin + 0.01
            and self.y >= other.y - 0.01
            and self.bottom <= other.bottom + 0.01
        )


def _rect(element: ET.Element, what: str = "") -> Rect:
    return Rect(*(float(element.get(k, 0)) for k in ("x", "y", "width", "height")), what)


def _classes(element: ET.Element) -> list[str]:
    return (element.get("class") or "").split()


def text_boxes(element: ET.Element) -> list[Rect]:
    """Each line of a <text> as a box, from its attributes and the layout's width estimate."""
    size = float(element.get("font-size", "0"))
    assert size, f"text without a font size: {ET.tostring(element)!r}"
    font = Font(size, element.get("font-weight") == "700", "nid" in _classes(element))
    anchor = element.get("text-anchor", "start")
    lines = list(element.findall(f"{NS}tspan")) or [element]
    out = []
    for line in lines:
        words = "".join(line.itertext())
        x, y = float(line.get("x", 0)), float(line.get("y", 0))
        w = text_width(words, font)
        left = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
        out.append(Rect(left, y - font.ascent, w, font.ascent + font.descent, words))
    return out


@dataclass
class Drawn:
    root: ET.Element
    boxes: list[Rect]  # claim nodes, rebuttals, unknown targets
    edges: list[tuple[ET.Element, list[tuple[float, float]]]]


def parse(svg: str) -> Drawn:
    root = ET.fromstring(svg)
    boxes: list[Rect] = []
    for g in root.iter(f"{NS}g"):
        classes = _classes(g)
        if "node" in classes:
            boxes.append(_rect(g.find(f".//{NS}rect[@class='nodebox']"), g.get("id", "")))
        elif "rebuttal" in classes:
            boxes.append(_rect(g.find(f".//{NS}rect[@class='rebuttalbox']"), g.get("id", "")))
        elif "ghost" in classes:
            boxes.append(_rect(g.find(f"{NS}rect"), "ghost"))
    edges = [
        (g, path_points(g.find(f"{NS}path").get("d", "")))
        for g in root.iter(f"{NS}g")
        if "edge" in _classes(g)
    ]
    return Drawn(root, boxes, edges)


def path_points(d: str) -> list[tuple[float, float]]:
    """The corners of an M/L/Q path (a Q's control point is its corner)."""
    numbers = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", d)]
    return list(zip(numbers[::2], numbers[1::2], strict=True))


def segments(points: list[tuple[float, float]]) -> list[tuple[tuple[float, float], ...]]:
    return list(pairwise(points))


def crosses(segment: tuple[tuple[float, float], ...], box: Rect, inset: float = 1.0) -> bool:
    """Whether an axis-parallel (or short diagonal corner) segment enters the box's inside."""
    (x1, y1), (x2, y2) = segment
    left, right = box.x + inset, box.right - inset
    top, bottom = box.y + inset, box.bottom - inset
    steps = 24
    for k in range(steps + 1):
        x = x1 + (x2 - x1) * k / steps
        y = y1 + (y2 - y1) * k / steps
        if left < x < right and top < y < bottom:
            return True
    return False


CASES = [(2, "en"), (5, "en"), (5, "fr"), (10, "en")]


@pytest.fixture(params=CASES, ids=[f"{n}-personas-{lang}" for n, lang in CASES])
def drawn(request: pytest.FixtureRequest) -> tuple[ArgumentMap, Drawn]:
    personas, lang = request.param
    m = stress_map(personas, lang=lang)
    return m, parse(str(render_map_svg(m, lang)))


def test_every_text_and_badge_stays_in_its_box_and_none_overlaps(drawn) -> None:
    m, d = drawn
    checked = 0
    for g in d.root.iter(f"{NS}g"):
        classes = _classes(g)
        if "node" in classes:
            box = _rect(g.find(f".//{NS}rect[@class='nodebox']"))
            pieces: list[Rect] = []
            for element in g.iter():
                if element.tag == f"{NS}text" and not any(
                    "badge" in _classes(b) for b in g.iter(f"{NS}g") if element in list(b.iter())
                ):
                    pieces += text_boxes(element)
            for badge in g.iter(f"{NS}g"):
                if "badge" in _classes(badge):
                    pill = _rect(badge.find(f"{NS}rect"), "badge")
                    for line in text_boxes(badge.find(f"{NS}text")):
                        assert line.inside(pill, margin=2), (line, pill)
                    pieces.append(pill)
            # Inside the box, right of its persona stripe; no two pieces meet.
            for piece in pieces:
                assert piece.inside(Rect(box.x + 5, box.y, box.w - 5, box.h)), (g.get("id"), piece)
            for a, b in combinations(pieces, 2):
                assert not a.overlaps(b), (g.get("id"), a, b)
            checked += 1
        elif "rebuttal" in classes or "ghost" in classes:
            rect = g.find(f".//{NS}rect")
            for line in text_boxes(g.find(f".//{NS}text")):
                assert line.inside(_rect(rect), margin=4), (line, _rect(rect))
        elif "colhead-group" in classes:
            rect = _rect(g.find(f".//{NS}rect"))
            for line in text_boxes(g.find(f".//{NS}text")):
                assert line.inside(rect, margin=4), (line, rect)
    assert checked == len(m.nodes)


def test_claim_text_wraps_at_a_readable_size_instead_of_being_cut_to_two_lines(drawn) -> None:
    m, d = drawn
    sizes = {float(t.get("font-size", "0")) for t in d.root.iter(f"{NS}text")}
    assert min(sizes) >= 11
    long_nodes = [n for n in m.nodes.values() if n.claim.text == LONG]
    assert long_nodes and all(len(n.lines) >= 3 for n in long_nodes)
    # What is drawn is the text's beginning, word for word; a cut ends with an ellipsis.
    for node in long_nodes:
        shown = " ".join(node.lines).rstrip("…")
        assert LONG.startswith(shown.rstrip()), (shown, LONG)
        assert node.cut == (shown != LONG)
    # The legend keeps to the figure and its entries apart.
    legend = next(g for g in d.root.iter(f"{NS}g") if "map-legend" in _classes(g))
    entries = [b for t in legend.iter(f"{NS}text") for b in text_boxes(t)]
    for a, b in combinations(entries, 2):
        assert not a.overlaps(b)
    assert all(e.x >= 0 and e.right <= m.width for e in entries)


def test_no_box_overlaps_another(drawn) -> None:
    _, d = drawn
    for a, b in combinations(d.boxes, 2):
        assert not a.overlaps(b), (a, b)


def test_edges_run_around_boxes_never_through_them(drawn) -> None:
    m, d = drawn
    assert len(d.edges) == len(m.edges)
    for (g, points), edge in zip(d.edges, m.edges, strict=True):
        own = [edge.source.box, edge.target.box]
        for box in d.boxes:
            if any(abs(box.x - o.x) < 0.01 and abs(box.y - o.y) < 0.01 for o in own):
                continue
            for segment in segments(points):
                assert not crosses(segment, box), (g.get("data-from"), g.get("data-target"), box)


def test_no_two_edges_share_a_stretch_of_line(drawn) -> None:
    _, d = drawn
    runs: list[tuple[int, str, float, float, float]] = []  # edge, axis, at, from, to
    for index, (_, points) in enumerate(d.edges):
        for (x1, y1), (x2, y2) in segments(points):
            if abs(x1 - x2) < 0.01 and abs(y1 - y2) > 0.5:
                runs.append((index, "v", x1, min(y1, y2), max(y1, y2)))
            elif abs(y1 - y2) < 0.01 and abs(x1 - x2) > 0.5:
                runs.append((index, "h", y1, min(x1, x2), max(x1, x2)))
    for a, b in combinations(runs, 2):
        if a[0] == b[0] or a[1] != b[1] or abs(a[2] - b[2]) > 1.5:
            continue
        shared = min(a[4], b[4]) - max(a[3], b[3])
        assert shared < 1.0, (d.edges[a[0]][0].attrib, d.edges[b[0]][0].attrib, a, b)


def test_arrowheads_at_one_box_are_apart(drawn) -> None:
    m, d = drawn
    tips: dict[tuple[str, float], list[float]] = {}
    for g, points in d.edges:
        x, y = points[-1]
        tips.setdefault((g.get("data-target", ""), round(x, 1)), []).append(y)
    most = max(len(ys) for ys in tips.values())
    assert most >= (7 if len(m.letters) >= 5 else 2)  # the stress really stacks them
    for key, ys in tips.items():
        ys.sort()
        for a, b in pairwise(ys):
            assert b - a >= 12, (key, ys)
    # And each tip is on its box's side, inside its height.
    for (g, points), edge in zip(d.edges, m.edges, strict=True):
        box = edge.target.box
        x, y = points[-1]
        assert x in (pytest.approx(box.x), pytest.approx(box.x + box.w)), (g.attrib, box)
        assert box.y < y < box.y + box.h


def test_edges_name_both_ends_for_the_stylesheet_to_follow(drawn) -> None:
    m, d = drawn
    for (g, _), edge in zip(d.edges, m.edges, strict=True):
        classes = _classes(g)
        assert f"from-{edge.source.css_key}" in classes
        assert f"src-p{m.letters.index(edge.source.letter)}" in classes
        if isinstance(edge.target, ClaimNode):
            assert f"to-{edge.target.key}" in classes
            assert f"dst-p{m.letters.index(edge.target.claim.persona)}" in classes
    # An edge is drawn inside its rebuttal's group, after every box: above them, and
    # hovering or targeting the rebuttal shows its edges.
    order = [_classes(g) for g in d.root.iter(f"{NS}g")]
    last_box = max(i for i, c in enumerate(order) if "node" in c or "ghost" in c)
    first_edge = min(i for i, c in enumerate(order) if "edge" in c)
    assert first_edge > last_box
    for g in d.root.iter(f"{NS}g"):
        if "rebuttal" in _classes(g):
            key = next(c for c in _classes(g) if re.fullmatch(r"r\d+", c))
            inside = [e for e in g.iter(f"{NS}g") if "edge" in _classes(e)]
            assert inside and all(f"from-{key}" in _classes(e) for e in inside)
