"""The argument map drawn as SVG: the legend, the persona columns and round bands, the claim,
rebuttal and "no such claim" nodes, and the edges between them, each with its tooltip."""

from __future__ import annotations

from markupsafe import Markup

from argue.records.labels import label
from argue.render.inline import fold_lookalikes
from argue.report.argument_map.layout import (
    BADGE_GAP,
    BADGE_H,
    BADGE_ROW_H,
    CHAR_W,
    EDGE_KINDS,
    HEADER_ASCENT,
    LEFT,
    TOP,
    ArgumentMap,
    Badge,
    Box,
    ClaimNode,
    Edge,
    GhostNode,
    RebuttalNode,
    badge_width,
    node_header,
)
from argue.report.svg import clip, el, num, persona_color, svg, text, title, wrap
from argue.report.text import claim_anchor, node_anchor

_EDGE_STYLE: dict[str, dict[str, object]] = {
    "refute": {"stroke": "#b3261e", "stroke_dasharray": None},
    "undercut": {"stroke": "#b35c00", "stroke_dasharray": "7 4"},
    "question": {"stroke": "#1f5fa8", "stroke_dasharray": "2 4"},
    "concede_full": {"stroke": "#1e7b3c", "stroke_dasharray": None},
    "concede_partial": {"stroke": "#1e7b3c", "stroke_dasharray": "9 3 2 3"},
    "not_counted": {"stroke": "#8a8a8a", "stroke_dasharray": "3 3"},
}


def edge_words(kind: str, lang: str) -> str:
    return label(f"edge_{kind}", lang)


def render_map_svg(m: ArgumentMap, lang: str) -> Markup:
    parts: list[Markup] = [_defs()]
    parts += _frame(m, lang)
    parts += [_edge(m, edge, i, lang) for i, edge in enumerate(m.edges)]
    parts += [_claim_node(m, node, lang) for node in m.nodes.values()]
    parts += [_rebuttal_node(m, r, lang) for r in m.rebuttals]
    parts += [_ghost_node(g, lang) for g in m.ghosts]
    if not m.nodes:
        parts.append(text(LEFT, TOP + 30, label("nothing_yet", lang), class_="muted"))
    return svg(m.width, m.height, label("argument_map", lang), *parts, class_="argmap")


def _defs() -> Markup:
    markers = [
        el(
            "marker",
            {
                "id": f"arrow-{kind}",
                "viewBox": "0 0 10 10",
                "refX": "9",
                "refY": "5",
                "markerWidth": "7",
                "markerHeight": "7",
                "orient": "auto-start-reverse",
            },
            el("path", {"d": "M0,0 L10,5 L0,10 z", "fill": str(style["stroke"])}),
        )
        for kind, style in _EDGE_STYLE.items()
    ]
    return el("defs", None, *markers)


def _frame(m: ArgumentMap, lang: str) -> list[Markup]:
    parts: list[Markup] = [_legend(lang)]
    for i, letter in enumerate(m.letters):
        x = m.column_x(letter)
        parts.append(
            el(
                "rect",
                {
                    "x": x,
                    "y": 30.0,
                    "width": m.column_width,
                    "height": 22.0,
                    "rx": "3",
                    "fill": persona_color(i),
                },
            )
        )
        parts.append(
            text(
                x + m.column_width / 2,
                45.5,
                f"{m.names[letter]} ({letter})",
                class_="colhead",
                text_anchor="middle",
            )
        )
    for round_no, (top, _bottom) in m.bands.items():
        parts.append(
            el(
                "line",
                {"x1": 4.0, "x2": m.width - 4, "y1": top, "y2": top, "class": "band"},
            )
        )
        parts.append(text(8, top + 20, f"{label('round', lang)[:1]}{round_no}", class_="bandlabel"))
    return parts


def _persona_index(m: ArgumentMap, letter: str) -> int:
    return m.letters.index(letter) if letter in m.letters else 0


def _claim_node(m: ArgumentMap, node: ClaimNode, lang: str) -> Markup:
    claim, box = node.claim, node.box
    color = persona_color(_persona_index(m, claim.persona))
    classes = ["node", f"persona-{claim.persona}"]
    if node.conceded_by:
        classes.append("conceded")
    if node.unverified:
        classes.append("unverified")
    name = m.names.get(claim.persona, claim.persona)
    claim_text = fold_lookalikes(claim.text)
    tooltip = f"{claim.id} · {name} · {label('round', lang)} {claim.round}: {claim_text}"
    if node.unverified:
        tooltip += f" — {label('unverified', lang)}: {fold_lookalikes(', '.join(node.unverified))}"
    header = node_header(node, box, lang)
    header_y = header.id_box.y + HEADER_ASCENT
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
        text(header.id_box.x, header_y, claim.id, class_="nid"),
    ]
    inner += [_badge(badge) for badge in header.badges]
    inner.append(
        text(box.x + box.w - 8, header_y, header.score_text, class_="nscore", text_anchor="end")
    )
    chars = max(12, int((box.w - 22) / CHAR_W))
    lines = wrap(claim_text, chars, 2)
    text_y = box.y + 34 + header.rows * BADGE_ROW_H
    tspans = [
        el("tspan", {"x": box.x + 12, "y": text_y + 15 * i}, line) for i, line in enumerate(lines)
    ]
    if tspans:
        inner.append(el("text", {"class": "ntext"}, *tspans))
    link = el("a", {"href": f"#{claim_anchor(claim.id)}"}, *inner)
    return el("g", {"id": node_anchor(claim.id), "class": " ".join(classes)}, title(tooltip), link)


def _badge(badge: Badge) -> Markup:
    box = badge.box
    return el(
        "g",
        {"class": f"badge {badge.css}"},
        el("rect", {"x": box.x, "y": box.y, "width": box.w, "height": box.h, "rx": "7"}),
        text(box.x + box.w / 2, box.y + HEADER_ASCENT, badge.word, text_anchor="middle"),
    )


def _rebuttal_node(m: ArgumentMap, r: RebuttalNode, lang: str) -> Markup:
    box = r.box
    color = persona_color(_persona_index(m, r.letter))
    name = m.names.get(r.letter, r.letter)
    words = f"{name} · {label('rebuttal', lang).lower()} {label('round', lang)[:1]}{r.round}"
    return el(
        "g",
        {"id": f"rebuttal-{r.key}", "class": f"rebuttal persona-{r.letter}"},
        title(words),
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
            clip(words, int(box.w / CHAR_W)),
            class_="rtext",
            text_anchor="middle",
        ),
    )


def _ghost_node(g: GhostNode, lang: str) -> Markup:
    box = g.box
    words = f"{g.target} — {label('no_such_claim', lang)}"
    return el(
        "g",
        {"class": "ghost"},
        title(words),
        el(
            "rect",
            {"x": box.x, "y": box.y, "width": box.w, "height": box.h, "rx": "3"},
        ),
        text(
            box.x + box.w / 2,
            box.y + 16,
            clip(words, int(box.w / CHAR_W)),
            text_anchor="middle",
        ),
    )


def _edge(m: ArgumentMap, edge: Edge, index: int, lang: str) -> Markup:
    src, dst = edge.source.box, edge.target.box
    style_key = edge.kind if edge.counted else "not_counted"
    style = _EDGE_STYLE[style_key]
    # Spread the edges that arrive at one target so they do not overlap exactly.
    arriving = [e for e in m.edges if e.target is edge.target]
    k = arriving.index(edge)
    spread = (k - (len(arriving) - 1) / 2) * min(8.0, (dst.h - 10) / max(1, len(arriving)))
    ty = dst.cy + spread
    if isinstance(edge.target, GhostNode):
        # Straight down from the rebuttal to its unknown target, beside the column.
        sx, sy = src.x + 14, src.y + src.h
        tx, ty = dst.x + 14, dst.y
        d = f"M{num(sx)},{num(sy)} L{num(tx)},{num(ty)}"
    else:
        if dst.x + dst.w / 2 < src.x + src.w / 2 - 1:
            sx, tx, out = src.x, dst.x + dst.w, -1
        elif dst.x + dst.w / 2 > src.x + src.w / 2 + 1:
            sx, tx, out = src.x + src.w, dst.x, 1
        else:  # the same column (a persona's own claim): loop out to the right
            sx, tx, out = src.x + src.w, dst.x + dst.w, 0
        sy = src.cy
        if out == 0:
            bulge = 36 + 6 * (k % 4)
            c1x, c2x = sx + bulge, tx + bulge
        else:
            dx = max(40.0, abs(tx - sx) / 2)
            c1x, c2x = sx + out * dx, tx - out * dx
        d = f"M{num(sx)},{num(sy)} C{num(c1x)},{num(sy)} {num(c2x)},{num(ty)} {num(tx)},{num(ty)}"
    name = m.names.get(edge.source.letter, edge.source.letter)
    target_id = edge.target.claim.id if isinstance(edge.target, ClaimNode) else edge.target.target
    tooltip = f"{name} ({label('round', lang)} {edge.source.round}) {edge_words(edge.kind, lang)} "
    tooltip += f"{target_id}: {clip(fold_lookalikes(edge.text), 240)}"
    if not edge.counted:
        tooltip += f" — {label('edge_not_counted', lang)}"
        if edge.note:
            tooltip += f" ({clip(edge.note, 160)})"
    classes = f"edge edge-{edge.kind}" + ("" if edge.counted else " not-counted")
    return el(
        "g",
        {
            "class": classes,
            "data-kind": edge.kind,
            "data-from": edge.source.key,
            "data-target": target_id,
        },
        title(tooltip),
        el(
            "path",
            {
                "d": d,
                "fill": "none",
                "stroke": style["stroke"],
                "stroke-width": "2.2" if edge.kind.startswith("concede") else "1.6",
                "stroke_dasharray": style["stroke_dasharray"],
                "marker-end": f"url(#arrow-{style_key})",
            },
        ),
    )


def _legend(lang: str) -> Markup:
    """One row above the map: each edge kind's line, then the two node markers."""
    parts: list[Markup] = []
    x = float(LEFT)
    for kind in (*EDGE_KINDS, "not_counted"):
        style = _EDGE_STYLE[kind]
        parts.append(
            el(
                "line",
                {
                    "x1": x,
                    "x2": x + 34,
                    "y1": 12.0,
                    "y2": 12.0,
                    "stroke": style["stroke"],
                    "stroke-width": "2.2",
                    "stroke_dasharray": style["stroke_dasharray"],
                    "marker-end": f"url(#arrow-{kind})",
                },
            )
        )
        words = edge_words(kind, lang)
        parts.append(text(x + 40, 16, words, class_="lgd"))
        x += 40 + len(words) * 6.6 + 18
    for word, css in (
        (label("conceded_badge", lang), "b-conceded"),
        (label("unverified", lang), "b-unverified"),
    ):
        w = badge_width(word)
        parts.append(_badge(Badge(word, css, Box(x, 16 - HEADER_ASCENT, w, BADGE_H))))
        x += w + BADGE_GAP
    return el("g", {"class": "legend"}, *parts)
