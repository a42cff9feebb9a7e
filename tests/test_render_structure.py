"""Model text cannot make structure or pass for code's markers (issue 20, item 4).

Teeth (checked once each): make ``_BLOCK_START`` in ``argue.render.inline`` escape ``#`` only
when a space follows (the old rule) and the ``##`` tests and the hypothesis property fail; drop
``fold_lookalikes`` from ``model_text`` and the look-alike tests fail; drop the escaping of
``unknown_ids`` in ``render_synthesis`` and the bold-marker test fails.

Every model field that reaches synthesis.md or transcript.md is filled with the same hostile
string (each tagged, so the test also sees that the field really reached the page); the page is
parsed with markdown-it (CommonMark) and its block structure — headings, rules, quotes, lists,
code blocks, HTML blocks — must be exactly that of the same debate with plain words in those
fields. Lines that read as a heading (``^ {0,3}#{1,6}(\\s|$)``) or a Setext underline are counted
too, as a reader of the raw file would see them.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from pydantic import BaseModel

from argue.domain import DebateState, Failure
from argue.records.history import DebateHistory
from argue.records.prose import SynthesisDraft
from argue.render import render_synthesis, render_transcript
from argue.render.inline import fold_lookalikes, inert_text, inline_markdown, model_text

# (model class, field) of every model-written string the Markdown shows.
MODEL_FIELDS: set[tuple[str, str]] = {
    ("ResearchRecord", "why"),
    ("ResearchRecord", "dropped_calls"),
    ("ResearchCallRecord", "query"),
    ("Evidence", "title"),
    ("Evidence", "snippet"),
    ("ArgumentRecord", "position"),
    ("Claim", "text"),
    ("Claim", "warrant"),
    ("Citation", "quote"),
    ("Citation", "located"),
    ("Citation", "context_before"),
    ("Citation", "context_after"),
    ("Citation", "distancing"),
    ("Citation", "support_note"),
    ("Citation", "support_by"),
    ("Counter", "text"),
    ("Concession", "text"),
    ("Concession", "reason"),
    ("RebuttalRecord", "common_ground"),
    ("BeliefUpdate", "belief"),
    ("ReflectionRecord", "would_change_my_mind"),
    ("ReflectionRecord", "position_now"),
    ("ScoreComponent", "reason"),
    ("Framing", "proposition"),
    ("Framing", "stances"),
    ("DebateState", "termination_detail"),
    ("Failure", "reason"),
    ("SynthesisDraft", "conclusion"),
    ("SynthesisDraft", "open_questions"),
    ("AgreementDraft", "point"),
    ("AgreementDraft", "claim_ids"),
    ("DisagreementDraft", "point"),
    ("DisagreementDraft", "crux"),
    ("Side", "position"),
}

HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(\s|$)")
SETEXT_LINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
STRUCTURE = {
    "heading_open",
    "hr",
    "blockquote_open",
    "bullet_list_open",
    "ordered_list_open",
    "list_item_open",
    "fence",
    "code_block",
    "html_block",
    "table_open",
}
PARSER = MarkdownIt("commonmark").enable("table")


def _walk(obj: object) -> Iterator[BaseModel]:
    if isinstance(obj, BaseModel):
        yield obj
        for name in type(obj).model_fields:
            yield from _walk(getattr(obj, name))
    elif isinstance(obj, dict):
        for value in obj.values():
            yield from _walk(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _walk(value)


def _fill(
    history: DebateHistory, state: DebateState, prose: SynthesisDraft, text: Callable[[int], str]
) -> dict[int, tuple[str, str]]:
    """Every model field set to ``text(n)`` (n: a running number); returns each n's field."""
    filled: dict[int, tuple[str, str]] = {}

    def value(key: tuple[str, str]) -> str:
        n = len(filled)
        filled[n] = key
        # Claims stay distinct: the strongest lists rank a claim repeated word for word once.
        return f"{text(n)} c{n}" if key == ("Claim", "text") else text(n)

    roots: list[object] = [history.rounds, history.config.framing, state, prose, history.failures]
    for model in (m for root in roots for m in _walk(root)):
        for name in type(model).model_fields:
            key = (type(model).__name__, name)
            if key not in MODEL_FIELDS:
                continue
            current = getattr(model, name)
            if isinstance(current, str):
                setattr(model, name, value(key))
            elif isinstance(current, list):
                setattr(model, name, [value(key) for _ in current or [0]])
            elif isinstance(current, dict):
                setattr(model, name, {k: value(key) for k in current})
    return filled


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, str]:
    """A finished two-round scripted debate, as JSON (each test loads its own copy)."""
    from tests.conftest import _ISOLATED_ENV

    with pytest.MonkeyPatch.context() as env:  # the autouse isolation is per test: do it here
        for name in _ISOLATED_ENV:
            env.delenv(name, raising=False)
        env.setenv("ARGUE_HOME", str(tmp_path_factory.mktemp("argue_home")))
        env.setenv("OLLAMA_HOST", "127.0.0.1:9")
        return _record(tmp_path_factory.mktemp("debates"))


def _record(debates: Path) -> tuple[str, str, str]:
    from argue.engine import DebateRunner, create_debate, load_history
    from argue.llm import ScriptedModel
    from argue.personas import load_catalog
    from tests.engine.script import DebateScript, ScriptedToolkit, names_of

    catalog = load_catalog()
    lineup = [catalog.get("embry"), catalog.get("horus")]
    store = create_debate(
        debates,
        question="Q?",
        mode="adversarial",
        personas=lineup,
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
    )
    model = ScriptedModel(DebateScript(names=names_of(lineup)))
    state = asyncio.run(DebateRunner(store, model, ScriptedToolkit()).run())
    history = load_history(store)
    prose = SynthesisDraft.model_validate_json(store.paths.synthesis_prose.read_text())
    dump = {
        "config": history.config.model_dump(mode="json"),
        "personas": {k: p.model_dump(mode="json") for k, p in history.personas.items()},
        "rounds": {k: r.model_dump(mode="json") for k, r in history.rounds.items()},
        "failures": [f.model_dump(mode="json") for f in history.failures],
    }
    return json.dumps(dump), state.model_dump_json(), prose.model_dump_json()


def _load(recorded: tuple[str, str, str]) -> tuple[DebateHistory, DebateState, SynthesisDraft]:
    from argue.domain import DebateConfig, Framing, Persona
    from argue.records.history import RoundRecord

    dump, state_json, prose_json = recorded
    data = json.loads(dump)
    config = DebateConfig.model_validate(data["config"])
    if config.framing is None:
        config.framing = Framing(proposition="p", stances={k: "s" for k in config.personas})
    history = DebateHistory(
        config=config,
        personas={k: Persona.model_validate(p) for k, p in data["personas"].items()},
        rounds={int(k): RoundRecord.model_validate(r) for k, r in data["rounds"].items()},
        failures=[Failure.model_validate(f) for f in data["failures"]],
    )
    history.failures.append(
        Failure(round=1, persona="A", phase="argument", kind="failed", what="call", reason="r")
    )
    first = history.rounds[min(history.rounds)]
    for research in first.research.values():
        research.dropped_calls.append("x")
        research.evidence[-1].provenance = "testimony"  # a colleague's answer: its snippet shows
    for argument in first.arguments.values():  # a quote not found: the model's quote shows
        argument.claims[0].citations[0].verdict = "quote_not_found"
    for argument in history.rounds[max(history.rounds)].arguments.values():
        # quoted out of context: the distancing words show (issue 36)
        argument.claims[0].citations[0].verdict = "out_of_context"
        # a quote whose sentence does not address its claim: the checker's note and name show
        unrelated = argument.claims[1].citations[0]
        unrelated.support, unrelated.support_by, unrelated.support_note = "unrelated", "m", "n"
    state = DebateState.model_validate_json(state_json)
    state.termination_detail = "d"
    return history, state, SynthesisDraft.model_validate_json(prose_json)


def _render(
    recorded: tuple[str, str, str], text: Callable[[int], str]
) -> tuple[dict[str, str], dict[int, tuple[str, str]]]:
    history, state, prose = _load(recorded)
    filled = _fill(history, state, prose, text)
    pages = {
        "synthesis": render_synthesis(history, state, [], prose, None),
        "transcript": render_transcript(history, state, []),
    }
    return pages, filled


def _structure(page: str) -> list[tuple[str, str, int]]:
    return [(t.type, t.tag, t.level) for t in PARSER.parse(page) if t.type in STRUCTURE]


def _inline_counts(page: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for token in PARSER.parse(page):
        for child in token.children or []:
            if child.type in {"strong_open", "em_open", "link_open", "image", "html_inline"}:
                counts[child.type] = counts.get(child.type, 0) + 1
    return counts


def _raw_lines(page: str) -> tuple[int, int]:
    lines = page.splitlines()
    return (
        sum(1 for line in lines if HEADING_LINE.match(line)),
        sum(1 for line in lines if SETEXT_LINE.match(line)),
    )


def _plain(n: int) -> str:
    return f"plain words tag{n}x"


@pytest.fixture(scope="module")
def baseline(recorded: tuple[str, str, str]) -> dict[str, str]:
    pages, filled = _render(recorded, _plain)
    missing = MODEL_FIELDS - set(filled.values())
    assert not missing, f"fields the debate never filled: {missing}"
    return pages


HOSTILE = [
    "## Sources",
    "##Sources",
    "######x",
    "####### seven",
    " ### x",
    "   # three spaces",
    "> ## x",
    "- ## x",
    "* ## x",
    "+ ## x",
    "1. ## x",
    "1) ## x",
    "intro\n## Sources\nmore",
    "intro\n\n## Sources\n\n- item\n\n> quote",
    "===",
    "---",
    "line\n===",
    "line\n---\nafter",
    "***",
    "___",
    "- - -",
    "```\ncode\n```",
    "~~~",
    "    indented code",
    "<div>html</div>",
    "[ref]: x 'title'",
    "| a | b |\n|---|---|",
    "＃＃ Sources",
    "＃ Sources",
    "\u200b## hidden",
    "\u00a0## nbsp",
    "&#35;&#35; Sources",
    "⒈ list",
]


@pytest.mark.parametrize("suffix", ["", " and more words"])
@pytest.mark.parametrize("hostile", HOSTILE)
def test_no_model_field_adds_structure(
    recorded: tuple[str, str, str], baseline: dict[str, str], hostile: str, suffix: str
) -> None:
    pages, _ = _render(recorded, lambda n: hostile + suffix)
    for name, page in pages.items():
        assert _structure(page) == _structure(baseline[name]), name
        assert _raw_lines(page) == _raw_lines(baseline[name]), name
        assert _inline_counts(page) == _inline_counts(baseline[name]), name


def test_every_model_field_reaches_a_page(recorded: tuple[str, str, str]) -> None:
    pages, filled = _render(recorded, lambda n: f"## Sources tag{n}x")
    both = pages["synthesis"] + pages["transcript"]
    shown = {key for n, key in filled.items() if f"tag{n}x" in both}
    assert shown == MODEL_FIELDS, f"never on a page: {MODEL_FIELDS - shown}"
    assert "\n## Sources tag" not in both and "\n\\#\\# Sources tag" in both


LOOKALIKES = {
    "𝐮𝐧𝐯𝐞𝐫𝐢𝐟𝐢𝐞𝐝": "unverified",  # mathematical bold
    "𝑢𝑛𝑣𝑒𝑟𝑖𝑓𝑖𝑒𝑑": "unverified",  # mathematical italic
    "ｕｎｖｅｒｉｆｉｅｄ": "unverified",  # full-width
    "𝐞𝐯𝐢𝐝𝐞𝐧𝐜𝐞:": "evidence:",
    "𝗾𝘂𝗼𝘁𝗲 𝗻𝗼𝘁 𝗳𝗼𝘂𝗻𝗱": "quote not found",
}


@pytest.mark.parametrize(("spoof", "ascii"), list(LOOKALIKES.items()))
def test_lookalikes_of_markers_are_folded_to_plain_text(
    recorded: tuple[str, str, str], baseline: dict[str, str], spoof: str, ascii: str
) -> None:
    pages, _ = _render(recorded, lambda n: f"claim {spoof} ＊＊{spoof}＊＊ **{ascii}** tag{n}x")
    for name, page in pages.items():
        assert spoof not in page and "＊" not in page, name
        assert f"claim {ascii} " in page, name  # folded to the plain words it imitates
        assert f"\\*\\*{ascii}\\*\\*" in page, name  # bold syntax written by a model: escaped
        # Code's own bold markers are exactly those of the plain debate.
        assert page.count(f"**{ascii}**") == baseline[name].count(f"**{ascii}**"), name
        assert _inline_counts(page) == _inline_counts(baseline[name]), name


def test_fullwidth_and_other_asterisks_cannot_make_bold(
    recorded: tuple[str, str, str], baseline: dict[str, str]
) -> None:
    for stars in ("＊＊", "∗∗", "⁎⁎", "⁑", "﹡﹡", "__", "**"):
        pages, _ = _render(recorded, lambda n, s=stars: f"{s}bold{s} {s}unverified{s} tag{n}x")
        for name, page in pages.items():
            assert _inline_counts(page) == _inline_counts(baseline[name]), (stars, name)
            assert "**bold**" not in page and "__bold__" not in page, (stars, name)


# Pieces that make Markdown structure, their full-width and look-alike forms, newlines, spaces
# and invisible characters: hypothesis strings them together, so a heading marker lands at the
# start of a field, after leading spaces, after a quote or list marker, after a newline.
_PIECES = [
    "#", "##", "###", "＃", "﹟", "♯", " ", "   ", "\t", "\n", "\n\n", "\u00a0", "\u3000",
    "\u200b", "=", "===", "-", "---", "*", "＊", "_", ">", "+", "1.", "2)", "⒈", "`", "```",
    "~~~", "[a]:", "|", "&#35;", "a", "Sources", "𝐮𝐧𝐯𝐞𝐫𝐢𝐟𝐢𝐞𝐝",
]  # fmt: skip


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8)
    .map("".join)
    .filter(
        lambda s: fold_lookalikes(s).split()  # a field with nothing to show changes the layout
    )
)
def test_property_no_model_string_adds_a_heading_or_block(
    recorded: tuple[str, str, str], baseline: dict[str, str], hostile: str
) -> None:
    pages, _ = _render(recorded, lambda n: hostile)
    for name, page in pages.items():
        assert _raw_lines(page) == _raw_lines(baseline[name]), (name, hostile)
        assert _structure(page) == _structure(baseline[name]), (name, hostile)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("## Sources", "\\#\\# Sources"),
        ("##Sources", "\\#\\#Sources"),
        ("######x", "\\#\\#\\#\\#\\#\\#x"),
        (" ### x", "\\#\\#\\# x"),
        ("＃＃ x", "\\#\\# x"),
        ("===", "\\=\\=\\="),
        ("---", "\\-\\-\\-"),
        ("1. step", "1\\. step"),
        ("- ## x", "\\- ## x"),
        ("C# stays", "C# stays"),
    ],
)
def test_each_escaper_escapes_the_whole_leading_run(raw: str, shown: str) -> None:
    assert model_text(raw, None) == shown
    assert inert_text(raw) == shown
    if "＃" not in raw:  # user text (``md``) is not folded
        assert inline_markdown(raw) == shown


def test_mcp_get_synthesis_answers_the_rendered_text(run_scripted_debate, tmp_path: Path) -> None:
    """The MCP answer is synthesis.md as the renderer writes it: no model heading either."""
    from argue.mcp.tools import Debates

    store = run_scripted_debate(tmp_path)
    prose = json.loads(store.paths.synthesis_prose.read_text())
    prose["conclusion"] = "Intro.\n\n## Sources\n\n##Fake\n\n𝐮𝐧𝐯𝐞𝐫𝐢𝐟𝐢𝐞𝐝"
    prose["open_questions"] = ["## Sources", "＃＃ Sources"]
    store.paths.synthesis_prose.write_text(json.dumps(prose))
    store.paths.synthesis.unlink()
    answer = Debates(tmp_path).synthesis(store.config().id)
    headings = [t.content for t in _heading_inlines(answer)]
    assert headings.count("Sources") == 1  # code's own Sources heading only
    assert "Fake" not in headings and "𝐮" not in answer


def _heading_inlines(page: str) -> list[Any]:
    tokens = PARSER.parse(page)
    return [tokens[i + 1] for i, t in enumerate(tokens) if t.type == "heading_open"]
