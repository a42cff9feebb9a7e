"""The report's charts read (issue 26, item 2): coincident series stay visible and are labelled
once, labels never overprint, every seat has its own marker, axes say their units (the score's
maximum taken from the weights on record), score bars are named after their persona, and no
colour is an attribute that would ignore the page's theme.

The SVG is parsed as XML, so a test sees the drawn elements and their numbers, not text matches.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import pytest

from argue.domain import PersonaRoundScore, ScoreComponent
from argue.report.charts import (
    COMPONENT_COLORS,
    FONT_PX,
    MIN_WIDTH,
    Chart,
    Series,
    component_class,
    confidence_svg,
    score_components_svg,
    spread,
    text_width,
)
from argue.report.svg import MARKERS, PERSONA_COLORS, marker_shape

NS = "{http://www.w3.org/2000/svg}"
DEFAULT_WEIGHTS = {
    "evidence_quality": 2.0,
    "novelty": 1.5,
    "concession_quality": 2.0,
    "logical_coherence": 1.0,
    "rebuttal_precision": 1.0,
    "confidence_calibration": 0.5,
}


def parse(chart: Chart) -> ET.Element:
    return ET.fromstring(str(chart.markup))


def texts(root: ET.Element, css: str) -> list[ET.Element]:
    return [t for t in root.iter(f"{NS}text") if css in (t.get("class") or "").split()]


def centre(mark: ET.Element) -> tuple[float, float]:
    """The centre of a marker: a circle, a rect or a polygon."""
    if mark.tag == f"{NS}circle":
        return float(mark.get("cx", 0)), float(mark.get("cy", 0))
    if mark.tag == f"{NS}rect":
        x, y = float(mark.get("x", 0)), float(mark.get("y", 0))
        return x + float(mark.get("width", 0)) / 2, y + float(mark.get("height", 0)) / 2
    points = [tuple(map(float, p.split(","))) for p in mark.get("points", "").split()]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def points_of(root: ET.Element) -> dict[tuple[str, int], tuple[float, float]]:
    """(persona, round) -> where its marker is drawn."""
    out = {}
    for g in root.iter(f"{NS}g"):
        if g.get("class") == "point":
            mark = next(child for child in g if child.tag != f"{NS}title")
            out[(g.get("data-persona", ""), int(g.get("data-round", 0)))] = centre(mark)
    return out


def series(*rows: tuple[str, list[float]]) -> list[Series]:
    return [
        Series(letter, f"Persona {letter}", i, [(r + 1, v) for r, v in enumerate(values)])
        for i, (letter, values) in enumerate(rows)
    ]


def test_identical_confidences_are_drawn_side_by_side_and_labelled_once():
    root = parse(
        confidence_svg(
            series(("A", [0.65, 0.7, 0.75]), ("B", [0.65, 0.7, 0.75]), ("C", [0.6, 0.5, 0.4])),
            [1, 2, 3],
            "en",
        )
    )
    drawn = points_of(root)
    for round_no in (1, 2, 3):
        (ax, ay), (bx, by) = drawn[("A", round_no)], drawn[("B", round_no)]
        # Teeth: without the dodge, B's marker sits exactly on A's and only one shows.
        assert ay == by and abs(ax - bx) >= 10, (round_no, ax, bx)
    labels = [t.text for t in texts(root, "value")]
    assert labels.count("A, B: 0.70") == 1
    assert "A: 0.70" not in labels and "B: 0.70" not in labels
    assert "C: 0.50" in labels
    # Both lines are drawn, each with its own dash.
    lines = {p.get("data-persona"): p for p in root.iter(f"{NS}polyline")}
    assert set(lines) == {"A", "B", "C"}
    assert lines["A"].get("stroke-dasharray") != lines["B"].get("stroke-dasharray")


def test_value_labels_never_overprint():
    # Five personas a hundredth apart in a round, and two identical: labels would stack.
    values = [0.70, 0.71, 0.72, 0.72, 0.73, 0.74]
    rows = [(letter, [0.5, v]) for letter, v in zip("ABCDEF", values, strict=True)]
    root = parse(confidence_svg(series(*rows), [1, 2], "en"))
    boxes = []
    for t in texts(root, "value"):
        x, y = float(t.get("x", 0)), float(t.get("y", 0))
        boxes.append((x, x + text_width(t.text or "", "value"), y - FONT_PX["value"], y, t.text))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = a[1] <= b[0] or b[1] <= a[0] or a[3] <= b[2] or b[3] <= a[2]
            # Teeth: place each label at its point's height (no spread) and this fails.
            assert apart, f"{a[4]!r} overprints {b[4]!r}"
    assert "C, D: 0.72" in [b[4] for b in boxes]


def test_spread_keeps_the_gap_and_stays_inside():
    placed = spread([100.0, 101.0, 102.0, 150.0], gap=16, low=0, high=300)
    assert all(b - a >= 16 - 1e-9 for a, b in itertools.pairwise(placed))
    assert placed[0] == 100.0 and placed[-1] == 150.0
    near_bottom = spread([290.0, 295.0, 299.0], gap=16, low=0, high=300)
    assert near_bottom[-1] <= 300 and all(
        b - a >= 16 - 1e-9 for a, b in itertools.pairwise(near_bottom)
    )


def test_round_labels_and_the_legend_do_not_run_into_each_other():
    rows = [(letter, [0.5, 0.6, 0.7, 0.8]) for letter in "ABCDE"]
    root = parse(confidence_svg(series(*rows), [1, 2, 3, 4], "en"))
    round_labels = [t for t in texts(root, "tick") if (t.text or "").startswith("Round")]
    legend = texts(root, "legend")
    assert len(round_labels) == 4 and len(legend) == 5
    lowest_round_label = max(float(t.get("y", 0)) for t in round_labels)
    assert min(float(t.get("y", 0)) for t in legend) - FONT_PX["legend"] >= lowest_round_label
    width = float(root.get("viewBox", "").split()[2])
    for t in [*texts(root, "value"), *legend]:
        x = float(t.get("x", 0))
        assert x >= 0 and x + text_width(t.text or "", t.get("class", "value")) <= width, t.text


def test_every_seat_has_its_own_marker_shape():
    assert len(MARKERS) == len(set(MARKERS)) >= len(PERSONA_COLORS)
    drawn = {str(marker_shape(shape, 0, 0, 5)) for shape in MARKERS}
    assert len(drawn) == len(MARKERS), "two shapes draw the same thing"
    rows = [(letter, [0.5]) for letter in "ABCDEFGHIJ"]
    root = parse(confidence_svg(series(*rows), [1], "en"))
    legend_marks = []
    for g in root.iter(f"{NS}g"):
        if g.get("class") == "legend-item":
            mark = next(iter(g))
            legend_marks.append(ET.tostring(mark).decode())
            assert mark.get("class", "").startswith("mark s")
    assert len(legend_marks) == 10


def test_the_confidence_axis_says_its_unit():
    root = parse(confidence_svg(series(("A", [0.5])), [1], "en"))
    assert "confidence (0 to 1)" in [t.text for t in texts(root, "axis")]
    root = parse(confidence_svg(series(("A", [0.5])), [1], "fr"))
    assert "confiance (de 0 à 1)" in [t.text for t in texts(root, "axis")]


def scored(weights: dict[str, float], letters: str, rounds: int):
    out = []
    for r in range(1, rounds + 1):
        personas = {}
        for i, letter in enumerate(letters):
            components = [
                ScoreComponent(name=name, weight=w, value=min(1.0, 0.5 + 0.05 * (r + i)), reason="")
                for name, w in weights.items()
            ]
            total = sum(c.weight * (c.value or 0) for c in components)
            personas[letter] = PersonaRoundScore(
                persona=letter, components=components, total=total, max_total=sum(weights.values())
            )
        out.append((r, personas))
    return out


def test_the_score_axis_is_out_of_the_weights_maximum():
    names = {"A": "Embry", "B": "Horus"}
    root = parse(score_components_svg(scored(DEFAULT_WEIGHTS, "AB", 2), ["A", "B"], names, "en"))
    assert "score (out of 8)" in [t.text for t in texts(root, "axis")]
    # Other weights, another maximum: taken from the record, never a constant.
    other = {"evidence_quality": 3.0, "novelty": 2.5}
    root = parse(score_components_svg(scored(other, "AB", 2), ["A", "B"], names, "en"))
    assert "score (out of 5.5)" in [t.text for t in texts(root, "axis")]
    ticks = [t.text for t in texts(root, "tick") if (t.text or "").isdigit()]
    assert ticks[-1] == "5"


def test_score_bars_are_named_after_their_persona():
    names = {"A": "Embry", "B": "Horus", "C": "Hana"}
    root = parse(score_components_svg(scored(DEFAULT_WEIGHTS, "ABC", 3), list("ABC"), names, "en"))
    under = [t.text for t in texts(root, "legend") if t.get("data-persona")]
    assert under == ["A · Embry", "B · Horus", "C · Hana"]
    bars = [g for g in root.iter(f"{NS}g") if g.get("class") == "bar"]
    assert len(bars) == 9
    # Each bar sits above its persona's name, and says its round.
    for g in bars:
        rects = [r for r in g.iter(f"{NS}rect")]
        x_mid = float(rects[0].get("x", 0)) + float(rects[0].get("width", 0)) / 2
        name = next(
            t for t in texts(root, "legend") if t.get("data-persona") == g.get("data-persona")
        )
        assert abs(x_mid - float(name.get("x", 0))) < 80
    assert [t.text for t in texts(root, "tick") if (t.text or "").startswith("R")][:3] == [
        "R1",
        "R2",
        "R3",
    ]


def test_a_large_debate_widens_the_score_chart_instead_of_overprinting_totals():
    letters = "ABCDEFGHIJ"
    names = {letter: f"Persona with a long name {letter}" for letter in letters}
    root = parse(
        score_components_svg(scored(DEFAULT_WEIGHTS, letters, 10), list(letters), names, "en")
    )
    width = float(root.get("viewBox", "").split()[2])
    assert width > MIN_WIDTH
    totals = texts(root, "value")
    assert len(totals) == 100
    # Upright totals never overlap their neighbours; rotated ones run up the bar instead.
    upright = sorted(float(t.get("x", 0)) for t in totals if not t.get("transform"))
    for a, b in itertools.pairwise(upright):
        assert b - a >= text_width("0.00", "value") or b == a


COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|rgb\(|hsl\(")


def test_chart_colours_are_css_classes_never_attributes():
    names = {"A": "Embry", "B": "Horus"}
    charts = [
        confidence_svg(series(("A", [0.6, 0.7]), ("B", [0.6, 0.8])), [1, 2], "en"),
        score_components_svg(scored(DEFAULT_WEIGHTS, "AB", 2), ["A", "B"], names, "en"),
    ]
    for chart in charts:
        for element in parse(chart).iter():
            for attribute in ("fill", "stroke", "style", "color", "stop-color"):
                value = element.get(attribute)
                # Teeth: the old charts wrote fill="#0b5fa5" on every marker and bar.
                assert value is None or not COLOUR.search(value), (element.tag, attribute, value)
    # Every segment has a component class the stylesheet colours.
    root = parse(charts[1])
    segments = {r.get("class") for r in root.iter(f"{NS}rect") if "seg" in (r.get("class") or "")}
    assert segments == {f"seg seg-{name}" for name in COMPONENT_COLORS}


@pytest.mark.parametrize("hostile", ["x{}body{display:none}", "novelty;} *{color:red"])
def test_a_component_name_from_disk_never_becomes_a_class_of_its_own(hostile):
    components = ["evidence_quality", hostile]
    assert component_class("evidence_quality", components) == "seg-evidence_quality"
    assert component_class(hostile, components) == "seg-spare-0"
