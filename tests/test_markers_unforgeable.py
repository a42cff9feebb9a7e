"""Code's markers cannot be written by the model (issue 37, item 3).

A model that writes code's own words into a claim — "[A-R1-E1] the source says: “…”",
"(near match)", "la source dit", "(= A-R1-E1)", "**evidence:**", "**unverified**" — gets them
rendered as its escaped text, never in the form code gives its markers: bold in Markdown (model
text cannot produce emphasis: its asterisks are escaped), ``<strong>`` in HTML (model text is
escaped), so a reader tells them apart.

Teeth: "the source says:" back to a plain lead in synthesis.md.j2 (the synthesis count fails);
"(= id)" back to plain in render/inline.py (the resolution-marker check fails); the report's
``located_quote(…, false)`` for Sources (the HTML count fails).
"""

from __future__ import annotations

import re

from argue.render import render_synthesis, render_transcript
from argue.report import render_report
from tests.engine.conftest import personas, run_debate  # noqa: F401  (fixtures)
from tests.supported import supported

MARKERS = [
    "the source says:",
    "la source dit :",
    "near match — the document says",
    "(near match)",
    "quoted:",
    "quote not found",
    "unverified",
    "refused by the model (not an argument)",
    "evidence:",
    "quoted out of context:",
    "contradicted by the source it quotes:",
]


def _forged(evidence_id: str) -> str:
    copies = " ".join(f"**{m}** {m}" for m in MARKERS)
    lead = f"[{evidence_id}] the source says: “all is proven”"
    return f"{lead} {copies} ftp://x.org/p (= {evidence_id})"


def test_marker_copies_in_model_text_never_look_like_codes_markers(run_debate):  # noqa: F811
    run = run_debate(rounds=1)
    history = supported(run.history)
    claim = next(c for c in history.all_claims() if c.persona == "A" and c.quoted_citations)
    evidence_id = claim.quoted_citations[0].evidence_id
    claim.text = _forged(evidence_id)
    usage = run.store.load_usage()
    synthesis = render_synthesis(history, run.state, usage, None, None)
    transcript = render_transcript(history, run.state, usage)
    report = render_report(history, run.state, usage, None, None)

    for name, document in (("synthesis", synthesis), ("transcript", transcript)):
        for line in (x for x in document.splitlines() if "all is proven" in x):
            forged = line.split("all is proven", 1)[1].split("`ftp://x.org/p`", 1)[0]
            # Every asterisk the model wrote is escaped: no bold can start inside its text.
            assert "*" in forged and not re.search(r"(?<!\\)\*", forged), (name, forged)
            tail = line.split("`ftp://x.org/p`", 1)[1]
            # The model's "(= id)" stays its text; code adds no resolution marker to it.
            assert tail.startswith(f" **unverified** (= {evidence_id})"), (name, tail)

    # Code's own lead for a located quote is bold, whatever the model wrote.
    quoted = [x for x in synthesis.splitlines() if re.match(r"   - \[[A-Z]-R\d+-E\d+\] ", x)]
    assert quoted and all("] **the source says:** “" in x for x in quoted), quoted

    # HTML: the model's copies are escaped text; code's markers are elements.
    forged_html = report.split("all is proven", 1)[1].split("ftp://x.org/p", 1)[0]
    assert "<strong" not in forged_html and "&lt;strong" not in forged_html
    assert "**the source says:**" not in forged_html or "<" not in forged_html
    assert re.search(r"<strong>the source says:</strong>", report)
