"""The HTML report: the synthesis context plus figures, laid out by an autoescaping template.

Reads records only (like :mod:`argue.render`): the caller loads the history, state, usage and
synthesis prose and writes the file. The page is self-contained: inline CSS, inline SVG, no
script, no font or image to fetch; the only links leaving it are retrieved documents' URLs.
Its Content-Security-Policy says so to the browser (``default-src 'none'``, the stylesheet
allowed by its sha256, computed as the page is rendered), and no control or bidi character
is left anywhere on it.
"""

from __future__ import annotations

import base64
import hashlib
import math
from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from argue.domain import DebateState, Usage
from argue.records.history import DebateHistory
from argue.records.labels import Labels, label, label_of
from argue.records.prose import SynthesisDraft
from argue.records.strongest import NotRanked, reason_detail
from argue.render import synthesis_context
from argue.report.argument_map import ArgumentMap, ClaimNode, render_map_svg
from argue.report.argument_map.layout import _layout, map_model
from argue.report.argument_map.stack import build_print_maps, build_round_maps, stacked
from argue.report.charts import (
    COMPONENT_COLORS,
    FONT_PX,
    SPARE_COMPONENT_COLORS,
    Series,
    component_words,
    confidence_svg,
    score_components_svg,
    seat_class,
)
from argue.report.svg import PERSONA_COLORS, UNSAFE, clip, persona_color
from argue.report.text import (
    attribute_text,
    claim_anchor,
    document_link,
    evidence_anchor,
    inert_html,
    marked_sentence_html,
    model_html,
    model_paragraphs_html,
    node_anchor,
    unverified_marker,
)
from argue.text.typography import jinja_filters, localise_amounts


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("argue.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["csp_hash"] = csp_hash
    env.filters["attribute"] = attribute_text  # safe_text, French no-break spaces kept
    env.filters.update(jinja_filters())  # decimal commas in French (argue.text.typography)
    return env


READABLE_PX = 10.0
"""The smallest text a chart may show, in CSS px: below it a chart stops shrinking with the page
and scrolls sideways in its own box instead. (The map is drawn at its natural size by its own
stylesheet, map.css.j2, in a scroll box too.)"""


BRIEF_CHARS = 400
"""The map in words gives each claim and counter in at most this many characters (the claim's
full text is one link away, in the Claims section)."""


def readable_min_width(width: float, smallest_text_px: float) -> int:
    """The CSS width below which a figure ``width`` units wide would draw its smallest text
    (``smallest_text_px`` units) under READABLE_PX."""
    return math.ceil(width * min(1.0, READABLE_PX / smallest_text_px))


def csp_hash(css: str) -> str:
    """The Content-Security-Policy source of an inline stylesheet: ``sha256-<base64>`` of the
    exact text between ``<style>`` and ``</style>``, computed as the page is rendered."""
    digest = hashlib.sha256(str(css).encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render_report(
    history: DebateHistory,
    state: DebateState,
    usage: list[Usage],
    prose: SynthesisDraft | None,
    prose_failure: str | None,
) -> str:
    context = report_context(history, state, usage, prose, prose_failure)
    page = _environment().get_template("report.html.j2").render(**context)
    # No control or bidi character anywhere (a persona's name, a title): the attributes and
    # tooltips are already one clean line (``safe_text``); this catches the text between tags.
    return UNSAFE.sub("", page)


def report_context(
    history: DebateHistory,
    state: DebateState,
    usage: list[Usage],
    prose: SynthesisDraft | None,
    prose_failure: str | None,
) -> dict[str, Any]:
    """What the synthesis shows (its own context, reused as is), and the figures and claims."""
    ctx = synthesis_context(history, state, usage, prose, prose_failure)
    lang: str = ctx["lang"]
    references = ctx["references"]
    names: dict[str, str] = ctx["names"]
    letters = history.letters
    scores = history.claim_scores()

    # Evidence ids with a row on the page (sources, model-written items): links go only there.
    anchored: set[str] = set()
    for row in ctx["sources"]:
        anchored.update(row["ids"])
    for rows in ctx["model_written"].values():
        for row in rows:
            anchored.update(row["ids"])

    def evidence_link(evidence_id: str) -> str | None:
        return evidence_anchor(evidence_id) if evidence_id in anchored else None

    def model(value: object) -> Markup:
        return model_html(value, references, lang, evidence_link=evidence_link)

    def model_paragraphs(value: object) -> Markup:
        return model_paragraphs_html(value, references, lang, evidence_link=evidence_link)

    claims = history.claim_index()

    def cid(claim_id: str) -> Markup:
        """A claim id written by code: a link to its node when the claim exists."""
        if claim_id in claims:
            return Markup('<a class="cid" href="#{}">{}</a>').format(
                node_anchor(claim_id), claim_id
            )
        return inert_html(claim_id)

    def eid(evidence_id: str) -> Markup:
        target = evidence_link(evidence_id)
        if target:
            return Markup('<a class="eid" href="#{}">{}</a>').format(target, evidence_id)
        return inert_html(evidence_id)

    def not_ranked_words(item: NotRanked) -> Markup:
        """Why a claim cannot rank: code's words escaped, the specifics inert, the sentence's
        quoted words marked."""
        detail = reason_detail(
            item,
            lang,
            lambda value: str(inert_html(value)),
            lambda citation: str(marked_sentence_html(citation)),
            lambda ref: str(Markup("<code>{}</code> {}").format(ref, unverified_marker(lang))),
        )
        return Markup(escape(label_of("nr", item.reason, lang))).format(detail=Markup(detail))

    # Up to four personas, one figure with a column each; above, one figure per round (the
    # columns would be too wide to follow an arrow: argument_map.stack says why).
    argument_map = map_model(history, references, scores, lang)
    map_rounds: list[dict[str, Any]] = []
    if stacked(len(letters)):
        for one in build_round_maps(argument_map, lang):
            map_rounds.append(
                {"round": one.round_no, "svg": render_map_svg(one, lang), "width": one.width}
            )
        map_svg: Markup | None = None
    else:
        _layout(argument_map, lang)
        map_svg = render_map_svg(argument_map, lang)
    # On paper, every map round by round in parts that fit a page, drawn at their size.
    print_rounds = [
        {"round": round_no, "parts": [render_map_svg(part, lang) for part in parts]}
        for round_no, parts in build_print_maps(argument_map, lang)
    ]
    citing: dict[str, list[str]] = {}
    for claim in history.all_claims():
        for evidence_id in [*claim.quoted_evidence_ids, *claim.model_written_evidence_ids]:
            citing.setdefault(evidence_id, []).append(claim.id)
    for rows in [ctx["sources"], *ctx["model_written"].values()]:
        for row in rows:
            row["cited_by"] = list(
                dict.fromkeys(c for evidence_id in row["ids"] for c in citing.get(evidence_id, []))
            )

    rounds = history.ordered_rounds()
    series = [
        Series(letter, names[letter], i, history.confidences(letter))
        for i, letter in enumerate(letters)
    ]
    round_numbers = [r.round for r in rounds]
    confidence_chart = confidence_svg(series, round_numbers, lang)
    scored = [(r.round, r.score.personas) for r in history.committed_rounds() if r.score]
    scores_chart = score_components_svg(scored, letters, names, lang)
    chart_px = min(FONT_PX.values())
    from argue.llm import UsageLedger
    from argue.llm.pricing import describe_cost

    by_model = [
        {"name": name, "usage": total, "cost": localise_amounts(describe_cost(total, lang), lang)}
        for name, total in UsageLedger(usage).by_model().items()
    ]
    title = (
        f"{label('report_title', lang)}{label('colon', lang)} "
        f"{' '.join(history.config.question.split())}"
    )
    return {
        **ctx,
        "title": title,
        "is_partial": bool(ctx["partial_reasons"]),
        "colors": {letter: persona_color(i) for i, letter in enumerate(letters)},
        "seat_colors": [(seat_class(i), color) for i, color in enumerate(PERSONA_COLORS)],
        "component_colors": [
            *((f"seg-{name}", light, dark) for name, (light, dark) in COMPONENT_COLORS.items()),
            *(
                (f"seg-spare-{i}", light, dark)
                for i, (light, dark) in enumerate(SPARE_COMPONENT_COLORS)
            ),
        ],
        "chart_fonts": FONT_PX,
        "min_widths": {
            "confidence": readable_min_width(confidence_chart.width, chart_px),
            "scores": readable_min_width(scores_chart.width, chart_px),
        },
        "chart_widths": {"confidence": confidence_chart.width, "scores": scores_chart.width},
        "argument_map": map_svg,
        "map_rounds": map_rounds,
        "print_rounds": print_rounds,
        "map_width": argument_map.width,
        "map_nodes": argument_map.nodes,
        "map_in_words": map_in_words(argument_map),
        "confidence_svg": confidence_chart,
        "confidence_rows": [
            {"letter": s.letter, "name": s.name, "values": dict(s.points)} for s in series
        ],
        "chart_rounds": round_numbers,
        "scores_svg": scores_chart,
        "scored_rounds": scored,
        "component_words": lambda name: component_words(name, lang),
        "claim_rounds": _claim_rounds(history),
        "by_model": by_model,
        "total_cost": localise_amounts(describe_cost(ctx["usage"], lang), lang),
        "model": model,
        "model_paragraphs": model_paragraphs,
        "inert": inert_html,
        "cid": cid,
        "eid": eid,
        "doclink": document_link,
        "brief": lambda value: clip(str(value), BRIEF_CHARS),
        "sentence": marked_sentence_html,
        "not_ranked_words": not_ranked_words,
        "claim_anchor": claim_anchor,
        "evidence_anchor": evidence_anchor,
        "edge_words": lambda kind: label_of("edge", kind, lang),
        "L": Labels(lang),
    }


def _claim_rounds(history: DebateHistory) -> list[dict[str, Any]]:
    """Claims by round and persona, with each persona's position that round."""
    out = []
    for record in history.ordered_rounds():
        cells = []
        for letter in history.letters:
            argument = record.arguments.get(letter)
            if argument is None:
                continue
            cells.append(
                {
                    "letter": letter,
                    "name": history.persona_name(letter),
                    "position": argument.position,
                    "claims": argument.claims,
                }
            )
        out.append({"round": record.round, "cells": cells, "committed": record.committed})
    return out


def map_in_words(argument_map: ArgumentMap) -> list[dict[str, Any]]:
    """The argument map as text, from the same nodes and edges it is drawn from: per round and
    persona, the claims made, then what that persona's rebuttal did (kind, target, counted)."""
    rounds: dict[int, dict[str, dict[str, Any]]] = {}

    def cell(round_no: int, letter: str) -> dict[str, Any]:
        by_letter = rounds.setdefault(round_no, {})
        return by_letter.setdefault(letter, {"letter": letter, "claims": [], "moves": []})

    for node in argument_map.nodes.values():
        cell(node.claim.round, node.claim.persona)["claims"].append(node)
    for edge in argument_map.edges:
        source = edge.source
        target = edge.target
        exists = isinstance(target, ClaimNode)
        cell(source.round, source.letter)["moves"].append(
            {
                "kind": edge.kind,
                "target": target.claim.id if isinstance(target, ClaimNode) else target.target,
                "target_persona": target.claim.persona if isinstance(target, ClaimNode) else None,
                "exists": exists,
                "counted": edge.counted,
                "note": edge.note,
                "text": edge.text,
            }
        )
    order = {letter: i for i, letter in enumerate(argument_map.letters)}
    return [
        {
            "round": round_no,
            "cells": sorted(by_letter.values(), key=lambda c: order.get(c["letter"], len(order))),
        }
        for round_no, by_letter in sorted(rounds.items())
    ]
