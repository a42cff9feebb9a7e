"""The argument map's model and layout: nodes and edges from the record, then their places.

Layout (no graph library): one column per persona, one band per round, top to bottom. In its
cell a persona's claims of that round are stacked, then a small node for its rebuttal, from
which every counter (refute / undercut / question) and concession (full / partial) of that
rebuttal leaves as an edge to the claim it targets. A target that is no claim of the debate
gets a dashed "no such claim" node under the rebuttal, so every counter and concession is
drawn, counted or not.

Nothing is drawn over anything else: text is measured (:mod:`.metrics`) against the width it
has, a claim's text wraps onto more lines (the box grows) instead of shrinking, and edges run
only where no box is (:mod:`.routing`): out of the rebuttal's side into the gutter between
columns, along a lane under the round's band, up the gutter beside the target and into its
side, each arrowhead at its own height there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from argue.domain import Claim
from argue.grounding.index import ReferenceIndex
from argue.records.history import DebateHistory
from argue.records.labels import label, label_of
from argue.render.inline import fold_lookalikes
from argue.render.words import target_note_words
from argue.report.argument_map.metrics import (
    BADGE,
    CLAIM_ID,
    CLAIM_TEXT,
    LEGEND,
    SCORE,
    clip_to_width,
    text_width,
    wrap_to_width,
)
from argue.report.argument_map.routing import assign_tracks, spread
from argue.text.typography import format_number

EdgeKind = Literal["refute", "undercut", "question", "concede_full", "concede_partial"]
EDGE_KINDS: tuple[EdgeKind, ...] = (
    "refute",
    "undercut",
    "question",
    "concede_full",
    "concede_partial",
)
Side = Literal["left", "right"]

# Geometry, in SVG user units = CSS px: the report shows the map at this natural size (in a
# scroll box when it is wider than the page), so 11.5 px text is 11.5 px on screen.
MAP_WIDTH = 1200  # up to five personas fit the report's 1200 px column
LEFT = 46  # round labels
RIGHT = 14
GUTTER = 56  # between persona columns, at least: edges run here (wider when they need it)
MIN_COLUMN = 180
MAX_COLUMN = 420
LEGEND_TOP = 4.0
LEGEND_ROW_H = 22.0
HEAD_H = 22.0
HEAD_GAP = 14.0
ANCHOR_H = 24
ANCHOR_INSET = 18  # a rebuttal node is narrower than its column: its edges leave its ends
GHOST_H = 22
GHOST_INSET = 48  # left of a "no such claim" node: the edges down to it run here
GAP = 10
BAND_PAD_TOP = 12
BAND_PAD_BOTTOM = 10
# A claim node: its id at the left of the header line, its score at the right, its badges
# ("conceded", "unverified") between them or, when they do not fit, in rows of their own
# under the header (the node grows by one row each); then the claim's text, wrapped.
NODE_PAD_X = 12  # after the persona stripe
NODE_PAD_RIGHT = 8
HEADER_TOP = 5.0
HEADER_H = 16.0
HEADER_BASELINE = HEADER_TOP + 12.0
BADGE_H = 16.0
BADGE_PAD = 12.0
BADGE_GAP = 6.0
BADGE_ROW_H = 20.0
TEXT_TOP = 26.0  # first line's top, under the header (and badge rows)
LINE_H = 15.0
TEXT_BOTTOM = 8.0
MAX_LINES = 6  # the rest is one tap away: a node links to the claim's full text
NODE_H = TEXT_TOP + 2 * LINE_H + TEXT_BOTTOM  # a two-line claim without badge rows
# Arrowheads at one side of a box: at least ARRIVAL_STEP apart (an 8 px head leaves 4 px).
ARRIVAL_STEP = 12.0
ARRIVAL_PAD = 9.0


@dataclass
class Box:
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h


@dataclass
class ClaimNode:
    claim: Claim
    score: float | None
    unverified: list[str]
    conceded_by: list[tuple[str, int, str]] = field(default_factory=list)  # letter, round, kind
    countered_by: list[tuple[str, int, str]] = field(default_factory=list)
    box: Box = field(default_factory=Box)
    key: str = ""  # "n3": the node's CSS class, which its incoming edges name (to-n3)
    lines: list[str] = field(default_factory=list)  # its text as drawn
    cut: bool = False  # the text did not fit in MAX_LINES (the full text is one link away)


@dataclass(frozen=True)
class Badge:
    word: str
    css: str
    box: Box


@dataclass(frozen=True)
class NodeHeader:
    """Where a claim node's header puts its id, score and badges (boxes: the text's line box).
    ``rows``: rows under the header line (badges, or the score when not even it fits)."""

    id_text: str
    id_box: Box
    score_text: str
    score_box: Box
    badges: list[Badge]
    rows: int


def node_badges(node: ClaimNode, lang: str) -> list[tuple[str, str]]:
    """Every badge a claim node carries: (code's word, css class)."""
    badges = []
    if node.conceded_by:
        badges.append((label("conceded_badge", lang), "b-conceded"))
    if node.unverified:
        badges.append((label("unverified", lang), "b-unverified"))
    return badges


def badge_width(word: str) -> float:
    return text_width(word, BADGE) + BADGE_PAD


def score_words(node: ClaimNode, lang: str) -> str:
    score = "—" if node.score is None else format_number(node.score, lang)
    return f"{label('score', lang)} {score}"


def node_header(node: ClaimNode, box: Box, lang: str) -> NodeHeader:
    """The header's boxes: every badge is placed, none overlaps the id, the score or another,
    and all stay inside the node (measured, not counted in characters)."""
    top = box.y + HEADER_TOP
    left, right = box.x + NODE_PAD_X, box.x + box.w - NODE_PAD_RIGHT
    id_text = clip_to_width(node.claim.id, right - left, CLAIM_ID)
    id_box = Box(left, top, text_width(id_text, CLAIM_ID), HEADER_H)
    score_text = score_words(node, lang)
    score_w = text_width(score_text, SCORE)
    words = node_badges(node, lang)
    widths = [badge_width(word) for word, _ in words]
    badges: list[Badge] = []
    if id_box.right + BADGE_GAP + score_w <= right:
        score_box = Box(right - score_w, top, score_w, HEADER_H)
        start = id_box.right + BADGE_GAP
        needed = sum(widths) + BADGE_GAP * max(0, len(widths) - 1)
        if needed <= score_box.x - BADGE_GAP - start:
            x = start
            for (word, css), w in zip(words, widths, strict=True):
                badges.append(Badge(word, css, Box(x, top, w, BADGE_H)))
                x += w + BADGE_GAP
            return NodeHeader(id_text, id_box, score_text, score_box, badges, 0)
        rows, x, y = 1, left, top + BADGE_ROW_H
    else:  # the score on a row of its own, at the left; the badges after it
        score_text = clip_to_width(score_text, right - left, SCORE)
        score_w = text_width(score_text, SCORE)
        score_box = Box(left, top + BADGE_ROW_H, score_w, HEADER_H)
        rows, x, y = 1, score_box.right + BADGE_GAP, top + BADGE_ROW_H
    for (word, css), w in zip(words, widths, strict=True):
        if x > left and x + w > right:
            rows, x, y = rows + 1, left, y + BADGE_ROW_H
        if w > right - left:  # a badge wider than the node (a very long word): cut it
            word = clip_to_width(word, right - left - BADGE_PAD, BADGE)
            w = badge_width(word)
        badges.append(Badge(word, css, Box(x, y, w, BADGE_H)))
        x += w + BADGE_GAP
    return NodeHeader(id_text, id_box, score_text, score_box, badges, rows)


def claim_text_width(column_width: float) -> float:
    return column_width - NODE_PAD_X - NODE_PAD_RIGHT


def text_top(box: Box, rows: int) -> float:
    """The top of a claim node's first text line."""
    return box.y + TEXT_TOP + rows * BADGE_ROW_H


@dataclass
class RebuttalNode:
    letter: str
    round: int
    counters: int
    concessions: int
    box: Box = field(default_factory=Box)
    css_key: str = ""  # "r2": its CSS class, which its outgoing edges name (from-r2)

    @property
    def key(self) -> str:
        return f"{self.letter}{self.round}"


@dataclass
class GhostNode:
    """A target id that is no claim of the debate."""

    target: str
    letter: str
    round: int
    box: Box = field(default_factory=Box)
    # A claim of another round (a round-by-round view draws only its own round): that round.
    elsewhere: int | None = None


@dataclass
class Edge:
    kind: EdgeKind
    source: RebuttalNode
    target: ClaimNode | GhostNode
    counted: bool
    text: str
    note: str
    # Where it runs (from the rebuttal's end to the arrowhead's tip) and which sides it
    # leaves and enters; set by the layout.
    points: list[tuple[float, float]] = field(default_factory=list)
    source_side: Side = "right"
    target_side: Side = "left"


@dataclass(frozen=True)
class LegendItem:
    """One entry of the legend row(s): an edge kind's line and word, or a node badge."""

    kind: str  # an edge kind, "not_counted", or a badge's css class
    word: str
    x: float
    y: float  # the row's middle
    width: float


@dataclass
class ArgumentMap:
    letters: list[str]
    names: dict[str, str]
    rounds: list[int]
    nodes: dict[str, ClaimNode]
    rebuttals: list[RebuttalNode]
    ghosts: list[GhostNode]
    edges: list[Edge]
    width: float = MAP_WIDTH
    height: float = 0.0
    column_width: float = 0.0
    bands: dict[int, tuple[float, float]] = field(default_factory=dict)  # round -> (top, bottom)
    column_xs: list[float] = field(default_factory=list)
    gutters: list[float] = field(default_factory=list)  # gutter i: left of column i (widths)
    head_y: float = 0.0
    legend: list[LegendItem] = field(default_factory=list)
    # The round-by-round view (:mod:`.stack`): the one round drawn, and each persona's name bar
    # above its claims (the columns view has column heads instead).
    round_no: int | None = None
    heads: list[tuple[str, Box]] = field(default_factory=list)
    # A printed page's part of a round (:func:`.stack.build_print_maps`): which part, and the
    # personas it shows (the others' claims are on other parts). Printed parts carry no ids.
    print_part: int | None = None
    shown: list[str] | None = None

    def column_x(self, letter: str) -> float:
        index = self.letters.index(letter)
        if self.column_xs:
            return self.column_xs[index]
        return LEFT + index * (self.column_width + GUTTER)

    def column_of(self, letter: str) -> int:
        return self.letters.index(letter) if letter in self.letters else 0


def build_map(
    history: DebateHistory,
    references: ReferenceIndex,
    scores: dict[str, float],
    lang: str = "en",
) -> ArgumentMap:
    """Nodes and edges from the record, then their places (one column per persona)."""
    argument_map = map_model(history, references, scores, lang)
    _layout(argument_map, lang)
    return argument_map


def map_model(
    history: DebateHistory,
    references: ReferenceIndex,
    scores: dict[str, float],
    lang: str = "en",
) -> ArgumentMap:
    """Nodes and edges from the record, not yet placed."""
    nodes: dict[str, ClaimNode] = {}
    for claim in history.all_claims():
        unverified = list(
            dict.fromkeys(
                claim.unverified_evidence_ids
                + claim.unverified_references
                + [r.text for r in references.unverified(claim.text)]
                + [r.text for r in references.unverified(claim.warrant)]
            )
        )
        nodes[claim.id] = ClaimNode(claim, scores.get(claim.id), unverified)
    rebuttals: list[RebuttalNode] = []
    ghosts: dict[tuple[str, str], GhostNode] = {}
    edges: list[Edge] = []

    def target_of(raw: str, source: RebuttalNode) -> ClaimNode | GhostNode:
        claim_id = raw.strip()
        if claim_id in nodes:
            return nodes[claim_id]
        key = (source.key, claim_id)
        if key not in ghosts:
            ghosts[key] = GhostNode(claim_id, source.letter, source.round)
        return ghosts[key]

    for record in history.ordered_rounds():
        for letter in history.letters:
            rebuttal = record.rebuttals.get(letter)
            if rebuttal is None:
                continue
            source = RebuttalNode(
                letter, record.round, len(rebuttal.counters), len(rebuttal.concessions)
            )
            rebuttals.append(source)
            for counter in rebuttal.counters:
                target = target_of(counter.target_claim_id, source)
                edges.append(
                    Edge(
                        counter.kind,
                        source,
                        target,
                        counter.valid_target,
                        counter.text,
                        target_note_words(counter.target_note, lang),
                    )
                )
                if isinstance(target, ClaimNode) and counter.valid_target:
                    target.countered_by.append((letter, record.round, counter.kind))
            for concession in rebuttal.concessions:
                target = target_of(concession.claim_id, source)
                kind: EdgeKind = (
                    "concede_partial" if concession.kind == "partial" else "concede_full"
                )
                edges.append(
                    Edge(
                        kind,
                        source,
                        target,
                        concession.valid_target,
                        concession.text,
                        target_note_words(concession.target_note, lang),
                    )
                )
                if isinstance(target, ClaimNode) and concession.valid_target:
                    target.conceded_by.append((letter, record.round, concession.kind))
    names = {k: history.persona_name(k) for k in history.letters}
    rounds = [r.round for r in history.ordered_rounds()]
    return ArgumentMap(
        history.letters, names, rounds, nodes, rebuttals, list(ghosts.values()), edges
    )


# Edge channels: tracks TRACK apart, the nearest TRACK_MARGIN from a column (room for an
# arrowhead), lanes under a band LANE_PAD from its cells.
TRACK = 6.0
TRACK_MARGIN = 13.0
TRACK_CLEARANCE = 4.0
LANE_PAD = 8.0
DEPARTURE_STEP = 5.0
LEGEND_LINE = 34.0  # an edge kind's sample line, then its word


def _legend(lang: str, width: float) -> list[LegendItem]:
    """The legend's entries in rows that fit ``width``: each edge kind, then the two badges."""
    entries: list[tuple[str, str, float]] = [
        (kind, label_of("edge", kind, lang), 0.0) for kind in (*EDGE_KINDS, "not_counted")
    ]
    entries = [(k, w, LEGEND_LINE + 6 + text_width(w, LEGEND)) for k, w, _ in entries]
    for word, css in (
        (label("conceded_badge", lang), "b-conceded"),
        (label("unverified", lang), "b-unverified"),
    ):
        entries.append((css, word, badge_width(word)))
    items: list[LegendItem] = []
    x, y = float(LEFT), LEGEND_TOP + LEGEND_ROW_H / 2
    for kind, word, w in entries:
        if x > LEFT and x + w > width - RIGHT:
            x, y = float(LEFT), y + LEGEND_ROW_H
        items.append(LegendItem(kind, word, x, y, w))
        x += w + (BADGE_GAP if kind.startswith("b-") else 18.0)
    return items


def _sides(m: ArgumentMap, edge: Edge, target: ClaimNode) -> tuple[int, int]:
    """Set which side the edge leaves and enters; return its departure and arrival gutters
    (gutter i is left of column i). To the left: out of the rebuttal's left end, into the
    target's right side; to the right: the mirror; to the persona's own column: out of the
    right end, back into the target's right side."""
    s, t = m.column_of(edge.source.letter), m.column_of(target.claim.persona)
    if t < s:
        edge.source_side, edge.target_side = "left", "right"
        return s, t + 1
    edge.source_side = "right"
    if t > s:
        edge.target_side = "left"
        return s + 1, t
    edge.target_side = "right"
    return s + 1, s + 1


def _layout(m: ArgumentMap, lang: str = "en") -> None:
    """Columns by persona, bands by round; within a cell: claims, rebuttal, unknown targets;
    then the edges' channels, the gutters' widths and the columns' places."""
    n = max(1, len(m.letters))
    inner = MAP_WIDTH - LEFT - RIGHT - GUTTER * (n - 1)
    m.column_width = col_w = min(MAX_COLUMN, max(MIN_COLUMN, inner / n))
    for i, node in enumerate(m.nodes.values()):
        node.key = f"n{i}"
    for i, rebuttal in enumerate(m.rebuttals):
        rebuttal.css_key = f"r{i}"
    m.legend = _legend(lang, LEFT + n * col_w + (n - 1) * GUTTER + RIGHT)
    legend_rows = len({item.y for item in m.legend})
    m.head_y = LEGEND_TOP + legend_rows * LEGEND_ROW_H + 4
    placed = {(node.claim.persona, node.claim.round) for node in m.nodes.values()}
    placed &= {(letter, r) for letter in m.letters for r in m.rounds}

    # Which gutters each edge to a claim uses; how many arrowheads reach each side of a box.
    gutters: dict[int, tuple[int, int]] = {}
    arrivals: dict[tuple[str, Side], int] = {}
    for i, edge in enumerate(m.edges):
        target = edge.target
        if isinstance(target, ClaimNode) and (target.claim.persona, target.claim.round) in placed:
            gutters[i] = _sides(m, edge, target)
            side = (target.key, edge.target_side)
            arrivals[side] = arrivals.get(side, 0) + 1

    # Boxes (x relative to their column for now): claims grow with their text and arrowheads.
    for node in m.nodes.values():
        header = node_header(node, Box(0.0, 0.0, col_w, 0.0), lang)
        node.lines, node.cut = wrap_to_width(
            fold_lookalikes(node.claim.text), claim_text_width(col_w), CLAIM_TEXT, MAX_LINES
        )
        text_h = TEXT_TOP + header.rows * BADGE_ROW_H + max(1, len(node.lines)) * LINE_H
        most = max(arrivals.get((node.key, "left"), 0), arrivals.get((node.key, "right"), 0))
        arrive_h = 2 * ARRIVAL_PAD + max(0, most - 1) * ARRIVAL_STEP
        node.box = Box(0.0, 0.0, col_w, max(text_h + TEXT_BOTTOM, arrive_h))

    lane_y: dict[int, float] = {}
    y: float = m.head_y + HEAD_H + HEAD_GAP
    for round_no in m.rounds:
        top = bottom = y
        for letter in m.letters:
            cy = top + BAND_PAD_TOP
            for node in m.nodes.values():
                if node.claim.round == round_no and node.claim.persona == letter:
                    node.box.y = cy
                    cy += node.box.h + GAP
            for rebuttal in m.rebuttals:
                if rebuttal.round == round_no and rebuttal.letter == letter:
                    rebuttal.box = Box(ANCHOR_INSET, cy, col_w - 2 * ANCHOR_INSET, ANCHOR_H)
                    cy += ANCHOR_H + GAP
            for ghost in m.ghosts:
                if ghost.round == round_no and ghost.letter == letter:
                    ghost.box = Box(GHOST_INSET, cy, col_w - GHOST_INSET - 12, GHOST_H)
                    cy += GHOST_H + GAP
            bottom = max(bottom, cy)
        if bottom == top:
            bottom = top + BAND_PAD_TOP + 18 + GAP  # a round with nothing recorded yet
        # The lane under the band: one track per edge that changes gutter, apart where their
        # runs overlap.
        crossing = [
            i
            for i, (dep, arr) in gutters.items()
            if m.edges[i].source.round == round_no and dep != arr
        ]
        tracks = assign_tracks([(min(gutters[i]), max(gutters[i])) for i in crossing])
        lane_top = bottom - GAP + LANE_PAD
        for i, track in zip(crossing, tracks, strict=True):
            lane_y[i] = lane_top + track * TRACK
        lane_h = (2 * LANE_PAD + (max(tracks) * TRACK)) if tracks else 0.0
        band_bottom = bottom - GAP + lane_h + BAND_PAD_BOTTOM
        m.bands[round_no] = (top, band_bottom)
        y = band_bottom
    m.height = max(y, m.head_y + HEAD_H + 40) + 6

    # Vertical runs: in which gutter, over which heights; then a track each.
    runs: dict[int, list[tuple[int, tuple[float, float]]]] = {}  # gutter -> (edge, span)
    for i, (dep, arr) in gutters.items():
        edge, target = m.edges[i], m.edges[i].target
        assert isinstance(target, ClaimNode)
        src, dst = edge.source.box, target.box
        if dep == arr:
            span = (min(src.y, dst.y), max(src.bottom, dst.bottom))
            runs.setdefault(dep, []).append((i, span))
        else:
            lane = lane_y[i]
            runs.setdefault(dep, []).append((i, (min(src.y, lane), max(src.bottom, lane))))
            runs.setdefault(arr, []).append((i, (min(dst.y, lane), max(dst.bottom, lane))))
    track_of: dict[tuple[int, int], int] = {}  # (gutter, edge) -> track
    counts = [0] * (n + 1)
    for gutter, items in runs.items():
        tracks = assign_tracks([span for _, span in items], TRACK_CLEARANCE)
        for (i, _), track in zip(items, tracks, strict=True):
            track_of[(gutter, i)] = track
        counts[gutter] = max(tracks) + 1 if tracks else 0

    def needed(count: int) -> float:
        return 2 * TRACK_MARGIN + max(0, count - 1) * TRACK

    m.gutters = [float(LEFT)]
    m.gutters += [max(float(GUTTER), needed(counts[g])) for g in range(1, n)]
    m.gutters.append(float(RIGHT) if counts[n] == 0 else max(float(RIGHT), needed(counts[n])))
    m.column_xs = []
    x = float(LEFT)
    for c in range(n):
        if c:
            x += col_w + m.gutters[c]
        m.column_xs.append(x)
    m.width = m.column_xs[-1] + col_w + m.gutters[n]
    m.legend = _legend(lang, m.width)

    for node in m.nodes.values():
        if (node.claim.persona, node.claim.round) in placed:
            node.box.x = m.column_x(node.claim.persona)
    for rebuttal in m.rebuttals:
        rebuttal.box.x += m.column_x(rebuttal.letter)
    for ghost in m.ghosts:
        ghost.box.x += m.column_x(ghost.letter)

    _route(m, gutters, lane_y, track_of, counts)


def _route(
    m: ArgumentMap,
    gutters: dict[int, tuple[int, int]],
    lane_y: dict[int, float],
    track_of: dict[tuple[int, int], int],
    counts: list[int],
) -> None:
    """Each edge's points: out of the rebuttal's end (departures spread over its height), along
    its tracks, into the target's side at a height of its own."""
    n = len(m.letters)

    def run_x(gutter: int, i: int) -> float:
        """Edge ``i``'s track in ``gutter``, the tracks centred in the gutter."""
        left = m.column_xs[gutter - 1] + m.column_width
        right = m.column_xs[gutter] if gutter < n else left + m.gutters[n]
        return (left + right) / 2 + (track_of[(gutter, i)] - (counts[gutter] - 1) / 2) * TRACK

    # Where each edge's vertical run ends away from the box it touches: decides the order of
    # the stubs along that box's side so that a run does not cut across a neighbour's stub.
    arrive: dict[tuple[str, Side], list[tuple[int, float, float]]] = {}
    depart: dict[tuple[str, Side], list[tuple[int, float, float]]] = {}
    for i, (dep, arr) in gutters.items():
        edge = m.edges[i]
        target = edge.target
        assert isinstance(target, ClaimNode)
        dep_x, arr_x = run_x(dep, i), run_x(arr, i)
        far_dep = lane_y.get(i, target.box.cy)
        far_arr = lane_y.get(i, edge.source.box.cy)
        depart.setdefault((edge.source.css_key, edge.source_side), []).append((i, dep_x, far_dep))
        arrive.setdefault((target.key, edge.target_side), []).append((i, arr_x, far_arr))

    start: dict[int, tuple[float, float]] = {}
    for (key, side), items in depart.items():
        box = next(r.box for r in m.rebuttals if r.css_key == key)
        end = box.x if side == "left" else box.right
        ordered = _stub_order(items, end, box.cy)
        ys = spread(len(ordered), box.cy - 8, box.cy + 8, DEPARTURE_STEP)
        radius = box.h / 2
        for (i, _, _), sy in zip(ordered, ys, strict=True):
            inset = radius - (radius**2 - (sy - box.cy) ** 2) ** 0.5  # the rounded end
            start[i] = (end + inset if side == "left" else end - inset, sy)
    finish: dict[int, tuple[float, float]] = {}
    for (key, side), items in arrive.items():
        node = next(n for n in m.nodes.values() if n.key == key)
        box = node.box
        end = box.x if side == "left" else box.right
        ordered = _stub_order(items, end, box.cy)
        # Arrowheads from the right start at the top of the box, those from the left end at
        # its bottom: two boxes facing each other across a gutter never get heads at one
        # height (which would read as one double-headed arrow).
        count = len(ordered)
        room = box.h - 2 * ARRIVAL_PAD
        step = min(ARRIVAL_STEP + 2, room / (count - 1)) if count > 1 else 0.0
        first = (
            box.y + ARRIVAL_PAD
            if side == "right"
            else box.bottom - ARRIVAL_PAD - step * (count - 1)
        )
        if count == 1 and room >= 2 * ARRIVAL_STEP:
            first = (
                box.y + ARRIVAL_PAD + ARRIVAL_STEP / 2
                if side == "right"
                else box.bottom - ARRIVAL_PAD - ARRIVAL_STEP / 2
            )
        ys = [first + step * k for k in range(count)]
        for (i, _, _), ty in zip(ordered, ys, strict=True):
            finish[i] = (end, ty)

    for i, (dep, arr) in gutters.items():
        (sx, sy), (tx, ty) = start[i], finish[i]
        dep_x, arr_x = run_x(dep, i), run_x(arr, i)
        if dep == arr:
            m.edges[i].points = [(sx, sy), (dep_x, sy), (dep_x, ty), (tx, ty)]
        else:
            lane = lane_y[i]
            m.edges[i].points = [
                (sx, sy),
                (dep_x, sy),
                (dep_x, lane),
                (arr_x, lane),
                (arr_x, ty),
                (tx, ty),
            ]
    # An edge to an unknown target runs down the left of the "no such claim" nodes, each on
    # its own line (closer together when a rebuttal has many), into its node's left side.
    unknown: dict[str, int] = {}  # rebuttal -> how many unknown targets
    for edge in m.edges:
        if isinstance(edge.target, GhostNode):
            unknown[edge.source.key] = unknown.get(edge.source.key, 0) + 1
    seen: dict[str, int] = {}
    for edge in m.edges:
        if isinstance(edge.target, GhostNode):
            src, dst = edge.source.box, edge.target.box
            k = seen.get(edge.source.key, 0)
            seen[edge.source.key] = k + 1
            step = min(5.0, 24.0 / max(1, unknown[edge.source.key] - 1))
            x = dst.x - 8 - k * step
            radius = src.h / 2
            off = max(0.0, src.x + radius - x)  # under the rebuttal's rounded end
            y = src.cy + (max(0.0, radius**2 - off**2)) ** 0.5
            edge.points = [(x, y), (x, dst.cy), (dst.x, dst.cy)]


def _stub_order(
    items: list[tuple[int, float, float]], side_x: float, middle: float
) -> list[tuple[int, float, float]]:
    """Stubs along a side, top to bottom: those whose run goes up first, nearest track first;
    then those whose run goes down, farthest track first. Then no run crosses another's stub
    at that side."""
    up = sorted((it for it in items if it[2] < middle), key=lambda it: abs(it[1] - side_x))
    down = sorted((it for it in items if it[2] >= middle), key=lambda it: -abs(it[1] - side_x))
    return up + down
