"""Round scoring, computed in code wherever possible; every component keeps its reasons.

Weights (spec): evidence quality 2, novelty 1.5, concession quality 2, logical coherence 1,
rebuttal precision 1, confidence calibration 0.5. Only coherence comes from the judge model.
An earned concession (a real opponent claim, with a reason) scores positively.
"""

from __future__ import annotations

import math
from collections import Counter as TokenCounter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import NamedTuple

from argue.domain import (
    Claim,
    Evidence,
    JudgeVerdictRecord,
    PersonaRoundScore,
    ReasonPart,
    RebuttalRecord,
    RoundScore,
    ScoreComponent,
)
from argue.records.history import DebateHistory, RoundRecord
from argue.records.reasons import score_reason_words
from argue.text import content_words

WEIGHTS: dict[str, float] = {
    "evidence_quality": 2.0,
    "novelty": 1.5,
    "concession_quality": 2.0,
    "logical_coherence": 1.0,
    "rebuttal_precision": 1.0,
    "confidence_calibration": 0.5,
}
NOVELTY_THRESHOLD = 0.6


def tokens(text: str) -> TokenCounter[str]:
    """Content words of ``text``, any script (``argue.text``): stopwords, 1-letter words out."""
    return TokenCounter(_counts(text))


@lru_cache(maxsize=8192)
def _counts(text: str) -> TokenCounter[str]:
    # Each claim is compared with every earlier one: tokenise each text once. Shared: read only.
    return TokenCounter(content_words(text))


def cosine(a: TokenCounter[str], b: TokenCounter[str]) -> float:
    if not a or not b:
        return 0.0
    return _cosine(a, _norm(a), b, _norm(b))


def _norm(counts: TokenCounter[str]) -> float:
    return math.sqrt(sum(v * v for v in counts.values()))


@lru_cache(maxsize=8192)
def _counted(text: str) -> tuple[TokenCounter[str], float]:
    """A text's content words and their norm, once: each claim of a round is compared with
    every earlier claim of the debate (issue 43 item 4: the scoring sits between two waves)."""
    counts = _counts(text)
    return counts, _norm(counts)


def _cosine(a: TokenCounter[str], norm_a: float, b: TokenCounter[str], norm_b: float) -> float:
    if not norm_a or not norm_b:
        return 0.0
    if len(b) < len(a):
        a, b = b, a
    return sum(count * b[word] for word, count in a.items() if word in b) / (norm_a * norm_b)


def novelty_of(claim: Claim, earlier: list[Claim]) -> float:
    """Highest similarity to any earlier claim (0 = entirely new)."""
    mine, norm = _counted(claim.text)
    if not norm:
        return 0.0
    return max((_cosine(mine, norm, *_counted(other.text)) for other in earlier), default=0.0)


def score_round(history: DebateHistory, round_no: int, judge: JudgeVerdictRecord) -> RoundScore:
    record = history.round(round_no)
    earlier = history.all_claims(before_round=round_no)
    # Each claim is compared with every earlier round and with its own persona's earlier claims
    # of this round, never with another persona's same-round claims (that would make novelty
    # depend on seat order).
    similarity: dict[str, float] = {}
    own_so_far: dict[str, list[Claim]] = {}
    for claim in record.claims():
        mine = own_so_far.setdefault(claim.persona, [])
        similarity[claim.id] = novelty_of(claim, earlier + mine)
        mine.append(claim)
    base_strength = {
        c.id: (1.0 if c.evidence_backed else 0.0)
        + (0.5 if similarity[c.id] < NOVELTY_THRESHOLD else 0.0)
        for c in record.claims()
    }
    # "New" evidence is a document not cited before, whatever id each round gave it.
    registries: dict[tuple[str, int], dict[str, Evidence]] = {}
    previously_cited = {origin for c in earlier for origin in _origins(history, c, registries)}
    personas = {
        letter: _score_persona(history, record, letter, judge, similarity, base_strength)
        for letter in history.letters
    }
    refusals = {c.id for c in record.claims() if c.refusal}
    novel = sum(1 for cid, v in similarity.items() if v < NOVELTY_THRESHOLD and cid not in refusals)
    new_evidence = {origin for c in record.claims() for origin in _origins(history, c, registries)}
    new_evidence -= previously_cited
    return RoundScore(
        round=round_no,
        personas=personas,
        judge=judge,
        novel_claims=novel,
        new_verified_evidence=len(new_evidence),
    )


def _origins(
    history: DebateHistory,
    claim: Claim,
    registries: dict[tuple[str, int], dict[str, Evidence]] | None = None,
) -> list[str]:
    """The documents a claim quotes; ``registries`` keeps each persona's registry as of a round
    for the next claim of that persona and round (one registry walks every earlier round)."""
    key = (claim.persona, claim.round)
    registry = None if registries is None else registries.get(key)
    if registry is None:
        registry = history.evidence_registry(claim.persona, claim.round)
        if registries is not None:
            registries[key] = registry
    return [
        registry[eid].origin_id or registry[eid].url or eid
        for eid in claim.quoted_evidence_ids
        if eid in registry and registry[eid].is_document
    ]


class Measure(NamedTuple):
    """What one component scorer found: its value (None: not measurable this round) and why."""

    value: float | None
    parts: list[ReasonPart]


@dataclass
class PersonaRound:
    """One persona's round, as every component scorer reads it."""

    record: RoundRecord
    letter: str
    judge: JudgeVerdictRecord
    similarity: dict[str, float]
    base_strength: dict[str, float]
    claims: list[Claim]
    registry: dict[str, Evidence]

    @property
    def rebuttal(self) -> RebuttalRecord | None:
        return self.record.rebuttals.get(self.letter)

    @property
    def opponents_argued(self) -> bool:
        return any(c.persona != self.letter for c in self.record.claims())

    @cached_property
    def backed(self) -> list[Claim]:
        return [c for c in self.claims if c.evidence_backed]

    @cached_property
    def sources(self) -> list[str]:
        """The sources of the documents its evidence-backed claims quote."""
        verified_ids = {e for c in self.backed for e in c.quoted_evidence_ids}
        registry = self.registry
        return sorted(
            {registry[e].source for e in verified_ids if e in registry and registry[e].is_document}
        )

    @cached_property
    def evidence_value(self) -> float:
        """Evidence quality unrounded (confidence calibration is measured against it)."""
        if not self.claims:
            return 0.0
        diversity = min(1.0, len(self.sources) / 3)
        return 0.7 * len(self.backed) / len(self.claims) + 0.3 * diversity


Scorer = Callable[[PersonaRound], Measure]


def _evidence_quality(p: PersonaRound) -> Measure:
    claims = p.claims
    if not claims:
        return Measure(0.0, [_part("score_no_claims")])
    backed, sources = p.backed, p.sources
    not_found = sorted(
        {c.evidence_id for k in claims for c in k.citations if c.verdict == "quote_not_found"}
    )
    unverified = sorted({e for c in claims for e in c.unverified_evidence_ids})
    model_written = sorted({e for c in claims for e in c.model_written_evidence_ids})
    carrying = [c.id for c in claims if c.unverified_references]
    parts = [
        _part("score_backed", backed=len(backed), total=len(claims), sources=sources)
        if sources
        else _part("score_backed_no_source", backed=len(backed), total=len(claims))
    ]
    if not_found:
        parts.append(_part("score_quote_not_found", ids=not_found))
    if model_written:
        parts.append(_part("score_model_written", ids=model_written))
    if unverified:
        parts.append(_part("score_unverified", ids=unverified))
    if carrying:
        parts.append(_part("score_carrying", ids=carrying))
    return Measure(p.evidence_value, parts)


def _novelty(p: PersonaRound) -> Measure:
    claims, similarity = p.claims, p.similarity
    if not claims:
        return Measure(0.0, [_part("score_no_claims")])
    # A refusal is not a new idea, however unlike earlier claims its words are.
    novel = [c.id for c in claims if similarity[c.id] < NOVELTY_THRESHOLD and not c.refusal]
    part = _part(
        "score_novelty",
        novel=len(novel),
        total=len(claims),
        threshold=str(NOVELTY_THRESHOLD),
        similarities=[f"{c.id}={similarity[c.id]:.2f}" for c in claims],
    )
    return Measure(len(novel) / len(claims), [part])


def _concession_quality(p: PersonaRound) -> Measure:
    """An earned concession (a real opponent claim, with a reason) scores; conceding an
    opponent's strongest claim scores most."""
    rebuttal = p.rebuttal
    if not p.opponents_argued:
        return Measure(None, [_part("score_no_opponent_claim_to_concede")])
    if rebuttal is None:
        return Measure(0.0, [_part("score_no_rebuttal")])
    earned = [c for c in rebuttal.concessions if c.valid_target and c.reason.strip()]
    if not earned:
        why = "score_declined" if rebuttal.declined_to_concede else "score_no_reasoned"
        return Measure(0.0, [_part(why)])
    best_weight = 0.0
    conceded: list[str] = []
    kinds: list[str] = []
    strongest: list[str] = []
    for concession in earned:
        owner_claims = [c for c in p.record.claims() if c.persona == concession.to_persona]
        top = max((p.base_strength[c.id] for c in owner_claims), default=0.0)
        is_best = p.base_strength.get(concession.claim_id, 0.0) >= top
        weight = (1.0 if is_best else 0.75) * (1.0 if concession.kind == "full" else 0.9)
        best_weight = max(best_weight, weight)
        conceded.append(concession.claim_id)
        kinds.append(concession.kind)
        if is_best:
            strongest.append(concession.claim_id)
    part = _part("score_conceded", claims=conceded, kinds=kinds, strongest=strongest)
    return Measure(best_weight, [part])


def _logical_coherence(p: PersonaRound) -> Measure:
    """The one component the judge model rates."""
    judge, letter = p.judge, p.letter
    if not p.claims:
        return Measure(None, [_part("score_no_argument")])
    if judge.available and letter in judge.coherence:
        said = judge.reasons.get(letter)
        part = _part("score_judge_no_reason") if said is None else _part("score_judge", reason=said)
        return Measure(judge.coherence[letter], [part])
    if judge.available:
        part = (
            _part("score_judge_unrated", letter=letter, rated=judge.unmatched)
            if judge.unmatched
            else _part("score_judge_unrated_nobody", letter=letter)
        )
        return Measure(None, [part])
    return Measure(None, [_part("score_judge_failed")])


def _rebuttal_precision(p: PersonaRound) -> Measure:
    rebuttal = p.rebuttal
    if not p.opponents_argued:
        return Measure(None, [_part("score_no_opponent_claim_to_rebut")])
    if rebuttal is None or not rebuttal.counters:
        return Measure(0.0, [_part("score_no_counters")])
    hits = [c for c in rebuttal.counters if c.valid_target]
    misses = [c.target_claim_id for c in rebuttal.counters if not c.valid_target]
    total = len(rebuttal.counters)
    part = (
        _part("score_counters_missed", hits=len(hits), total=total, missed=misses)
        if misses
        else _part("score_counters", hits=len(hits), total=total)
    )
    return Measure(len(hits) / total, [part])


def _confidence_calibration(p: PersonaRound) -> Measure:
    """How close the persona's stated confidence is to its evidence quality."""
    reflection = p.record.reflections.get(p.letter)
    if reflection is None:
        return Measure(None, [_part("score_no_reflection")])
    evidence_value = p.evidence_value
    gap = abs(reflection.confidence - evidence_value)
    part = _part(
        "score_calibration",
        confidence=f"{reflection.confidence:.2f}",
        evidence=f"{evidence_value:.2f}",
    )
    return Measure(1.0 - gap, [part])


SCORERS: dict[str, Scorer] = {
    "evidence_quality": _evidence_quality,
    "novelty": _novelty,
    "concession_quality": _concession_quality,
    "logical_coherence": _logical_coherence,
    "rebuttal_precision": _rebuttal_precision,
    "confidence_calibration": _confidence_calibration,
}
"""One scorer per component, keyed like ``WEIGHTS`` (a test holds the keys equal); a persona's
components come out in this order."""


def _score_persona(
    history: DebateHistory,
    record: RoundRecord,
    letter: str,
    judge: JudgeVerdictRecord,
    similarity: dict[str, float],
    base_strength: dict[str, float],
) -> PersonaRoundScore:
    argument = record.arguments.get(letter)
    claims = argument.claims if argument else []
    seat = PersonaRound(
        record=record,
        letter=letter,
        judge=judge,
        similarity=similarity,
        base_strength=base_strength,
        claims=claims,
        registry=history.evidence_registry(letter, record.round),
    )
    components = [_component(name, *scorer(seat)) for name, scorer in SCORERS.items()]
    measured = [c for c in components if c.value is not None]
    total = sum(c.weight * (c.value or 0.0) for c in measured)
    max_total = sum(c.weight for c in measured)
    conceded_to = TokenCounter(
        c.claim_id
        for r in record.rebuttals.values()
        for c in r.concessions
        if c.valid_target and c.to_persona == letter
    )
    claim_scores = {c.id: round(base_strength[c.id] + 0.5 * conceded_to[c.id], 3) for c in claims}
    return PersonaRoundScore(
        persona=letter,
        components=components,
        total=round(total, 4),
        max_total=max_total,
        claim_scores=claim_scores,
    )


def _part(key: str, **fields: str | int | list[str]) -> ReasonPart:
    return ReasonPart(key=key, fields=fields)


def _component(name: str, value: float | None, parts: list[ReasonPart]) -> ScoreComponent:
    """A component with its reason twice: the English sentence (the audit record) and its
    machine form, from which documents say it in the debate's language."""
    clamped = None if value is None else round(min(1.0, max(0.0, value)), 4)
    reason = score_reason_words(parts, "en")
    return ScoreComponent(
        name=name, weight=WEIGHTS[name], value=clamped, reason=reason, parts=list(parts)
    )
