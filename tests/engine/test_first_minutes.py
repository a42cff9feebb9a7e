"""The first minutes of a run (issue 40): the framing call is announced before it is made, so a
slow local model's first call is not silence.

Teeth: without ``self.say("t_framing")`` in ``DebateFraming._frame`` this fails.
"""

from __future__ import annotations


def test_the_framing_call_is_announced_before_it_runs(run_debate):
    run = run_debate(rounds=1)
    framing = [i for i, line in enumerate(run.events) if line.startswith("Framing the question")]
    proposition = [i for i, line in enumerate(run.events) if "It is true that" in line]
    assert framing and proposition and framing[0] < proposition[0], run.events[:5]
