"""The in-memory view of a debate: config, personas by letter, and the rounds loaded from disk."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from argue.domain import (
    ArgumentRecord,
    Claim,
    DebateConfig,
    DebateState,
    Evidence,
    Failure,
    Persona,
    RebuttalRecord,
    ReflectionRecord,
    ResearchRecord,
    RoundScore,
)
from argue.grounding.debate import reference_index
from argue.grounding.index import ReferenceIndex
from argue.records.labels import label, label_of
from argue.records.prose import REFUSED_PROSE
from argue.records.support import SupportRecord


class RoundRecord(BaseModel):
    round: int
    research: dict[str, ResearchRecord] = Field(default_factory=dict)
    arguments: dict[str, ArgumentRecord] = Field(default_factory=dict)
    rebuttals: dict[str, RebuttalRecord] = Field(default_factory=dict)
    reflections: dict[str, ReflectionRecord] = Field(default_factory=dict)
    support: dict[str, SupportRecord] = Field(
        default_factory=dict, description="each persona's support check (applied to citations)"
    )
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
    _references: dict[tuple[object, ...], tuple[list[Evidence], ReferenceIndex]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

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

    def all_evidence(self, up_to_round: int | None = None) -> list[Evidence]:
        """Every persona's evidence (for code's checks only: personas never see each other's)."""
        last = max(self.rounds, default=0) if up_to_round is None else up_to_round
        return [e for letter in self.letters for e in self.evidence_registry(letter, last).values()]

    def reference_index(self, up_to_round: int | None = None) -> ReferenceIndex:
        """What references in model text are checked against: the debate's documents so far."""
        last = max(self.rounds, default=0) if up_to_round is None else up_to_round
        claim_ids = tuple(c.id for c in self.all_claims() if c.round <= last)
        evidence = self.all_evidence(last)
        # Built once for the same documents and claims (each argument of a round, the round's
        # reference check, the transcript): tokenising every document is most of its cost.
        # The key holds the records themselves (kept alive beside the index, so their ids
        # cannot be reused): a record replaced, added or removed is a new key.
        key = (claim_ids, *((e.id, id(e)) for e in evidence))
        cached = self._references.get(key)
        if cached is None:
            if len(self._references) >= 8:
                self._references.clear()
            cached = self._references[key] = (evidence, reference_index(evidence, claim_ids))
        return cached[1]

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
        """The notes round ``round_no`` reads; a note no round read (``from_round`` None) is
        never shown to a model."""
        shown = []
        for note in self.moderator_notes:
            first = note.get("from_round", 1)
            if first is None:
                continue
            try:
                first = int(str(first))
            except ValueError:
                continue
            if first <= round_no:
                shown.append(str(note["text"]))
        return shown

    def partial_reasons(self, state: DebateState, *, prose_missing: bool = False) -> list[str]:
        """Why this debate's record is partial, in plain words (empty when it is whole).

        ``prose_missing``: the synthesis was rendered (or is due) without its prose parts."""
        lang = self.config.language
        reasons = []
        if state.status != "completed":
            status = label_of("status", state.status, lang)
            reasons.append(label("partial_status", lang, status=status))
        if state.termination == "stopped":
            reasons.append(label("partial_stopped", lang))
        for letter in self.letters:
            missing = [r.round for r in self.ordered_rounds() if letter not in r.arguments]
            if missing:
                reasons.append(
                    label(
                        "partial_missing",
                        lang,
                        name=self.persona_name(letter),
                        rounds=", ".join(map(str, missing)),
                    )
                )
        if prose_missing:
            reasons.append(label("partial_prose", lang))
        for failure in self.failures:
            if failure.phase == "synthesis" and failure.what == REFUSED_PROSE:
                sections = [label_of("section", name, lang) for name in failure.reason.split(", ")]
                reasons.append(label("partial_prose_refused", lang, sections=", ".join(sections)))
        return reasons

    def snapshot(self) -> DebateHistory:
        """A copy whose containers the running debate will not change (records are shared:
        code never edits a committed record), for writing views from another thread."""
        rounds = {
            number: RoundRecord(
                round=record.round,
                research=dict(record.research),
                arguments=dict(record.arguments),
                rebuttals=dict(record.rebuttals),
                reflections=dict(record.reflections),
                support=dict(record.support),
                score=record.score,
            )
            for number, record in self.rounds.items()
        }
        return DebateHistory(
            config=self.config,
            personas=dict(self.personas),
            rounds=rounds,
            failures=list(self.failures),
            moderator_notes=list(self.moderator_notes),
        )

    def persona_name(self, letter: str) -> str:
        return self.personas[letter].display_name
