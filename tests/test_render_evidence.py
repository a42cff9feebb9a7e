"""Evidence that cannot mislead, as shown (issue 36, items 2, 3, 6 and 7).

A located quote is shown in its sentence, the quoted words marked (Markdown bold, HTML
``<mark>``), in the synthesis (under each strongest argument and in Sources), the transcript, the
report and the JSON documents. A quote the sentence distances itself from is "quoted out of
context", with the distancing words; a near match is "near match — the document says"; a
sentence the support check found to contradict the claim is printed beside the claim. The
strongest arguments are given per side (at most ``PER_SIDE`` each, in a fixed order), and each
claim that cannot rank says why, with the specifics, in the debate's language.

Teeth (each checked once, then restored):
- ``sentence_parts`` in argue/records/strongest.py returning ``("", located, "")``: the
  sentence tests fail (the document's words around the quote are gone).
- ``blocker`` returning None for every claim (``not_ranked_because`` ignored): the out of
  context / near match / contradicts claims rank and ``test_what_cannot_rank_*`` fail.
- ``strongest_arguments`` with one shared list for both sides (``key = "all"``): Horus's five
  equal claims crowd Embry out and ``test_each_side_has_its_own_places`` fails.
- the counter's marker back on ``c.verified_evidence_ids`` in transcript_round.md.j2:
  ``test_a_counter_shows_evidence_only_for_its_located_quotes`` fails.
- ``marked_sentence_html`` without ``<mark>`` / escaping the located span with ``Markup`` (not
  escaped): the report tests fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from argue.domain import Citation, Claim, Counter, DebateConfig, Framing
from argue.records.history import DebateHistory
from argue.records.strongest import (
    PER_SIDE,
    NotRanked,
    reason_words,
    strongest_arguments,
)
from argue.render import render_synthesis, render_transcript
from argue.render.inline import fold_lookalikes, marked_sentence
from argue.report import render_report
from argue.report.text import marked_sentence_html
from tests.engine.conftest import new_store, personas, run_debate  # noqa: F401  (fixtures)
from tests.supported import support_on_disk, supported

BEFORE = "In 1976, Terras showed that "
AFTER = " for almost all starting values."


def _section(text: str, heading: str, level: str = "## ") -> str:
    return text.split(f"\n{level}{heading}", 1)[1].split(f"\n{level}", 1)[0]


def _claims(history: DebateHistory, letter: str) -> list[Claim]:
    return [c for c in history.all_claims() if c.persona == letter and c.citations]


@pytest.fixture
def debate(run_debate):  # noqa: F811
    """A two-round adversarial debate whose quotes were checked: Embry's first claim quoted in
    its sentence; Embry's second quoted out of context; Horus's first a near match, its second
    contradicted by the sentence it quotes, its third unrelated."""
    run = run_debate(rounds=2)
    history = supported(run.history)
    a1, a2, *_ = _claims(history, "A")
    b1, b2, b3, *_ = _claims(history, "B")
    quote = a1.citations[0]
    quote.context_before, quote.context_after = BEFORE, AFTER
    distanced = a2.citations[0]
    distanced.verdict = "out_of_context"
    distanced.context_before = "It is not true that "
    distanced.distancing = "It is not true that"
    distanced.support = "unchecked"
    near = b1.citations[0]
    near.verdict, near.exact, near.similarity = "near_match", False, 0.91
    near.quote = "SECRET detail about B, roughly"
    near.support = "unchecked"
    against = b2.citations[0]
    against.support, against.support_note = "contradicts", "the sentence says the opposite"
    against.support_by = "scripted-1"
    b3.citations[0].support = "unrelated"
    return run, history, {"a1": a1, "a2": a2, "b1": b1, "b2": b2, "b3": b3}


def _documents(run, history) -> dict[str, str]:
    usage = run.store.load_usage()
    return {
        "synthesis": render_synthesis(history, run.state, usage, None, None),
        "transcript": render_transcript(history, run.state, usage),
        "report": render_report(history, run.state, usage, None, None),
    }


def test_a_located_quote_is_shown_in_its_sentence_with_the_quoted_words_marked(debate):
    run, history, claims = debate
    docs = _documents(run, history)
    a1 = claims["a1"]
    located = a1.citations[0].located
    marked = f"“{BEFORE.replace(',', ',')}**{located}**{AFTER}”"
    strongest = _section(docs["synthesis"], "Strongest arguments of each side")
    assert f"({a1.id}, " in strongest
    assert marked in strongest  # under the strongest argument
    assert marked in _section(docs["synthesis"], "Sources")  # and in Sources
    assert f"**quoted:** {marked}" in docs["transcript"]
    html = f"“{BEFORE}<mark>{located}</mark>{AFTER}”"
    assert html in docs["report"]


def test_out_of_context_near_match_and_contradicts_are_shown_as_such(debate):
    run, history, claims = debate
    docs = _documents(run, history)
    transcript = docs["transcript"]
    a2, b1, b2 = claims["a2"], claims["b1"], claims["b2"]
    assert re.search(
        rf"\[{a2.citations[0].evidence_id}\] \*\*quoted out of context:\*\* “It is not true that "
        rf"\*\*{re.escape(a2.citations[0].located)}\*\*” — "
        r"\*\*the sentence distances itself with\*\* “It is not true that”",
        transcript,
    )
    assert re.search(
        rf"\[{b1.citations[0].evidence_id}\] \*\*near match — the document says\*\*: “\*\*"
        rf"{re.escape(b1.citations[0].located)}\*\*” \(91 %; the model wrote “SECRET detail",
        transcript,
    )
    assert "(near match)" not in transcript  # the old marker inside "quoted" is gone
    # contradicts: printed beside the claim itself, and beside its quote
    claim_line = next(line for line in transcript.splitlines() if f"**[{b2.id}]**" in line)
    assert f"**contradicted by the source it quotes:** {b2.citations[0].evidence_id}" in claim_line
    assert "— **contradicts the claim** (the sentence says the opposite)" in transcript
    # the report says the same, escaped, with <mark>
    report = docs["report"]
    assert "quoted out of context:</strong> “It is not true that <mark>" in report
    assert "near match — the document says</strong>: “<mark>" in report
    assert '<strong class="unverified support">contradicts the claim</strong>' in report


def test_what_cannot_rank_is_listed_with_its_reason_and_specifics(debate):
    run, history, claims = debate
    synthesis = _documents(run, history)["synthesis"]
    strongest = _section(synthesis, "Strongest arguments of each side")
    ranked = set(re.findall(r"^\d+\. \[\w+, Round \d\] .* \((\w\d\.c\d), score", strongest, re.M))
    for key in ("a2", "b1", "b2", "b3"):
        assert claims[key].id not in ranked, key
    assert claims["a1"].id in ranked
    reasons = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^- (\w\d\.c\d) \(\w+, score [\d.]+\): (.+)$", strongest, re.M)
    }
    a2, b1, b2, b3 = (claims[k] for k in ("a2", "b1", "b2", "b3"))
    assert reasons[a2.id].startswith(f"quoted out of context: [{a2.citations[0].evidence_id}]")
    assert "the sentence distances itself with “It is not true that”" in reasons[a2.id]
    assert reasons[b1.id].startswith("a near match only, not the document's words: [")
    assert reasons[b2.id] == (
        f"the sentence it quotes contradicts it: [{b2.citations[0].evidence_id}] "
        f"“**{b2.citations[0].located}**” — the sentence says the opposite "
        "(checked by scripted-1)"
    )
    assert reasons[b3.id].startswith("the sentence it quotes does not address it: [")
    assert not re.search(r"score [\d.]+\):\s*$", strongest, re.M)  # never a bare "(score 1.00):"


def test_each_side_has_its_own_places(debate):
    """Horus's claims all score 9: Embry's side still has its own places, side by side."""
    run, history, _ = debate
    for record in history.committed_rounds():
        assert record.score is not None
        for claim_id in record.score.personas["B"].claim_scores:
            record.score.personas["B"].claim_scores[claim_id] = 9.0
    for claim in history.all_claims():
        for citation in claim.citations:
            if citation.verdict == "quoted" or citation.verdict == "near_match":
                citation.verdict, citation.exact, citation.support = "quoted", True, "supports"
    synthesis = _documents(run, history)["synthesis"]
    strongest = _section(synthesis, "Strongest arguments of each side")
    for_side = _section(strongest, "For the proposition — Embry", "### ")
    against = _section(strongest, "Against the proposition — Horus", "### ")
    assert len(re.findall(r"^\d+\. \[Embry,", for_side, re.M)) == PER_SIDE
    assert len(re.findall(r"^\d+\. \[Horus,", against, re.M)) == PER_SIDE
    assert "[Horus," not in for_side and "[Embry," not in against
    assert strongest.index("### For the proposition") < strongest.index("### Against")
    # a fixed order: score, then round, then claim number; the same every time
    assert synthesis == _documents(run, history)["synthesis"]


def test_a_counter_shows_evidence_only_for_its_located_quotes(debate):
    run, history, _ = debate
    record = history.rounds[2]
    rebuttal = record.rebuttals["A"]
    bare = Counter(
        target_claim_id="B1.c1",
        kind="refute",
        text="bare ids only",
        evidence_ids=["A-R1-E1"],
        verified_evidence_ids=["A-R1-E1"],
        valid_target=True,
    )
    quoted = Counter(
        target_claim_id="B1.c1",
        kind="undercut",
        text="with a located quote",
        evidence_ids=["A-R1-E2"],
        verified_evidence_ids=["A-R1-E2"],
        valid_target=True,
        citations=[
            Citation(
                evidence_id="A-R1-E2",
                quote="SECRET words",
                verdict="quoted",
                located="SECRET words",
                exact=True,
                context_before="the study found ",
                context_after=" again",
                support="contradicts",
            )
        ],
    )
    rebuttal.counters = [bare, quoted]
    transcript = _documents(run, history)["transcript"]
    bare_line = next(line for line in transcript.splitlines() if "bare ids only" in line)
    assert "**evidence:**" not in bare_line
    quoted_line = next(line for line in transcript.splitlines() if "with a located quote" in line)
    assert "— **evidence:** A-R1-E2" in quoted_line
    assert "**contradicted by the source it quotes:** A-R1-E2" in quoted_line
    assert "  - [A-R1-E2] **quoted:** “the study found **SECRET words** again”" in transcript


def test_the_sentence_is_inert_in_markdown_and_escaped_in_html():
    hostile = Citation(
        evidence_id="A-R1-E1",
        verdict="quoted",
        exact=True,
        located="**unverified** <b>x</b>",
        context_before="## Sources [link](https://evil.example) ",
        context_after=" `code` &#42;",
    )
    md = marked_sentence(hostile)
    assert md.startswith("\\#\\# Sources \\[link\\](`https://evil.example)` **")
    assert "**\\*\\*unverified\\*\\* &lt;b&gt;x&lt;/b&gt;**" in md
    assert md.endswith(" \\`code\\` &amp;#42;")
    html = str(marked_sentence_html(hostile))
    assert "<mark>**unverified** &lt;b&gt;x&lt;/b&gt;</mark>" in html
    assert "<code>https://evil.example)</code>" in html and "<b>" not in html


# ------------------------------------------------------------------ not ranked, every reason


def _claim(**fields) -> Claim:
    return Claim(id="A1.c1", persona="A", round=1, text="t", **fields)


def _quoted(**fields) -> Citation:
    base = {
        "evidence_id": "A-R1-E1",
        "quote": "six words of the document here",
        "verdict": "quoted",
        "exact": True,
        "located": "six words of the document here",
        "context_before": "We found ",
        "context_after": ".",
    }
    return Citation(**{**base, **fields})


REASONS = {
    "refusal": (_claim(refusal=True), [], "the model refused", "refus du modèle"),
    "unverified_reference": (
        _claim(unverified_references=["Smith 2020"]),
        ["Smith 2020"],
        "match no retrieved document",
        "aucun document trouvé",
    ),
    "contradicts": (
        _claim(
            verified_evidence_ids=["A-R1-E1"],
            citations=[_quoted(support="contradicts", support_note="says the opposite")],
        ),
        ["“We found six words of the document here.”", "says the opposite"],
        "contradicts it",
        "la contredit",
    ),
    "unrelated": (
        _claim(verified_evidence_ids=["A-R1-E1"], citations=[_quoted(support="unrelated")]),
        ["[A-R1-E1]"],
        "does not address it",
        "ne traite pas",
    ),
    "unchecked": (
        _claim(
            verified_evidence_ids=["A-R1-E1"],
            citations=[_quoted(support_note="no support check ran")],
        ),
        ["no support check ran"],
        "nobody checked",
        "personne n'a vérifié",
    ),
    "out_of_context": (
        _claim(
            verified_evidence_ids=["A-R1-E1"],
            citations=[_quoted(verdict="out_of_context", distancing="It is false that")],
        ),
        ["“It is false that”"],
        "quoted out of context",
        "citée hors contexte",
    ),
    "near_match": (
        _claim(
            verified_evidence_ids=["A-R1-E1"],
            citations=[_quoted(verdict="near_match", exact=False)],
        ),
        ["“We found six words of the document here.”"],
        "near match only",
        "correspondance approchée",
    ),
    "quote_not_found": (
        _claim(
            verified_evidence_ids=["A-R1-E1"],
            citations=[
                Citation(evidence_id="A-R1-E1", verdict="quote_not_found", note="not in the text")
            ],
        ),
        ["[A-R1-E1] (not in the text)"],
        "not found",
        "introuvable",
    ),
    "unknown_evidence": (
        _claim(unverified_evidence_ids=["Z-R9-E9"]),
        ["Z-R9-E9"],
        "does not exist",
        "n'existent pas",
    ),
    "model_written_only": (
        _claim(model_written_evidence_ids=["A-R1-E3"]),
        ["A-R1-E3"],
        "only model-written",
        "écrits par un modèle",
    ),
    "uncited": (_claim(), [], "cites no evidence", "ne cite aucune preuve"),
}


def _config(lang: str = "en") -> DebateConfig:
    return DebateConfig(
        id="argue_20260101_000000",
        question="q",
        mode="adversarial",
        personas={"A": "embry", "B": "horus"},
        max_rounds=1,
        provider="scripted",
        model="m",
        language=lang,  # type: ignore[arg-type]
        framing=Framing(
            proposition="p", stances={"A": "FOR the proposition", "B": "AGAINST the proposition"}
        ),
    )


@pytest.mark.parametrize("reason", list(REASONS))
def test_what_cannot_rank_says_why_in_the_debate_language(reason: str) -> None:
    claim, specifics, english, french = REASONS[reason]
    assert claim.not_ranked_because == reason
    for lang, words in (("en", english), ("fr", french)):
        found = strongest_arguments(_config(lang), {claim.id: claim}, {claim.id: 1.0}, None)
        (side, _) = found.sides
        assert not side.ranked
        (item,) = side.not_ranked
        assert isinstance(item, NotRanked) and item.reason == reason
        sentence = reason_words(item, lang)
        assert words in sentence, (lang, sentence)
        for specific in specifics:
            assert specific in sentence, (lang, sentence)
        document = found.as_json({"A": "Embry", "B": "Horus"}, lang)
        (row,) = document["sides"][0]["not_ranked"]
        assert row["reason"] == reason and row["reason_words"] == sentence


def test_the_json_document_gives_sides_sentences_and_support(debate, tmp_path: Path) -> None:
    """``argue synthesize ID --json`` (app.synthesize) carries the strongest arguments."""
    from argue import app

    run, _, _ = debate
    support_on_disk(run.store)
    result = app.synthesize(
        run.store.debate_id, workspace=app.Workspace(run.store.paths.root.parent)
    )
    document = result.as_json()
    assert "text" not in document and document["path"].endswith("synthesis.md")
    json.dumps(document)  # JSON-ready
    sides = document["strongest"]["sides"]
    assert [(s["side"], s["names"]) for s in sides] == [
        ("for", ["Embry"]),
        ("against", ["Horus"]),
    ]
    for side in sides:
        assert 0 < len(side["arguments"]) <= PER_SIDE
        for argument in side["arguments"]:
            assert argument["evidence_ids"]
            for citation in argument["citations"]:
                assert citation["located"] in citation["sentence"]
                assert citation["support"] == "supports" and citation["counts"]


_PIECES = [
    "a",
    "word",
    " ",
    "#",
    "*",
    "_",
    "`",
    "<b>",
    "&#42;",
    ".",
    ")",
    "(",
    "“",
    "é",
    "1.",
    "\n",
]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)


@settings(max_examples=150, deadline=None)
@given(before=_TEXT, located=_TEXT.filter(lambda s: fold_lookalikes(s).split()), after=_TEXT)
def test_property_the_quoted_words_are_one_bold_span_and_nothing_else(
    before: str, located: str, after: str
) -> None:
    """Whatever the document's words, the sentence is one paragraph with exactly one bold span
    (the quoted words) and no link, code's marker or HTML. Teeth: without the space shown
    before punctuation in ``marked_sentence``, ``x**.y**`` is not bold and this fails."""
    citation = Citation(
        evidence_id="E",
        verdict="quoted",
        located=located,
        context_before=before,
        context_after=after,
    )
    tokens = MarkdownIt("commonmark").parse(f"- [E] the source says: “{marked_sentence(citation)}”")
    inline = [t for t in tokens if t.type == "inline"]
    assert len(inline) == 1
    kinds = [child.type for child in inline[0].children or []]
    assert kinds.count("strong_open") == 1, (marked_sentence(citation), kinds)
    assert not {"em_open", "link_open", "html_inline", "image"} & set(kinds)


def test_a_french_synthesis_gives_the_strongest_arguments_of_each_camp(run_debate, new_store):  # noqa: F811
    run = run_debate(store=new_store("fr", language="fr"))
    history = supported(run.history)
    contradicted = _claims(history, "B")[0]
    contradicted.citations[0].support = "contradicts"
    contradicted.citations[0].support_by = "rules"
    contradicted.citations[0].support_note = ""
    synthesis = render_synthesis(history, run.state, [], None, None)
    strongest = _section(synthesis, "Arguments les plus forts de chaque camp")
    assert "\n### Pour la proposition — Embry\n" in strongest
    assert "\n### Contre la proposition — Horus\n" in strongest
    assert "Au plus 3 par camp" in strongest
    assert re.search(
        rf"^- {re.escape(contradicted.id)} \(Horus, score [\d,]+\)\u00a0: la phrase qu'elle "
        r"cite la contredit\u00a0: \[B-R\d-E\d\] “\*\*.+\*\*” "
        r"\(vérifié par les règles hors ligne d'argue\)$",
        strongest,
        re.M,
    ), strongest


def test_the_run_json_document_carries_the_strongest_arguments(debate) -> None:
    """``argue QUESTION --json`` ends with the run's outcome: the strongest arguments too."""
    from argue import app

    run, _, _ = debate
    document = app.outcome(run.store, run.state).as_json()
    assert [side["side"] for side in document["strongest"]["sides"]] == ["for", "against"]
    json.dumps(document)


def test_code_words_put_into_the_report_unescaped_hold_no_markup() -> None:
    """The report escapes each not-ranked label, but the words ``reason_detail`` puts inside
    its detail (the support checker, the distancing words) are code's labels as they are."""
    from argue.records.labels import label

    for key in ("support_by", "support_rules", "distancing_words"):
        for words in (label(key, "en", by="x"), label(key, "fr", by="x")):
            assert not set("<>&\"'") & set(words.replace("'", "")), key
