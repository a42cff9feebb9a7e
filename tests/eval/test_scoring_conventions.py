"""Accuracy is reported two ways, each labelled: argue's (every item counts, an unreadable
answer is wrong) and Du et al.'s (the last float-like token, commas as dots; an answer that
does not parse is dropped from the denominator, and so is an item none of whose agents parse).

Teeth: checked once each —
- in argue/eval/normalize.py ``paper_number``, drop the ``replace(",", ".")``: the "1,5" row
  fails; iterate the tokens forwards instead of ``reversed``: the "2+2 = 4" row fails;
- in argue/eval/report.py ``paper_summary``, count dropped items as wrong (keep the ``None``
  verdicts in the denominator): the summary test fails;
- ``paper_verdict`` ignoring ``answers_by_round`` (parse the society's one answer): the society
  test fails;
- remove the "paper" column from ``print_report``: the table test fails.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.eval.arms import ItemResult
from argue.eval.normalize import PAPER_CONVENTION, paper_majority, paper_number
from argue.eval.report import ARGUE_CONVENTION, build_report, paper_verdict
from argue.llm import ScriptedModel
from tests.eval.script import EvalScript


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the result of 12+28*19+6 is 550.", 550.0),  # the paper's own example
        ("2+2 = 4", 4.0),
        ("from 12 to 13", 13.0),  # the last token, not the first
        ("-58", -58.0),
        ("1,5", 1.5),  # commas turned into dots
        ("1,234", 1.234),  # literally so: the paper's quirk, kept
        ("$12", None),
        ("−17", None),  # a Unicode minus is no float
        ("no idea", None),
        ("", None),
        (None, None),
    ],
)
def test_the_papers_parse(text, expected):
    assert paper_number(text) == expected


def test_the_papers_majority_skips_unparsed_and_ties_go_to_the_first():
    assert paper_majority(["7", "x", "8", "8"]) == 8.0
    assert paper_majority(["8", "7", "7", "8"]) == 8.0
    assert paper_majority(["x", None]) is None


def record(item, answer, expected, *, arm="single", normalized="auto", **detail):
    if normalized == "auto":
        normalized = answer
    return ItemResult(
        item=item,
        arm=arm,
        answer=answer,
        normalized=normalized,
        expected=expected,
        correct=normalized is not None and normalized == expected,
        started_at=0.0,
        finished_at=1.0,
        detail=detail,
    )


def test_both_conventions_side_by_side_in_the_json_report():
    records = [
        record("a", "246", "246"),
        record("b", "two hundred", "5", normalized=None),  # argue: wrong; paper: dropped
        record("c", "−293", "-293", normalized="-293"),  # argue reads it; the paper does not
        record("d", "the answer is 41", "40", normalized="41"),  # wrong both ways
    ]
    report = build_report(records, [{"dataset": "t", "provider": "p", "model": "m"}])
    single = report["arms"]["single"]
    assert (single["n"], single["correct"], single["accuracy"]) == (4, 2, 0.5)
    assert single["convention"] == ARGUE_CONVENTION
    paper = single["paper"]
    assert (paper["n"], paper["dropped"], paper["correct"]) == (2, 2, 1)
    assert paper["accuracy"] == 0.5 and paper["convention"] == PAPER_CONVENTION
    assert report["scoring"] == {"accuracy": ARGUE_CONVENTION, "paper": PAPER_CONVENTION}


def test_an_arm_with_nothing_parsed_has_no_paper_accuracy():
    paper = build_report([record("a", "x", "5", normalized=None)], [])["arms"]["single"]["paper"]
    assert (paper["n"], paper["dropped"], paper["accuracy"]) == (0, 1, None)


def test_the_society_is_rescored_by_the_papers_majority_of_last_answers():
    right = record(
        "a", "7", "7", arm="society", answers_by_round=[["1", "2", "3"], ["7", "seven", "7"]]
    )
    none_parse = record(
        "b", "eight", "8", arm="society", normalized="8", answers_by_round=[["x", "eight", None]]
    )
    # argue's majority said 9; the paper's parse reads the agents' last answers and gets 8
    reread = record(
        "c", "9", "8", arm="society", answers_by_round=[["8", "9", "8 apples 9"], ["8", "9", "8"]]
    )
    assert paper_verdict(right) is True
    assert paper_verdict(none_parse) is None  # the item is dropped
    assert paper_verdict(reread) is True


def test_choice_and_text_items_drop_only_the_unanswered():
    assert paper_verdict(record("a", "B", "B")) is True
    assert paper_verdict(record("b", "C", "B")) is False
    assert paper_verdict(record("c", "?", "B", normalized=None)) is None
    assert paper_verdict(record("d", "Paris", "paris", normalized="paris")) is True


def test_an_answer_too_large_for_a_float_is_wrong_not_a_crash():
    assert paper_verdict(record("a", "1e999", "9" * 400)) is False


def test_the_terminal_table_shows_both_conventions(tmp_path, monkeypatch, scripted_provider):
    scripted_provider(lambda wanted, ctx: ScriptedModel(EvalScript(names={})))
    monkeypatch.setenv("ARGUE_PROVIDER", "scripted")
    monkeypatch.setenv("COLUMNS", "200")
    args = ["eval", "--dataset", "mixed-arithmetic", "--n", "2", "--arms", "single"]
    result = CliRunner().invoke(app, [*args, "--debates-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "paper" in result.stdout and "100.0% of 2" in result.stdout
    assert "unparsed answers dropped" in " ".join(result.stdout.split())
    again = CliRunner().invoke(app, [*args, "--debates-dir", str(tmp_path), "--json"])
    assert json.loads(again.stdout)["arms"]["single"]["paper"]["n"] == 2
