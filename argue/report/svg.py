"""A few lines of SVG writing: every attribute value and every text node is escaped here.

Figures are built from code's numbers and model text alike; escaping at the one place that
writes markup keeps model text data (a claim reading ``</text><script>`` stays text).
Every attribute value, tooltip (``<title>``) and text node is also one line without control or
bidi characters (``safe_text``): ESC, a right-to-left override or an isolate in a claim cannot
reorder or hide what a tooltip or an ``aria-label`` says.
"""

from __future__ import annotations

import math

from markupsafe import Markup, escape

from argue.text.controls import UNSAFE as CONTROLS
from argue.text.controls import breakable_words, one_line

# The one character policy of every output (argue.text.controls: C0 and C1 controls but tab and
# newline, DEL, every Bidi_Control character). Tab and newline go too, in ``safe_text``'s one line.
UNSAFE = CONTROLS


def safe_text(value: object) -> str:
    """``value`` as one line without control or bidi characters (Markup stays Markup)."""
    line = one_line(value)
    return Markup(line) if isinstance(value, Markup) else line


# Persona colours: Okabe–Ito hues brought to one luminance (WCAG 0.17), so that each one has a
# contrast of at least 3:1 as a graphic on the light page (white, #f5f7f9) and on the dark one
# (#0f1216 to #1e242a), and white text on it 4.5:1 (the map's column headers). The same colours
# serve both themes: the map draws them as attributes. Figures never tell personas apart by colour
# alone: markers (``MARKERS``), dashes and names do it too. tests/report/test_charts_palette.py
# computes the ratios.
PERSONA_COLORS = (
    "#0078bb",
    "#bc5300",
    "#00835f",
    "#ba4887",
    "#6f5bec",
    "#946b09",
    "#127e8f",
    "#b300ff",
    "#727272",
    "#de212e",
)
# One marker shape per seat, as many as there are colours: seat i and seat j never share both.
MARKERS = (
    "circle",
    "square",
    "triangle",
    "diamond",
    "triangle-down",
    "plus",
    "cross",
    "star",
    "hexagon",
    "bar",
)


def persona_color(index: int) -> str:
    return PERSONA_COLORS[index % len(PERSONA_COLORS)]


def num(value: float) -> str:
    """A coordinate, short: 12, 12.5."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _attrs(attrs: dict[str, object]) -> str:
    """`` name="value"`` for each attribute, values escaped (names come from code). Plain
    string joins: a big map has tens of thousands of attributes, and ``Markup.format`` per
    attribute was most of a panel report's rendering time (issue 43 item 4)."""
    parts = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        shown = num(value) if isinstance(value, float) else escape(safe_text(value))
        parts.append(f' {name}="{shown}"')
    return "".join(parts)


def el(tag: str, attrs: dict[str, object] | None = None, *children: Markup | str) -> Markup:
    """``<tag attrs>children</tag>``; a plain-str child is escaped, Markup is kept."""
    inner = "".join(c if isinstance(c, Markup) else escape(safe_text(c)) for c in children)
    if not children:
        return Markup(f"<{tag}{_attrs(attrs or {})}/>")
    return Markup(f"<{tag}{_attrs(attrs or {})}>{inner}</{tag}>")


def text(x: float, y: float, content: str, **attrs: object) -> Markup:
    return el("text", {"x": float(x), "y": float(y), **attrs}, content)


def title(content: str) -> Markup:
    """A tooltip / accessible name (escaped like any text)."""
    return el("title", None, content)


def svg(
    width: float,
    height: float,
    label: str,
    *children: Markup,
    role: str = "group",
    **attrs: object,
) -> Markup:
    """A figure: scales to its container (viewBox), an accessible name, no external reference.

    ``role="group"`` (the default) keeps what is inside reachable by a screen reader: the map's
    claim titles and texts. A chart whose numbers are also given as a table passes
    ``role="img"``: its name and the table say it, not a stream of tick labels.
    """
    return el(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {num(width)} {num(height)}",
            "width": "100%",
            "role": role,
            "aria-label": label,
            "preserveAspectRatio": "xMidYMin meet",
            **attrs,
        },
        title(label),
        # The figure's own background: a browser that darkens pages by itself (Chrome's forced
        # dark) darkens the page behind an SVG but not the SVG's text; on this backdrop the text
        # stays readable. In the page's own dark theme the backdrop is dark too (--bg).
        el(
            "rect",
            {
                "class": "backdrop",
                "x": 0.0,
                "y": 0.0,
                "width": float(width),
                "height": float(height),
            },
        ),
        *children,
    )


def _polygon(points: list[tuple[float, float]], **attrs: object) -> Markup:
    return el("polygon", {"points": " ".join(f"{num(x)},{num(y)}" for x, y in points), **attrs})


def marker_shape(shape: str, x: float, y: float, r: float, **attrs: object) -> Markup:
    """A data point drawn as one of ``MARKERS`` (told apart without colour, in grey print too);
    about ``2r`` across, centred on (x, y)."""
    if shape == "square":
        return el("rect", {"x": x - r, "y": y - r, "width": 2 * r, "height": 2 * r, **attrs})
    if shape == "triangle":
        return _polygon(
            [(x, y - r * 1.2), (x - r * 1.1, y + r * 0.8), (x + r * 1.1, y + r * 0.8)], **attrs
        )
    if shape == "triangle-down":
        return _polygon(
            [(x, y + r * 1.2), (x - r * 1.1, y - r * 0.8), (x + r * 1.1, y - r * 0.8)], **attrs
        )
    if shape == "diamond":
        return _polygon(
            [(x, y - r * 1.3), (x + r * 1.3, y), (x, y + r * 1.3), (x - r * 1.3, y)], **attrs
        )
    if shape in ("plus", "cross"):
        a, b = r * 1.25, r * 0.42  # arm length, half thickness
        arms = [
            (-b, -a),
            (b, -a),
            (b, -b),
            (a, -b),
            (a, b),
            (b, b),
            (b, a),
            (-b, a),
            (-b, b),
            (-a, b),
            (-a, -b),
            (-b, -b),
        ]
        if shape == "cross":  # the plus turned 45 degrees
            c = math.sqrt(0.5)
            arms = [((u - v) * c, (u + v) * c) for u, v in arms]
        return _polygon([(x + u, y + v) for u, v in arms], **attrs)
    if shape == "star":
        points = []
        for k in range(10):
            radius = r * 1.35 if k % 2 == 0 else r * 0.6
            angle = math.pi * k / 5 - math.pi / 2
            points.append((x + radius * math.cos(angle), y + radius * math.sin(angle)))
        return _polygon(points, **attrs)
    if shape == "hexagon":
        hexagon = [(math.pi * k / 3 + math.pi / 6) for k in range(6)]
        return _polygon(
            [(x + r * 1.15 * math.cos(a), y + r * 1.15 * math.sin(a)) for a in hexagon], **attrs
        )
    if shape == "bar":  # a wide, flat rectangle
        return el(
            "rect",
            {"x": x - r * 1.3, "y": y - r * 0.55, "width": 2.6 * r, "height": 1.1 * r, **attrs},
        )
    return el("circle", {"cx": float(x), "cy": float(y), "r": float(r), **attrs})


def clip(value: str, limit: int) -> str:
    """One line of at most ``limit`` characters, an ellipsis when cut."""
    line = " ".join(breakable_words(value))
    return line if len(line) <= limit else line[: max(1, limit - 1)].rstrip() + "…"


def wrap(value: str, width: int, lines: int) -> list[str]:
    """Greedy word wrap into at most ``lines`` lines of ``width`` characters (SVG text does not
    wrap by itself); the last line ends with an ellipsis when text is left over."""
    out: list[str] = []
    current = ""
    for word in breakable_words(value):
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= width:
            current = candidate
            continue
        if current:
            out.append(current)
        current = word
    if current:
        out.append(current)
    out = [clip(line, width) for line in out]  # a single word longer than a line
    if len(out) > lines:
        # The next line starts with a word that did not fit: the rest is longer than a line.
        out = [*out[: lines - 1], clip(" ".join(out[lines - 1 :]), width)]
    return out
