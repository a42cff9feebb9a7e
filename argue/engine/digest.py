"""Bounded context: each persona's view of the debate so far, built from records, not history.

The digest of round 8 is about the size of round 2's: standing claims are capped per side,
concessions to the most recent few, and texts are truncated. An opponent's research never
appears here; only what the opponent published (claims and their ids) does.
"""

from __future__ import annotations

from argue.domain import Claim
from argue.records.history import DebateHistory

MAX_OWN_CLAIMS = 4
MAX_OPPONENT_CLAIMS = 4
MAX_CONCESSIONS = 6
CLAIM_CHARS = 240


def clip(text: str, limit: int = CLAIM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def build_digest(history: DebateHistory, letter: str, round_no: int, *, notes: bool = True) -> str:
    """What ``letter`` may know before ``round_no``: bounded, and free of others' research.

    Only rounds before ``round_no`` count (their scores and confidences too), so the text for a
    given round never changes as the debate goes on; ``notes=False`` leaves out the moderator's
    notes (shown with each round's material instead)."""
    earlier = [r for r in history.ordered_rounds() if r.round < round_no]
    if not earlier:
        shown = history.notes_for_round(round_no) if notes else []
        return notes_block(shown) or "(first round: nothing yet)"
    scores: dict[str, float] = {}
    for record in earlier:
        if record.score is not None:
            for persona_score in record.score.personas.values():
                scores.update(persona_score.claim_scores)
    conceded_by_me = {
        c.claim_id
        for r in earlier
        if letter in r.rebuttals
        for c in r.rebuttals[letter].concessions
        if c.valid_target
    }
    own: list[Claim] = []
    others: list[Claim] = []
    for record in earlier:
        for claim in record.claims():
            (own if claim.persona == letter else others).append(claim)

    def rank(claims: list) -> list:
        return sorted(claims, key=lambda c: (-scores.get(c.id, 0.0), -c.round, c.id))

    lines = ["Your standing claims (best first):"]
    lines += [f"- [{c.id}] {clip(c.text)}" for c in rank(own)[:MAX_OWN_CLAIMS]] or ["- (none)"]
    lines.append("Opponents' claims you have not conceded (best first):")
    standing = [c for c in others if c.id not in conceded_by_me]
    lines += [
        f"- [{c.id}] ({history.persona_name(c.persona)}) {clip(c.text)}"
        for c in rank(standing)[:MAX_OPPONENT_CLAIMS]
    ] or ["- (none)"]

    concessions = [
        (r.round, c)
        for r in earlier
        for rebuttal in r.rebuttals.values()
        for c in rebuttal.concessions
        if c.valid_target and (c.from_persona == letter or c.to_persona == letter)
    ][-MAX_CONCESSIONS:]
    lines.append("Concessions so far (most recent last):")
    lines += [
        f"- R{rnd}: {history.persona_name(c.from_persona)} conceded [{c.claim_id}]: "
        f"{clip(c.text, 160)}"
        for rnd, c in concessions
    ] or ["- (none)"]
    trajectory = [(r, v) for r, v in history.confidences(letter) if r < round_no]
    if trajectory:
        lines.append(
            "Your confidence so far: " + ", ".join(f"R{r}={v:.2f}" for r, v in trajectory[-6:])
        )
    moderator = notes_block(history.notes_for_round(round_no)) if notes else ""
    if moderator:
        lines.append(moderator)
    return "\n".join(lines)


def notes_block(notes: list[str]) -> str:
    if not notes:
        return ""
    recent = notes[-5:]
    return "Moderator notes (binding constraints):\n" + "\n".join(
        f"- {clip(n, 300)}" for n in recent
    )
