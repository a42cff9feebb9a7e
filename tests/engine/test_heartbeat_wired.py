"""A slow call says it is still working, in the runner's output (issue 23 item 3).

Passes once ``RoundWaves._load_or_make`` wraps its ``produce`` call in
``argue.engine.heartbeat.still_working``. Teeth: take the ``async with`` out and no
"still in progress" line appears.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from argue.engine import DebateRunner, heartbeat
from argue.llm import ScriptedModel
from argue.records.labels import label, label_of
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}
TICK_S = 0.05
SLOW_S = 0.6  # Embry's argument: many ticks long


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_slow_argument_call_says_it_is_still_working(new_store, monkeypatch, lang):
    monkeypatch.setattr(heartbeat, "HEARTBEAT_S", TICK_S)
    store = new_store(f"slow-{lang}", rounds=1, language=lang)
    script = DebateScript(names=NAMES)

    async def responder(messages, output):
        reply = script(messages, output)
        if output.__name__ == "ArgumentDraft" and messages[0].content.startswith("You are Embry"):
            await asyncio.sleep(SLOW_S)
        return reply

    events: list[str] = []
    runner = DebateRunner(
        store, ScriptedModel(responder), ScriptedToolkit(), reporter=events.append
    )
    state = asyncio.run(runner.run())
    assert state.status == "completed", state.error

    phase = label_of("phase", "argument", lang)
    working = label("t_still_working", lang, name="Embry", phase=phase, seconds="SECONDS")
    pattern = re.compile(re.escape(working).replace("SECONDS", r"(\d+)"))
    done_prefix = label("t_phase_done", lang, name="Embry", phase=phase, summary="", seconds="")
    done_prefix = done_prefix.split(phase)[0] + phase
    beats = [i for i, line in enumerate(events) if pattern.fullmatch(line)]
    done = [
        i
        for i, line in enumerate(events)
        if line.startswith(done_prefix) and not pattern.fullmatch(line)
    ]
    assert len(beats) >= 2, events  # 0.6 s at one line per 0.05 s: a dozen, give or take
    assert len(done) == 1, events
    assert max(beats) < done[0]  # every "still working" line comes before the "done" line
    seconds = [int(pattern.fullmatch(events[i]).group(1)) for i in beats]
    assert seconds == sorted(seconds)
    assert all(s <= SLOW_S + 1 for s in seconds)
