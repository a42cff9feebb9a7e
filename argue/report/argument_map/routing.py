"""Edge routing geometry for the argument map: tracks in a channel, and paths with round corners.

An edge of the map runs in channels where no box is: the vertical gutters between persona
columns and a horizontal lane under each round's band. Two edges that share a channel over an
overlapping stretch get different tracks (x in a gutter, y in a lane), so no two edges are drawn
on top of each other; the layout decides which channel an edge uses.
"""

from __future__ import annotations

from argue.report.svg import num

Point = tuple[float, float]


def assign_tracks(spans: list[tuple[float, float]], clearance: float = 0.0) -> list[int]:
    """A track number for each span (start, end) so that spans on one track are apart by more
    than ``clearance``; greedy over the spans by start, which uses as few tracks as the
    largest number of spans overlapping at one point (interval graph colouring)."""
    order = sorted(range(len(spans)), key=lambda i: (min(spans[i]), max(spans[i]), i))
    track_end: list[float] = []  # per track: where its last span ends
    tracks = [0] * len(spans)
    for i in order:
        start, end = min(spans[i]), max(spans[i])
        for track, last in enumerate(track_end):
            if last + clearance < start:
                tracks[i] = track
                track_end[track] = end
                break
        else:
            tracks[i] = len(track_end)
            track_end.append(end)
    return tracks


def spread(count: int, low: float, high: float, step: float) -> list[float]:
    """``count`` positions centred between ``low`` and ``high``, ``step`` apart (closer only when
    the room is short; the layout grows boxes so that it is not)."""
    if count <= 0:
        return []
    if count == 1:
        return [(low + high) / 2]
    gap = min(step, (high - low) / (count - 1)) if high > low else 0.0
    middle = (low + high) / 2
    return [middle + (i - (count - 1) / 2) * gap for i in range(count)]


def rounded_path(points: list[Point], radius: float = 4.0) -> str:
    """An SVG path through ``points`` (horizontal and vertical runs) with rounded corners."""
    if not points:
        return ""
    clean = [points[0]]
    for point in points[1:]:
        if abs(point[0] - clean[-1][0]) > 0.01 or abs(point[1] - clean[-1][1]) > 0.01:
            clean.append(point)
    d = [f"M{num(clean[0][0])},{num(clean[0][1])}"]
    for i in range(1, len(clean) - 1):
        (ax, ay), (bx, by), (cx, cy) = clean[i - 1], clean[i], clean[i + 1]
        before = max(abs(bx - ax), abs(by - ay))
        after = max(abs(cx - bx), abs(cy - by))
        r = min(radius, before / 2, after / 2)
        sx = bx - r * _sign(bx - ax)
        sy = by - r * _sign(by - ay)
        ex = bx + r * _sign(cx - bx)
        ey = by + r * _sign(cy - by)
        d.append(f"L{num(sx)},{num(sy)} Q{num(bx)},{num(by)} {num(ex)},{num(ey)}")
    last = clean[-1]
    d.append(f"L{num(last[0])},{num(last[1])}")
    return " ".join(d)


def _sign(value: float) -> float:
    return 0.0 if abs(value) < 1e-9 else (1.0 if value > 0 else -1.0)
