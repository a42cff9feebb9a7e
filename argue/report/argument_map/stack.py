"""The round-by-round view of a big argument map: one figure per round, its claims in one column.

Why not the columns view for a panel: with ten personas it is ten columns (2,544 px, a phone
shows one), and its edges share gutters and the lane under each band, so arrows run side by
side 6 px apart and cross each other dozens of times: none can be followed by eye. Here each
round is its own figure and, inside it, each persona's claims, then its rebuttal and the ids it
named that are no claim of the round, are stacked in one column about 700 px wide (the width of
a printed page at 11 px text, so print keeps text above 8 pt). An arrow leaves its rebuttal
sideways into a margin, counters on the left and concessions on the right, runs up or down its
own track there and turns into the target's side: a bracket.

The tracks are chosen so that brackets nest: a bracket whose span holds another's runs outside
it, so the only crossings left are between brackets whose spans interleave (one crossing each).
Tracks are PITCH apart, arrowheads at one side of a box and departures at one end of a
rebuttal too, so no two arrows run closer than PITCH over any stretch
(:mod:`.tangle` measures both). A target in another round gets a small node under the
rebuttal, linking to the claim in that round's figure.
"""

from __future__ import annotations

import math
from dataclasses import replace

from argue.records.labels import label
from argue.render.inline import fold_lookalikes
from argue.report.argument_map.layout import (
    ANCHOR_H,
    ANCHOR_INSET,
    ARRIVAL_PAD,
    BADGE_ROW_H,
    GAP,
    GHOST_H,
    LINE_H,
    MAX_LINES,
    TEXT_BOTTOM,
    TEXT_TOP,
    ArgumentMap,
    Box,
    ClaimNode,
    Edge,
    GhostNode,
    Side,
    _legend,
    claim_text_width,
    node_header,
)
from argue.report.argument_map.metrics import CLAIM_TEXT, wrap_to_width

STACK_PERSONAS = 4
"""Above this many personas the report shows the map round by round (:func:`build_round_maps`):
five columns already make the columns view 1,200 px wide, wider than a tablet or a printed page."""

STACK_WIDTH = 700.0
"""The widest a round's figure is meant to be: a printed A4 page's text width (186 mm is 703 px)
shows it unscaled, so its 11 px text prints at 8.25 pt."""
COLUMN = 420.0  # the claims' column, narrower (down to MIN_STACK_COLUMN) when margins need room
MIN_STACK_COLUMN = 300.0
PITCH = 12.0  # between two tracks, two arrowheads at one side, two departures at one end
FIRST_TRACK = 16.0  # the track nearest the column: room for an 8 px arrowhead
MARGIN_PAD = 10.0  # outside the outermost track
NAME_H = 22.0  # a persona's name bar
NAME_GAP = 8.0
PERSONA_GAP = 18.0
PILL_PAD = 12.0  # a rebuttal's first and last departure from its top and bottom (its radius)
GHOST_STEP = 12.0  # between the verticals down to "no such claim" nodes
LEGEND_GAP = 10.0


def stacked(personas: int) -> bool:
    """Whether the report draws a debate with this many personas round by round."""
    return personas > STACK_PERSONAS


def build_round_maps(m: ArgumentMap, lang: str) -> list[ArgumentMap]:
    """One placed map per round of ``m`` (the record's nodes and edges, not yet placed).

    Keys (``n3``, ``r2``) are given over the whole debate, so they stay unique on the page; an
    edge to a claim of another round ends at a node of its own under its rebuttal."""
    for i, node in enumerate(m.nodes.values()):
        node.key = f"n{i}"
    for i, rebuttal in enumerate(m.rebuttals):
        rebuttal.css_key = f"r{i}"
    maps = []
    for round_no in m.rounds:
        nodes = {k: n for k, n in m.nodes.items() if n.claim.round == round_no}
        rebuttals = [r for r in m.rebuttals if r.round == round_no]
        ghosts = [g for g in m.ghosts if g.round == round_no]
        edges: list[Edge] = []
        for edge in m.edges:
            if edge.source.round != round_no:
                continue
            target = edge.target
            if isinstance(target, ClaimNode) and target.claim.round != round_no:
                elsewhere = GhostNode(
                    target.claim.id, edge.source.letter, round_no, elsewhere=target.claim.round
                )
                ghosts.append(elsewhere)
                edge = replace(edge, target=elsewhere, points=[])
            edges.append(edge)
        one = ArgumentMap(
            m.letters, m.names, [round_no], nodes, rebuttals, ghosts, edges, round_no=round_no
        )
        stack_layout(one, lang)
        maps.append(one)
    return maps


PRINT_PAGE_H = 860.0
"""The tallest a printed part of a round may be: a Letter page's text height (11 in less 24 mm,
965 px) less the round's heading; A4's is taller. A part is kept whole on its page."""


def build_print_maps(m: ArgumentMap, lang: str) -> list[tuple[int, list[ArgumentMap]]]:
    """Per round, its figure cut into parts that each fit a printed page, between personas:
    an arrow to a claim on another part ends at a node naming it (as for another round).

    A round's figure is one picture: printed whole, a browser slices it at the page's edge,
    through boxes and lines of text. Parts are drawn apart from the screen's figures (their own
    boxes), for any number of personas: on paper the map is read at its drawn size, 8 pt or more.
    """
    out: list[tuple[int, list[ArgumentMap]]] = []
    for round_no in m.rounds:
        letters = list(m.letters)
        parts: list[ArgumentMap] = []
        while letters:
            low, high = 1, len(letters)  # the most personas whose part fits: a binary search
            best = _part(m, round_no, letters[:1], len(parts), lang)
            while low <= high:
                middle = (low + high) // 2
                part = _part(m, round_no, letters[:middle], len(parts), lang)
                if part.height <= PRINT_PAGE_H or middle == 1:
                    best, low = part, middle + 1
                else:
                    high = middle - 1
            parts.append(best)
            letters = letters[len(best.shown or []) :]
        out.append((round_no, parts))
    return out


def _part(m: ArgumentMap, round_no: int, letters: list[str], index: int, lang: str) -> ArgumentMap:
    keep = set(letters)
    nodes = {
        key: replace(n, box=Box())
        for key, n in m.nodes.items()
        if n.claim.round == round_no and n.claim.persona in keep
    }
    rebuttals = {
        id(r): replace(r, box=Box())
        for r in m.rebuttals
        if r.round == round_no and r.letter in keep
    }
    ghosts = {
        id(g): replace(g, box=Box()) for g in m.ghosts if g.round == round_no and g.letter in keep
    }
    elsewhere: list[GhostNode] = []
    edges: list[Edge] = []
    for edge in m.edges:
        source = rebuttals.get(id(edge.source))
        if source is None:
            continue
        target = edge.target
        if isinstance(target, ClaimNode):
            if target.claim.id in nodes and target.claim.round == round_no:
                new_target: ClaimNode | GhostNode = nodes[target.claim.id]
            else:
                new_target = GhostNode(
                    target.claim.id, source.letter, round_no, elsewhere=target.claim.round
                )
                elsewhere.append(new_target)
        else:
            new_target = ghosts[id(target)]
        edges.append(replace(edge, source=source, target=new_target, points=[]))
    part = ArgumentMap(
        m.letters,
        m.names,
        [round_no],
        nodes,
        list(rebuttals.values()),
        [*ghosts.values(), *elsewhere],
        edges,
        round_no=round_no,
        print_part=index,
        shown=letters,
    )
    stack_layout(part, lang)
    return part


def _is_concession(edge: Edge) -> bool:
    return edge.kind.startswith("concede")


def nest_levels(spans: list[tuple[int, int]]) -> list[int]:
    """A track level for each span (first, last item index; 0 is nearest the column) so that a
    span holding another runs outside it, and two spans on one level share no item.

    Shortest first: a span goes above every span it holds, then to the first level free over
    its whole length. A pair of spans can then cross only when they interleave."""
    order = sorted(range(len(spans)), key=lambda i: (spans[i][1] - spans[i][0], spans[i], i))
    levels = [0] * len(spans)
    placed: list[int] = []
    for i in order:
        low, high = spans[i]
        floor = 0
        for j in placed:
            if low <= spans[j][0] and spans[j][1] <= high:
                floor = max(floor, levels[j] + 1)
        taken = {levels[j] for j in placed if spans[j][0] <= high and low <= spans[j][1]}
        level = floor
        while level in taken:
            level += 1
        levels[i] = level
        placed.append(i)
    return levels


def stub_order(items: list[tuple[int, int, bool]]) -> list[int]:
    """The order, top to bottom, of the stubs at one side of one box: (edge, level, whether the
    edge's other end is above). Those going up first, the outer ones lower; then those going
    down, the outer ones higher: then no bracket's stub meets another's track."""
    up = sorted((it for it in items if it[2]), key=lambda it: (it[1], it[0]))
    down = sorted((it for it in items if not it[2]), key=lambda it: (-it[1], it[0]))
    return [it[0] for it in up + down]


def _spread(count: int, middle: float) -> list[float]:
    return [middle + (k - (count - 1) / 2) * PITCH for k in range(count)]


def _end_inset(box: Box, y: float, radius: float) -> float:
    """How far a rounded end of ``box`` (corner ``radius``) is inside its side at height ``y``."""
    d = max(0.0, box.y + radius - y, y - (box.bottom - radius))
    return radius - math.sqrt(max(0.0, radius**2 - d**2))


def stack_layout(m: ArgumentMap, lang: str) -> None:
    """Place one round's nodes in a column and route every edge as a bracket in a margin."""
    edges = m.edges
    margin = {i: e for i, e in enumerate(edges) if isinstance(e.target, ClaimNode)}
    for edge in margin.values():
        side: Side = "right" if _is_concession(edge) else "left"
        edge.source_side = edge.target_side = side

    letters = [k for k in m.letters if m.shown is None or k in m.shown]
    # The column's order: per persona, its claims, its rebuttal, the targets under it.
    order: list[object] = []
    for letter in letters:
        order += [n for n in m.nodes.values() if n.claim.persona == letter]
        for rebuttal in (r for r in m.rebuttals if r.letter == letter):
            order.append(rebuttal)
            order += [g for g in m.ghosts if g.letter == letter and g.round == rebuttal.round]
    index = {id(item): k for k, item in enumerate(order)}

    def span(edge: Edge) -> tuple[int, int]:
        a, b = index[id(edge.source)], index[id(edge.target)]
        return (min(a, b), max(a, b))

    levels: dict[int, int] = {}
    depth: dict[Side, int] = {"left": 0, "right": 0}
    for side in ("left", "right"):
        ids = [i for i, e in margin.items() if e.source_side == side]
        for i, level in zip(ids, nest_levels([span(edges[i]) for i in ids]), strict=True):
            levels[i] = level
            depth[side] = max(depth[side], level + 1)

    def margin_width(side: Side) -> float:
        if not depth[side]:
            return MARGIN_PAD
        return FIRST_TRACK + (depth[side] - 1) * PITCH + MARGIN_PAD

    left, right = margin_width("left"), margin_width("right")
    col_w = max(MIN_STACK_COLUMN, min(COLUMN, STACK_WIDTH - left - right))
    m.column_width = col_w
    m.column_xs = [left] * len(m.letters)  # every persona's column is the one column
    m.width = left + col_w + right
    m.legend = _legend(lang, m.width)
    legend_rows = len({item.y for item in m.legend})
    legend_bottom = m.legend[0].y - 11 + legend_rows * 22.0 if m.legend else 0.0

    arrivals: dict[tuple[int, Side], int] = {}
    departures: dict[tuple[int, Side], int] = {}
    for edge in margin.values():
        key = (id(edge.target), edge.target_side)
        arrivals[key] = arrivals.get(key, 0) + 1
        dkey = (id(edge.source), edge.source_side)
        departures[dkey] = departures.get(dkey, 0) + 1

    def most(item: object, counts: dict[tuple[int, Side], int]) -> int:
        return max(counts.get((id(item), "left"), 0), counts.get((id(item), "right"), 0))

    ghost_edges: dict[int, int] = {}  # rebuttal -> edges down to nodes under it
    for edge in edges:
        if isinstance(edge.target, GhostNode):
            ghost_edges[id(edge.source)] = ghost_edges.get(id(edge.source), 0) + 1

    x = left
    y = legend_bottom + LEGEND_GAP
    m.heads = []
    m.head_y = y
    for letter in letters:
        m.heads.append((letter, Box(x, y, col_w, NAME_H)))
        y += NAME_H + NAME_GAP
        for node in (n for n in m.nodes.values() if n.claim.persona == letter):
            header = node_header(node, Box(0.0, 0.0, col_w, 0.0), lang)
            node.lines, node.cut = wrap_to_width(
                fold_lookalikes(node.claim.text), claim_text_width(col_w), CLAIM_TEXT, MAX_LINES
            )
            text_h = TEXT_TOP + header.rows * BADGE_ROW_H + max(1, len(node.lines)) * LINE_H
            arrive_h = 2 * ARRIVAL_PAD + max(0, most(node, arrivals) - 1) * PITCH
            node.box = Box(x, y, col_w, max(text_h + TEXT_BOTTOM, arrive_h))
            y += node.box.h + GAP
        for rebuttal in (r for r in m.rebuttals if r.letter == letter):
            h = max(float(ANCHOR_H), 2 * PILL_PAD + max(0, most(rebuttal, departures) - 1) * PITCH)
            rebuttal.box = Box(x + ANCHOR_INSET, y, col_w - 2 * ANCHOR_INSET, h)
            y += h + GAP
            under = [g for g in m.ghosts if g.letter == letter and g.round == rebuttal.round]
            drops = ghost_edges.get(id(rebuttal), 0)
            inset = ANCHOR_INSET + FIRST_TRACK + max(0, drops - 1) * GHOST_STEP + 10
            for ghost in under:
                ghost.box = Box(x + inset, y, col_w - inset - 12, GHOST_H)
                y += GHOST_H + GAP
        y += PERSONA_GAP - GAP
    if not m.nodes:
        y += 40
    m.height = y + 6
    m.bands = {m.rounds[0]: (m.head_y, m.height)} if m.rounds else {}

    _route(m, margin, levels, index)


def _route(
    m: ArgumentMap, margin: dict[int, Edge], levels: dict[int, int], index: dict[int, int]
) -> None:
    col_left = m.column_xs[0] if m.column_xs else 0.0
    col_right = col_left + m.column_width

    def track_x(side: Side, level: int) -> float:
        if side == "left":
            return col_left - FIRST_TRACK - level * PITCH
        return col_right + FIRST_TRACK + level * PITCH

    ends: dict[tuple[int, Side, str], list[tuple[int, int, bool]]] = {}
    for i, edge in margin.items():
        up = index[id(edge.target)] < index[id(edge.source)]  # the target above its rebuttal
        ends.setdefault((id(edge.source), edge.source_side, "from"), []).append((i, levels[i], up))
        ends.setdefault((id(edge.target), edge.target_side, "to"), []).append(
            (i, levels[i], not up)
        )
    start: dict[int, tuple[float, float]] = {}
    finish: dict[int, tuple[float, float]] = {}
    for (_, side, which), items in ends.items():
        first = margin[items[0][0]]
        box = first.source.box if which == "from" else first.target.box
        ys = _spread(len(items), box.cy)
        for i, y in zip(stub_order(items), ys, strict=True):
            if which == "from":
                inset = _end_inset(box, y, min(12.0, box.h / 2))
                start[i] = (box.x + inset if side == "left" else box.right - inset, y)
            else:
                finish[i] = (box.x if side == "left" else box.right, y)
    for i, edge in margin.items():
        (sx, sy), (tx, ty) = start[i], finish[i]
        run = track_x(edge.source_side, levels[i])
        edge.points = [(sx, sy), (run, sy), (run, ty), (tx, ty)]

    # An edge to a "no such claim" node (or a claim of another round) drops from its
    # rebuttal's bottom, left of the nodes under it, each on its own line, into its node's side.
    # The nearest node gets the line nearest the nodes: no line crosses a nearer node's stub.
    drops = [(i, e) for i, e in enumerate(m.edges) if isinstance(e.target, GhostNode)]
    drops.sort(key=lambda item: (id(item[1].source), item[1].target.box.y, item[0]))
    seen: dict[int, int] = {}
    for _, edge in drops:
        target = edge.target
        assert isinstance(target, GhostNode)
        src, dst = edge.source.box, target.box
        k = seen.get(id(edge.source), 0)
        seen[id(edge.source)] = k + 1
        x = dst.x - 10 - k * GHOST_STEP
        radius = min(12.0, src.h / 2)
        dx = max(0.0, src.x + radius - x, x - (src.right - radius))
        y = src.bottom - (radius - math.sqrt(max(0.0, radius**2 - dx**2)))
        edge.points = [(x, y), (x, dst.cy), (dst.x, dst.cy)]


def elsewhere_words(ghost: GhostNode, lang: str) -> str:
    """What a node standing for a claim of another round says."""
    return f"{ghost.target} — {label('round', lang)} {ghost.elsewhere}"


__all__ = [
    "PITCH",
    "STACK_PERSONAS",
    "STACK_WIDTH",
    "build_print_maps",
    "build_round_maps",
    "elsewhere_words",
    "nest_levels",
    "stack_layout",
    "stacked",
    "stub_order",
]
