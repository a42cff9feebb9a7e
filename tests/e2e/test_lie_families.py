"""The four lie families (seed 000), end to end through ``./run.sh`` against a lying model.

1. a failure shown as success — a research source that failed must read as failed;
2. an action narrated without a call — a model that writes "I found arXiv:…, Tao (2019) …"
   without retrieving it gets **unverified** next to each reference, and nothing it names
   reaches ``## Sources``;
3. another action passed off as the asked one — a search asked on a source outside
   ``--sources`` is refused by name, never run on another source;
4. a refusal kept silent — a source without its key is never asked and is named: "brave not
   used: BRAVE_API_KEY not set" (terminal, transcript, synthesis, config.json).

Teeth: revert any one of these (aggregate dogpile status back to "empty", drop UNVERIFIED in
``argue.render.inline.model_text``, let ``SkillToolkit`` substitute an allowed source, or
drop refused source statuses from ``phases._research_failures``) and a test here fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from argue.engine import schemas
from argue.llm.base import Message
from tests.e2e.fake_llm import FakeLLM, ResearchingScript
from tests.e2e.harness import QUESTION, Cli, Result, openai_env

pytestmark = pytest.mark.e2e

FAKES = ("arXiv:1909.99999", "Tao (2019)", "https://fabricated.example.org/proof")
LIE = f" I searched arXiv and found {FAKES[0]}: {FAKES[1]} proved it, see {FAKES[2]}."


@dataclass
class LyingScript(ResearchingScript):
    """Narrates searches it never made, and asks for a source it was not given."""

    def __call__(self, messages: list[Message], output: type[BaseModel] | None) -> object:
        value = super().__call__(messages, output)
        if output is not None and issubclass(output, schemas.ResearchPlanDraft):
            # the dogpile slot names a source --sources did not give (github) beside the others
            value["dogpile_sources"] = ["library", "arxiv", "brave", "github"]  # type: ignore[index]
        elif (
            output is not None
            and issubclass(output, schemas.ArgumentDraft)
            and isinstance(value, dict)
        ):
            for claim in value["claims"]:
                claim["text"] += LIE
        elif output is schemas.SynthesisDraft:
            data = value.model_dump() if isinstance(value, BaseModel) else dict(value)  # type: ignore[arg-type]
            data["conclusion"] += LIE
            return data
        return value


@dataclass
class LyingDebate:
    result: Result
    summary: dict[str, Any]
    folder: Path
    transcript: str
    synthesis: str
    fake: FakeLLM
    cli: Cli


@pytest.fixture(scope="module")
def lying_debate(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LyingDebate]:
    fake = FakeLLM(LyingScript(names={})).start()
    try:
        cli = Cli(tmp_path_factory.mktemp("lies"), env_overrides=openai_env(fake.url))
        cli.add_library_note()
        result = cli.run(
            "argue", QUESTION, "--persona-a", "embry", "--persona-b", "horus",
            "--rounds", "1", "--sources", "library,arxiv,brave", "--json",
        )  # fmt: skip
        assert result.returncode == 0, result.describe()
        summary = result.last_json()
        folder = cli.debate_dir(summary["id"])
        yield LyingDebate(
            result=result,
            summary=summary,
            folder=folder,
            transcript=(folder / "transcript.md").read_text(encoding="utf-8"),
            synthesis=(folder / "synthesis.md").read_text(encoding="utf-8"),
            fake=fake,
            cli=cli,
        )
    finally:
        fake.stop()


def _section(text: str, heading: str) -> str:
    return text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


def test_a_failed_source_reads_as_failed_not_as_no_results(lying_debate: LyingDebate):
    research = json.loads((lying_debate.folder / "persona_a/research/round_001.json").read_text())
    dogpile = research["calls"][0]
    arxiv = next(s for s in dogpile["source_statuses"] if s["source"] == "arxiv")
    assert arxiv["status"] == "failed"
    assert re.search(r"source arxiv for .*: failed — effect unknown", lying_debate.transcript)
    assert "arxiv" in _section(lying_debate.synthesis, "What did not work")
    assert lying_debate.summary["failures"] >= 3  # arxiv failed, brave and github refused
    assert lying_debate.summary["partial"] is False  # failures are reported, not hidden
    status = json.loads(lying_debate.cli.ok("status", lying_debate.summary["id"], "--json").stdout)
    assert status["failures"] == lying_debate.summary["failures"]
    assert status["partial"] is False


def test_a_narrated_search_is_marked_unverified_everywhere(lying_debate: LyingDebate):
    for name, text in (
        ("transcript", lying_debate.transcript),
        ("synthesis", lying_debate.synthesis),
    ):
        found = 0
        for fake in FAKES:
            for match in re.finditer(re.escape(fake), text):
                found += 1
                assert re.match(r"`? \*\*unverified\*\*", text[match.end() :]), (name, fake)
        assert found >= len(FAKES), name
        assert f"<{FAKES[2]}" not in text
    sources = _section(lying_debate.synthesis, "Sources")
    assert "[library]" in sources
    assert "arXiv:1909" not in sources and "fabricated" not in sources


def test_a_search_on_a_source_outside_sources_is_refused_by_name(lying_debate: LyingDebate):
    research = json.loads((lying_debate.folder / "persona_a/research/round_001.json").read_text())
    dogpile = research["calls"][0]
    github = next(s for s in dogpile["source_statuses"] if s["source"] == "github")
    assert github["status"] == "refused"
    assert "not allowed by --sources" in github["note"]
    assert not [e for e in research["evidence"] if e["source"] == "github"]
    assert re.search(
        r"dogpile source github for .*: refused — nothing happened", lying_debate.transcript
    )


def test_a_source_without_its_key_is_named_not_silent(lying_debate: LyingDebate):
    # Not asked (issue 35: no slot is spent on it), and said: on the terminal once, in the
    # transcript's header, under "What did not work" and in config.json.
    line = "brave not used: BRAVE_API_KEY not set"
    assert lying_debate.result.stderr.count(line) == 1
    assert line in lying_debate.transcript
    assert "BRAVE\\_API\\_KEY" not in lying_debate.transcript  # identifiers stay readable
    assert line in _section(lying_debate.synthesis, "What did not work")
    config = json.loads((lying_debate.folder / "config.json").read_text())
    assert config["unused_sources"] == {"brave": "BRAVE_API_KEY not set"}
    research = (lying_debate.folder / "persona_a/research/round_001.json").read_text()
    assert '"source": "brave"' not in research


def test_usage_counts_every_call_the_provider_answered(lying_debate: LyingDebate):
    lines = (lying_debate.folder / "usage.jsonl").read_text().splitlines()
    answered = sum(json.loads(line).get("calls", 1) for line in lines if line.strip())
    assert answered == lying_debate.fake.count()
