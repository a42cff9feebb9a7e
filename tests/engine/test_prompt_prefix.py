"""Issue 23 items 1-2: prompts a cache can reuse, and three model waves a round.

Each persona's requests start with the same messages: its system text (the persona file's card
and the rules, the same every round), then the proposition, then the record of closed rounds,
one message per part (append-only: round k+1's messages start with round k's, unchanged, so a
provider cache that matches whole blocks finds them again), the last a cache point, then the
round's material (the same in its argument, rebuttal and reflection), a cache point; a record
over its budget starts a new chapter and grows from there again; the record reads the same
rebuilt from disk. The colleague question of round k+1 is decided in round k's rebuttal and
answered beside the reflections: a round is three model waves.

Teeth (each broken on purpose once, the test named failed):
- record blocks ordered newest first → ``test_…_starts_with_its_earlier_record``;
- the record parts joined into one message (a block that grows every round) →
  ``test_…_starts_with_its_earlier_record`` and ``test_the_record_rebuilt_from_disk_…``;
- a round block showing the round's latest score (``history.claim_scores()``) instead of its
  own → ``test_the_record_rebuilt_from_disk_reads_the_same`` (scores of later rounds changed
  earlier blocks);
- ``chapter`` ignoring the budget → ``test_a_record_over_its_budget_starts_a_new_chapter``;
- the consults left out of wave 3 (``_reflect_and_judge``) → ``test_a_round_with_colleague_
  consults_is_three_waves`` (no ask answered at all: the rebuttal decided it, nobody ran it);
- the support check run after wave 3 instead of in it (``await self._support_check(round_no)``
  after the fan-out) → the same test (no check beside a reflection; 4.12 waves a round).
"""

from __future__ import annotations

import asyncio
import re
import time

from argue.engine import DebateRunner, load_history
from argue.engine import record as record_module
from argue.engine.record import persona_record, record_parts
from argue.llm import ScriptedModel
from argue.skills.ask import ColleagueAnswer
from argue.skills.base import SkillItem, SkillResult
from tests.engine.script import DebateScript, ScriptedToolkit, round_of

NAMES = {"Embry": "A", "Horus": "B"}
PHASES = ("ArgumentDraft", "RebuttalDraft", "ReflectionDraft")


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 + 0.5 * (rnd % 2)  # never converges


def _persona_requests(run, name: str):
    return [
        r
        for r in run.model.requests
        if r.output is not None
        and r.output.__name__ in PHASES
        and r.messages[0].content.startswith(f"You are {name},")
        and not any(m.role == "assistant" for m in r.messages)  # not a re-ask
    ]


def _material_index(messages) -> int:
    return next(
        i
        for i, m in enumerate(messages)
        if m.role == "user" and re.match(r"Round \d+ of \d+: your research\.", m.content)
    )


def _record_sent(messages) -> list[str]:
    """The record parts of a persona request: the messages between the brief and the round's
    material, one per part."""
    return [m.content for m in messages[2 : _material_index(messages)]]


def test_each_persona_request_starts_with_its_earlier_record(run_debate, monkeypatch):
    # One chapter for the whole debate: what is pinned here is the append-only record within a
    # chapter; chapters of CHAPTER_ROUNDS rounds are tests/engine/test_record_compaction.py's.
    monkeypatch.setattr(record_module, "CHAPTER_ROUNDS", 100)
    run = run_debate(rounds=5, script=DebateScript(names=NAMES, confidence=_swinging))
    assert run.state.termination == "max_rounds"
    for name in NAMES:
        requests = _persona_requests(run, name)
        assert len(requests) == 15
        assert len({r.messages[0].content for r in requests}) == 1  # one system text
        by_round: dict[int, list] = {}
        for request in requests:
            by_round.setdefault(round_of(request.messages), []).append(request.messages)
        stable: dict[int, list[str]] = {}
        for rnd, calls in by_round.items():
            at = _material_index(calls[0])
            record_end, material = calls[0][at - 1], calls[0][at]
            assert record_end.cache_point and material.cache_point
            assert not any(m.cache_point for m in calls[0][1 : at - 1])
            # argument, rebuttal and reflection share system, record and material exactly
            assert all(c[: at + 1] == calls[0][: at + 1] for c in calls), (name, rnd)
            stable[rnd] = [m.content for m in calls[0][:at]]
        assert stable[1][1].endswith("none before round 2):") and len(stable[1]) == 2
        for rnd in range(1, 5):
            earlier, later = stable[rnd], stable[rnd + 1]
            # whole messages, unchanged, then the closed round's block: a block a cache finds
            assert later[: len(earlier)] == earlier, (name, rnd)
            assert later[len(earlier)].startswith(f"Round {rnd}, closed:"), (name, rnd)


def test_the_record_rebuilt_from_disk_reads_the_same(run_debate):
    run = run_debate(rounds=4, script=DebateScript(names=NAMES, confidence=_swinging))
    history = load_history(run.store)
    for name, letter in NAMES.items():
        for request in _persona_requests(run, name):
            rnd = round_of(request.messages)
            assert _record_sent(request.messages) == record_parts(history, letter, rnd), (
                letter,
                rnd,
            )


def test_a_record_over_its_budget_starts_a_new_chapter(run_debate, monkeypatch):
    budget = 2_500
    monkeypatch.setattr(record_module, "CHAPTER_ROUNDS", 100)  # the budget alone starts them
    monkeypatch.setattr(record_module, "RECORD_CHARS", budget)
    monkeypatch.setattr(record_module, "MIN_RECORD_CHARS", 1_000)
    run = run_debate(rounds=8, script=DebateScript(names=NAMES, confidence=_swinging))
    assert run.state.termination == "max_rounds"
    history = load_history(run.store)
    openings: dict[int, list[str]] = {}
    for request in _persona_requests(run, "Embry"):
        openings.setdefault(round_of(request.messages), _record_sent(request.messages))
    records = {rnd: persona_record(history, "A", rnd, budget) for rnd in openings}
    block = max(len(record_module.round_block(history, "A", r)) for r in history.ordered_rounds())
    assert all(len(text) <= budget + block for text in records.values()), records
    chapters = [rnd for rnd, text in records.items() if text.startswith("Rounds 1-")]
    assert chapters, "no chapter started"
    first = chapters[0]
    brief = records[first].split(", in brief:", 1)[0]  # "Rounds 1-k"
    assert int(brief.split("-")[1]) < first - 1
    assert openings[first][0].startswith(brief + ", in brief:")  # the digest: a part of its own
    # within the new chapter the record is append-only again
    if first + 1 in openings and records[first + 1].startswith(brief + ","):
        assert openings[first + 1][: len(openings[first])] == openings[first]


class AskingToolkit(ScriptedToolkit):
    """The scripted toolkit, with an ``ask`` that is a model call (as the real skill's is)."""

    def __init__(self) -> None:
        super().__init__()
        self.model: ScriptedModel | None = None

    async def run(self, request):  # type: ignore[no-untyped-def]
        if request.call.skill != "ask" or self.model is None:
            return await super().run(request)
        self.requests.append(request)
        from argue.llm.base import Message

        reply = await self.model.complete(
            [
                Message(role="system", content=f"You are {request.call.colleague}, a colleague."),
                Message(role="user", content=request.call.query),
            ],
            output=ColleagueAnswer,
            purpose="ask",
        )
        answer = reply.parsed()
        item = SkillItem(
            id=f"ask:{request.call.query}",
            title=f"{request.call.colleague} on {request.call.query}",
            snippet=answer.answer,
            source="ask",
            provenance="testimony",
        )
        return SkillResult.from_items("ask", request.call.query, [item])


def test_a_round_with_colleague_consults_is_three_waves(tmp_path, personas, new_store):
    rounds = 8
    store = new_store("waves", rounds=rounds)
    script = DebateScript(names=NAMES, confidence=_swinging)
    spans: list[tuple[float, float, str]] = []

    async def responder(messages, output):  # type: ignore[no-untyped-def]
        started = time.monotonic()
        reply = script(messages, output)
        await asyncio.sleep(0.03)
        spans.append((started, time.monotonic(), output.__name__ if output else "text"))
        return reply

    # Not the scripted provider: the support check is a model call here, as with a real model.
    model = ScriptedModel(responder, provider="loopback")
    toolkit = AskingToolkit()
    toolkit.model = model
    state = asyncio.run(DebateRunner(store, model, toolkit).run())
    assert (state.status, state.termination) == ("completed", "max_rounds")

    history = load_history(store)
    for rnd in range(2, rounds + 1):
        for letter in NAMES.values():
            calls = history.rounds[rnd].research[letter].calls
            assert [c.skill for c in calls] == ["dogpile", "memory", "ask"], (rnd, letter)
            assert calls[2].status == "ok"
    asks = [s for s in spans if s[2] == "ColleagueAnswer"]
    assert len(asks) == 2 * (rounds - 1)
    reflections = [s for s in spans if s[2] == "ReflectionDraft"]
    # every answer overlaps a reflection: it is asked in the reflections' wave
    assert all(any(a[0] < r[1] and r[0] < a[1] for r in reflections) for a in asks)
    checks = [s for s in spans if s[2] == "SupportDraft"]
    assert len(checks) == 2 * rounds  # one support check per persona per round
    assert all(any(c[0] < r[1] and r[0] < c[1] for r in reflections) for c in checks)

    waves, horizon = 0, float("-inf")
    for started, ended, _ in sorted(spans):
        if started >= horizon:
            waves += 1
        horizon = max(horizon, ended)
    per_round = (waves - 2) / rounds  # framing and synthesis excluded
    assert per_round <= 3.2, per_round


def test_the_record_budget_follows_a_models_context_window(new_store):
    """A model that says its window (in-process llama.cpp: ``context_window`` = n_ctx) gets a
    record of a quarter of it (about four characters a token); one that does not, the default."""

    class SmallWindow(ScriptedModel):
        context_window = 4096

    store = new_store("window", rounds=1)
    small = DebateRunner(store, SmallWindow(DebateScript(names=NAMES)), ScriptedToolkit())
    default = DebateRunner(store, ScriptedModel(DebateScript(names=NAMES)), ScriptedToolkit())
    assert small._record_chars("A") == 4096
    assert default._record_chars("A") == record_module.RECORD_CHARS


def test_the_local_model_says_its_window(tmp_path):
    from argue.llm._local import LocalLlamaModel
    from argue.llm._providers import llama_cpp_installed

    if not llama_cpp_installed():
        import pytest

        pytest.skip("llama-cpp-python is not installed")
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    assert LocalLlamaModel(gguf, n_ctx=2048).context_window == 2048


def test_self_hosted_servers_get_a_record_sized_for_a_small_window():
    """A self-hosted OpenAI-compatible server or Ollama does not say its window: a small one
    (4,096 tokens) is assumed, so the record stays near the old digest's size there; OpenAI's
    own API gets the default budget."""
    from argue.engine.record import record_budget
    from argue.llm._ollama import OllamaNativeModel, OllamaNativeProvider
    from argue.llm._openai_compat import OpenAICompatModel
    from argue.llm._providers import OpenAICompatProvider

    server = OpenAICompatModel(
        "m", provider=OpenAICompatProvider(name="openai", base_url="http://127.0.0.1:9/v1")
    )
    official = OpenAICompatModel(
        "m", provider=OpenAICompatProvider(name="openai", base_url="https://api.openai.com/v1")
    )
    ollama = OllamaNativeModel("m", provider=OllamaNativeProvider("http://127.0.0.1:9"))
    assert record_budget(server.context_window) == 4096
    assert record_budget(ollama.context_window) == 4096
    assert record_budget(official.context_window) == record_module.RECORD_CHARS


class SchemaInPromptModel(ScriptedModel):
    """A model that reads schemas from the prompt when the prefix is cached, as Anthropic's
    and OpenAI's adapters say they do."""

    reads_schemas_from_prompt = True


def test_a_model_that_reads_schemas_from_the_prompt_gets_the_phase_guide_in_its_system_text(
    new_store,
):
    """Instructions and answer formats repeated in every request sit in the system text (cached,
    read at a tenth of the price) and each request only names its phase; a model that takes
    schemas on the wire keeps the instructions in each request (no schemas in its system)."""
    from argue.engine.schemas import PHASE_FORMS
    from argue.llm import schema_instruction

    runs = {}
    for guided, cls in ((True, SchemaInPromptModel), (False, ScriptedModel)):
        store = new_store(f"guide-{guided}", rounds=3)
        model = cls(DebateScript(names=NAMES, confidence=_swinging))
        asyncio.run(DebateRunner(store, model, ScriptedToolkit()).run())
        runs[guided] = model
    for guided, model in runs.items():
        requests = [
            r
            for r in model.requests
            if r.output is not None
            and r.output.__name__ in PHASES
            and r.messages[0].content.startswith("You are Embry,")
        ]
        systems = {r.messages[0].content for r in requests}
        assert len(systems) == 1
        system = systems.pop()
        for phase, form in PHASE_FORMS.items():
            assert (schema_instruction(form) in system) is guided, (guided, phase)
        argument = next(r for r in requests if r.output.__name__ == "ArgumentDraft")
        tail = argument.messages[-1].content
        assert ("Answer as the ARGUMENT section of your instructions says." in tail) is guided
        assert ("Each citation is an `evidence_id`" in tail) is not guided


def test_a_plan_without_an_ask_or_free_calls_says_to_leave_them_out():
    """The phase guide shows the plan's every field; a round's plan that has no ask (decided in
    the rebuttal) or no room for free calls says so, or a model following the guide would
    fill them and be re-asked."""
    from argue.engine.prompts import research_slots

    slots = research_slots((), ("dogpile", "memory"), 0, 2)
    assert "no `ask` in this plan" in slots and "no `free_calls` in this plan" in slots
    offered = research_slots(("brandon",), ("dogpile",), 1, 3)
    assert "no `ask`" not in offered and "no `free_calls`" not in offered
