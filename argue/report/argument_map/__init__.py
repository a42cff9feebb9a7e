"""The argument map of the HTML report: claims as nodes, counters and concessions as typed edges.

``layout`` builds the map from the record and places it, one column per persona and one band
per round (``build_map``), measuring text with ``metrics`` and giving edges their channels with
``routing``; ``drawing`` turns the placed map into SVG (``render_map_svg``).
"""

from __future__ import annotations

from argue.report.argument_map.drawing import edge_words, render_map_svg
from argue.report.argument_map.layout import (
    EDGE_KINDS,
    ArgumentMap,
    Box,
    ClaimNode,
    Edge,
    EdgeKind,
    GhostNode,
    RebuttalNode,
    build_map,
)

__all__ = [
    "EDGE_KINDS",
    "ArgumentMap",
    "Box",
    "ClaimNode",
    "Edge",
    "EdgeKind",
    "GhostNode",
    "RebuttalNode",
    "build_map",
    "edge_words",
    "render_map_svg",
]
