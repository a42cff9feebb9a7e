"""Datasets: a bad line is a usage error naming its line (exit 2) before any model is touched;
the built-in arithmetic task is reproducible by seed and its answers are right.

Teeth check (done once): in argue/eval/datasets.py ``evaluate``, drop the precedence of ×
(``term = int(token)`` instead of ``term *= int(token)``): the arithmetic test fails.
Teeth (issue 25, checked once each): skip ``_gsm8k_answer`` in ``_parse_line``: the GSM8K
test fails (the answer stays the whole working, a text item); ignore ``ignore_unknown`` (always
refuse): the --ignore-unknown-fields tests fail.
"""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.eval.datasets import (
    DatasetError,
    evaluate,
    load_jsonl,
    parse_shard,
    shard,
)
from argue.eval.datasets import mixed_arithmetic as arithmetic


def write(tmp_path, lines):
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


GOOD = json.dumps({"question": "What is 2+3?", "answer": 5})


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("{not json", "not valid JSON"),
        ('["a list"]', "expected a JSON object"),
        ('{"answer": "5"}', "'question' must be a non-empty string"),
        ('{"question": "Q?"}', "'answer' must be a string or a number"),
        ('{"question": "Q?", "answer": true}', "'answer' must be a string or a number"),
        ('{"question": "Q?", "answer": "x", "extra": 1}', "unknown field(s) extra"),
        ('{"question": "Q?", "answer": "E", "choices": ["a", "b"]}', "neither a choice letter"),
        ('{"question": "Q?", "answer": "A", "choices": ["a"]}', "2 to 26 non-empty strings"),
    ],
)
def test_a_bad_line_is_named_by_its_number(tmp_path, bad, words):
    path = write(tmp_path, [GOOD, "", bad])
    with pytest.raises(DatasetError) as caught:
        load_jsonl(path)
    assert f"{path}:3:" in str(caught.value)
    assert words in str(caught.value)


def test_duplicate_ids_name_both_lines(tmp_path):
    row = json.dumps({"id": "q1", "question": "Q?", "answer": 1})
    with pytest.raises(DatasetError, match=r"qa\.jsonl:2: id 'q1' already used on line 1"):
        load_jsonl(write(tmp_path, [row, row]))


def test_the_cli_rejects_a_bad_line_with_exit_2_before_any_model(
    tmp_path, monkeypatch, scripted_provider
):
    def no_model(*args, **kwargs):
        raise AssertionError("a model was resolved before the dataset was checked")

    scripted_provider(no_model)
    monkeypatch.setenv("ARGUE_PROVIDER", "scripted")
    path = write(tmp_path, [GOOD, GOOD.replace('"answer"', '"answr"')])
    result = CliRunner().invoke(app, ["eval", str(path), "--debates-dir", str(tmp_path / "d")])
    assert result.exit_code == 2, result.output
    assert re.search(r"qa\.jsonl:2: unknown field\(s\) answr", result.stderr)
    assert not (tmp_path / "d").exists()  # no eval folder either


def test_kinds_are_inferred_and_choices_stored_as_letters(tmp_path):
    data = load_jsonl(
        write(
            tmp_path,
            [
                GOOD,
                json.dumps({"question": "Capital?", "answer": "Paris"}),
                json.dumps({"question": "Pick", "answer": "Lyon", "choices": ["Paris", "Lyon"]}),
                json.dumps({"question": "Fruit?", "answer": "3 apples"}),
            ],
        )
    )
    assert [(i.kind, i.answer) for i in data.items] == [
        ("number", "5"),
        ("text", "Paris"),
        ("choice", "B"),
        ("text", "3 apples"),
    ]
    assert data.items[2].prompt() == "Pick\n(A) Paris\n(B) Lyon"


def test_arithmetic_is_deterministic_by_seed_and_its_answers_are_right():
    first, again, other = arithmetic(25, seed=7), arithmetic(25, seed=7), arithmetic(25, seed=8)
    assert first == again
    assert [i.question for i in first.items] != [i.question for i in other.items]
    for item in first.items:
        expression = re.fullmatch(r"What is the result of ([\d+*-]+)\?", item.question).group(1)
        numbers = [int(x) for x in re.findall(r"\d+", expression)]
        assert len(numbers) == 6 and all(0 <= x < 30 for x in numbers)
        # Python's own arithmetic as the independent reference (digits and + - * only).
        assert item.answer == str(eval(expression)), expression
        assert item.kind == "number"
    assert evaluate("12+7*3-25*4+9") == -58


def test_shards_cover_every_item_once():
    data = arithmetic(10, seed=1)
    parts = [shard(data, i, 3) for i in (1, 2, 3)]
    ids = sorted(item.id for part in parts for item in part)
    assert ids == sorted(item.id for item in data.items)
    assert parse_shard("2/3") == (2, 3)
    with pytest.raises(DatasetError):
        parse_shard("4/3")


GSM8K = {
    "question": "Natalia sold clips to 48 of her friends in April, and then she sold half as "
    "many clips in May. How many clips did Natalia sell altogether in April and May?",
    "answer": "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = "
    "<<48+24=72>>72 clips altogether in April and May.\n#### 72",
}


def test_a_raw_gsm8k_line_is_a_number_item_scored_on_what_follows_the_marks(tmp_path):
    rows = [
        GSM8K,
        {**GSM8K, "answer": "So 1,000 + 200.\n#### 1,200"},
        {**GSM8K, "answer": "#### -3"},
    ]
    data = load_jsonl(write(tmp_path, [json.dumps(r) for r in rows]))
    assert [(i.kind, i.answer) for i in data.items] == [
        ("number", "72"),
        ("number", "1200"),
        ("number", "-3"),
    ]
    assert data.items[0].question == GSM8K["question"]


@pytest.mark.parametrize("answer", ["working\n####", "#### seventy-two", "#### 7 #### 2"])
def test_a_gsm8k_answer_without_a_number_is_refused_naming_the_format(tmp_path, answer):
    path = write(tmp_path, [GOOD, json.dumps({**GSM8K, "answer": answer})])
    with pytest.raises(DatasetError, match=r"qa\.jsonl:2: .*'#### <number>'"):
        load_jsonl(path)


def test_unknown_fields_are_refused_naming_line_and_field_unless_ignored(tmp_path):
    row = json.dumps({"question": "Q?", "answer": 5, "source": "x", "level": 3})
    path = write(tmp_path, [GOOD, row])
    with pytest.raises(DatasetError, match=r"qa\.jsonl:2: unknown field\(s\) level, source"):
        load_jsonl(path)
    data = load_jsonl(path, ignore_unknown_fields=True)
    assert [(i.question, i.answer) for i in data.items] == [("What is 2+3?", "5"), ("Q?", "5")]
    assert (
        data.fingerprint
        == load_jsonl(
            write(tmp_path, [GOOD, json.dumps({"question": "Q?", "answer": 5})])
        ).fingerprint
    )


def test_the_cli_flag_ignores_unknown_fields(tmp_path, monkeypatch, scripted_provider):
    from argue.llm import ScriptedModel
    from tests.eval.script import EvalScript

    scripted_provider(lambda wanted, ctx: ScriptedModel(EvalScript(names={})))
    monkeypatch.setenv("ARGUE_PROVIDER", "scripted")
    path = write(tmp_path, [json.dumps({"question": "What is 2+3?", "answer": 5, "src": "x"})])
    args = ["eval", str(path), "--arms", "single", "--debates-dir", str(tmp_path / "d"), "--json"]
    refused = CliRunner().invoke(app, args)
    assert refused.exit_code == 2 and "qa.jsonl:1: unknown field(s) src" in refused.stderr
    result = CliRunner().invoke(app, [*args, "--ignore-unknown-fields"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["arms"]["single"]["correct"] == 1
