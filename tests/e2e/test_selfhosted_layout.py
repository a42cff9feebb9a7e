"""Self-hosted servers get the stable-prefix layout and a KV slot per persona (issue #43 items 1
and 2), through argue's real OpenAI SDK adapter against a loopback llama-server
(``tests/e2e/selfhosted_fake.py``: slots, ``cache_prompt``, its slot choice, its window).

Guarantees: against a llama-server with a slot per persona and an 8,192-token window, at least
70 % of request characters are reused from a prefix of ≥ 1,024 tokens its slot holds, each
persona's requests name one slot of their own, and no request passes the window; a server with
one state (llama-cpp-python's) is said once to make personas share it; a small window keeps the
requests inside it.

Teeth (each broken once by hand, the named test failed, then restored):
- ``_build_request`` without ``id_slot``: ``test_each_persona_keeps_its_own_slot`` failed (the
  share stayed 0.78 here: with 4 slots for a pair, llama-server's own choice by prompt
  similarity finds each persona's slot again; the slot per persona matters when a busy or
  dissimilar slot sends a request elsewhere, which this fake models but this debate rarely hits);
- the phase guide left out for self-hosted servers (``reads_schemas_from_prompt`` False): the
  share fell to 0.37, ``test_most_of_each_request_is_read_from_its_slot`` failed;
- ``GUIDED_MIN_WINDOW`` lowered to 2,048: ``test_a_small_window_is_never_passed`` failed (the
  guide went into a 4,096-token window; its largest request, 3,959 tokens, still fit in 3
  rounds, which is why the layout there is asserted too).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argue.llm._server_limits import ServerFacts
from tests.e2e.selfhosted_fake import (
    SelfHostedServer,
    figures,
    run_selfhosted_debate,
    selfhosted_model,
)
from tests.engine.script import DebateScript, ScriptedToolkit

pytestmark = pytest.mark.e2e
PAIR = ["embry", "horus"]


def _script() -> DebateScript:
    return DebateScript(names={}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))


def _run(folder: Path, server: SelfHostedServer, rounds: int, facts=None):
    server.start()
    try:
        state, notes = run_selfhosted_debate(
            folder, PAIR, rounds, selfhosted_model(server, facts), ScriptedToolkit()
        )
    finally:
        server.stop()
    assert not server.errors, server.errors
    assert state.termination == "max_rounds"
    return figures(server), notes


@pytest.fixture(scope="module")
def slotted(tmp_path_factory: pytest.TempPathFactory):
    server = SelfHostedServer(_script(), slots=4, window=8192)
    got, notes = _run(tmp_path_factory.mktemp("slotted"), server, 3)
    return server, got, notes


def test_most_of_each_request_is_read_from_its_slot(slotted):
    server, got, _ = slotted
    assert got.share >= 0.70, got
    persona = [a for a in server.accounts if "taking part in a structured debate" in a.system]
    assert len(persona) >= 2 * 3 * 3
    assert all(a.cache_prompt for a in persona)
    # The guide first, the same for every persona; each one's role after its card.
    assert all(a.system.startswith("How you answer each phase") for a in persona)
    assert all("Your role in this debate: " in a.system for a in persona)


def test_each_persona_keeps_its_own_slot(slotted):
    _, got, notes = slotted
    slots = list(got.slots_by_persona.values())
    assert len(slots) == 2 and all(len(s) == 1 for s in slots), got.slots_by_persona
    assert set.union(*slots) == {0, 1}
    assert not [n for n in notes if "share slots" in n]


def test_the_window_was_asked_once_and_never_passed(slotted):
    server, got, _ = slotted
    assert server.discovery == ["GET /v1/models", "GET /props", "GET /slots"]
    assert got.over_window == 0 and got.max_tokens < got.window


def test_the_old_layout_reads_far_less(tmp_path: Path):
    """The same server, the adapter told nothing of it (argue before issue #43)."""
    got, _ = _run(tmp_path, SelfHostedServer(_script(), slots=4, window=8192), 2, ServerFacts())
    assert got.share < 0.5, got
    assert all(s == {None} for s in got.slots_by_persona.values())


def test_a_small_window_is_never_passed(tmp_path: Path):
    server = SelfHostedServer(_script(), slots=4, window=4096)
    got, _ = _run(tmp_path, server, 3)
    assert got.over_window == 0 and got.max_tokens < 4096, got
    persona = [a for a in server.accounts if "taking part in a structured debate" in a.system]
    assert all(not a.system.startswith("How you answer each phase") for a in persona)


def test_one_state_is_said_once_and_keeps_the_requests_short(tmp_path: Path):
    server = SelfHostedServer(_script(), kind="llama-cpp-python", window=8192)
    got, notes = _run(tmp_path, server, 2)
    assert [n for n in notes if n.startswith("personas share slots")] == [
        "personas share slots: llama-cpp-python's server keeps one prompt state, so each "
        "persona's request evicts another's cached prompt"
    ]
    # The one request over the window is the probe that asked it (refused before it ran).
    (probe,) = server.over_window
    assert probe > 100_000 and got.max_tokens < 8192
    assert "POST /api/show" in server.discovery  # asked as doctor asks, before the probe
