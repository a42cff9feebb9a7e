"""The debates/<id>/ layout (spec + ARCHITECTURE.md §3), as paths. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PERSONA_LETTERS = "abcdefghij"


def persona_letter(index: int) -> str:
    return PERSONA_LETTERS[index].upper()


@dataclass(frozen=True)
class DebatePaths:
    root: Path

    @property
    def debate_id(self) -> str:
        return self.root.name

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def transcript(self) -> Path:
        return self.root / "transcript.md"

    @property
    def synthesis(self) -> Path:
        return self.root / "synthesis.md"

    @property
    def synthesis_prose(self) -> Path:
        return self.root / "synthesis.json"

    @property
    def usage(self) -> Path:
        """A readable snapshot of ``usage_log``, rewritten at checkpoints."""
        return self.root / "usage.json"

    @property
    def usage_log(self) -> Path:
        """Append-only, one JSON line per model answer, fsynced as it happens."""
        return self.root / "usage.jsonl"

    @property
    def failures(self) -> Path:
        return self.root / "failures.json"

    @property
    def moderator_notes(self) -> Path:
        return self.root / "moderator_notes.json"

    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def stop_flag(self) -> Path:
        return self.root / "STOP"

    @property
    def lock(self) -> Path:
        return self.root / ".lock"

    def persona_dir(self, letter: str) -> Path:
        return self.root / f"persona_{letter.lower()}"

    def persona_snapshot(self, letter: str) -> Path:
        return self.persona_dir(letter) / "persona.json"

    def archive_marker(self) -> Path:
        return self.root / "archived.json"

    def research(self, letter: str, round_no: int) -> Path:
        return self.persona_dir(letter) / "research" / f"round_{round_no:03d}.json"

    def research_plan(self, letter: str, round_no: int) -> Path:
        """A plan asked for at the start of the round (round 1, or when no reflection planned)."""
        return self.persona_dir(letter) / "research" / f"round_{round_no:03d}.plan.json"

    def planned_research(self, letter: str, round_no: int) -> Path:
        """The plan for ``round_no`` that the previous round's reflection returned."""
        return self.persona_dir(letter) / "research" / f"round_{round_no:03d}.planned.json"

    def answered_consult(self, letter: str, round_no: int) -> Path:
        """The colleague answer for ``round_no``, asked in the previous round's rebuttal and
        answered beside its reflections (a ``SkillResult``)."""
        return self.persona_dir(letter) / "research" / f"round_{round_no:03d}.consult.json"

    def consults(self, letter: str, round_no: int) -> Path:
        return self.persona_dir(letter) / "colleague_consults" / f"round_{round_no:03d}.json"

    def argument(self, letter: str, round_no: int) -> Path:
        return self.persona_dir(letter) / "arguments" / f"round_{round_no:03d}.json"

    def rebuttal(self, letter: str, round_no: int) -> Path:
        return self.persona_dir(letter) / "arguments" / f"round_{round_no:03d}.rebuttal.json"

    def reflection(self, letter: str, round_no: int) -> Path:
        return self.persona_dir(letter) / "arguments" / f"round_{round_no:03d}.reflection.json"

    def support(self, letter: str, round_no: int) -> Path:
        """The support check of the persona's quoted citations in ``round_no``."""
        return self.persona_dir(letter) / "arguments" / f"round_{round_no:03d}.support.json"

    def memory_marker(self, letter: str, round_no: int) -> Path:
        return self.persona_dir(letter) / "arguments" / f"round_{round_no:03d}.memory.json"

    def concessions(self, letter: str) -> Path:
        return self.persona_dir(letter) / "concessions.json"

    def confidence(self, letter: str) -> Path:
        return self.persona_dir(letter) / "confidence.json"

    @property
    def scoring_dir(self) -> Path:
        return self.root / "scoring"

    def round_score(self, round_no: int) -> Path:
        return self.scoring_dir / f"round_{round_no:03d}.json"

    def judge(self, round_no: int) -> Path:
        return self.scoring_dir / f"round_{round_no:03d}.judge.json"

    @property
    def summary(self) -> Path:
        return self.scoring_dir / "summary.json"
