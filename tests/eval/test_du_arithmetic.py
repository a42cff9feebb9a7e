"""``--dataset du-arithmetic`` is Du et al.'s own 100 problems, exactly as the paper's
``math/gen_math.py`` draws them (``np.random.seed(0)``, then ``np.random.randint(0, 30,
size=6)`` per problem, answer ``a + b * c + d - e * f``), without numpy in the base install.

Teeth: checked once each —
- in argue/eval/datasets.py ``_LegacyMT19937.randint_below``, take ``next_uint32() % high``
  instead of the masked rejection: the numpy comparison and the copied problems fail;
- seed the generator with 1 instead of ``DU_SEED``: the same two fail;
- in ``du_arithmetic`` compute ``a + b * c + d + e * f``: the answers test fails;
- in argue/app/_eval.py ``_dataset``, accept ``--dataset arithmetic`` as mixed-arithmetic: the
  rename test fails; drop the --seed check: the fixed-set test fails.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.eval.datasets import du_arithmetic, mixed_arithmetic
from argue.llm import ScriptedModel
from tests.eval.script import EvalScript

# Copied from numpy 2.4.6's output of the paper's own loop (np.random.seed(0); six
# np.random.randint(0, 30, size=6) per problem), so the check holds where numpy is absent.
FIRST = [
    ((12, 15, 21, 0, 3, 27), 246),
    ((3, 7, 9, 19, 21, 18), -293),
    ((4, 23, 6, 24, 24, 12), -122),
    ((26, 1, 6, 7, 23, 14), -283),
    ((24, 17, 5, 25, 13, 8), 30),
]
LAST = ((24, 26, 4, 3, 5, 6), 101)
ALL_SHA256 = "81cbdc54623f81384dc3076f6b00df755f1a1500782f66e5113124ae28af698f"
PATTERN = re.compile(r"What is the result of (\d+)\+(\d+)\*(\d+)\+(\d+)-(\d+)\*(\d+)\?")


def numbers(question: str) -> tuple[int, ...]:
    match = PATTERN.fullmatch(question)
    assert match, question
    return tuple(int(x) for x in match.groups())


def test_the_problems_are_the_papers_as_copied_from_numpy():
    data = du_arithmetic()
    assert data.name == "du-arithmetic" and len(data.items) == 100
    got = [(numbers(i.question), int(i.answer)) for i in data.items]
    assert got[:5] == FIRST
    assert got[-1] == LAST
    text = "\n".join(f"{i.question} {i.answer}" for i in data.items)
    assert hashlib.sha256(text.encode()).hexdigest() == ALL_SHA256
    assert [i.id for i in data.items[:2]] == ["du-001", "du-002"]
    assert du_arithmetic() == data  # no hidden state: the same set every time


def test_the_problems_are_numpys_own_draws():
    np = pytest.importorskip("numpy")
    np.random.seed(0)
    for item in du_arithmetic().items:
        a, b, c, d, e, f = np.random.randint(0, 30, size=6)  # the paper's line, verbatim
        assert item.question == f"What is the result of {a}+{b}*{c}+{d}-{e}*{f}?"
        assert item.answer == str(a + b * c + d - e * f)


def test_the_answers_are_right_and_in_the_patterns_range():
    for item in du_arithmetic().items:
        a, b, c, d, e, f = numbers(item.question)
        assert all(0 <= x < 30 for x in (a, b, c, d, e, f))
        assert int(item.answer) == a + b * c + d - e * f
        assert item.kind == "number"
        assert -841 <= int(item.answer) <= 899


def test_the_generator_matches_mt19937_reference_outputs():
    """init_genrand(5489), the reference MT19937's default: its 10,000th output is 4123659995
    (the C++ standard's check for std::mt19937)."""
    from argue.eval.datasets import _LegacyMT19937

    rng = _LegacyMT19937(5489)
    for _ in range(9999):
        rng.next_uint32()
    assert rng.next_uint32() == 4123659995


@pytest.fixture
def scripted(monkeypatch, scripted_provider):
    scripted_provider(lambda wanted, ctx: ScriptedModel(EvalScript(names={})))
    monkeypatch.setenv("ARGUE_PROVIDER", "scripted")


def test_the_cli_runs_the_papers_100_items(tmp_path, scripted):
    args = ["eval", "--dataset", "du-arithmetic", "--arms", "single", "--json"]
    result = CliRunner().invoke(app, [*args, "--debates-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["dataset"] == "du-arithmetic"
    assert report["arms"]["single"]["n"] == 100


def test_the_four_arms_on_the_papers_items_print_both_conventions(tmp_path, scripted, monkeypatch):
    """The issue's command, on a shard of the 100 (the whole set was run the same way by hand:
    ``ARGUE_TEST_DU_SHARD=1/1``). Teeth: drop table_caption's 'paper' clause, or the 'paper'
    column, and the table assertions fail."""
    import os

    shard = os.environ.get("ARGUE_TEST_DU_SHARD", "1/25")
    monkeypatch.setenv("COLUMNS", "220")
    args = ["eval", "--dataset", "du-arithmetic", "--arms", "single,vote,society,debate"]
    args += ["--rounds", "1", "--shard", shard, "--debates-dir", str(tmp_path)]
    shown = CliRunner().invoke(app, args)
    assert shown.exit_code == 0, shown.output
    header = next(
        line for line in shown.stdout.splitlines() if "accuracy" in line and "arm" in line
    )
    assert "paper" in header and "95 % CI" in header
    words = " ".join(shown.stdout.split())
    assert "an unreadable answer is wrong; paper: Du et al.'s scoring" in words  # caption
    report = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)  # resumed: no call
    expected = 100 // int(shard.split("/")[1])
    assert set(report["arms"]) == {"single", "vote", "society", "debate"}
    for arm, summary in report["arms"].items():
        assert summary["n"] == expected, arm
        assert summary["accuracy"] is not None and summary["paper"]["accuracy"] is not None, arm
    assert report["scoring"]["accuracy"] and report["scoring"]["paper"]
    assert (report["seed"], report["dataset"]) == (0, "du-arithmetic")


@pytest.mark.parametrize("extra", [["--seed", "3"], ["--n", "10"]])
def test_the_fixed_set_refuses_a_seed_or_size(tmp_path, scripted, extra):
    args = ["eval", "--dataset", "du-arithmetic", *extra, "--debates-dir", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert "du-arithmetic is Du et al.'s fixed 100 problems" in result.stderr
    assert not tmp_path.joinpath("evals").exists()


def test_the_old_name_is_a_usage_error_naming_both_sets(tmp_path, scripted):
    args = ["eval", "--dataset", "arithmetic", "--debates-dir", str(tmp_path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    message = " ".join(result.stderr.split())
    assert "--dataset mixed-arithmetic" in message and "--dataset du-arithmetic" in message


def test_mixed_arithmetic_keeps_the_old_ids_and_name_so_old_evals_resume():
    data = mixed_arithmetic(2, seed=1)
    assert data.name == "arithmetic_s1"
    assert [i.id for i in data.items] == ["arith-1-0001", "arith-1-0002"]
