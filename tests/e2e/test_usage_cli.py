"""End-to-end: every answer the model server sent is counted; unknown prices say so; budgets.

The fake LLM (``tests/e2e/fake_llm.py``) counts the requests it answered; usage.jsonl, usage.json
and the ``--json`` outputs must agree with it, re-asks and answers that failed validation
included.

Teeth check: in argue/engine/metering.py make ``MeteredModel.complete``'s ``except Exception``
branch skip ``self._count(...)`` (drop the usage of failed calls), then run this file:
``test_usage_counts_every_answer_the_server_sent`` fails (fewer records than answers).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from argue.llm.base import Message
from tests.e2e.fake_llm import FakeLLM, ResearchingScript
from tests.e2e.harness import QUESTION, Cli, Result, openai_env

pytestmark = pytest.mark.e2e

UNPRICED = "fake-unpriced-1"  # a model no price table knows
DEBATE = ("argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus")


@dataclass
class FlakyScript(ResearchingScript):
    """Answers for ``invalid_once`` keys ("letter:round:Phase") are not JSON the first time (the
    re-ask works); for ``invalid_always`` keys the re-ask is not JSON either."""

    invalid_once: set[str] = field(default_factory=set)
    invalid_always: set[str] = field(default_factory=set)

    def __call__(self, messages: list[Message], output: type[BaseModel] | None) -> object:
        value = super().__call__(messages, output)
        key = self.log[-1]
        re_ask = any(m.role == "assistant" for m in messages)
        if key in self.invalid_always or (key in self.invalid_once and not re_ask):
            return "Sorry, I would rather answer in prose."
        return value


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM(
        FlakyScript(
            names={}, invalid_once={"A:1:ArgumentDraft"}, invalid_always={"B:1:ReflectionDraft"}
        )
    ).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cli(tmp_path: Path, fake: FakeLLM) -> Cli:
    workdir = tmp_path / "work"
    workdir.mkdir()
    return Cli(workdir, env_overrides={**openai_env(fake.url), "ARGUE_MODEL": UNPRICED})


def usage_lines(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "usage.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def footer(folder: Path, name: str) -> str:
    return "\n".join((folder / name).read_text(encoding="utf-8").rstrip().splitlines()[-3:])


def one_line_usage_error(result: Result) -> str:
    assert result.returncode == 2, result.describe()
    assert "Traceback" not in result.stderr, result.describe()
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.describe()
    return lines[0]


def test_usage_counts_every_answer_the_server_sent(cli: Cli, fake: FakeLLM):
    result = cli.run(*DEBATE, "--rounds", "1", "--json")
    assert result.returncode == 0, result.describe()
    assert fake.errors == []
    summary = result.last_json()
    folder = cli.debate_dir(summary["id"])

    records = usage_lines(folder)
    snapshot = json.loads((folder / "usage.json").read_text(encoding="utf-8"))
    answered = fake.count()
    assert len(records) == answered
    assert sum(u["calls"] for u in snapshot) == answered
    assert summary["usage"]["calls"] == answered
    purposes = [r["purpose"] for r in records]
    assert purposes.count("A/R1/argument") == 2  # invalid, then a valid re-ask
    assert purposes.count("B/R1/reflection") == 2  # invalid twice: failed, billed twice
    assert fake.count("ReflectionDraft") == 3 and fake.count("ArgumentDraft") == 3

    # Nobody knows this model's price: "unknown", never $0.0000, wherever cost is shown.
    for name in ("transcript.md", "synthesis.md"):
        text = footer(folder, name)
        assert f"unknown ({answered} unpriced calls)" in text, text
        assert "$0.0000" not in text
        assert f"Models: openai/{UNPRICED} ({answered} calls)" in text
    assert "cost unknown (" in result.stderr and "$0.0000" not in result.stderr
    assert summary["usage"]["cost_usd"] is None
    assert summary["usage"]["cost"] == f"unknown ({answered} unpriced calls)"
    row = cli.ok("status", summary["id"], "--json").last_json()
    assert (row["usage"]["calls"], row["usage"]["cost_usd"]) == (answered, None)
    assert row["usage"]["models"] == {f"openai/{UNPRICED}": answered}


def test_budget_usd_with_an_unpriced_model_is_a_usage_error(cli: Cli, fake: FakeLLM):
    line = one_line_usage_error(cli.run(*DEBATE, "--rounds", "1", "--budget-usd", "1"))
    assert f"openai/{UNPRICED}" in line and "ARGUE_PRICES" in line and "[prices.openai]" in line
    assert fake.count() == 0
    assert not cli.debates.exists() or not any(cli.debates.iterdir())

    # Doing what the message says makes the budget usable.
    (cli.home / "config.toml").write_text(
        f'[prices.openai]\n"{UNPRICED}" = {{ input = 1.0, output = 2.0 }}\n', encoding="utf-8"
    )
    result = cli.run(*DEBATE, "--rounds", "1", "--budget-usd", "100", "--json")
    assert result.returncode == 0, result.describe()
    summary = result.last_json()
    assert summary["usage"]["cost_usd"] > 0 and summary["usage"]["unpriced_calls"] == 0
    text = footer(cli.debate_dir(summary["id"]), "synthesis.md")
    assert "unknown" not in text and " · cost $0.0" in text


def test_max_tokens_pauses_and_resume_with_a_larger_limit_finishes(cli: Cli, fake: FakeLLM):
    first = cli.run(*DEBATE, "--rounds", "2", "--max-tokens", "1", "--json")
    assert first.returncode == 3, first.describe()
    summary = first.last_json()
    debate_id = summary["id"]
    assert (summary["status"], summary["rounds"]) == ("budget_exhausted", 0)
    assert "larger --max-tokens" in first.stderr
    assert f"./run.sh resume {debate_id}" in first.stderr
    assert cli.ok("status", debate_id, "--json").last_json()["status"] == "budget_exhausted"
    folder = cli.debate_dir(debate_id)
    assert json.loads((folder / "config.json").read_text(encoding="utf-8"))["budget_tokens"] == 1

    # A cost budget still needs a price, on resume too; nothing is sent.
    before = fake.count()
    line = one_line_usage_error(cli.run("resume", debate_id, "--budget-usd", "5"))
    assert f"openai/{UNPRICED}" in line
    assert fake.count() == before

    again = cli.run("resume", debate_id, "--max-tokens", "1", "--json")
    assert again.returncode == 3 and again.last_json()["status"] == "budget_exhausted"

    resumed = cli.run("resume", debate_id, "--max-tokens", "10000000", "--json")
    assert resumed.returncode == 0, resumed.describe()
    final = resumed.last_json()
    assert (final["status"], final["rounds"]) == ("completed", 2)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["budget_tokens"] == 10_000_000
    assert len(usage_lines(folder)) == fake.count() == final["usage"]["calls"]
