"""Each persona's record of the debate: the stable, append-only start of all its prompts.

Providers cache a request's prefix (Anthropic and OpenAI from 1,024 tokens; a llama.cpp server
keeps its KV cache for it), so what earlier rounds established is written once, when the round
is committed, in words that never change afterwards: every later request of the persona starts
with the same text, and each round only appends. Nothing here depends on a later round (a
round's block uses that round's own scores), and nothing depends on the order in which
personas finished.

Compacted: a chapter holds at most :data:`CHAPTER_ROUNDS` closed rounds, and fewer when their
blocks would pass the budget; then a new *chapter* starts at the next round: the bounded
digest as of that round (``build_digest``, frozen: scores and confidences of earlier rounds
only) is one part that stands for everything before it, and later rounds append to it again
until the chapter is full. The prefix then breaks once per chapter (every few rounds) instead
of once per request, and a persona's prompt stays within about twice round 2's however long the
debate runs (issue 43 item 4: round 20 against round 2). The chapter boundaries follow from the
records alone, so a resumed debate writes the same text.

What a block shows is what the persona may know: claims, counters and concessions that were
published; never another persona's research.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from argue.domain import Claim, Evidence, RoundScore
from argue.engine.digest import build_digest, clip
from argue.engine.prompts import data, evidence_table
from argue.records.history import DebateHistory, RoundRecord

RECORD_CHARS = 24_000
"""A persona's record at most (about 6,000 tokens): ~8 rounds of a pair in one chapter."""

MIN_RECORD_CHARS = 3_000

CHAPTER_ROUNDS = 3
"""Closed rounds a chapter shows in full before the next one folds them into its digest. With
the digest (about one block of a panel) and three blocks, the record stays about the size of
round 2's whole prompt: round 20's prompt is at most twice round 2's (bench/overhead.py)."""


def record_budget(context_window: int | None) -> int:
    """The record's budget for a model whose window (tokens) is known: a quarter of it (at
    about four characters a token), so evidence, instructions and the answer keep their room."""
    if not context_window:
        return RECORD_CHARS
    return max(MIN_RECORD_CHARS, min(RECORD_CHARS, context_window))


def record_parts(
    history: DebateHistory, letter: str, round_no: int, budget: int = RECORD_CHARS
) -> list[str]:
    """What ``letter`` knows of the rounds before ``round_no``, as separate texts: the chapter's
    opening (the digest of the rounds before it, when a chapter has started), then one block per
    closed round, oldest first. Each becomes a message of its own (:func:`prompts.opening`): a
    text that never changes is a block a provider's cache finds again, while one text that grew
    would be a new block every round. The parts for a later ``round_no`` start with this one's
    unless a chapter starts in between."""
    closed = [r for r in history.committed_rounds() if r.round < round_no]
    if not closed:
        return []
    start, blocks = chapter(history, letter, closed, budget)
    parts = []
    if start > 1:
        digest = _chapter_digest(history, letter, closed, start)
        parts.append(f"Rounds 1-{start - 1}, in brief:\n" + digest)
    return parts + blocks


def persona_record(
    history: DebateHistory, letter: str, round_no: int, budget: int = RECORD_CHARS
) -> str:
    """:func:`record_parts` as one text (a blank line between parts), as a wire adapter that
    joins consecutive user messages sends it."""
    return "\n\n".join(record_parts(history, letter, round_no, budget))


def chapter(
    history: DebateHistory, letter: str, closed: list[RoundRecord], budget: int
) -> tuple[int, list[str]]:
    """The round the current chapter starts at, and the blocks of its closed rounds: a new
    chapter starts at a round when the current one already holds :data:`CHAPTER_ROUNDS` rounds,
    or when that round's block would take it past ``budget``."""
    start = closed[0].round
    blocks: list[str] = []
    size = 0
    for record in closed:
        block = round_block(history, letter, record)
        if blocks and (len(blocks) >= CHAPTER_ROUNDS or size + len(block) > budget):
            start, blocks = record.round, []
            size = len(_chapter_digest(history, letter, closed, start))
        blocks.append(block)
        size += len(block) + 2
    return start, blocks


MAX_CITED_PER_ROUND = 6


def cited_in_round(history: DebateHistory, letter: str, record: RoundRecord) -> list[Evidence]:
    """The round's own evidence that the persona's claims of that round cited, in citation
    order: shown once, in the round's block, and citable again while the block is in the
    record (the round's material then shows only new evidence)."""
    research = record.research.get(letter)
    argument = record.arguments.get(letter)
    if research is None or argument is None:
        return []
    own = {e.id: e for e in research.evidence}
    ids = [eid for c in argument.claims for eid in c.evidence_ids if eid in own]
    return [own[eid] for eid in dict.fromkeys(ids)][:MAX_CITED_PER_ROUND]


def citable_from_record(
    history: DebateHistory, letter: str, round_no: int, budget: int = RECORD_CHARS
) -> list[Evidence]:
    """The earlier evidence the record of ``round_no`` shows (its chapter's blocks), oldest
    round first: ids the persona may cite beside the round's new evidence."""
    closed = [r for r in history.committed_rounds() if r.round < round_no]
    if not closed:
        return []
    start, _ = chapter(history, letter, closed, budget)
    return [e for r in closed if r.round >= start for e in cited_in_round(history, letter, r)]


_BLOCKS: dict[int, tuple[weakref.ref[RoundScore], dict[str, str]]] = {}
"""Each committed round's blocks (and the digest of a chapter starting after it), by persona,
under its score's identity: a committed round's records never change (a resumed debate scores
it again into a new score object), and every request of every persona built its chapter's
blocks and digest again (issue 43 item 4: CPU per call)."""


def round_block(history: DebateHistory, letter: str, record: RoundRecord) -> str:
    """Round ``record.round`` as ``letter`` may know it, fixed once the round is committed."""
    return _kept(record, letter, lambda: _round_block(history, letter, record))


def _chapter_digest(
    history: DebateHistory, letter: str, closed: list[RoundRecord], start: int
) -> str:
    """The digest a chapter starting at ``start`` opens with: of committed rounds only, so it is
    kept with the last of them (the one before ``start``)."""
    before = next((r for r in reversed(closed) if r.round < start), None)
    make = lambda: build_digest(history, letter, start, notes=False)  # noqa: E731
    return make() if before is None else _kept(before, f"\0digest {letter} {start}", make)


def _kept(record: RoundRecord, key: str, make: Callable[[], str]) -> str:
    """``make()`` once per committed ``record`` and ``key``, then the same text."""
    score = record.score
    if score is None:
        return make()
    number = id(score)
    held = _BLOCKS.get(number)
    if held is None or held[0]() is not score:
        held = (weakref.ref(score, lambda ref: _forget(number, ref)), {})
        _BLOCKS[number] = held
    text = held[1].get(key)
    if text is None:
        text = held[1][key] = make()
    return text


def _forget(key: int, ref: weakref.ref[RoundScore]) -> None:
    """A score is gone: its blocks go (unless its id already holds a newer score's)."""
    if _BLOCKS.get(key, (None,))[0] is ref:
        del _BLOCKS[key]


def _round_block(history: DebateHistory, letter: str, record: RoundRecord) -> str:
    names = {k: history.persona_name(k) for k in history.letters}
    scores: dict[str, float] = {}
    if record.score is not None:
        for persona_score in record.score.personas.values():
            scores.update(persona_score.claim_scores)
    own = [c for c in record.claims() if c.persona == letter]
    others = [c for c in record.claims() if c.persona != letter]

    def claim_line(claim: Claim, who: str = "") -> str:
        support = "quoted evidence" if claim.quoted_citations else "no quoted evidence"
        score = f"score {scores[claim.id]:.2f}, " if claim.id in scores else ""
        return f"- [{claim.id}]{who} {clip(claim.text)} ({score}{support})"

    lines = ["Your claims:"]
    lines += [claim_line(c) for c in own] or ["- (none)"]
    lines.append("Opponents' claims:")
    lines += [claim_line(c, f" ({names[c.persona]})") for c in others] or ["- (none)"]
    against = [
        f"- {names[r.persona]} ({c.kind}) on [{c.target_claim_id}]: {clip(c.text, 200)}"
        for r in record.rebuttals.values()
        if r.persona != letter
        for c in r.counters
        if c.valid_target and c.target_claim_id.startswith(f"{letter}{record.round}.")
    ]
    if against:
        lines.append("Counters against your claims:")
        lines += against[:6]
    concessions = [
        f"- {names[c.from_persona]} conceded [{c.claim_id}]: {clip(c.text, 160)}"
        for r in record.rebuttals.values()
        for c in r.concessions
        if c.valid_target and (c.from_persona == letter or c.to_persona == letter)
    ]
    lines.append("Concessions:")
    lines += concessions or ["- (none)"]
    cited = cited_in_round(history, letter, record)
    if cited:
        lines.append("Evidence you cited (still citable by id):")
        lines.append(evidence_table(cited, limit=len(cited)))
    reflection = record.reflections.get(letter)
    if reflection is not None:
        lines.append(f"Your confidence after it: {reflection.confidence:.2f}")
    if record.score is not None:
        totals = [
            f"{'you' if k == letter else names[k]} {s.total:.2f}/{s.max_total:.1f}"
            for k, s in record.score.personas.items()
        ]
        lines.append("Round scores: " + ", ".join(totals))
    return f"Round {record.round}, closed:\n" + data("\n".join(lines), f"round-{record.round}")
