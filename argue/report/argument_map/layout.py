"""The argument map's model and layout: nodes and edges from the record, then their places.

Layout (no graph library): one column per persona, one band per round, top to bottom. In its
cell a persona's claims of that round are stacked, then a small node for its rebuttal, from
which every counter (refute / undercut / question) and concession (full / partial) of that
rebuttal leaves as an edge to the claim it targets. A target that is no claim of the debate
gets a dashed "no such claim" node beside the rebuttal, so every counter and concession is
drawn, counted or not. A debate's rebuttals target the claims of the same or earlier rounds,
so edges run sideways or upwards and the picture reads like the debate: round by round.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from argue.domain import Claim
from argue.grounding.index import ReferenceIndex
from argue.records.history import DebateHistory
from argue.records.labels import label
from argue.render.words import target_note_words

EdgeKind = Literal["refute", "undercut", "question", "concede_full", "concede_partial"]
EDGE_KINDS: tuple[EdgeKind, ...] = (
    "refute",
    "undercut",
    "question",
    "concede_full",
    "concede_partial",
)

# Geometry, in SVG user units (1 unit = 1 CSS px when the figure is 1200 px wide).
WIDTH = 1200
LEFT = 46  # round labels
RIGHT = 14
TOP = 66  # the legend, then the persona headers
GUTTER = 92  # between persona columns: edges route through here
MIN_COLUMN = 190
NODE_H = 60
ANCHOR_H = 24
GHOST_H = 24
GAP = 10
BAND_PAD_TOP = 12
BAND_PAD_BOTTOM = 16
CHAR_W = 6.4  # average width of an 11.5 px sans-serif character
# A claim node's header: its id (12.5 px bold monospace) at the left, its score at the right and
# its badges ("conceded", "unverified"; 10.5 px bold) between them, or, when they do not fit
# there, in rows of their own under the header (the node grows by one row each).
HEADER_BASELINE = 16.0
HEADER_ASCENT = 11.5
NID_CHAR_W = 7.6
BADGE_CHAR_W = 6.6
BADGE_PAD = 10.0
BADGE_H = 15.0
BADGE_GAP = 6.0
BADGE_ROW_H = 19.0


@dataclass
class Box:
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    h: float = 0.0

    @property
    def cy(self) -> float:
        return self.y + self.h / 2


@dataclass
class ClaimNode:
    claim: Claim
    score: float | None
    unverified: list[str]
    conceded_by: list[tuple[str, int, str]] = field(default_factory=list)  # letter, round, kind
    countered_by: list[tuple[str, int, str]] = field(default_factory=list)
    box: Box = field(default_factory=Box)


@dataclass(frozen=True)
class Badge:
    word: str
    css: str
    box: Box


@dataclass(frozen=True)
class NodeHeader:
    """Where a claim node's header puts its id, score and badges (boxes: top and height of the
    text line). ``rows``: badge rows under the header line (0: beside the id)."""

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
    return len(word) * BADGE_CHAR_W + BADGE_PAD


def node_header(node: ClaimNode, box: Box, lang: str) -> NodeHeader:
    """The header's boxes: every badge is placed, none overlaps the id, the score or another."""
    top = box.y + HEADER_BASELINE - HEADER_ASCENT
    id_box = Box(box.x + 12, top, len(node.claim.id) * NID_CHAR_W, BADGE_H)
    score = "—" if node.score is None else f"{node.score:.2f}"
    score_text = f"{label('score', lang)} {score}"
    score_w = len(score_text) * CHAR_W
    score_box = Box(box.x + box.w - 8 - score_w, top, score_w, BADGE_H)
    words = node_badges(node, lang)
    widths = [badge_width(word) for word, _ in words]
    start = id_box.x + id_box.w + 8
    needed = sum(widths) + BADGE_GAP * max(0, len(widths) - 1)
    badges: list[Badge] = []
    if needed <= score_box.x - BADGE_GAP - start:
        x = start
        for (word, css), w in zip(words, widths, strict=True):
            badges.append(Badge(word, css, Box(x, top, w, BADGE_H)))
            x += w + BADGE_GAP
        return NodeHeader(id_box, score_text, score_box, badges, 0)
    left, right = box.x + 12, box.x + box.w - 8
    rows, x, y = 1, left, top + BADGE_ROW_H
    for (word, css), w in zip(words, widths, strict=True):
        if x > left and x + w > right:
            rows, x, y = rows + 1, left, y + BADGE_ROW_H
        badges.append(Badge(word, css, Box(x, y, w, BADGE_H)))
        x += w + BADGE_GAP
    return NodeHeader(id_box, score_text, score_box, badges, rows)


@dataclass
class RebuttalNode:
    letter: str
    round: int
    counters: int
    concessions: int
    box: Box = field(default_factory=Box)

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


@dataclass
class Edge:
    kind: EdgeKind
    source: RebuttalNode
    target: ClaimNode | GhostNode
    counted: bool
    text: str
    note: str


@dataclass
class ArgumentMap:
    letters: list[str]
    names: dict[str, str]
    rounds: list[int]
    nodes: dict[str, ClaimNode]
    rebuttals: list[RebuttalNode]
    ghosts: list[GhostNode]
    edges: list[Edge]
    width: float = WIDTH
    height: float = 0.0
    column_width: float = 0.0
    bands: dict[int, tuple[float, float]] = field(default_factory=dict)  # round -> (top, bottom)

    def column_x(self, letter: str) -> float:
        return LEFT + self.letters.index(letter) * (self.column_width + GUTTER)


def build_map(
    history: DebateHistory,
    references: ReferenceIndex,
    scores: dict[str, float],
    lang: str = "en",
) -> ArgumentMap:
    """Nodes and edges from the record, then their places."""
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
    argument_map = ArgumentMap(
        history.letters, names, rounds, nodes, rebuttals, list(ghosts.values()), edges
    )
    _layout(argument_map, lang)
    return argument_map


def _layout(m: ArgumentMap, lang: str = "en") -> None:
    """Columns by persona, bands by round; within a cell: claims, rebuttal, unknown targets."""
    n = max(1, len(m.letters))
    m.column_width = max(MIN_COLUMN, (WIDTH - LEFT - RIGHT - GUTTER * (n - 1)) / n)
    m.width = LEFT + RIGHT + n * m.column_width + (n - 1) * GUTTER
    y: float = TOP
    for round_no in m.rounds:
        top = y
        bottom = y
        for letter in m.letters:
            x = m.column_x(letter)
            cy = top + BAND_PAD_TOP
            for node in m.nodes.values():
                if node.claim.round == round_no and node.claim.persona == letter:
                    node.box = Box(x, cy, m.column_width, NODE_H)
                    node.box.h += node_header(node, node.box, lang).rows * BADGE_ROW_H
                    cy += node.box.h + GAP
            for rebuttal in m.rebuttals:
                if rebuttal.round == round_no and rebuttal.letter == letter:
                    # Indented towards the side its edges leave from, so they do not start
                    # under its own claims.
                    rebuttal.box = Box(x + 18, cy, m.column_width - 36, ANCHOR_H)
                    cy += ANCHOR_H + GAP
            for ghost in m.ghosts:
                if ghost.round == round_no and ghost.letter == letter:
                    ghost.box = Box(x + 36, cy, m.column_width - 72, GHOST_H)
                    cy += GHOST_H + GAP
            bottom = max(bottom, cy)
        if bottom == top:
            bottom = top + BAND_PAD_TOP + 18  # a round with nothing recorded yet
        m.bands[round_no] = (top, bottom + BAND_PAD_BOTTOM - GAP)
        y = bottom + BAND_PAD_BOTTOM
    m.height = max(y, TOP + 40) + 6
