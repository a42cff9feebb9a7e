"""Every Perplexity request that reached the server is in usage (issue 37, item 4).

Sonar is a model that bills per request: a request the server read and then answered with a
closed connection (httpx's RemoteProtocolError) or a reset one (ReadError) may have been
computed and billed, so it is a possibly-billed row, like a read timeout; the debate's usage
ledger then has one row per request the server received, and its cost says "at least" or
"unknown". A connection refused sent nothing and adds no row.

Teeth: with ``httpx.ReadError | httpx.RemoteProtocolError`` removed from
``_sent_then_unanswered`` (argue/skills/dogpile/sources/perplexity.py) the hang-up tests fail
(no row: 0 counted for 1 received); with it answering True for every SourceError the
connect-refused test fails.
"""

from __future__ import annotations

import socket

import httpx
import pytest

from argue.domain import Usage
from argue.engine.metering import MeteredModel
from argue.engine.schemas import ResearchCallDraft
from argue.engine.toolkit import ResearchRequest, SkillToolkit
from argue.llm import ScriptedModel, UsageLedger
from argue.llm.pricing import describe_cost
from argue.personas import load_catalog
from argue.skills.dogpile.sources import perplexity
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.payloads import PERPLEXITY_COMPLETION


@pytest.fixture
def perplexity_server(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    monkeypatch.setenv("ARGUE_PERPLEXITY_URL", loopback.url)
    monkeypatch.setenv("PERPLEXITY_API_KEY", "pplx-test")
    return loopback


@pytest.mark.parametrize("how", ["close", "reset"])
async def test_a_request_the_server_hung_up_on_is_possibly_billed(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient, how: str
) -> None:
    perplexity_server.enqueue(Reply(hang_up=how))
    result = await perplexity.search("does debate help?", client=client, limit=5)
    assert result.status == "failed" and "failed" in result.note
    assert len(perplexity_server.requests) == 1
    [usage] = result.usage
    assert (usage.provider, usage.model, usage.purpose) == (
        "perplexity",
        "sonar",
        "dogpile/perplexity",
    )
    assert (usage.possibly_billed_calls, usage.output_tokens, usage.cost_usd) == (1, 0, 0.0)


async def test_the_debate_ledger_has_a_row_per_request_received(
    perplexity_server: LoopbackServer,
) -> None:
    """Three research calls, the server hangs up on two of them: three rows, cost "at least"."""
    perplexity_server.enqueue(
        Reply(hang_up="close"), Reply(json=PERPLEXITY_COMPLETION), Reply(hang_up="reset")
    )
    ledger: list[Usage] = []
    metered = MeteredModel(ScriptedModel(replies=[]), ledger)
    toolkit = SkillToolkit(metered, sources=["perplexity"], plugins=False)
    persona = load_catalog().get("embry")
    for query in ("first question", "second question", "third question"):
        call = ResearchCallDraft(skill="dogpile", query=query)
        await toolkit.run(ResearchRequest(call=call, persona=persona, letter="A", debate_id="x"))
    assert len(perplexity_server.requests) == 3 == len(ledger)
    assert [row.possibly_billed_calls for row in ledger] == [1, 0, 1]
    total = UsageLedger(ledger).total()
    assert describe_cost(total) == (
        f"at least ${ledger[1].cost_usd:.4f} (2 requests unanswered, possibly billed)"
    )


async def test_a_refused_connection_sent_nothing_and_adds_no_row(
    monkeypatch: pytest.MonkeyPatch, client: httpx.AsyncClient
) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ARGUE_PERPLEXITY_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("PERPLEXITY_API_KEY", "pplx-test")
    result = await perplexity.search("q", client=client, limit=5)
    assert result.status == "failed" and "could not connect" in result.note
    assert result.usage == []
