"""The support check's record: one per persona per round, a verdict per checked citation.

The engine asks a model (or, offline, rules) whether each quoted sentence supports the claim or
counter that cites it; the verdicts are kept in ``persona_x/arguments/round_NNN.support.json``,
apart from the argument and rebuttal they judge, and applied to those records' citations
whenever a round is in memory (:func:`apply_support`), so every reader sees ``support`` set.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from argue.domain import ArgumentRecord, Citation, RebuttalRecord, RoundNo, SupportVerdict

RULES = "rules"
"""``SupportRecord.checked_by`` (and ``Citation.support_by``) of the offline, rule-based check."""


class SupportCheck(BaseModel):
    """One citation's verdict, and where the citation is."""

    claim_id: str = Field(default="", description="the claim that cites it ('' for a counter)")
    counter: int = Field(
        default=0, ge=0, description="1-based position of the counter in the rebuttal (0: a claim)"
    )
    citation: int = Field(ge=0, description="position of the citation in that claim or counter")
    evidence_id: str
    support: SupportVerdict
    note: str = Field(default="", description="the checker's reason, or why no check ran")


class SupportRecord(BaseModel):
    persona: str
    round: RoundNo
    checked_by: str = Field(description="the model that gave the verdicts, or 'rules' (offline)")
    available: bool = Field(
        default=True, description="False: the check's model call failed (every verdict unchecked)"
    )
    checks: list[SupportCheck] = Field(default_factory=list)

    def count(self, support: SupportVerdict) -> int:
        return sum(1 for c in self.checks if c.support == support)


def _with_verdicts(
    citations: list[Citation], checks: dict[int, SupportCheck], by: str
) -> list[Citation] | None:
    """``citations`` with the verdicts of ``checks`` (by position) set; None if none changed.
    A verdict whose evidence id is not the citation's (a record from other citations) is
    ignored."""
    changed = False
    updated = []
    for index, citation in enumerate(citations):
        check = checks.get(index)
        if check is None or check.evidence_id != citation.evidence_id:
            updated.append(citation)
            continue
        fields = {"support": check.support, "support_by": by, "support_note": check.note}
        if any(getattr(citation, k) != v for k, v in fields.items()):
            citation = citation.model_copy(update=fields)
            changed = True
        updated.append(citation)
    return updated if changed else None


class RoundWithSupport(Protocol):
    """What :func:`apply_support` reads and replaces in a round (``records.history.RoundRecord``,
    which holds this module's records: named by shape, not imported, so neither module needs
    the other's import)."""

    support: dict[str, SupportRecord]
    arguments: dict[str, ArgumentRecord]
    rebuttals: dict[str, RebuttalRecord]


def apply_support(record: RoundWithSupport) -> None:
    """Set each checked citation's ``support`` in the round's arguments and rebuttals.

    Records are replaced by updated copies, never edited in place: a snapshot being rendered in
    another thread keeps the records it holds. Applying twice changes nothing."""
    for letter, support in record.support.items():
        claims: dict[str, dict[int, SupportCheck]] = {}
        counters: dict[int, dict[int, SupportCheck]] = {}
        for check in support.checks:
            if check.counter:
                counters.setdefault(check.counter, {})[check.citation] = check
            else:
                claims.setdefault(check.claim_id, {})[check.citation] = check
        argument = record.arguments.get(letter)
        if argument is not None and claims:
            new_claims, changed = [], False
            for claim in argument.claims:
                cited = _with_verdicts(
                    claim.citations, claims.get(claim.id, {}), support.checked_by
                )
                if cited is not None:
                    claim, changed = claim.model_copy(update={"citations": cited}), True
                new_claims.append(claim)
            if changed:
                record.arguments[letter] = argument.model_copy(update={"claims": new_claims})
        rebuttal = record.rebuttals.get(letter)
        if rebuttal is not None and counters:
            new_counters, changed = [], False
            for position, counter in enumerate(rebuttal.counters, start=1):
                cited = _with_verdicts(
                    counter.citations, counters.get(position, {}), support.checked_by
                )
                if cited is not None:
                    counter, changed = counter.model_copy(update={"citations": cited}), True
                new_counters.append(counter)
            if changed:
                record.rebuttals[letter] = rebuttal.model_copy(update={"counters": new_counters})
