"""The support check over the wire (issue 36 item 6): a 2-persona, 8-round debate through argue's
real OpenAI adapter against the loopback fake still takes at most 3.2 model waves a round, the
support check of each persona answered beside its reflection, and its verdicts recorded.

A pair's third wave is now five requests (two reflections, the judge, two support checks): with
the adapters' old default of 4 in flight per provider, one of them waited for a slot and made a
wave of its own (4.12 waves a round, measured); the default is 6 now, and the debate here runs
with it.

Teeth: the support check run after wave 3 (``await self._support_check(round_no)`` after the
fan-out in ``RoundWaves._reflect_and_judge``) fails here (no check beside a reflection).
"""

from __future__ import annotations

import time
from pathlib import Path

from argue.engine import load_history
from argue.store import DebateStore
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.wire_debate import run_wire_debate
from tests.engine.script import DebateScript, ScriptedToolkit

ROUNDS = 8


# Well over the spread of one wave's arrivals: ~15 ms on an idle machine; 0.12 s was once too
# little under a full suite on 2 cores (3.25 waves: one wave's requests arrived apart).
DELAY_S = 0.4


class TimedScript(DebateScript):
    """Keeps each request's (arrival, arrival + the fake's reply delay, phase). The fake calls
    the script under a lock, at once, and delays the reply outside it: requests in flight
    together overlap."""

    spans: list[tuple[float, float, str]]

    def __call__(self, messages, output):  # type: ignore[override]
        started = time.monotonic()
        reply = super().__call__(messages, output)
        phase = output.__name__.removesuffix("Form").removesuffix("Draft") if output else "text"
        self.spans.append((started, started + DELAY_S, phase))
        return reply


def test_an_eight_round_debate_on_the_wire_stays_within_3_2_waves_a_round(tmp_path: Path):
    script = TimedScript(names={}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    script.spans = []
    fake = FakeLLM(script, delay_s=DELAY_S).start()
    try:
        state = run_wire_debate(
            tmp_path,
            ["embry", "horus"],
            ROUNDS,
            "openai",
            "gpt-5.4",
            fake.url,
            ScriptedToolkit(),
        )
    finally:
        fake.stop()
    assert not fake.errors, fake.errors
    assert (state.status, state.termination) == ("completed", "max_rounds")

    spans = script.spans
    checks = [s for s in spans if s[2] == "Support"]
    reflections = [s for s in spans if s[2] == "Reflection"]
    assert len(checks) == 2 * ROUNDS  # one request per persona per round
    assert all(any(c[0] < r[1] and r[0] < c[1] for r in reflections) for c in checks)
    waves, horizon = 0, float("-inf")
    for started, ended, _ in sorted(spans):
        if started >= horizon:
            waves += 1
        horizon = max(horizon, ended)
    per_round = (waves - 2) / ROUNDS  # framing and synthesis excluded
    assert per_round <= 3.2, per_round

    # the verdicts came from the model, per citation, and honest claims rank
    (folder,) = [p for p in tmp_path.iterdir() if (p / "config.json").is_file()]
    history = load_history(DebateStore(folder))
    claims = [c for c in history.all_claims() if c.citations]
    assert claims
    for claim in claims:
        assert {c.support_by for c in claim.quoted_citations} == {"openai/gpt-5.4"}, claim.id
        assert claim.evidence_backed, claim.id
