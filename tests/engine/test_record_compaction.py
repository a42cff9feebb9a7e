"""Issue 43 item 4: a long debate stays inside the window, and the record stays cacheable.

The record of closed rounds is compacted at a boundary a prompt cache can live with: a chapter
shows at most ``CHAPTER_ROUNDS`` closed rounds in full; the next round starts a new chapter whose
first part is the digest of every round before it, frozen, and the chapter grows append-only
again from there. So the prefix breaks once every few rounds (never between two requests of the
same chapter), the parts read the same rebuilt from disk (a resumed debate sends the same text),
and round 8's argument prompt is at most twice round 2's (bench/overhead.py measures round 20).

Teeth (each broken on purpose once, the test named failed):
- ``chapter`` without the ``len(blocks) >= CHAPTER_ROUNDS`` rule →
  ``test_a_long_debate_is_compacted_in_chapters`` (4 blocks at round 5);
- the digest built as of the round asked for (``build_digest(history, letter, round_no…)``, a
  part that changed every round) instead of the chapter's start → the same test (the
  chapter's first part differed between two of its rounds).
"""

from __future__ import annotations

import statistics

from argue.engine import load_history
from argue.engine import record as record_module
from argue.engine.record import CHAPTER_ROUNDS, record_parts
from tests.engine.script import DebateScript, round_of

NAMES = {"Embry": "A", "Horus": "B"}
ROUNDS = 8


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges: the debate runs all its rounds


def _chapter_start(round_no: int) -> int:
    """The round the chapter of ``round_no``'s record starts at (no budget in the way)."""
    closed = round_no - 1
    return 1 + CHAPTER_ROUNDS * ((closed - 1) // CHAPTER_ROUNDS)


def test_a_long_debate_is_compacted_in_chapters(run_debate):
    """One 8-round debate (three chapters), three properties: each a function below."""
    run = run_debate(rounds=ROUNDS, script=DebateScript(names=NAMES, confidence=_swinging))
    assert run.state.termination == "max_rounds"
    history = load_history(run.store)
    a_chapter_holds_at_most_chapter_rounds_rounds(history)
    the_prompt_of_a_late_round_stays_within_twice_round_2s(run)
    the_compacted_record_sent_is_the_one_rebuilt_from_disk(run, history)


def a_chapter_holds_at_most_chapter_rounds_rounds(history) -> None:  # type: ignore[no-untyped-def]
    for letter in NAMES.values():
        parts = {rnd: record_parts(history, letter, rnd) for rnd in range(2, ROUNDS + 1)}
        for rnd, sent in parts.items():
            start = _chapter_start(rnd)
            blocks = sent[1:] if start > 1 else sent
            assert 1 <= len(blocks) <= CHAPTER_ROUNDS, (letter, rnd, len(blocks))
            assert blocks[0].startswith(f"Round {start}, closed:"), (letter, rnd)
            if start > 1:
                assert sent[0].startswith(f"Rounds 1-{start - 1}, in brief:"), (letter, rnd)
            later = parts.get(rnd + 1)
            if later is not None and _chapter_start(rnd + 1) == start:
                # within a chapter: the same parts, unchanged, then one more block
                assert later[: len(sent)] == sent and len(later) == len(sent) + 1, (letter, rnd)
        starts = {_chapter_start(rnd) for rnd in parts}
        assert len(starts) >= 3, starts  # the debate did go through several chapters


def the_prompt_of_a_late_round_stays_within_twice_round_2s(run) -> None:  # type: ignore[no-untyped-def]
    sizes: dict[int, list[int]] = {}
    for request in run.model.requests:
        if request.output is None or request.output.__name__ != "ArgumentDraft":
            continue
        if any(m.role == "assistant" for m in request.messages):
            continue  # a re-ask
        sizes.setdefault(round_of(request.messages), []).append(
            sum(len(m.content) for m in request.messages)
        )
    second = statistics.mean(sizes[2])
    assert all(statistics.mean(sizes[r]) <= 2 * second for r in sizes), {
        r: round(statistics.mean(v) / second, 2) for r, v in sorted(sizes.items())
    }


def the_compacted_record_sent_is_the_one_rebuilt_from_disk(run, history) -> None:  # type: ignore[no-untyped-def]
    """Resume writes the same text: what each request carried is what the records on disk
    give, chapter digests included."""
    checked = 0
    for request in run.model.requests:
        if request.output is None or request.output.__name__ != "ArgumentDraft":
            continue
        first = request.messages[0].content
        letter = next(k for name, k in NAMES.items() if first.startswith(f"You are {name},"))
        rnd = round_of(request.messages)
        parts = record_parts(history, letter, rnd)
        sent = [m.content for m in request.messages[2 : 2 + len(parts)]]
        assert sent == parts, (letter, rnd)
        checked += bool(parts) and parts[0].startswith("Rounds 1-")
    assert checked, "no request carried a chapter digest"


def test_a_small_budget_still_starts_chapters_before_they_are_full(run_debate, monkeypatch):
    """The window's budget (a small local model's) still bounds a chapter under three rounds."""
    monkeypatch.setattr(record_module, "RECORD_CHARS", 1_500)
    monkeypatch.setattr(record_module, "MIN_RECORD_CHARS", 500)
    run = run_debate(rounds=4, script=DebateScript(names=NAMES, confidence=_swinging))
    history = load_history(run.store)
    for rnd in range(2, 5):
        blocks = [p for p in record_parts(history, "A", rnd, 1_500) if p.startswith("Round ")]
        assert len(blocks) == 1, (rnd, len(blocks))  # one block (~1,000 chars) fills 1,500


def test_a_committed_rounds_block_is_kept_and_a_new_score_renders_it_again(run_debate):
    """Each committed round's block is built once per persona (every request of a chapter
    showed it again: CPU per call, issue 43 item 4): it reads as rendered afresh, and a round
    scored again (resume scores it into a new score) shows the new score, never the old text.

    Teeth: the blocks kept by round number instead of by the score's identity fail the last
    assertion."""
    run = run_debate(rounds=2, script=DebateScript(names=NAMES, confidence=_swinging))
    history = load_history(run.store)
    record = history.round(1)
    for letter in NAMES.values():
        kept = record_module.round_block(history, letter, record)
        assert kept == record_module._round_block(history, letter, record)
        assert record_module.round_block(history, letter, record) is kept
    earlier = record.score  # still held (a snapshot, another history): its blocks stay
    assert earlier is not None
    rescored = earlier.model_copy(deep=True)
    for persona_score in rescored.personas.values():
        persona_score.total = 0.25
    record.score = rescored
    block = record_module.round_block(history, "A", record)
    assert block == record_module._round_block(history, "A", record)
    assert "you 0.25/" in block, block
    assert earlier.personas  # held to here
