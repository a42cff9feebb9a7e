"""Issue 13 item 7: a long panel keeps its prompts flat and its memory bounded.

A scripted panel debate runs all its 50 rounds (confidences that never converge). For every
phase a persona is asked for (argument, rebuttal, reflection), every prompt of rounds 41-50
is at most the record budget (``argue.engine.record.RECORD_CHARS``) above round 1's, and the
record restarted (a new chapter) at least once; the judge's largest prompt of rounds 41-50 is
at most 10 % above that of rounds 5-10; and the process's resident
memory grows by less than MAX_GROWTH_MB from the end of round 10 to the end of round 50 (the
scripted model's own request log is emptied as it goes, so what is measured is the engine).
The 6-persona, loopback-model version and its figures: bench/panel_50_rounds.py.

Teeth (tried with monkeypatch, nothing edited): give the argument prompt all of a persona's
evidence so far (``fresh_evidence`` returning the whole registry, ``evidence_table``
uncapped) and the argument prompt of round 41-50 is 3.8x that of round 5-10; keep every
argument prompt in a list that is never emptied (x100) and RSS grows by 110 MB.
"""

from __future__ import annotations

import asyncio
import itertools
import os

from argue.engine import DebateRunner, create_debate
from argue.engine.record import RECORD_CHARS
from argue.llm import ScriptedModel
from tests.engine.script import DebateScript, ScriptedToolkit, names_of

ROUNDS = 50
# The smallest panel: 50 rounds in 10-17 s here. Six personas take 30-45 s in process (about half
# of it rebuilding the reference index for every argument), so they run in bench/ instead.
PANEL = ("embry", "horus", "brandon")
EARLY, LATE = range(5, 11), range(41, 51)
GROWTH = 1.10
TABLE_FILLS = 2_000  # the evidence table fills to its cap (cited items of earlier rounds)
MAX_GROWTH_MB = 32
PERSONA_PHASES = ("ArgumentDraft", "RebuttalDraft", "ReflectionDraft")


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges


def _rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_a_50_round_panel_keeps_prompts_flat_and_memory_bounded(tmp_path, personas):
    lineup = [personas[name] for name in PANEL]
    store = create_debate(
        tmp_path / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="panel",
        personas=lineup,
        max_rounds=ROUNDS,
        provider="scripted",
        model="scripted-1",
    )
    script = DebateScript(names=names_of(lineup), confidence=_swinging)
    largest: dict[tuple[str, int], int] = {}
    rss: dict[int, float] = {}

    def responder(messages, output):
        reply = script(messages, output)
        _, rnd, phase = script.log[-1].split(":")
        key = (phase, int(rnd))
        largest[key] = max(largest.get(key, 0), sum(len(m.content) for m in messages))
        if phase == "ArgumentDraft" and int(rnd) - 1 not in rss:
            rss[int(rnd) - 1] = _rss_mb()  # the first argument of a round: the last one ended
        model.requests.clear()  # the test double's log, not the engine's memory
        return reply

    model = ScriptedModel(responder)
    state = asyncio.run(DebateRunner(store, model, ScriptedToolkit()).run())
    rss[ROUNDS] = _rss_mb()

    assert (state.status, state.termination) == ("completed", "max_rounds")
    assert store.committed_rounds() == list(range(1, ROUNDS + 1))
    for phase in PERSONA_PHASES:
        # Each persona's record of closed rounds grows append-only (a provider caches it) and
        # starts a new chapter before it passes its budget: bounded, however long the debate.
        first = largest[(phase, 1)]
        assert all(largest[(phase, r)] - first <= RECORD_CHARS + TABLE_FILLS for r in LATE), phase
        assert max(largest[(phase, r)] for r in LATE) > first  # it did grow, and…
        sizes = [largest[(phase, r)] for r in range(1, ROUNDS + 1)]
        assert any(b < a for a, b in itertools.pairwise(sizes)), phase  # …restarted
    early = max(largest[("JudgeDraft", r)] for r in EARLY)
    late = max(largest[("JudgeDraft", r)] for r in LATE)
    assert late <= GROWTH * early, (early, late)
    assert rss[ROUNDS] - rss[10] < MAX_GROWTH_MB, rss
