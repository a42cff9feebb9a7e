"""Two small charts as inline SVG: confidence over rounds, and score components per round."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from argue.domain import PersonaRoundScore
from argue.records.labels import label
from argue.report.svg import MARKERS, clip, el, marker_shape, num, persona_color, svg, text, title

WIDTH = 1200

# One colour per score component (in the order the scorer lists them), the weight in the legend.
COMPONENT_COLORS = {
    "evidence_quality": "#1b6aa5",
    "novelty": "#e0a100",
    "concession_quality": "#2e8b57",
    "logical_coherence": "#8e5ea2",
    "rebuttal_precision": "#c8553d",
    "confidence_calibration": "#7a8a99",
}
_SPARE_COLORS = ("#555555", "#b07aa1", "#9c755f", "#76b7b2")


@dataclass(frozen=True)
class Series:
    letter: str
    name: str
    index: int  # the persona's seat: its colour and marker
    points: list[tuple[int, float]]


def component_words(name: str, lang: str) -> str:
    try:
        return label(f"component_{name}", lang)
    except KeyError:
        return name.replace("_", " ")


def confidence_svg(series: list[Series], rounds: list[int], lang: str) -> Markup:
    """A line per persona, confidence 0–1 against the round; each point labelled."""
    height, left, right, top, bottom = 280, 60, 210, 18, 44
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    rounds = rounds or [1]
    first, last = min(rounds), max(rounds)
    span = max(1, last - first)

    def x_of(round_no: int) -> float:
        if first == last:
            return left + plot_w / 2
        return left + (round_no - first) / span * plot_w

    def y_of(value: float) -> float:
        return top + (1 - max(0.0, min(1.0, value))) * plot_h

    parts: list[Markup] = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = y_of(tick)
        parts.append(
            el(
                "line",
                {"x1": float(left), "x2": float(left + plot_w), "y1": y, "y2": y, "class": "grid"},
            )
        )
        parts.append(text(left - 8, y + 4, f"{tick:.2f}", class_="tick", text_anchor="end"))
    for round_no in range(first, last + 1):
        parts.append(
            text(
                x_of(round_no),
                top + plot_h + 18,
                f"{label('round', lang)} {round_no}",
                class_="tick",
                text_anchor="middle",
            )
        )
    parts.append(
        text(
            14,
            top + plot_h / 2,
            label("confidence", lang),
            class_="axis",
            transform=f"rotate(-90 14 {num(top + plot_h / 2)})",
            text_anchor="middle",
        )
    )
    for s in series:
        color = persona_color(s.index)
        shape = MARKERS[s.index % len(MARKERS)]
        points = sorted(s.points)
        if len(points) > 1:
            parts.append(
                el(
                    "polyline",
                    {
                        "points": " ".join(f"{num(x_of(r))},{num(y_of(v))}" for r, v in points),
                        "fill": "none",
                        "stroke": color,
                        "stroke-width": "2.4",
                        "stroke-dasharray": ("", "6 3", "2 3", "8 3 2 3")[s.index % 4] or None,
                        "class": f"series persona-{s.letter}",
                    },
                )
            )
        for r, v in points:
            parts.append(
                el(
                    "g",
                    {"class": f"point persona-{s.letter}"},
                    title(f"{s.name}, {label('round', lang)} {r}: {v:.2f}"),
                    marker_shape(shape, x_of(r), y_of(v), 5, fill=color),
                    text(
                        x_of(r) + 8,
                        y_of(v) - 8 + 16 * (s.index % 2),
                        f"{v:.2f}",
                        class_="value",
                        fill=color,
                    ),
                )
            )
    legend_x = left + plot_w + 28
    for i, s in enumerate(series):
        y = top + 14 + 24 * i
        parts.append(
            marker_shape(
                MARKERS[s.index % len(MARKERS)], legend_x, y - 4, 5, fill=persona_color(s.index)
            )
        )
        parts.append(text(legend_x + 14, y, s.name, class_="legend"))
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
    return svg(WIDTH, height, label("confidence_over_rounds", lang), *parts, class_="chart")


def score_components_svg(
    rounds: list[tuple[int, dict[str, PersonaRoundScore]]],
    letters: list[str],
    names: dict[str, str],
    lang: str,
) -> Markup:
    """Per round, one stacked bar per persona: each component's weighted points (value ×
    weight); the bar's total on top. An unmeasured component adds nothing (see the table)."""
    left, right, top, bottom = 60, 250, 22, 62
    components: list[str] = []
    for _, personas in rounds:
        for persona_score in personas.values():
            for c in persona_score.components:
                if c.name not in components:
                    components.append(c.name)
    colors = dict(COMPONENT_COLORS)
    for i, name in enumerate(c for c in components if c not in colors):
        colors[name] = _SPARE_COLORS[i % len(_SPARE_COLORS)]
    weights = {c.name: c.weight for _, ps in rounds for s in ps.values() for c in s.components}
    legend_h = 14 + 22 * len(components) + 8 + 18 * len(letters)
    height = max(320, top + legend_h + 10)
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    y_max = max(
        [sum(weights.values()) or 1.0]
        + [s.max_total for _, ps in rounds for s in ps.values()]
        + [s.total for _, ps in rounds for s in ps.values()]
    )

    def y_of(points: float) -> float:
        return top + plot_h - points / y_max * plot_h

    parts: list[Markup] = []
    step = 1.0 if y_max <= 10 else 2.0
    tick = 0.0
    while tick <= y_max + 1e-9:
        y = y_of(tick)
        parts.append(
            el(
                "line",
                {"x1": float(left), "x2": float(left + plot_w), "y1": y, "y2": y, "class": "grid"},
            )
        )
        parts.append(text(left - 8, y + 4, num(tick), class_="tick", text_anchor="end"))
        tick += step
    group_w = plot_w / max(1, len(rounds))
    n = max(1, len(letters))
    bar_w = min(70.0, group_w * 0.8 / n)
    for g, (round_no, personas) in enumerate(rounds):
        group_x = left + g * group_w + (group_w - bar_w * n - 6 * (n - 1)) / 2
        for i, letter in enumerate(letters):
            score = personas.get(letter)
            x = group_x + i * (bar_w + 6)
            name = names.get(letter, letter)
            parts.append(
                text(x + bar_w / 2, top + plot_h + 16, letter, class_="tick", text_anchor="middle")
            )
            if score is None:
                continue
            base = 0.0
            for c in score.components:
                points = c.weight * (c.value or 0.0)
                if points <= 0:
                    continue
                y_top = y_of(base + points)
                value = "—" if c.value is None else f"{c.value:.2f}"
                parts.append(
                    el(
                        "rect",
                        {
                            "x": x,
                            "y": y_top,
                            "width": bar_w,
                            "height": y_of(base) - y_top,
                            "fill": colors[c.name],
                            "class": f"seg seg-{c.name}",
                        },
                        title(
                            f"{name}, {label('round', lang)} {round_no} — "
                            f"{component_words(c.name, lang)}: {value} × {num(c.weight)} = "
                            f"{points:.2f}"
                        ),
                    )
                )
                base += points
            parts.append(
                text(
                    x + bar_w / 2,
                    y_of(score.total) - 5,
                    f"{score.total:.2f}",
                    class_="value",
                    text_anchor="middle",
                )
            )
        parts.append(
            text(
                left + g * group_w + group_w / 2,
                top + plot_h + 36,
                f"{label('round', lang)} {round_no}",
                class_="tick",
                text_anchor="middle",
            )
        )
    parts.append(
        text(
            14,
            top + plot_h / 2,
            label("score", lang),
            class_="axis",
            transform=f"rotate(-90 14 {num(top + plot_h / 2)})",
            text_anchor="middle",
        )
    )
    legend_x = left + plot_w + 28
    for i, name in enumerate(components):
        y = top + 10 + 22 * i
        parts.append(
            el(
                "rect",
                {
                    "x": float(legend_x),
                    "y": y - 10,
                    "width": 14.0,
                    "height": 14.0,
                    "fill": colors[name],
                },
            )
        )
        parts.append(
            text(
                legend_x + 20,
                y + 1,
                f"{component_words(name, lang)} ×{num(weights[name])}",
                class_="legend",
            )
        )
    legend_y = top + 14 + 22 * len(components) + 8
    for i, letter in enumerate(letters):
        shown = f"{letter} = {clip(names.get(letter, letter), 26)}"
        parts.append(text(legend_x, legend_y + 18 * i, shown, class_="muted"))
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
    return svg(WIDTH, height, label("score_components", lang), *parts, class_="chart")
