"""Numeric bounds have one home (``argue.app._checks.BOUNDS``): the request records read their
constraints from it, the operations without a request check it with ``check_bounds``, and each
face only says the error its way. The CLI: one line naming the flag, exit 2; Python: the
field's name (no flag).

Teeth (each broken once, the test named failed):
- ``BOUNDS["rounds"]`` made ``Bound(1, 60)`` → the ``--rounds`` cases of
  ``test_an_out_of_range_flag_is_one_line_naming_it`` and the Python one;
- StartRequest's ``rounds`` given its own ``Field(ge=1, le=40)`` →
  ``test_the_request_schema_says_the_tables_numbers``;
- ``cli_words`` ignoring the error's ``field`` → the CLI line says ``rounds:``, not
  ``--rounds`` (``test_an_out_of_range_flag_is_one_line_naming_it``);
- ``check_bounds(k=k)`` dropped from commands/library.py → ``library search --k 0`` passes
  to the library (exit 0).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

import argue
from argue.app import BOUNDS, StartRequest, bounds_error
from argue.cli import app

CASES = [
    (["argue", "Q?", "--rounds", "0"], "--rounds must be between 1 and 50 (got 0)"),
    (["argue", "Q?", "--rounds", "51"], "--rounds must be between 1 and 50 (got 51)"),
    (["argue", "Q?", "--budget-usd", "-1"], "--budget-usd must be at least 0 (got -1)"),
    (["argue", "Q?", "--budget-usd", "nan"], "--budget-usd must be a finite number"),
    (["argue", "Q?", "--max-tokens", "0"], "--max-tokens must be at least 1 (got 0)"),
    (["argue", "Q?", "--slots", "257"], "--slots must be between 1 and 256 (got 257)"),
    (["argue", "Q?", "--max-attempts", "0"], "--max-attempts must be between 1 and 20"),
    (["argue", "Q?", "--request-timeout", "0.5"], "--request-timeout must be at least 1"),
    (["resume", "argue_20200101_000000", "--budget-usd", "-2"], "--budget-usd must be at"),
    (["resume", "argue_20200101_000000", "--slots", "0"], "--slots must be between 1"),
    (["config", "show", "--rounds", "0"], "--rounds must be between 1 and 50 (got 0)"),
    (["research", "q", "--limit", "0"], "--limit must be at least 1 (got 0)"),
    (["research", "q", "--per-source", "0"], "--per-source must be at least 1 (got 0)"),
    (["research", "q", "--timeout", "0"], "--timeout must be positive (got 0)"),
    (["memory", "recall", "q", "--k", "0"], "--k must be at least 1 (got 0)"),
    (["memory", "recall", "q", "--min-score", "1.5"], "--min-score must be between 0 and 1"),
    (["memory", "list", "--limit", "0"], "--limit must be at least 1 (got 0)"),
    (["library", "search", "q", "--k", "0"], "--k must be at least 1 (got 0)"),
    (["eval", "--dataset", "mixed-arithmetic", "--rounds", "11"], "--rounds: Input should be"),
    (["eval", "--dataset", "mixed-arithmetic", "--n", "0"], "--n: Input should be greater"),
]


@pytest.mark.parametrize(("args", "line"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_an_out_of_range_flag_is_one_line_naming_it(
    tmp_path: Path, args: list[str], line: str
) -> None:
    if args[0] in ("argue", "resume"):
        args = [*args, "--debates-dir", str(tmp_path / "debates")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {line}"), result.stderr
    assert not (tmp_path / "debates").exists()  # refused before anything was written


def test_python_callers_get_the_field_not_the_flag(tmp_path: Path) -> None:
    with pytest.raises(argue.UsageError, match=r"^rounds: must be between 1 and 50") as caught:
        argue.plan("Is it?", argue.Workspace(tmp_path / "debates"), rounds=0)
    assert caught.value.field == "rounds" and caught.value.exit_code == 2
    with pytest.raises(argue.UsageError, match=r"^slots: must be between 1 and 256"):
        StartRequest(question="Q?", slots=0)
    with pytest.raises(argue.UsageError, match=r"^rounds: Input should be a valid integer"):
        StartRequest(question="Q?", rounds="many")  # not a number: pydantic's own words
    assert StartRequest(question="Q?", rounds=50).rounds == 50


def test_bounds_error_returns_the_error_and_leaves_none_alone() -> None:
    assert bounds_error(rounds=None, k=3, min_score=1.0, timeout_s=0.01) is None
    error = bounds_error(k=3, limit=0)
    assert error is not None and error.field == "limit"
    assert error.message == "limit: must be at least 1 (got 0)"
    error = bounds_error(budget_usd=math.inf)
    assert error is not None and error.message == "budget_usd: must be a finite number"
    with pytest.raises(KeyError):
        bounds_error(nonsense=1)  # a bound no table row holds is a bug, not a pass


def test_the_request_schema_says_the_tables_numbers() -> None:
    """The JSON schema (what a caller or a tool reads) and the checks hold the same numbers."""
    schema = StartRequest.model_json_schema()["properties"]
    for name in StartRequest.bounded:
        bound = BOUNDS[name]
        number = next(part for part in schema[name]["anyOf"] if part["type"] != "null")
        assert number.get("minimum", number.get("exclusiveMinimum")) == bound.low, name
        assert number.get("maximum") == bound.high, name
