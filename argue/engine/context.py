"""The in-memory view of a debate: config, personas by letter, and the rounds loaded from disk."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from argue.domain import (
    ArgumentRecord,
    Claim,
    DebateConfig,
    Evidence,
    Failure,
    Persona,
    RebuttalRecord,
    ReflectionRecord,
    ResearchRecord,
    RoundScore,
)


class RoundRecord(BaseModel):
    round: int
    research: dict[str, ResearchRecord] = Field(default_factory=dict)
    arguments: dict[str, ArgumentRecord] = Field(default_factory=dict)
    rebuttals: dict[str, RebuttalRecord] = Field(default_factory=dict)
    reflections: dict[str, ReflectionRecord] = Field(default_factory=dict)
    score: RoundScore | None = None

    @property
    def committed(self) -> bool:
        return self.score is not None

    def claims(self) -> list[Claim]:
        return [claim for arg in self.arguments.values() for claim in arg.claims]


@dataclass
class DebateHistory:
    """Everything recorded so far, in round order. Rebuilt from disk on resume."""

    config: DebateConfig
    personas: dict[str, Persona]
    rounds: dict[int, RoundRecord] = field(default_factory=dict)
    failures: list[Failure] = field(default_factory=list)
    moderator_notes: list[dict[str, object]] = field(default_factory=list)

    @property
    def letters(self) -> list[str]:
        return list(self.config.personas)

    def round(self, round_no: int) -> RoundRecord:
        if round_no not in self.rounds:
            self.rounds[round_no] = RoundRecord(round=round_no)
        return self.rounds[round_no]

    def ordered_rounds(self) -> list[RoundRecord]:
        return [self.rounds[k] for k in sorted(self.rounds)]

    def committed_rounds(self) -> list[RoundRecord]:
        return [r for r in self.ordered_rounds() if r.committed]

    def evidence_registry(self, letter: str, up_to_round: int) -> dict[str, Evidence]:
        """A persona's own evidence: what its research, consults and memory returned."""
        registry: dict[str, Evidence] = {}
        for record in self.ordered_rounds():
            if record.round > up_to_round:
                break
            research = record.research.get(letter)
            if research:
                registry.update({e.id: e for e in research.evidence})
        return registry

    def all_claims(self, before_round: int | None = None) -> list[Claim]:
        claims: list[Claim] = []
        for record in self.ordered_rounds():
            if before_round is not None and record.round >= before_round:
                break
            claims.extend(record.claims())
        return claims

    def claim_index(self) -> dict[str, Claim]:
        return {claim.id: claim for claim in self.all_claims()}

    def claim_scores(self) -> dict[str, float]:
        scores: dict[str, float] = {}
        for record in self.committed_rounds():
            assert record.score is not None
            for persona_score in record.score.personas.values():
                scores.update(persona_score.claim_scores)
        return scores

    def confidences(self, letter: str) -> list[tuple[int, float]]:
        return [
            (r.round, r.reflections[letter].confidence)
            for r in self.ordered_rounds()
            if letter in r.reflections
        ]

    def notes_for_round(self, round_no: int) -> list[str]:
        return [
            str(note["text"])
            for note in self.moderator_notes
            if int(str(note.get("from_round", 1))) <= round_no
        ]

    def persona_name(self, letter: str) -> str:
        return self.personas[letter].display_name
