"""How hard a drawn map's arrows are to follow: crossings, and arrows sharing a corridor.

An arrow is a polyline of horizontal and vertical runs (the maps draw nothing else; a rounded
corner's control point counts as the corner). Two measures, from the points alone, so they
apply to any layout and to what a browser drew:

- **crossings**: a horizontal run of one arrow passing through a vertical run of another,
  away from both runs' ends (arrows meeting at a box's side are not crossing);
- **shared corridors**: an arrow that runs parallel to another closer than ``CORRIDOR_PX``
  over at least ``CORRIDOR_RUN_PX``. With 1.6 to 2.2 px lines and 8 px arrowheads, lines
  closer than that read as one band: an eye following one slips onto its neighbour. The share
  is of all arrows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise

Point = tuple[float, float]
CORRIDOR_PX = 10.0
CORRIDOR_RUN_PX = 16.0
_EPS = 0.5


@dataclass(frozen=True)
class Tangle:
    arrows: int
    crossings: int
    shared: int  # arrows in a shared corridor

    @property
    def share(self) -> float:
        return self.shared / self.arrows if self.arrows else 0.0

    def __add__(self, other: Tangle) -> Tangle:
        return Tangle(
            self.arrows + other.arrows,
            self.crossings + other.crossings,
            self.shared + other.shared,
        )


@dataclass(frozen=True)
class _Run:
    horizontal: bool
    at: float  # y of a horizontal run, x of a vertical one
    low: float
    high: float


def _runs(points: Sequence[Point]) -> list[_Run]:
    runs = []
    for (x1, y1), (x2, y2) in pairwise(points):
        if abs(y1 - y2) < 0.01 and abs(x1 - x2) > 0.01:
            runs.append(_Run(True, y1, min(x1, x2), max(x1, x2)))
        elif abs(x1 - x2) < 0.01 and abs(y1 - y2) > 0.01:
            runs.append(_Run(False, x1, min(y1, y2), max(y1, y2)))
    return runs


def _crossings(a: list[_Run], b: list[_Run]) -> int:
    count = 0
    for r in a:
        for s in b:
            if r.horizontal == s.horizontal:
                continue
            if r.low + _EPS < s.at < r.high - _EPS and s.low + _EPS < r.at < s.high - _EPS:
                count += 1
    return count


def _beside(a: list[_Run], b: list[_Run], corridor: float) -> bool:
    for r in a:
        for s in b:
            if r.horizontal != s.horizontal or abs(r.at - s.at) >= corridor:
                continue
            if min(r.high, s.high) - max(r.low, s.low) >= CORRIDOR_RUN_PX:
                return True
    return False


def tangle(arrows: Iterable[Sequence[Point]], corridor: float = CORRIDOR_PX) -> Tangle:
    """Crossings and shared corridors among arrows drawn in one figure."""
    runs = [_runs(points) for points in arrows]
    crossings = 0
    shared: set[int] = set()
    for (i, a), (j, b) in combinations(enumerate(runs), 2):
        crossings += _crossings(a, b)
        if _beside(a, b, corridor):
            shared.update((i, j))
    return Tangle(len(runs), crossings, len(shared))


def views_tangle(
    views: Iterable[Iterable[Sequence[Point]]], corridor: float = CORRIDOR_PX
) -> Tangle:
    """The sum over figures drawn apart (arrows of two figures never meet)."""
    total = Tangle(0, 0, 0)
    for arrows in views:
        total = total + tangle(arrows, corridor)
    return total
