"""The report's colours, light and dark, meet WCAG contrast (issue 26, items 2 and 3).

The ratios are computed from what ships: the CSS variables of a rendered report's stylesheet
(``:root`` and its ``prefers-color-scheme: dark`` twin), the persona colours the figures draw and
the score components' colours. Text needs 4.5:1 against every background it sits on, graphics
(lines, markers, bars, swatches) 3:1, in both themes; component colours are apart from persona
colours (a bar's segment must not read as a persona).

Teeth: set ``--muted`` to ``#8a8a8a`` (the old amber's kind of contrast), give a component the
first persona's blue, or make a dark value light, and a test here fails.
"""

from __future__ import annotations

import asyncio
import itertools
import math
import re
from pathlib import Path

import pytest

from argue.app import write_report
from argue.engine import DebateRunner, create_debate
from argue.llm import ScriptedModel
from argue.personas import load_catalog
from argue.report.charts import COMPONENT_COLORS, SPARE_COMPONENT_COLORS
from argue.report.svg import PERSONA_COLORS
from tests.engine.script import DebateScript, ScriptedToolkit, names_of

CONTRACT = ("--ink", "--muted", "--rule", "--bg-soft", "--ok", "--bad", "--warn", "--warn-bg")
CONTRACT += ("--bg", "--surface", "--link")
BACKGROUNDS = ("--bg", "--surface", "--bg-soft")
TEXT = ("--ink", "--muted", "--link", "--ok", "--bad", "--warn")


def luminance(color: str) -> float:
    """WCAG 2 relative luminance of ``#rgb`` or ``#rrggbb``."""
    digits = color.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    channels = [int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    low, high = sorted((luminance(a), luminance(b)))
    return (high + 0.05) / (low + 0.05)


def lab(color: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour, for a colour difference (CIE76 ΔE)."""
    digits = color.lstrip("#")
    linear = []
    for i in (0, 2, 4):
        c = int(digits[i : i + 2], 16) / 255
        linear.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = linear
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str) -> float:
    return math.dist(lab(a), lab(b))


def test_the_contrast_arithmetic_matches_wcag():
    # Known values: black on white is 21:1, and #767676 is the lightest grey at 4.5:1 on white.
    assert contrast("#000", "#fff") == pytest.approx(21.0)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast("#777777", "#ffffff") < 4.5


def _variables(block: str) -> dict[str, str]:
    return dict(re.findall(r"(--[a-z0-9_-]+):\s*(#[0-9a-fA-F]{3,6})\s*;", block))


@pytest.fixture(scope="module")
def themes(report_file: Path) -> dict[str, dict[str, str]]:
    """The light and dark variables of a rendered report's stylesheet."""
    page = report_file.read_text(encoding="utf-8")
    css = page[page.index("<style>") + len("<style>") : page.index("</style>")]
    light_block = css[css.index(":root {") : css.index("}", css.index(":root {"))]
    dark_at = css.index("@media screen and (prefers-color-scheme: dark)")
    dark_root = css.index(":root {", dark_at)
    dark_block = css[dark_root : css.index("}", dark_root)]
    return {"light": _variables(light_block), "dark": _variables(dark_block)}


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One scripted pair's report.html (the stylesheet does not depend on the debate's words)."""
    catalog = load_catalog()
    lineup = [catalog.get("embry"), catalog.get("horus")]
    store = create_debate(
        tmp_path_factory.mktemp("palette") / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=lineup,
        max_rounds=1,
        provider="scripted",
        model="scripted-1",
    )
    model = ScriptedModel(DebateScript(names=names_of(lineup)))
    asyncio.run(DebateRunner(store, model, ScriptedToolkit(), reporter=lambda _: None).run())
    return write_report(store)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_contract_variable_has_a_value_in_both_themes(themes, theme):
    missing = [name for name in CONTRACT if name not in themes[theme]]
    assert not missing, f"{theme} theme lacks {missing}"
    if theme == "dark":
        # Really dark: the page's background and boxes, light ink.
        assert luminance(themes["dark"]["--bg"]) < 0.02
        assert luminance(themes["dark"]["--surface"]) < 0.03
        assert luminance(themes["dark"]["--ink"]) > 0.6


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_has_4_5_to_1_on_every_background(themes, theme):
    colors = themes[theme]
    failures = [
        f"{text} {colors[text]} on {bg} {colors[bg]}: {contrast(colors[text], colors[bg]):.2f}"
        for text in TEXT
        for bg in BACKGROUNDS
        if contrast(colors[text], colors[bg]) < 4.5
    ]
    # A banner's words sit on its own background.
    for text in ("--ink", "--warn"):
        if contrast(colors[text], colors["--warn-bg"]) < 4.5:
            failures.append(
                f"{text} on --warn-bg: {contrast(colors[text], colors['--warn-bg']):.2f}"
            )
    # White (light) or dark (dark theme) words on a badge filled with --ok or --bad.
    for fill in ("--ok", "--bad"):
        if contrast(colors["--on-accent"], colors[fill]) < 4.5:
            failures.append(
                f"--on-accent on {fill}: {contrast(colors['--on-accent'], colors[fill]):.2f}"
            )
    assert not failures, failures


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_persona_colours_have_3_to_1_as_graphics_in_both_themes(themes, theme):
    colors = themes[theme]
    failures = [
        f"{p} on {bg}: {contrast(p, colors[bg]):.2f}"
        for p in PERSONA_COLORS
        for bg in BACKGROUNDS
        if contrast(p, colors[bg]) < 3.0
    ]
    assert not failures, failures


def test_white_words_on_a_persona_colour_have_4_5_to_1():
    # The map's column headers write the persona's name in white on its colour.
    low = {p: round(contrast(p, "#ffffff"), 2) for p in PERSONA_COLORS if contrast(p, "#fff") < 4.5}
    assert not low, low


def test_persona_colours_are_apart_from_one_another():
    closest = min(delta_e(a, b) for a, b in itertools.combinations(PERSONA_COLORS, 2))
    assert closest >= 20, closest


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_component_colours_have_3_to_1_and_are_apart_from_persona_colours(themes, theme):
    colors = themes[theme]
    index = 0 if theme == "light" else 1
    shipped = {
        **{f"--seg-{name}": pair[index] for name, pair in COMPONENT_COLORS.items()},
        **{f"--seg-spare-{i}": pair[index] for i, pair in enumerate(SPARE_COMPONENT_COLORS)},
    }
    # The stylesheet carries the same values the chart module declares.
    assert {k: colors.get(k) for k in shipped} == shipped
    failures = []
    for name, color in shipped.items():
        for bg in BACKGROUNDS:
            if contrast(color, colors[bg]) < 3.0:
                failures.append(f"{name} {color} on {bg}: {contrast(color, colors[bg]):.2f}")
        nearest = min(PERSONA_COLORS, key=lambda p: delta_e(color, p))
        if delta_e(color, nearest) < 20:
            failures.append(f"{name} {color} reads as persona colour {nearest}")
    known = [shipped[f"--seg-{name}"] for name in COMPONENT_COLORS]
    closest = min(delta_e(a, b) for a, b in itertools.combinations(known, 2))
    assert closest >= 20, f"two components look alike (ΔE {closest:.1f})"
    assert not failures, failures
