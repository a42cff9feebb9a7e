"""The argument map drawn as SVG: the legend, the persona columns and round bands, the claim,
rebuttal and "no such claim" nodes, and the edges between them, each with its tooltip.

Drawing order is reading order: frame, claim and "no such claim" nodes, then each rebuttal
with its edges, so an edge is never hidden behind a box (the layout routes edges around boxes
anyway). Everything that can be followed carries classes naming both its ends: a claim node
``n3``, a rebuttal ``r2``, a persona ``p1``; an edge ``from-r2 to-n3 src-p1 dst-p0``. The
report's stylesheet (map.css.j2) uses them to show one claim's, one rebuttal's or one
persona's arrows on hover, keyboard focus or as the page's target (a tap on a column head or
a rebuttal, a claim id followed from the text) — without script.
Colours come from the stylesheet's variables (classes here), so the dark theme reaches the map.
"""

from __future__ import annotations

from markupsafe import Markup

from argue.records.labels import label, label_of
from argue.render.inline import fold_lookalikes
from argue.report.argument_map.layout import (
    BADGE_H,
    HEADER_BASELINE,
    HEADER_TOP,
    LEFT,
    LINE_H,
    ArgumentMap,
    Badge,
    Box,
    ClaimNode,
    Edge,
    GhostNode,
    LegendItem,
    RebuttalNode,
    node_header,
    text_top,
)
from argue.report.argument_map.metrics import (
    BADGE,
    CLAIM_ID,
    CLAIM_TEXT,
    COLUMN_HEAD,
    EMPTY,
    GHOST,
    LEGEND,
    REBUTTAL,
    ROUND_LABEL,
    SCORE,
    Font,
    clip_to_width,
)
from argue.report.argument_map.routing import rounded_path
from argue.report.argument_map.stack import elsewhere_words
from argue.report.svg import clip, el, num, persona_color, text, title
from argue.report.text import claim_anchor, node_anchor

# Dashes tell the kinds apart without colour (grey print, colour-vision deficiencies); the
# colour is the stylesheet's (.edge-refute …), from the page's variables.
_EDGE_DASH: dict[str, str | None] = {
    "refute": None,
    "undercut": "7 4",
    "question": "2 4",
    "concede_full": None,
    "concede_partial": "9 3 2 3",
    "not_counted": "3 3",
}
ARROW = 8.0  # arrowhead length and width, px


def edge_words(kind: str, lang: str) -> str:
    return label_of("edge", kind, lang)


def persona_anchor(index: int, round_no: int | None = None) -> str:
    """The id of a persona's column head on the map (a link to itself: its arrows stay shown);
    in a round-by-round view, of its name bar in that round's figure."""
    return f"map-p{index}" if round_no is None else f"map-r{round_no}-p{index}"


def rebuttal_anchor(rebuttal: RebuttalNode) -> str:
    return f"rebuttal-{rebuttal.key}"


def marker_id(m: ArgumentMap, kind: str) -> str:
    """An arrowhead's id, one set per figure: a figure's arrows must not point at the markers of
    another, which may be hidden (a marker in an undisplayed figure draws nothing)."""
    if m.round_no is None:
        return f"arrow-{kind}"
    part = "" if m.print_part is None else f"-part{m.print_part}"
    return f"arrow-{kind}-r{m.round_no}{part}"


def _ids(m: ArgumentMap, ident: str) -> dict[str, object]:
    """An element's id, except on a printed part (a copy of what the screen's figures hold)."""
    return {} if m.print_part is not None else {"id": ident}


def _self_link(m: ArgumentMap, anchor: str) -> dict[str, object]:
    """A link to an element's own id (to make it the page's target), but on a printed part,
    which has no ids."""
    return {} if m.print_part is not None else {"href": f"#{anchor}"}


def font_attrs(font: Font) -> dict[str, object]:
    """Size and weight as presentation attributes: the layout measured with these numbers."""
    return {"font_size": f"{font.size:g}", "font_weight": font.weight}


def render_map_svg(m: ArgumentMap, lang: str) -> Markup:
    parts: list[Markup] = [_defs(m)]
    parts += _frame(m, lang)
    parts += [_claim_node(m, node, lang) for node in m.nodes.values()]
    parts += [_ghost_node(g, lang) for g in m.ghosts]
    parts += [_rebuttal(m, r, lang) for r in m.rebuttals]
    if not m.nodes:
        parts.append(
            text(
                LEFT,
                m.head_y + 60,
                label("nothing_yet", lang),
                class_="muted",
                **font_attrs(EMPTY),
            )
        )
    name = label("argument_map", lang)
    if m.round_no is not None:
        name += f" — {label('round', lang)} {m.round_no}"
    # Its natural width in px (the stylesheet shows it at that size, in a scroll box when wider
    # than the page); role="group", not "img": the map holds links and titles a screen reader
    # should reach.
    return el(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {num(m.width)} {num(m.height)}",
            "width": num(m.width),
            "height": num(m.height),
            "role": "group",
            "aria-label": name,
            "preserveAspectRatio": "xMinYMin meet",
            "class": "argmap"
            if m.round_no is None
            else "argmap round-map" + (" printed" if m.print_part is not None else ""),
        },
        title(name),
        *parts,
    )


def _defs(m: ArgumentMap) -> Markup:
    markers = [
        el(
            "marker",
            {
                "id": marker_id(m, kind),
                "viewBox": "0 0 10 10",
                "refX": "10",
                "refY": "5",
                "markerUnits": "userSpaceOnUse",
                "markerWidth": f"{ARROW:g}",
                "markerHeight": f"{ARROW:g}",
                "orient": "auto-start-reverse",
            },
            el("path", {"d": "M0,0 L10,5 L0,10 z", "class": f"head head-{kind}"}),
        )
        for kind in _EDGE_DASH
    ]
    return el("defs", None, *markers)


def _frame(m: ArgumentMap, lang: str) -> list[Markup]:
    parts: list[Markup] = [_legend(m, m.legend)]
    heads = m.heads or [
        (letter, Box(m.column_x(letter), m.head_y, m.column_width, 22.0)) for letter in m.letters
    ]
    for letter, box in heads:
        i = m.column_of(letter)
        anchor = persona_anchor(i, m.round_no)
        words = clip_to_width(f"{m.names[letter]} ({letter})", box.w - 12, COLUMN_HEAD)
        head = el(
            "a",
            _self_link(m, anchor),
            el(
                "rect",
                {
                    "x": box.x,
                    "y": box.y,
                    "width": box.w,
                    "height": box.h,
                    "rx": "3",
                    "fill": persona_color(i),
                },
            ),
            text(
                box.x + box.w / 2,
                box.y + 15.5,
                words,
                class_="colhead",
                text_anchor="middle",
                **font_attrs(COLUMN_HEAD),
            ),
        )
        name = m.names.get(letter, letter)
        parts.append(
            el(
                "g",
                {**_ids(m, anchor), "class": f"colhead-group p{i}"},
                title(f"{name} ({letter})"),
                head,
            )
        )
    if m.heads:  # one round's figure: the report's heading names the round
        return parts
    for round_no, (top, _bottom) in m.bands.items():
        parts.append(
            el("line", {"x1": 4.0, "x2": m.width - 4, "y1": top, "y2": top, "class": "band"})
        )
        parts.append(
            text(
                8,
                top + 20,
                f"{label('round', lang)[:1]}{round_no}",
                class_="bandlabel",
                **font_attrs(ROUND_LABEL),
            )
        )
    return parts


def _claim_node(m: ArgumentMap, node: ClaimNode, lang: str) -> Markup:
    claim, box = node.claim, node.box
    index = m.column_of(claim.persona)
    color = persona_color(index)
    classes = ["node", f"persona-{claim.persona}", f"p{index}", node.key]
    if node.conceded_by:
        classes.append("conceded")
    if node.unverified:
        classes.append("unverified")
    name = m.names.get(claim.persona, claim.persona)
    claim_text = fold_lookalikes(claim.text)
    colon = label("colon", lang)
    tooltip = f"{claim.id} · {name} · {label('round', lang)} {claim.round}{colon} {claim_text}"
    if node.unverified:
        tooltip += f" — {label('unverified', lang)}: {fold_lookalikes(', '.join(node.unverified))}"
    header = node_header(node, box, lang)
    header_y = box.y + HEADER_BASELINE
    inner: list[Markup] = [
        el(
            "rect",
            {
                "x": box.x,
                "y": box.y,
                "width": box.w,
                "height": box.h,
                "rx": "4",
                "class": "nodebox",
                "stroke": color,
            },
        ),
        el("rect", {"x": box.x, "y": box.y, "width": 5.0, "height": box.h, "fill": color}),
        text(header.id_box.x, header_y, header.id_text, class_="nid", **font_attrs(CLAIM_ID)),
    ]
    inner += [_badge(badge) for badge in header.badges]
    score_y = header.score_box.y + HEADER_BASELINE - HEADER_TOP  # its row's baseline
    inner.append(
        text(
            header.score_box.x + header.score_box.w,
            score_y,
            header.score_text,
            class_="nscore",
            text_anchor="end",
            **font_attrs(SCORE),
        )
    )
    first = text_top(box, header.rows) + CLAIM_TEXT.ascent
    tspans = [
        el("tspan", {"x": box.x + 12, "y": first + LINE_H * i}, line)
        for i, line in enumerate(node.lines)
    ]
    if tspans:
        inner.append(el("text", {"class": "ntext", **font_attrs(CLAIM_TEXT)}, *tspans))
    link = el("a", {"href": f"#{claim_anchor(claim.id)}"}, *inner)
    return el(
        "g", {**_ids(m, node_anchor(claim.id)), "class": " ".join(classes)}, title(tooltip), link
    )


def _badge(badge: Badge) -> Markup:
    box = badge.box
    baseline = box.y + (BADGE_H + BADGE.ascent - BADGE.descent) / 2
    return el(
        "g",
        {"class": f"badge {badge.css}"},
        el("rect", {"x": box.x, "y": box.y, "width": box.w, "height": box.h, "rx": "8"}),
        text(
            box.x + box.w / 2,
            baseline,
            badge.word,
            text_anchor="middle",
            **font_attrs(BADGE),
        ),
    )


def _rebuttal(m: ArgumentMap, r: RebuttalNode, lang: str) -> Markup:
    """A rebuttal's node and, drawn above every box, the edges that leave it."""
    box = r.box
    index = m.column_of(r.letter)
    color = persona_color(index)
    name = m.names.get(r.letter, r.letter)
    words = f"{name} · {label('rebuttal', lang).lower()} {label('round', lang)[:1]}{r.round}"
    pill = el(
        "a",
        _self_link(m, rebuttal_anchor(r)),
        el(
            "rect",
            {
                "x": box.x,
                "y": box.y,
                "width": box.w,
                "height": box.h,
                "rx": "12",
                "class": "rebuttalbox",
                "stroke": color,
            },
        ),
        text(
            box.x + box.w / 2,
            box.y + 16,
            clip_to_width(words, box.w - 16, REBUTTAL),
            class_="rtext",
            text_anchor="middle",
            **font_attrs(REBUTTAL),
        ),
    )
    edges = [_edge(m, edge, lang) for edge in m.edges if edge.source is r]
    return el(
        "g",
        {
            **_ids(m, rebuttal_anchor(r)),
            "class": f"rebuttal persona-{r.letter} p{index} {r.css_key}",
        },
        title(words),
        pill,
        *edges,
    )


def _ghost_node(g: GhostNode, lang: str) -> Markup:
    """A target that is no claim of the debate (dashed); or, in a round's figure, a claim of
    another round: a link to it there."""
    box = g.box
    if g.elsewhere is not None:
        words = elsewhere_words(g, lang)
    else:
        words = f"{g.target} — {label('no_such_claim', lang)}"
    shape = [
        el("rect", {"x": box.x, "y": box.y, "width": box.w, "height": box.h, "rx": "3"}),
        text(
            box.x + box.w / 2,
            box.y + 15,
            clip_to_width(words, box.w - 12, GHOST),
            text_anchor="middle",
            **font_attrs(GHOST),
        ),
    ]
    if g.elsewhere is not None:
        return el(
            "a",
            {"href": f"#{node_anchor(g.target)}"},
            el("g", {"class": "ghost elsewhere"}, title(words), *shape),
        )
    return el("g", {"class": "ghost"}, title(words), *shape)


def _edge(m: ArgumentMap, edge: Edge, lang: str) -> Markup:
    style_key = edge.kind if edge.counted else "not_counted"
    name = m.names.get(edge.source.letter, edge.source.letter)
    target = edge.target
    target_id = target.claim.id if isinstance(target, ClaimNode) else target.target
    tooltip = f"{name} ({label('round', lang)} {edge.source.round}) {edge_words(edge.kind, lang)} "
    tooltip += f"{target_id}{label('colon', lang)} {clip(fold_lookalikes(edge.text), 240)}"
    if not edge.counted:
        tooltip += f" — {label_of('edge', 'not_counted', lang)}"
        if edge.note:
            tooltip += f" ({clip(edge.note, 160)})"
    classes = [
        "edge",
        f"edge-{edge.kind}",
        f"from-{edge.source.css_key}",
        f"src-p{m.column_of(edge.source.letter)}",
    ]
    if isinstance(target, ClaimNode):
        classes += [f"to-{target.key}", f"dst-p{m.column_of(target.claim.persona)}"]
    if not edge.counted:
        classes.append("not-counted")
    return el(
        "g",
        {
            "class": " ".join(classes),
            "data-kind": edge.kind,
            "data-from": edge.source.key,
            "data-target": target_id,
        },
        title(tooltip),
        el(
            "path",
            {
                "d": rounded_path(edge.points),
                "fill": "none",
                "class": f"line line-{style_key}",
                "stroke-width": "2.2" if edge.kind.startswith("concede") else "1.6",
                "stroke_dasharray": _EDGE_DASH[style_key],
                "marker-end": f"url(#{marker_id(m, style_key)})",
            },
        ),
    )


def _legend(m: ArgumentMap, items: list[LegendItem]) -> Markup:
    """The row(s) above the map: each edge kind's line, then the two node badges."""
    parts: list[Markup] = []
    for item in items:
        if item.kind.startswith("b-"):
            box = Box(item.x, item.y - BADGE_H / 2, item.width, BADGE_H)
            parts.append(_badge(Badge(item.word, item.kind, box)))
            continue
        parts.append(
            el(
                "line",
                {
                    "x1": item.x,
                    "x2": item.x + 34,
                    "y1": item.y,
                    "y2": item.y,
                    "class": f"line line-{item.kind}",
                    "stroke-width": "2.2",
                    "stroke_dasharray": _EDGE_DASH[item.kind],
                    "marker-end": f"url(#{marker_id(m, item.kind)})",
                },
            )
        )
        baseline = item.y + (LEGEND.ascent - LEGEND.descent) / 2
        parts.append(text(item.x + 40, baseline, item.word, class_="lgd", **font_attrs(LEGEND)))
    return el("g", {"class": "map-legend"}, *parts)
