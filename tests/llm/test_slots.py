"""What a self-hosted server says of itself (window, slots), a KV slot per persona, and one request
at a time to a server with one state (issue #43 items 1 and 2).

Discovery is asked of loopback servers answering as llama-server, vLLM, Ollama and
llama-cpp-python do; the slot and gate rules through the real OpenAI SDK adapter.

Teeth (each broken once by hand, the named test failed, then restored):
- ``_llama_server_facts`` without the ``total_slots`` fallback:
  ``test_slots_come_from_total_slots_when_the_slots_endpoint_is_off``;
- the oversize probe sent whatever ``/models`` says (the ``owned_by == "me"`` check dropped):
  ``test_no_oversize_probe_for_a_server_without_llama_cpp_python_s_mark``;
- ``OneStateGate._grant_next`` taking the first waiter instead of the best:
  ``test_the_gate_sends_next_the_request_sharing_most_with_the_last``;
- ``_one_state_gate`` keeping one gate across event loops:
  ``test_a_one_state_model_serves_one_event_loop_after_another`` (it timed out waiting);
- ``_remember_dialect`` taking the last note whatever it says:
  ``test_the_shared_slots_note_is_never_a_dialect_s_reason``;
- ``_opener`` without ``_NoRedirects``: ``test_a_redirect_is_not_followed_with_the_key``;
- ``_slot_for`` giving every persona a slot of its own modulo the count (no last slot kept for
  the rest): ``test_with_too_few_slots_the_rest_share_the_last_and_it_is_said_once``.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from argue.llm._openai_compat import GUIDED_MIN_WINDOW, OneStateGate, OpenAICompatModel
from argue.llm._providers import OpenAICompatProvider
from argue.llm._server_limits import NOT_TOLD, ServerFacts, discover_server
from argue.llm.base import Message
from tests.loopback import LoopbackServer, RecordedRequest, Reply

MODEL = "gemma-3-270m"


@pytest.fixture
def loopback():
    server = LoopbackServer().start()
    yield server
    server.stop()


def routes(table: dict[str, Reply]):
    def handler(request: RecordedRequest) -> Reply:
        return table.get(f"{request.method} {request.path}", Reply(status=404, json={}))

    return handler


def test_llama_server_says_its_slot_window_and_slot_ids(loopback):
    loopback.handler = routes(
        {
            "GET /v1/models": Reply(json={"data": [{"id": MODEL, "owned_by": "llamacpp"}]}),
            "GET /props": Reply(
                json={"default_generation_settings": {"n_ctx": 8192}, "total_slots": 3}
            ),
            "GET /slots": Reply(json=[{"id": 2}, {"id": 0}, {"id": 1}, {"id": "x"}]),
        }
    )
    facts = discover_server(f"{loopback.url}/v1", MODEL, "key")
    assert facts == ServerFacts(8192, "n_ctx in /props; 3 slot(s)", "llama-server", (0, 1, 2))
    assert facts.is_llama_server and not facts.one_state
    assert all(r.headers.get("authorization") == "Bearer key" for r in loopback.requests)


def test_slots_come_from_total_slots_when_the_slots_endpoint_is_off(loopback):
    loopback.handler = routes(
        {
            "GET /props": Reply(
                json={"default_generation_settings": {"n_ctx": 4096}, "total_slots": 2}
            ),
            "GET /slots": Reply(status=501, json={"error": {"message": "no slots endpoint"}}),
        }
    )
    facts = discover_server(f"{loopback.url}/v1", MODEL)
    assert facts.slots == (0, 1) and facts.window == 4096


def test_one_slot_is_one_state(loopback):
    loopback.handler = routes(
        {"GET /props": Reply(json={"n_ctx": 2048, "total_slots": 1}), "GET /slots": Reply(json=[])}
    )
    facts = discover_server(f"{loopback.url}/v1", MODEL)
    assert facts.window == 2048 and facts.slots == (0,) and facts.one_state


def test_vllm_and_ollama_say_their_window(loopback):
    loopback.handler = routes(
        {"GET /v1/models": Reply(json={"data": [{"id": MODEL, "max_model_len": 32768}]})}
    )
    assert discover_server(f"{loopback.url}/v1", MODEL).window == 32768
    loopback.reset()
    loopback.handler = routes(
        {
            "POST /api/show": Reply(
                json={"model_info": {"gemma3.context_length": 32768}, "parameters": "num_ctx 6144"}
            )
        }
    )
    facts = discover_server(f"{loopback.url}/v1", MODEL)
    assert (facts.window, facts.kind) == (6144, "ollama")


def test_llama_cpp_python_says_its_window_by_refusing_an_over_long_prompt(loopback):
    refusal = (
        "This model's maximum context length is 8192 tokens. However, you requested 300002 "
        "tokens (300001 in the messages, 1 in the completion). Please reduce the length of the "
        "messages or completion."
    )
    loopback.handler = routes(
        {
            "GET /v1/models": Reply(json={"data": [{"id": MODEL, "owned_by": "me"}]}),
            "POST /v1/chat/completions": Reply(status=400, json={"error": {"message": refusal}}),
        }
    )
    facts = discover_server(f"{loopback.url}/v1", MODEL)
    assert (facts.window, facts.kind, facts.slots) == (8192, "llama-cpp-python", ())
    assert facts.one_state
    (probe,) = [r for r in loopback.requests if r.path.endswith("/chat/completions")]
    body = probe.json()
    assert body["max_tokens"] == 1 and len(body["messages"][0]["content"]) > 1_000_000


def test_no_oversize_probe_for_a_server_without_llama_cpp_python_s_mark(loopback):
    loopback.handler = routes(
        {"GET /v1/models": Reply(json={"data": [{"id": MODEL, "owned_by": "organization"}]})}
    )
    assert discover_server(f"{loopback.url}/v1", MODEL) == NOT_TOLD
    assert not [r for r in loopback.requests if r.method == "POST" and "chat" in r.path]


def test_discovery_never_raises(loopback):
    loopback.handler = lambda request: Reply(body="{not json", content_type="application/json")
    assert discover_server(f"{loopback.url}/v1", MODEL) == NOT_TOLD
    assert discover_server("http://127.0.0.1:9/v1", MODEL, timeout_s=1) == NOT_TOLD
    loopback.handler = routes({"GET /props": Reply(json={"n_ctx": True, "total_slots": -1})})
    assert discover_server(f"{loopback.url}/v1", MODEL).window is None


def _model(url: str, facts: ServerFacts | None) -> OpenAICompatModel:
    return OpenAICompatModel(
        MODEL,
        provider=OpenAICompatProvider(name="openai", base_url=f"{url}/v1"),
        server_facts=facts,
    )


def test_the_layout_follows_the_window_and_the_states():
    many = ServerFacts(8192, "", "llama-server", (0, 1, 2, 3))
    assert _model("http://127.0.0.1:9", many).reads_schemas_from_prompt
    assert _model("http://127.0.0.1:9", many).context_window == 8192
    small = ServerFacts(GUIDED_MIN_WINDOW - 1, "", "llama-server", (0, 1, 2, 3))
    assert not _model("http://127.0.0.1:9", small).reads_schemas_from_prompt
    one = ServerFacts(32768, "", "llama-cpp-python")
    assert not _model("http://127.0.0.1:9", one).reads_schemas_from_prompt
    assert _model("http://127.0.0.1:9", NOT_TOLD).context_window == 4096


def _reply() -> Reply:
    return Reply(
        json={
            "id": "c1",
            "object": "chat.completion",
            "created": 1,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "ok"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
        }
    )


def _persona(name: str) -> list[Message]:
    return [
        Message(role="system", content=f"You are {name}."),
        Message(role="user", content="record", cache_point=True),
        Message(role="user", content="ask"),
    ]


async def _bodies(loopback: LoopbackServer, model: OpenAICompatModel, names: list[str]) -> list:
    loopback.handler = lambda request: _reply()
    try:
        for name in names:
            await model.complete(_persona(name))
        await model.complete([Message(role="user", content="judge this")])
    finally:
        await model.aclose()
    return [r.json() for r in loopback.requests]


async def test_each_persona_gets_its_own_slot_and_the_rest_the_last(loopback):
    facts = ServerFacts(8192, "", "llama-server", (0, 1, 2, 3))
    model = _model(loopback.url, facts)
    bodies = await _bodies(loopback, model, ["Ada", "Bram", "Ada"])
    assert [b.get("id_slot") for b in bodies] == [0, 1, 0, 3]
    assert [b.get("cache_prompt") for b in bodies] == [True, True, True, None]
    assert model.dialect_notes == []
    # Only the chat requests: the facts were given, nothing else was asked of the server.
    assert {r.path for r in loopback.requests} == {"/v1/chat/completions"}


async def test_with_too_few_slots_the_rest_share_the_last_and_it_is_said_once(loopback):
    model = _model(loopback.url, ServerFacts(8192, "", "llama-server", (0, 1)))
    bodies = await _bodies(loopback, model, ["Ada", "Bram", "Cleo", "Ada", "Cleo"])
    assert [b.get("id_slot") for b in bodies] == [0, 1, 1, 0, 1, 1]
    shared = [n for n in model.dialect_notes if n.startswith("personas share slots")]
    assert len(shared) == 1 and "2 slot(s)" in shared[0]


async def test_seating_gives_slots_in_seat_order_whatever_order_they_ask_in(loopback):
    model = _model(loopback.url, ServerFacts(8192, "", "llama-server", (0, 1, 2)))
    model.seat_persona("You are Ada.")
    model.seat_persona("You are Bram.")
    bodies = await _bodies(loopback, model, ["Bram", "Ada"])
    assert [b.get("id_slot") for b in bodies] == [1, 0, 2]


async def test_no_slot_is_named_to_a_server_that_listed_none(loopback):
    model = _model(loopback.url, ServerFacts(8192, "", "vllm"))
    bodies = await _bodies(loopback, model, ["Ada", "Bram"])
    assert all("id_slot" not in b and "cache_prompt" not in b for b in bodies)
    assert model.dialect_notes == []


async def test_an_adapter_used_alone_asks_the_server_nothing_else(loopback):
    """Discovery waits for the engine to ask the window: a call alone sends only itself."""
    model = _model(loopback.url, None)
    bodies = await _bodies(loopback, model, ["Ada"])
    assert len(bodies) == 2 and {r.path for r in loopback.requests} == {"/v1/chat/completions"}


async def test_a_one_state_server_gets_one_request_at_a_time_and_the_note(loopback):
    in_flight = []
    peak = []

    def handler(request: RecordedRequest) -> Reply:
        in_flight.append(1)
        peak.append(loopback.in_flight)
        return Reply(json=_reply().json, delay_s=0.05)

    loopback.handler = handler
    model = _model(loopback.url, ServerFacts(8192, "", "llama-cpp-python"))
    try:
        await asyncio.gather(*(model.complete(_persona(n)) for n in ["Ada", "Bram", "Cleo"]))
    finally:
        await model.aclose()
    assert len(in_flight) == 3 and max(peak) == 1
    assert [n for n in model.dialect_notes if n.startswith("personas share slots")] == [
        "personas share slots: llama-cpp-python's server keeps one prompt state, so each "
        "persona's request evicts another's cached prompt"
    ]


async def test_the_gate_sends_next_the_request_sharing_most_with_the_last():
    gate = OneStateGate()
    order: list[str] = []
    release = asyncio.Event()

    async def ask(text: str) -> None:
        async with gate.turn(text):
            order.append(text)
            if text == "B: first":
                await release.wait()

    first = asyncio.create_task(ask("B: first"))
    await asyncio.sleep(gate.SETTLE_S * 3)  # "B: first" holds the turn
    others = [asyncio.create_task(ask(t)) for t in ("A: rebuttal", "B: rebuttal", "C: rebuttal")]
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(first, *others)
    assert order[:2] == ["B: first", "B: rebuttal"]


async def test_a_cancelled_waiter_does_not_stall_the_gate():
    gate = OneStateGate()
    release = asyncio.Event()
    done: list[str] = []

    async def ask(text: str, hold: bool = False) -> None:
        async with gate.turn(text):
            if hold:
                await release.wait()
            done.append(text)

    holder = asyncio.create_task(ask("one", hold=True))
    await asyncio.sleep(gate.SETTLE_S * 3)
    cancelled = asyncio.create_task(ask("two"))
    later = asyncio.create_task(ask("three"))
    await asyncio.sleep(0)
    cancelled.cancel()
    release.set()
    await asyncio.wait_for(asyncio.gather(holder, later), 2)
    assert done == ["one", "three"]


def test_facts_are_plain_data():
    facts = ServerFacts(8192, "n_ctx in /props", "llama-server", (0, 1))
    assert json.loads(json.dumps(facts.__dict__))["slots"] == [0, 1]


async def test_doctor_finds_llama_cpp_python_s_window_the_same_way(loopback):
    import httpx

    from argue.llm.probe import _context_length

    refusal = "This model's maximum context length is 8192 tokens. However, you requested 9"
    listing = {"data": [{"id": MODEL, "owned_by": "me"}]}
    loopback.handler = routes(
        {
            "GET /v1/models": Reply(json=listing),
            "POST /v1/chat/completions": Reply(status=400, json={"error": {"message": refusal}}),
        }
    )
    async with httpx.AsyncClient(timeout=5) as http:
        check = await _context_length(http, _model(loopback.url, None), listing)
    assert (check.status, check.detail) == (
        "ok",
        "8192 tokens (the server's refusal of an over-long prompt)",
    )


def test_a_redirect_is_not_followed_with_the_key(loopback):
    elsewhere = LoopbackServer().start()
    try:
        elsewhere.handler = lambda request: Reply(json={"n_ctx": 8192})
        loopback.handler = lambda request: Reply(
            status=302, headers={"Location": f"{elsewhere.url}/props"}
        )
        assert discover_server(f"{loopback.url}/v1", MODEL, "secret-key") == NOT_TOLD
        assert elsewhere.requests == []
    finally:
        elsewhere.stop()


def test_a_one_state_model_serves_one_event_loop_after_another(loopback):
    """The gate belongs to the loop it was made in: a second ``asyncio.run`` (resume, eval)
    gets its own, never waits on a future of a loop that is gone."""
    loopback.handler = lambda request: _reply()
    model = _model(loopback.url, ServerFacts(8192, "", "llama-cpp-python"))

    async def one() -> None:
        try:
            await model.complete(_persona("Ada"))
        finally:
            await model.aclose()

    asyncio.run(one())
    model._gate._busy = True  # type: ignore[union-attr]  # as a loop that died mid-call leaves it
    asyncio.run(asyncio.wait_for(one(), 5))
    assert len(loopback.requests) == 2


async def test_the_shared_slots_note_is_never_a_dialect_s_reason(loopback, tmp_path):
    """dialects.json keeps why a dialect was chosen; the slot note is about something else."""
    from pydantic import BaseModel

    from argue.llm._dialects import DialectMemory

    class Answer(BaseModel):
        answer: str

    def handler(request: RecordedRequest) -> Reply:
        reply = _reply()
        reply.json["choices"][0]["message"]["content"] = '{"answer": "yes"}'
        return reply

    loopback.handler = handler
    memory = DialectMemory(tmp_path / "dialects.json")
    model = OpenAICompatModel(
        MODEL,
        provider=OpenAICompatProvider(name="openai", base_url=f"{loopback.url}/v1"),
        server_facts=ServerFacts(8192, "", "llama-server", (0,)),
        dialects=memory,
    )
    model.seat_persona("You are Ada.")  # one slot: the first persona already shares it
    assert [n for n in model.dialect_notes if n.startswith("personas share slots")]
    try:
        await model.complete(_persona("Ada"), output=Answer)
    finally:
        await model.aclose()
    stored = json.loads((tmp_path / "dialects.json").read_text())["servers"]
    (entry,) = stored.values()
    assert (entry["dialect"], entry["reason"]) == ("json_schema", "accepted")
