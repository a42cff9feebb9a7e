"""Round scoring, computed in code wherever possible; every component keeps its reasons.

Weights (spec): evidence quality 2, novelty 1.5, concession quality 2, logical coherence 1,
rebuttal precision 1, confidence calibration 0.5. Only coherence comes from the judge model.
An earned concession (a real opponent claim, with a reason) scores positively.
"""

from __future__ import annotations

import math
from collections import Counter as TokenCounter
from functools import lru_cache

from argue.domain import (
    Claim,
    JudgeVerdictRecord,
    PersonaRoundScore,
    ReasonPart,
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
    dot = sum(count * b[word] for word, count in a.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def novelty_of(claim: Claim, earlier: list[Claim]) -> float:
    """Highest similarity to any earlier claim (0 = entirely new)."""
    mine = _counts(claim.text)
    return max((cosine(mine, _counts(other.text)) for other in earlier), default=0.0)


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
    previously_cited = {origin for c in earlier for origin in _origins(history, c)}
    personas = {
        letter: _score_persona(history, record, letter, judge, similarity, base_strength)
        for letter in history.letters
    }
    refusals = {c.id for c in record.claims() if c.refusal}
    novel = sum(1 for cid, v in similarity.items() if v < NOVELTY_THRESHOLD and cid not in refusals)
    new_evidence = {origin for c in record.claims() for origin in _origins(history, c)}
    new_evidence -= previously_cited
    return RoundScore(
        round=round_no,
        personas=personas,
        judge=judge,
        novel_claims=novel,
        new_verified_evidence=len(new_evidence),
    )


def _origins(history: DebateHistory, claim: Claim) -> list[str]:
    registry = history.evidence_registry(claim.persona, claim.round)
    return [
        registry[eid].origin_id or registry[eid].url or eid
        for eid in claim.quoted_evidence_ids
        if eid in registry and registry[eid].is_document
    ]


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
    registry = history.evidence_registry(letter, record.round)
    components: list[ScoreComponent] = []

    # evidence quality
    if not claims:
        evidence_value = 0.0
        evidence_parts = [_part("score_no_claims")]
    else:
        backed = [c for c in claims if c.evidence_backed]
        verified_ids = {e for c in backed for e in c.quoted_evidence_ids}
        not_found = sorted(
            {c.evidence_id for k in claims for c in k.citations if c.verdict == "quote_not_found"}
        )
        unverified = sorted({e for c in claims for e in c.unverified_evidence_ids})
        model_written = sorted({e for c in claims for e in c.model_written_evidence_ids})
        carrying = [c.id for c in claims if c.unverified_references]
        sources = sorted(
            {registry[e].source for e in verified_ids if e in registry and registry[e].is_document}
        )
        diversity = min(1.0, len(sources) / 3)
        evidence_value = 0.7 * len(backed) / len(claims) + 0.3 * diversity
        evidence_parts = [
            _part("score_backed", backed=len(backed), total=len(claims), sources=sources)
            if sources
            else _part("score_backed_no_source", backed=len(backed), total=len(claims))
        ]
        if not_found:
            evidence_parts.append(_part("score_quote_not_found", ids=not_found))
        if model_written:
            evidence_parts.append(_part("score_model_written", ids=model_written))
        if unverified:
            evidence_parts.append(_part("score_unverified", ids=unverified))
        if carrying:
            evidence_parts.append(_part("score_carrying", ids=carrying))
    components.append(_component("evidence_quality", evidence_value, *evidence_parts))

    # novelty
    if not claims:
        components.append(_component("novelty", 0.0, _part("score_no_claims")))
    else:
        # A refusal is not a new idea, however unlike earlier claims its words are.
        novel = [c.id for c in claims if similarity[c.id] < NOVELTY_THRESHOLD and not c.refusal]
        components.append(
            _component(
                "novelty",
                len(novel) / len(claims),
                _part(
                    "score_novelty",
                    novel=len(novel),
                    total=len(claims),
                    threshold=str(NOVELTY_THRESHOLD),
                    similarities=[f"{c.id}={similarity[c.id]:.2f}" for c in claims],
                ),
            )
        )

    # concession quality
    rebuttal = record.rebuttals.get(letter)
    opponents_argued = any(c.persona != letter for c in record.claims())
    if not opponents_argued:
        components.append(
            _component("concession_quality", None, _part("score_no_opponent_claim_to_concede"))
        )
    elif rebuttal is None:
        components.append(_component("concession_quality", 0.0, _part("score_no_rebuttal")))
    else:
        earned = [c for c in rebuttal.concessions if c.valid_target and c.reason.strip()]
        if not earned:
            why = "score_declined" if rebuttal.declined_to_concede else "score_no_reasoned"
            components.append(_component("concession_quality", 0.0, _part(why)))
        else:
            best_weight = 0.0
            conceded, kinds, strongest = [], [], []
            for concession in earned:
                owner_claims = [c for c in record.claims() if c.persona == concession.to_persona]
                top = max((base_strength[c.id] for c in owner_claims), default=0.0)
                is_best = base_strength.get(concession.claim_id, 0.0) >= top
                weight = (1.0 if is_best else 0.75) * (1.0 if concession.kind == "full" else 0.9)
                best_weight = max(best_weight, weight)
                conceded.append(concession.claim_id)
                kinds.append(concession.kind)
                if is_best:
                    strongest.append(concession.claim_id)
            components.append(
                _component(
                    "concession_quality",
                    best_weight,
                    _part("score_conceded", claims=conceded, kinds=kinds, strongest=strongest),
                )
            )

    # logical coherence (judge)
    if not claims:
        components.append(_component("logical_coherence", None, _part("score_no_argument")))
    elif judge.available and letter in judge.coherence:
        said = judge.reasons.get(letter)
        components.append(
            _component(
                "logical_coherence",
                judge.coherence[letter],
                _part("score_judge_no_reason")
                if said is None
                else _part("score_judge", reason=said),
            )
        )
    elif judge.available:
        components.append(
            _component(
                "logical_coherence",
                None,
                _part("score_judge_unrated", letter=letter, rated=judge.unmatched)
                if judge.unmatched
                else _part("score_judge_unrated_nobody", letter=letter),
            )
        )
    else:
        components.append(_component("logical_coherence", None, _part("score_judge_failed")))

    # rebuttal precision
    if not opponents_argued:
        components.append(
            _component("rebuttal_precision", None, _part("score_no_opponent_claim_to_rebut"))
        )
    elif rebuttal is None or not rebuttal.counters:
        components.append(_component("rebuttal_precision", 0.0, _part("score_no_counters")))
    else:
        hits = [c for c in rebuttal.counters if c.valid_target]
        misses = [c.target_claim_id for c in rebuttal.counters if not c.valid_target]
        total = len(rebuttal.counters)
        part = (
            _part("score_counters_missed", hits=len(hits), total=total, missed=misses)
            if misses
            else _part("score_counters", hits=len(hits), total=total)
        )
        components.append(_component("rebuttal_precision", len(hits) / total, part))

    # confidence calibration
    reflection = record.reflections.get(letter)
    if reflection is None:
        components.append(_component("confidence_calibration", None, _part("score_no_reflection")))
    else:
        gap = abs(reflection.confidence - evidence_value)
        components.append(
            _component(
                "confidence_calibration",
                1.0 - gap,
                _part(
                    "score_calibration",
                    confidence=f"{reflection.confidence:.2f}",
                    evidence=f"{evidence_value:.2f}",
                ),
            )
        )

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


def _component(name: str, value: float | None, *parts: ReasonPart) -> ScoreComponent:
    """A component with its reason twice: the English sentence (the audit record) and its
    machine form, from which documents say it in the debate's language."""
    clamped = None if value is None else round(min(1.0, max(0.0, value)), 4)
    reason = score_reason_words(parts, "en")
    return ScoreComponent(
        name=name, weight=WEIGHTS[name], value=clamped, reason=reason, parts=list(parts)
    )
