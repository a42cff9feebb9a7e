"""Quote-anchored claims end to end (issue 20): ``./run.sh argue`` against a loopback model in
which one persona copies its quotes verbatim from the evidence shown and the other fabricates
them. Only the first persona's claims are ranked strongest; their quotes are printed from the
document; the second's are marked "quote not found" in the transcript, on the terminal
(``argue transcript``) and in the HTML report.

Teeth: with ``_strongest`` in argue/render/markdown.py ranking claims that have no located
quote (the ``if not claim.quoted_evidence_ids`` branch removed), the ranking test fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from argue.engine.schemas import ArgumentDraft
from tests.e2e.fake_llm import FakeLLM, ResearchingScript
from tests.e2e.harness import QUESTION, Cli, openai_env

pytestmark = pytest.mark.e2e

FABRICATED = "Tao's 2019 paper proves beyond doubt that the conjecture is undecidable"


def _quote(letter: str, rnd: int, shown: str) -> str:
    return shown if letter == "A" else FABRICATED


@dataclass
class RestatingScript(ResearchingScript):
    """An honest persona's claim says what its quote says (so the support check finds the
    quoted sentence supports it); the fabricating persona's claims are as the script writes."""

    def __call__(self, messages, output):  # type: ignore[override]
        value = super().__call__(messages, output)
        if output is not None and issubclass(output, ArgumentDraft) and isinstance(value, dict):
            for claim in value.get("claims", []):
                quotes = [c["quote"] for c in claim.get("citations", []) if c.get("quote")]
                if quotes and quotes[0] != FABRICATED:
                    claim["text"] = f"{claim['text']}; the source says that {quotes[0]}"
        return value


@dataclass
class QuotedDebate:
    cli: Cli
    debate_id: str
    folder: Path


@pytest.fixture(scope="module")
def quoted_debate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QuotedDebate]:
    fake = FakeLLM(RestatingScript(names={}, quote=_quote)).start()
    try:
        cli = Cli(tmp_path_factory.mktemp("quotes"), env_overrides=openai_env(fake.url))
        cli.add_library_note()
        result = cli.run(
            "argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus",
            "--rounds", "1", "--sources", "library", "--json",
        )  # fmt: skip
        assert result.returncode == 0, result.describe()
        debate_id = result.last_json()["id"]
        yield QuotedDebate(cli, debate_id, cli.debate_dir(debate_id))
    finally:
        fake.stop()


@dataclass
class JunkPlanScript(ResearchingScript):
    """Writes colleague names and nonsense where a plan names its research sources."""

    def _retarget(self, plan: dict, letter: str, prompt: str) -> None:  # type: ignore[override]
        super()._retarget(plan, letter, prompt)
        plan["dogpile_sources"] = ["horus", "prachi_prachi_prachi"]


def test_the_spec_command_with_junk_plan_sources_searches_every_round(tmp_path: Path):
    fake = FakeLLM(JunkPlanScript(names={})).start()
    try:
        cli = Cli(tmp_path, env_overrides=openai_env(fake.url))
        cli.add_library_note()
        result = cli.run(
            "argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus",
            "--rounds", "2", "--sources", "library", "--json",
        )  # fmt: skip
    finally:
        fake.stop()
    assert result.returncode == 0, result.describe()
    folder = cli.debate_dir(result.last_json()["id"])
    rounds = sorted((folder / "scoring").glob("round_[0-9][0-9][0-9].json"))
    assert len(rounds) == 2  # both rounds ran (the fake never says synthesis-ready)
    for letter in ("a", "b"):
        for path in rounds:
            research = (folder / f"persona_{letter}/research" / path.name).read_text()
            dogpile = json.loads(research)["calls"][0]
            assert dogpile["skill"] == "dogpile" and dogpile["status"] == "ok", dogpile
            assert "ran on every allowed source instead" in dogpile["note"]
    sources = _section((folder / "synthesis.md").read_text(encoding="utf-8"), "Sources")
    assert re.search(r"^- \[library\] ", sources, re.M), sources


def _section(text: str, heading: str) -> str:
    return text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


def test_only_verbatim_quotes_rank_and_the_documents_words_are_printed(quoted_debate):
    synthesis = (quoted_debate.folder / "synthesis.md").read_text(encoding="utf-8")
    strongest = _section(synthesis, "Strongest arguments")
    ranked = re.findall(r"^\d+\. \[(\w+), Round", strongest, re.M)
    assert ranked and set(ranked) == {"Embry"}, strongest
    assert re.search(r"^   - \[A-R1-E\d+\] \*\*the source says:\*\* “.{20,}”$", strongest, re.M), (
        strongest
    )
    assert "(near match)" not in strongest  # copied verbatim: found exactly
    assert FABRICATED not in strongest
    sources = _section(synthesis, "Sources")
    assert re.search(r"^- \[library\] ", sources, re.M)
    assert re.search(r"^  - “.{20,}”$", sources, re.M)


def test_fabricated_quotes_say_quote_not_found_in_the_transcript_and_report(quoted_debate):
    shown = quoted_debate.cli.ok("transcript", quoted_debate.debate_id).stdout
    assert "quote not found" in shown
    transcript = (quoted_debate.folder / "transcript.md").read_text(encoding="utf-8")
    lines = re.findall(r"^  - \[B-R1-E\d+\] \*\*quote not found\*\*: “(.+?)” \(", transcript, re.M)
    assert lines, transcript
    # the fabricated quote is model text: its "Tao's 2019" stays plain text, marked or not
    assert all(FABRICATED.split(" 2019")[1] in line for line in lines)
    quoted_debate.cli.ok("report", quoted_debate.debate_id)
    html = (quoted_debate.folder / "report.html").read_text(encoding="utf-8")
    assert "quote not found" in html
    assert '<blockquote class="quote">' in html
