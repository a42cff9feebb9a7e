"""The first minutes of a run (issue 40): the framing call is announced before it is made, so a
slow local model's first call is not silence.

Teeth: without ``self.say("t_framing")`` in ``DebateFraming._frame`` this fails.
"""

from __future__ import annotations

import re


def test_the_framing_call_is_announced_before_it_runs(run_debate):
    run = run_debate(rounds=1)
    framing = [i for i, line in enumerate(run.events) if line.startswith("Framing the question")]
    proposition = [i for i, line in enumerate(run.events) if "It is true that" in line]
    assert framing and proposition and framing[0] < proposition[0], run.events[:5]


def test_round_scores_show_their_share_so_different_maxima_compare(run_debate):
    """Issue 40 item 6: "1.50/5.0" beside "2.00/7.0" was hard to compare. Teeth: the scored
    line back to ``total/max`` alone fails."""
    from argue.records.terminal import score_words

    assert score_words(1.5, 5.0) == "1.50/5.0 (30%)"
    assert score_words(2.0, 7.0, "fr") == "2,00/7,0 (29\u202f%)"
    run = run_debate(rounds=1)
    scored = next(line for line in run.events if line.startswith("Round 1 scored:"))
    assert re.search(r"Embry \d\.\d\d/\d\.\d \(\d+%\), Horus \d\.\d\d/\d\.\d \(\d+%\)", scored)


def test_the_seating_line_names_only_the_seated_personas():
    """Issue 40 item 6: the seating reason named "priya matched rewrite" and "embry as horus's
    colleague" for a debate seating Horus and Vesper. Teeth: routing ``needed + 2`` personas
    again (argue/engine/modes.py ``seat_lineup``) fails."""
    from argue.engine import seat_lineup
    from argue.personas import load_catalog

    catalog = load_catalog()
    for question in (
        "Should we rewrite the billing system in Rust?",
        "Is the Collatz conjecture decidable?",
        "Faut-il réécrire la facturation en Rust ?",
    ):
        lineup = seat_lineup("adversarial", [], question, catalog, "en")
        seated = {p.name for p in lineup.personas}
        said = set(re.findall(r"\b[a-z]+\b", lineup.reason))
        assert said & set(catalog.names()) <= seated, (question, lineup.reason)
    named = seat_lineup("adversarial", ["horus"], "Should we rewrite it in Rust?", catalog, "en")
    assert len(named.personas) == 2 and named.personas[0].name == "horus"
