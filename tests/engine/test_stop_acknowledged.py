"""A running debate answers a `stop` at once (issue 40, item 3): while its calls are still in
flight it says how many, and that the synthesis follows; the stop itself lands at the next
checkpoint, as before. The calls here end only once the debate has answered (or after a long
deadline), so the test reads the order of events, never the clock; the watcher looks every
``STOP_POLL_S`` (0.5 s).

Teeth: without ``_stop_acknowledged`` around the run (argue/engine/orchestrator.py) the first
word after the stop comes when the calls end, and this fails.
"""

from __future__ import annotations

import asyncio
import time

from argue.engine import DebateRunner
from argue.llm import ScriptedModel
from tests.engine.script import DebateScript, ScriptedToolkit, names_of

DEADLINE_S = 60.0


def test_a_stop_is_acknowledged_while_calls_are_in_flight(new_store, personas):
    store = new_store("stop")
    lineup = [personas["embry"], personas["horus"]]
    script = DebateScript(names=names_of(lineup))
    said: list[str] = []
    answered: list[str] = []  # the debate's answer to the stop, as the calls saw it

    async def slow(messages, output):
        reply = script(messages, output)
        if output is not None and output.__name__.startswith("Argument"):
            store.request_stop()  # `argue stop` from another terminal, mid-wave
            deadline = time.monotonic() + DEADLINE_S
            while not any(line.startswith("Stop requested: finishing") for line in said):
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.05)
            answered.append(next((x for x in said if x.startswith("Stop requested: f")), ""))
        return reply

    runner = DebateRunner(store, ScriptedModel(slow), ScriptedToolkit(), reporter=said.append)
    state = asyncio.run(runner.run())
    assert state.status == "stopped"
    # Both arguments were still in flight when the debate answered.
    assert answered and all(
        line == "Stop requested: finishing 2 call(s) in flight, then the synthesis."
        for line in answered
    ), (answered, said)
