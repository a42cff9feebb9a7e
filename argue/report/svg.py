"""A few lines of SVG writing: every attribute value and every text node is escaped here.

Figures are built from code's numbers and model text alike; escaping at the one place that
writes markup keeps model text data (a claim reading ``</text><script>`` stays text).
Every attribute value, tooltip (``<title>``) and text node is also one line without control or
bidi characters (``safe_text``): ESC, a right-to-left override or an isolate in a claim cannot
reorder or hide what a tooltip or an ``aria-label`` says.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

# argue.console's _UNSAFE (C0 and C1 controls but tab and newline, DEL, bidi embeddings,
# overrides and isolates); tests/report checks the two stay the same. Tab and newline go too,
# in ``safe_text``'s one line.
UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def safe_text(value: object) -> str:
    """``value`` as one line without control or bidi characters (Markup stays Markup)."""
    line = " ".join(UNSAFE.sub("", str(value)).split())
    return Markup(line) if isinstance(value, Markup) else line


# Persona colours, distinguishable for common colour-vision deficiencies (Okabe–Ito, darkened
# for contrast on white); every figure also tells personas apart by text or marker shape.
PERSONA_COLORS = (
    "#0b5fa5",
    "#c05a00",
    "#2b7a4b",
    "#a23b72",
    "#6a5acd",
    "#8a6d00",
    "#117f8c",
    "#7f3f00",
    "#4d4d4d",
    "#b8252f",
)
MARKERS = ("circle", "square", "triangle", "diamond")


def persona_color(index: int) -> str:
    return PERSONA_COLORS[index % len(PERSONA_COLORS)]


def num(value: float) -> str:
    """A coordinate, short: 12, 12.5."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _attrs(attrs: dict[str, object]) -> Markup:
    parts = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        shown = num(value) if isinstance(value, float) else safe_text(value)
        parts.append(Markup(' {}="{}"').format(Markup(name), shown))
    return Markup("").join(parts)


def el(tag: str, attrs: dict[str, object] | None = None, *children: Markup | str) -> Markup:
    """``<tag attrs>children</tag>``; a plain-str child is escaped, Markup is kept."""
    inner = Markup("").join(c if isinstance(c, Markup) else escape(safe_text(c)) for c in children)
    if not children:
        return Markup("<{}{}/>").format(Markup(tag), _attrs(attrs or {}))
    return Markup("<{}{}>{}</{}>").format(Markup(tag), _attrs(attrs or {}), inner, Markup(tag))


def text(x: float, y: float, content: str, **attrs: object) -> Markup:
    return el("text", {"x": float(x), "y": float(y), **attrs}, content)


def title(content: str) -> Markup:
    """A tooltip / accessible name (escaped like any text)."""
    return el("title", None, content)


def svg(width: float, height: float, label: str, *children: Markup, **attrs: object) -> Markup:
    """A figure: scales to its container (viewBox), an accessible name, no external reference."""
    return el(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {num(width)} {num(height)}",
            "width": "100%",
            "role": "img",
            "aria-label": label,
            "preserveAspectRatio": "xMidYMin meet",
            **attrs,
        },
        title(label),
        *children,
    )


def marker_shape(shape: str, x: float, y: float, r: float, **attrs: object) -> Markup:
    """A data point drawn as a circle, square, triangle or diamond (told apart in grey print)."""
    if shape == "square":
        return el("rect", {"x": x - r, "y": y - r, "width": 2 * r, "height": 2 * r, **attrs})
    if shape == "triangle":
        points = f"{num(x)},{num(y - r * 1.2)} {num(x - r * 1.1)},{num(y + r * 0.8)} "
        points += f"{num(x + r * 1.1)},{num(y + r * 0.8)}"
        return el("polygon", {"points": points, **attrs})
    if shape == "diamond":
        points = f"{num(x)},{num(y - r * 1.3)} {num(x + r * 1.3)},{num(y)} "
        points += f"{num(x)},{num(y + r * 1.3)} {num(x - r * 1.3)},{num(y)}"
        return el("polygon", {"points": points, **attrs})
    return el("circle", {"cx": float(x), "cy": float(y), "r": float(r), **attrs})


def clip(value: str, limit: int) -> str:
    """One line of at most ``limit`` characters, an ellipsis when cut."""
    line = " ".join(value.split())
    return line if len(line) <= limit else line[: max(1, limit - 1)].rstrip() + "…"


def wrap(value: str, width: int, lines: int) -> list[str]:
    """Greedy word wrap into at most ``lines`` lines of ``width`` characters (SVG text does not
    wrap by itself); the last line ends with an ellipsis when text is left over."""
    out: list[str] = []
    current = ""
    for word in value.split():
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
