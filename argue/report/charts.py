"""Two charts as inline SVG: confidence over rounds, and score components per persona and round.

Both are drawn to be read, not only seen: personas that share a value are drawn side by side and
labelled once ("A, B: 0.70"), every persona has its own marker shape and dash as well as its
colour, labels are placed so that none overprints another, axes say their unit ("score (out of
8)", the maximum taken from the weights on record), and the score bars are named after their
persona. Colours are CSS classes, never attributes, so the page's theme (light or dark) colours
them: ``s0``…``s9`` for a persona's seat, ``seg-<component>`` for a score component.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape

from argue.domain import PersonaRoundScore
from argue.records.labels import label, label_of
from argue.render.inline import one_line
from argue.report.svg import MARKERS, PERSONA_COLORS, el, marker_shape, num, svg, wrap
from argue.report.svg import text as _svg_text
from argue.report.svg import title as _svg_title
from argue.text.typography import format_number, localise_number

MIN_WIDTH = 760
# Text sizes of the charts' classes (the stylesheet sets them from these, see html.py) and an
# average glyph width per size, to place labels without measuring them.
FONT_PX = {"tick": 13.0, "axis": 13.0, "legend": 13.0, "value": 12.0, "muted": 13.0}
CHAR_EM = 0.6

# One colour per score component, in the order the scorer lists them, for the light and the dark
# theme: apart from every persona colour (CIE76 ΔE ≥ 20) and from one another, each at least 3:1
# against the theme's backgrounds; in a stacked bar they alternate dark and light in the light
# theme. Segments are also separated by a gap of the background's colour.
COMPONENT_COLORS: dict[str, tuple[str, str]] = {
    "evidence_quality": ("#213d9b", "#7992e3"),
    "novelty": ("#ad7456", "#e0a87a"),
    "concession_quality": ("#19571d", "#35ba3f"),
    "logical_coherence": ("#b95bff", "#dbadff"),
    "rebuttal_precision": ("#881a1a", "#e57373"),
    "confidence_calibration": ("#f800c6", "#ff8ae0"),
}
# A component the scorer adds later, by its order of appearance (``seg-spare-N``).
SPARE_COMPONENT_COLORS: tuple[tuple[str, str], ...] = (
    ("#333333", "#d0d0d0"),
    ("#3e2723", "#f0e68c"),
    ("#004d40", "#80deea"),
)
DASHES = ("", "7 3", "2 3", "9 3 2 3", "4 4")


@dataclass(frozen=True)
class Chart:
    """An SVG chart and its size in user units (the page keeps it at a readable scale)."""

    markup: Markup
    width: float
    height: float

    def __html__(self) -> str:
        return str(self.markup)


@dataclass(frozen=True)
class Series:
    letter: str
    name: str
    index: int  # the persona's seat: its colour, marker and dash
    points: list[tuple[int, float]]


def seat_class(index: int) -> str:
    """The CSS class that colours a seat's marks (``s0``…``s9``, as many as colours)."""
    return f"s{index % len(PERSONA_COLORS)}"


def component_class(name: str, components: list[str]) -> str:
    """``seg-<name>`` for a known component; a name read from disk is never written into the
    stylesheet: an unknown one gets ``seg-spare-N`` by its order among the unknown."""
    if name in COMPONENT_COLORS:
        return f"seg-{name}"
    unknown = [c for c in components if c not in COMPONENT_COLORS]
    return f"seg-spare-{unknown.index(name) % len(SPARE_COMPONENT_COLORS)}"


def component_words(name: str, lang: str) -> str:
    return label_of("component", name, lang, default=name.replace("_", " "))


def _words(content: str) -> Markup:
    """A chart's words as one escaped line that keeps French typography's no-break spaces
    (``argue.report.svg`` makes every space plain; a tooltip would then break before ``:``)."""
    return escape(one_line(content))


def text(x: float, y: float, content: str, **attrs: object) -> Markup:
    return _svg_text(x, y, _words(content), **attrs)


def title(content: str) -> Markup:
    return _svg_title(_words(content))


def text_width(content: str, css: str) -> float:
    """An estimate of a label's width in user units (SVG text is not measured before layout)."""
    return len(content) * FONT_PX[css] * CHAR_EM


def spread(wanted: list[float], gap: float, low: float, high: float) -> list[float]:
    """Positions as near ``wanted`` (sorted ascending) as they can be while at least ``gap``
    apart and inside [low, high] when there is room: labels that would overprint are pushed
    apart, the block moved back inside the plot."""
    placed: list[float] = []
    for y in wanted:
        placed.append(max(y, placed[-1] + gap) if placed else max(y, low))
    overflow = placed[-1] - high if placed else 0.0
    if overflow > 0:
        placed[-1] -= overflow
        for i in range(len(placed) - 2, -1, -1):
            placed[i] = min(placed[i], placed[i + 1] - gap)
        shift = low - placed[0]
        if shift > 0:  # more labels than room: keep the gap, start at the top
            placed = [y + shift for y in placed]
    return placed


def _legend_rows(widths: list[float], room: float, gap: float = 22.0) -> list[list[int]]:
    """Legend items (their widths) into rows no wider than ``room``."""
    rows: list[list[int]] = [[]]
    used = 0.0
    for i, w in enumerate(widths):
        if rows[-1] and used + gap + w > room:
            rows.append([])
            used = 0.0
        used += (gap if rows[-1] else 0.0) + w
        rows[-1].append(i)
    return rows


def _axis_title(x: float, y: float, words: str) -> Markup:
    return text(
        x, y, words, class_="axis", transform=f"rotate(-90 {num(x)} {num(y)})", text_anchor="middle"
    )


def confidence_svg(series: list[Series], rounds: list[int], lang: str) -> Chart:
    """A line per persona, confidence 0–1 against the round. Personas with the same value in a
    round are drawn side by side and share one label ("A, B: 0.70"); labels of one round are
    spread so that none overprints another (a leader line then points at their markers)."""
    rounds = sorted(set(rounds or [1]))
    first, last = rounds[0], rounds[-1]
    left, top, plot_h = 66.0, 24.0, 230.0
    # Groups of points that coincide: (round, value shown) -> seats.
    groups: dict[tuple[int, str], list[Series]] = {}
    for s in series:
        for r, v in sorted(s.points):
            groups.setdefault((r, f"{v:.2f}"), []).append(s)

    def group_label(members: list[Series], shown: str) -> str:
        letters = ", ".join(m.letter for m in members)
        return f"{letters}{label('colon', lang)} {format_number(float(shown), lang)}"

    dodge = 12.0
    label_w = {key: text_width(group_label(m, key[1]), "value") for key, m in groups.items()}
    # A round's labels sit right of its markers: the next round's markers start after them.
    span = max([len(m) for m in groups.values()] + [1])
    step = max(150.0, max(label_w.values(), default=0.0) + 23 + dodge * (span - 1) + 10)
    right = max([w for (r, _), w in label_w.items() if r == last] + [40.0]) + 34
    width = max(float(MIN_WIDTH), left + right + step * (last - first))
    plot_w = width - left - right

    def x_of(round_no: int) -> float:
        if first == last:
            return left + plot_w / 2
        return left + (round_no - first) / (last - first) * plot_w

    def y_of(value: float) -> float:
        return top + (1 - max(0.0, min(1.0, value))) * plot_h

    # Where each persona's point is drawn: its round's x, moved aside within its group.
    drawn_at: dict[tuple[str, int], tuple[float, float]] = {}
    for (r, shown), members in groups.items():
        for j, m in enumerate(members):
            offset = (j - (len(members) - 1) / 2) * dodge
            drawn_at[(m.letter, r)] = (x_of(r) + offset, y_of(float(shown)))

    parts: list[Markup] = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = y_of(tick)
        parts.append(
            el("line", {"x1": left, "x2": left + plot_w, "y1": y, "y2": y, "class": "grid"})
        )
        parts.append(
            text(left - 8, y + 4, format_number(tick, lang), class_="tick", text_anchor="end")
        )
    axis_y = top + plot_h + 22
    for round_no in range(first, last + 1):
        parts.append(
            text(
                x_of(round_no),
                axis_y,
                f"{label('round', lang)} {round_no}",
                class_="tick",
                text_anchor="middle",
            )
        )
    parts.append(_axis_title(16, top + plot_h / 2, label("confidence_out_of_1", lang)))

    for s in series:
        points = [drawn_at[(s.letter, r)] for r, _ in sorted(s.points)]
        if len(points) > 1:
            parts.append(
                el(
                    "polyline",
                    {
                        "points": " ".join(f"{num(x)},{num(y)}" for x, y in points),
                        "class": f"series {seat_class(s.index)}",
                        "stroke-dasharray": DASHES[s.index % len(DASHES)] or None,
                        "data-persona": s.letter,
                    },
                )
            )
    for s in series:
        shape = MARKERS[s.index % len(MARKERS)]
        for r, v in sorted(s.points):
            x, y = drawn_at[(s.letter, r)]
            parts.append(
                el(
                    "g",
                    {"class": "point", "data-persona": s.letter, "data-round": r},
                    title(
                        f"{s.name}, {label('round', lang)} {r}{label('colon', lang)} "
                        f"{format_number(v, lang)}"
                    ),
                    marker_shape(shape, x, y, 5, class_=f"mark {seat_class(s.index)}"),
                )
            )

    # One label per group, right of its markers; a round's labels spread apart vertically.
    line_gap = FONT_PX["value"] + 4
    for round_no in range(first, last + 1):
        entries = sorted(
            ((float(v), m, v) for (r, v), m in groups.items() if r == round_no),
            key=lambda e: -e[0],  # top of the plot first
        )
        wanted = [y_of(value) for value, _, _ in entries]
        placed = spread(wanted, line_gap, top - 6, top + plot_h + 4)
        for (_, members, shown), want, y in zip(entries, wanted, placed, strict=True):
            edge = max(drawn_at[(m.letter, round_no)][0] for m in members) + 9
            x = edge + (14 if abs(y - want) > 3 else 0)
            if x > edge:
                parts.append(
                    el(
                        "line",
                        {"x1": edge - 2, "y1": want, "x2": x - 2, "y2": y, "class": "leader"},
                    )
                )
            parts.append(
                text(
                    x,
                    y + 4,
                    group_label(members, shown),
                    class_="value",
                    data_round=round_no,
                )
            )

    # The legend under the round labels: marker, letter and name, in rows.
    items = [f"{s.letter} · {s.name}" for s in series]
    widths = [22 + text_width(t, "legend") for t in items]
    rows = _legend_rows(widths, width - left - 16)
    legend_top = axis_y + 26
    for row_no, row in enumerate(rows):
        x = left
        y = legend_top + 22 * row_no
        for i in row:
            s = series[i]
            parts.append(
                el(
                    "g",
                    {"class": "legend-item", "data-persona": s.letter},
                    marker_shape(
                        MARKERS[s.index % len(MARKERS)],
                        x + 6,
                        y - 4,
                        5,
                        class_=f"mark {seat_class(s.index)}",
                    ),
                    text(x + 18, y, items[i], class_="legend"),
                )
            )
            x += widths[i] + 22
    height = legend_top + 22 * max(0, len(rows) - 1) + 14
    if not any(s.points for s in series):
        parts.append(
            text(
                left + plot_w / 2,
                top + plot_h / 2,
                label("nothing_yet", lang),
                class_="muted",
                text_anchor="middle",
            )
        )
    markup = svg(
        width,
        height,
        label("confidence_over_rounds", lang),
        *parts,
        role="img",
        class_="chart",
        aria_describedby="confidence-table" if any(s.points for s in series) else None,
    )
    return Chart(markup, width, height)


def score_components_svg(
    rounds: list[tuple[int, dict[str, PersonaRoundScore]]],
    letters: list[str],
    names: dict[str, str],
    lang: str,
) -> Chart:
    """Per persona (named under its bars), one stacked bar per round: each component's weighted
    points (value × weight), the bar's total on top, against a y-axis out of the maximum the
    weights allow. An unmeasured component adds nothing (the table says which)."""
    components: list[str] = []
    for _, personas in rounds:
        for persona_score in personas.values():
            for c in persona_score.components:
                if c.name not in components:
                    components.append(c.name)
    weights = {c.name: c.weight for _, ps in rounds for s in ps.values() for c in s.components}
    scores = [s for _, ps in rounds for s in ps.values()]
    out_of = max([s.max_total for s in scores] + [sum(weights.values())] + [0.0]) or 1.0
    y_max = max([out_of] + [s.total for s in scores])
    seats = [letter for letter in letters if any(letter in ps for _, ps in rounds)] or letters

    left, right = 70.0, 16.0
    bar_w, bar_gap, group_gap = 28.0, 8.0, 34.0
    n_bars = max(1, len(rounds))

    def groups_width() -> float:
        group = n_bars * bar_w + (n_bars - 1) * bar_gap
        return len(seats) * group + max(0, len(seats) - 1) * group_gap

    # Few bars: wider ones (up to 1.6 times) rather than a thin cluster in an empty plot.
    grow = min(1.6, (MIN_WIDTH - left - right - 24) / groups_width())
    if grow > 1:
        bar_w, bar_gap, group_gap = bar_w * grow, bar_gap * grow, group_gap * grow
    group_w = n_bars * bar_w + (n_bars - 1) * bar_gap
    groups_w = groups_width()
    total_w = text_width("0.00", "value")
    upright_totals = total_w <= bar_w + bar_gap - 2
    top = 26.0 if upright_totals else 44.0
    plot_h = 240.0
    width = max(float(MIN_WIDTH), left + right + groups_w + 24)
    plot_w = width - left - right
    start = left + (plot_w - groups_w) / 2

    def y_of(points: float) -> float:
        return top + plot_h - points / y_max * plot_h

    def shown_num(value: float) -> str:
        """A number as the chart shows it to people (``num`` is for coordinates)."""
        return str(localise_number(num(value), lang))

    parts: list[Markup] = []
    tick_step = 1.0 if y_max <= 10 else 2.0 if y_max <= 20 else 5.0
    tick = 0.0
    while tick <= y_max + 1e-9:
        y = y_of(tick)
        parts.append(
            el("line", {"x1": left, "x2": left + plot_w, "y1": y, "y2": y, "class": "grid"})
        )
        parts.append(text(left - 8, y + 4, shown_num(tick), class_="tick", text_anchor="end"))
        tick += tick_step
    parts.append(_axis_title(16, top + plot_h / 2, label("score_out_of", lang, max=num(out_of))))

    name_chars = max(6, int(group_w / (FONT_PX["legend"] * CHAR_EM)))
    name_lines = {
        letter: wrap(f"{letter} · {names.get(letter, letter)}", name_chars, 2) for letter in seats
    }
    for g, letter in enumerate(seats):
        group_x = start + g * (group_w + group_gap)
        name = names.get(letter, letter)
        for b, (round_no, personas) in enumerate(rounds):
            x = group_x + b * (bar_w + bar_gap)
            parts.append(
                text(
                    x + bar_w / 2,
                    top + plot_h + 17,
                    f"R{round_no}",
                    class_="tick",
                    text_anchor="middle",
                )
            )
            score = personas.get(letter)
            if score is None:
                continue
            base = 0.0
            segments: list[Markup] = []
            for c in score.components:
                points = c.weight * (c.value or 0.0)
                if points <= 0:
                    continue
                y_top = y_of(base + points)
                value = "—" if c.value is None else format_number(c.value, lang)
                segments.append(
                    el(
                        "rect",
                        {
                            "x": x,
                            "y": y_top,
                            "width": bar_w,
                            "height": y_of(base) - y_top,
                            "class": f"seg {component_class(c.name, components)}",
                        },
                        title(
                            f"{name}, {label('round', lang)} {round_no} — "
                            f"{component_words(c.name, lang)}{label('colon', lang)} {value} × "
                            f"{shown_num(c.weight)} = {format_number(points, lang)}"
                        ),
                    )
                )
                base += points
            total = format_number(score.total, lang)
            if upright_totals:
                shown = text(
                    x + bar_w / 2,
                    y_of(score.total) - 5,
                    total,
                    class_="value",
                    text_anchor="middle",
                )
            else:
                tx, ty = x + bar_w / 2 + 4, y_of(score.total) - 4
                shown = text(
                    tx, ty, total, class_="value", transform=f"rotate(-90 {num(tx)} {num(ty)})"
                )
            parts.append(
                el(
                    "g",
                    {"class": "bar", "data-persona": letter, "data-round": round_no},
                    *segments,
                    shown,
                )
            )
        for line_no, line in enumerate(name_lines[letter]):
            parts.append(
                text(
                    group_x + group_w / 2,
                    top + plot_h + 38 + 17 * line_no,
                    line,
                    class_="legend",
                    text_anchor="middle",
                    data_persona=letter,
                )
            )

    # The components' legend: a swatch, the words and the weight, in rows under the names.
    items = [f"{component_words(c, lang)} ×{shown_num(weights[c])}" for c in components]
    widths = [20 + text_width(t, "legend") for t in items]
    rows = _legend_rows(widths, width - left - 16)
    legend_top = top + plot_h + 38 + 17 * max([len(v) for v in name_lines.values()] + [1]) + 22
    for row_no, row in enumerate(rows):
        x = left
        y = legend_top + 22 * row_no
        for i in row:
            parts.append(
                el(
                    "rect",
                    {
                        "x": x,
                        "y": y - 11,
                        "width": 14.0,
                        "height": 14.0,
                        "class": f"seg {component_class(components[i], components)}",
                    },
                )
            )
            parts.append(text(x + 20, y, items[i], class_="legend"))
            x += widths[i] + 22
    height = legend_top + 22 * max(0, len(rows) - 1) + 12
    if not rounds:
        parts.append(
            text(
                left + plot_w / 2,
                top + plot_h / 2,
                label("nothing_yet", lang),
                class_="muted",
                text_anchor="middle",
            )
        )
    markup = svg(
        width,
        height,
        label("score_components", lang),
        *parts,
        role="img",
        class_="chart",
        aria_describedby="score-table" if rounds else None,
    )
    return Chart(markup, width, height)
