"""French typography everywhere argue writes French (issue 41, item 5): the terminal, the
Markdown synthesis and transcript, the HTML report with its SVG charts, and the live page.

What a French reader is owed: a no-break space before ``:`` ``;`` ``?`` ``!`` (and ``%``) and
inside ``« »``, so no line can start with one of them; decimal commas in the numbers shown to
people (scores, confidences, costs); one word for a round, the spec's "Round"; and no English
word of code.

Teeth (each checked once by breaking it, then restored):
- ``label`` in argue/records/labels.py returns the catalog's French unspaced (``_say`` without
  ``french_spacing``): the label-table test, the documents' plain-space test and the terminal
  tests fail;
- the ``format`` filter left as Jinja's (drop ``env.filters.update(jinja_filters())`` in
  argue/render/markdown.py): the documents' decimal-comma test fails on ``score 2.00``;
- ``"live_round_heading"`` back to ``"Tour {n}"``: the one-round-word test fails on the live page;
- ``"live_scores"`` back to ``"Scores"``: the English-word test fails on the live page;
- ``_keep_no_break_spaces_together()`` not called in argue/console.py: the rich wrapping test
  finds lines that start with ``:``;
- ``fold_lookalikes`` in argue/render/inline.py folding no-break spaces again (plain NFKC): the
  transcript's failure lines lose them and the plain-space test fails.
"""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argue.app import write_report
from argue.console import SafeConsole
from argue.engine import create_debate
from argue.records.labels import all_words, label
from argue.records.terminal import score_words
from argue.text.typography import (
    NBSP,
    NNBSP,
    format_number,
    format_usd,
    french_spacing,
    localise_amounts,
    localise_number,
)
from tests.engine.conftest import personas, run_debate  # noqa: F401  (fixtures)
from tests.engine.script import DebateScript, ScriptedToolkit, names_of
from tests.test_french_documents import _english_words, _tokens, _without_model_text

QUESTION = "La conjecture de Collatz est-elle décidable ?"
SIGNS = ":;?!»%"
PLAIN_SPACE_BEFORE_SIGN = re.compile(r"[ \t][:;?!»%]|«[ \t]")
LINE_STARTS_WITH_SIGN = re.compile(rf"^[ \t{NBSP}{NNBSP}]*[{re.escape(SIGNS)}]", re.M)
DOT_DECIMAL = re.compile(r"(?<![\w.$/-])\d+\.\d+(?![\w.])")
ROUND_WORDS = re.compile(r"\b[Tt]ours?\b|\bmanches?\b")
# Code words a French page once showed raw (issue 41): none may come back.
CODE_WORDS = ("Scores", "max_rounds", "completed", "running", "Termination", "scored", "Round 1 s")


# ---------------------------------------------------------------- the functions


def test_french_spacing_puts_no_break_spaces_where_french_wants_them() -> None:
    assert french_spacing("Round 1 : fini ? oui ! a ; b (50 %)") == (
        f"Round 1{NBSP}: fini{NNBSP}? oui{NNBSP}! a{NNBSP}; b (50{NNBSP}%)"
    )
    assert french_spacing("« x »") == french_spacing("«x»") == f"«{NBSP}x{NBSP}»"
    assert french_spacing("**Statut :** en cours") == f"**Statut{NBSP}:** en cours"
    # what it never touches: a clock time, a ratio, a query string, a URL, a code span, JSON
    for untouched in (
        "10:30 et 3:2",
        "https://example.org/a :b?c=1",
        "voir `a : b` ici",
        '{"a" : 1, "b" : "c ?"}',
        "a:b;c?d!e",
    ):
        assert french_spacing(untouched) == untouched, untouched


@given(st.text(alphabet=st.sampled_from([*'ab :;?!%«»`{}"/\t10', NBSP, NNBSP])))
def test_french_spacing_is_idempotent_and_changes_only_spaces(text: str) -> None:
    once = french_spacing(text)
    assert french_spacing(once) == once
    spaces = re.compile(rf"[ \t{NBSP}{NNBSP}]")
    assert spaces.sub("", once) == spaces.sub("", text)


def test_numbers_shown_to_people_take_a_decimal_comma_in_french() -> None:
    assert format_number(0.85, "fr") == "0,85" and format_number(0.85, "en") == "0.85"
    assert format_number(2, "fr", 1) == "2,0"
    assert format_usd(0.0123, "fr") == f"0,0123{NBSP}$" and format_usd(0.0123, "en") == "$0.0123"
    assert score_words(2.0, 7.0, "fr") == f"2,00/7,0 (29{NNBSP}%)"
    assert score_words(2.0, 7.0, "en") == "2.00/7.0 (29%)"
    # a field its caller formatted: only a bare decimal changes, never an id or a version
    assert localise_number("0.70", "fr") == "0,70"
    for kept in ("4.1.2", "A1.c2", "gpt-5.4-mini", "R2", "0.70"):
        assert localise_number(kept, "en") == kept
    assert localise_number("4.1.2", "fr") == "4.1.2" and localise_number("A1.c2", "fr") == "A1.c2"
    assert localise_amounts("at least $0.0123 (1 call)", "fr") == f"at least 0,0123{NBSP}$ (1 call)"
    assert label("sum_reflection", "fr", confidence="0.85") == "confiance 0,85"
    assert label("sum_reflection", "en", confidence="0.85") == "confidence 0.85"


def test_every_french_label_is_spaced_the_french_way() -> None:
    written = all_words("fr", spaced=False)
    for key, shown in all_words("fr").items():
        french = written[key]
        assert not PLAIN_SPACE_BEFORE_SIGN.search(shown), (key, shown)
        # a sign glued to a word (``Question:``) would be English typography
        assert not re.search(r"\w[:;?!](?:\s|$)", re.sub(r"`[^`]*`", "", shown)), (key, shown)
        assert french.strip()
    assert label("colon", "fr") == f"{NBSP}:" and label("colon", "en") == ":"
    assert label("quoted_text", "fr", text="x") == f"«{NBSP}x{NBSP}»"


def test_french_has_one_word_for_a_round_the_spec_s() -> None:
    spec_word = "round"  # the spec (seeds/004): "Round 1/5", "3 rounds", "[Embry, Round 3]"
    for key, french in all_words("fr", spaced=False).items():
        assert not ROUND_WORDS.search(french), (key, french)
    for key in ("round", "t_round", "live_round", "live_round_heading", "w_scored"):
        assert spec_word in label(key, "fr", n=1, total=2, scores="", words="", spending="").lower()


# ---------------------------------------------------------------- the terminal


def test_rich_never_starts_a_wrapped_french_line_with_a_sign() -> None:
    """In a terminal rich wraps at word boundaries; a no-break space is not one. (From 16
    columns: a group of words held by no-break spaces longer than the window is cut anyway.)"""
    scores = f"Embry {score_words(2.0, 7.0, 'fr')}, Horus {score_words(1.5, 7.0, 'fr')}"
    lines = [
        label("t_scored", "fr", n=1, scores=scores, spending="3 appels"),
        label("t_termination", "fr", reason="Nombre maximum de rounds", detail="limite atteinte"),
        label("t_personas", "fr", personas="Embry vs Horus", mode="Adversaire", model="x"),
        label("live_note_label", "fr"),
        label("reason_offline_hint", "fr"),
    ]
    for width in range(16, 60):
        out = io.StringIO()
        console = SafeConsole(file=out, force_terminal=True, width=width, color_system=None)
        for line in lines:
            console.print(line, markup=False)
        printed = out.getvalue()
        assert not LINE_STARTS_WITH_SIGN.search(printed), f"width {width}:\n{printed}"


# ---------------------------------------------------------------- a French debate, every output


class _PageText(HTMLParser):
    """The text a reader sees (and the titles a pointer shows), the stylesheet and script left
    out; one entry per text node."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._skip += 1
        for name, value in attrs:
            if name in ("title", "aria-label") and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.parts.append(data)


def _page_text(html: str, separator: str = "") -> str:
    """The page's text; its text nodes joined as they are (``separator`` between them), so a
    node that begins with ``\u00a0:`` after a ``<strong>`` is not taken for a line start (the
    browser test sees the real lines)."""
    parser = _PageText()
    parser.feed(html)
    return separator.join(parser.parts)


@pytest.fixture
def french_outputs(run_debate, tmp_path: Path, personas):  # noqa: F811
    """A French Embry-vs-Horus debate (scripted model, 2 rounds) and everything argue wrote or
    would show about it: the terminal lines, both Markdown documents, the report (its text and
    its charts' text) and the live page."""
    from argue.app import Workspace, live_debate
    from argue.web._pages import Pages

    names = ["embry", "horus"]
    store = create_debate(
        tmp_path / "debates",
        question=QUESTION,
        mode="adversarial",
        personas=[personas[n] for n in names],
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
        language="fr",
    )
    script = DebateScript(names=names_of([personas[n] for n in names]), cite_bogus=True)
    run = run_debate(names, store=store, script=script, toolkit=ScriptedToolkit(fail_skill="ask"))
    report = write_report(run.store, tmp_path / "report.html").read_text()
    # The argument map's own drawing (argue/report/argument_map, another part of issue 41) is
    # left out: its tooltips and boxes are not this module's (see the report of this work).
    report = re.sub(r'<svg[^>]*class="argmap".*?</svg>', "", report, flags=re.S)
    debate = live_debate(store.debate_id, workspace=Workspace(debates_dir=tmp_path / "debates"))
    live = Pages("token").debate(debate, note_max=2000)
    charts = "\n".join(re.findall(r"<svg[^>]*class=\"chart\".*?</svg>", report, flags=re.S))
    outputs = {
        "terminal": "\n".join(run.events),
        "synthesis.md": run.store.paths.synthesis.read_text(),
        "transcript.md": run.store.paths.transcript.read_text(),
        "report.html": _page_text(report),
        "charts.svg": _page_text(charts, "\n"),
        "live page": _page_text(live),
    }
    assert charts and "Round" in outputs["live page"]
    return run.store.paths.root, outputs


def test_no_line_starts_with_a_sign_and_code_never_puts_a_plain_space_before_one(
    french_outputs,
) -> None:
    root, outputs = french_outputs
    for name, text in outputs.items():
        if name in ("terminal", "synthesis.md", "transcript.md"):  # lines as written
            starts = [line for line in text.splitlines() if LINE_STARTS_WITH_SIGN.match(line)]
            assert not starts, (name, starts)
        code_only = _without_model_text(text, root)
        found = [code_only[max(0, m.start() - 30) : m.end() + 10] for m in
                 PLAIN_SPACE_BEFORE_SIGN.finditer(code_only)]  # fmt: skip
        assert not found, f"{name}: plain space before a sign: {found}"


def test_numbers_shown_to_people_have_decimal_commas(french_outputs) -> None:
    root, outputs = french_outputs
    assert re.search(r"score \d+,\d\d", outputs["synthesis.md"])
    assert re.search(r"\*\*Score\*\* \d+,\d\d / \d+,\d", outputs["transcript.md"])
    assert re.search(r"Précision=0,85", outputs["transcript.md"])
    assert re.search(r"confiance \d,\d\d", outputs["transcript.md"])
    assert re.search(r"coût\xa0: \d+,\d{4}\xa0\$", outputs["transcript.md"])
    assert re.search(r"^0,25$", outputs["charts.svg"], re.M)  # an axis tick
    live_score = r"Round 1 noté\xa0: Embry \d+,\d\d/\d+,\d \(\d+\u202f%\)"
    assert re.search(live_score, outputs["live page"])
    for name, text in outputs.items():
        code_only = _without_model_text(text, root)
        found = [code_only[max(0, m.start() - 30) : m.end() + 10] for m in
                 DOT_DECIMAL.finditer(code_only)]  # fmt: skip
        assert not found, f"{name}: dot decimals: {found}"


def test_one_word_for_a_round_and_no_english_word_of_code(french_outputs) -> None:
    root, outputs = french_outputs
    english = _english_words()
    for name, text in outputs.items():
        assert not ROUND_WORDS.search(text), (name, ROUND_WORDS.findall(text))
        for word in CODE_WORDS:
            assert word not in text, (name, word)
        code_only = _without_model_text(text, root)
        code_only = re.sub(r"(?:/[\w.-]+)+|argue resume", " ", code_only)  # paths, a command
        found = sorted(_tokens(code_only) & english)
        assert not found, f"{name}: English from code: {found}"
    assert "Round 1" in outputs["synthesis.md"] or "Round 1" in outputs["transcript.md"]
    assert "Round 2" in outputs["live page"] and "Round 2" in outputs["report.html"]


def test_machine_fields_keep_their_dots(french_outputs) -> None:
    """JSON records, SVG coordinates and data attributes are for programs: never localised."""
    root, _ = french_outputs
    scores = json.loads((root / "scoring" / "round_001.json").read_text())
    assert isinstance(scores["personas"]["A"]["total"], float)
    assert NBSP not in (root / "state.json").read_text()
