"""Perplexity's answer-engine calls are counted and priced in the debate's usage (issue 20).

Sonar is a model that bills per token and per request. Each answer comes back in
``SkillResult.usage`` (provider ``perplexity``), priced as the reply states (``usage.cost``) or
by the built-in table (tokens plus the per-request fee); a request that timed out after it was
sent is a possibly-billed row. The toolkit records them in the debate's ledger.

Teeth: with ``billed.append(answer_usage(...))`` removed from ``perplexity.search``
(argue/skills/dogpile/sources/perplexity.py) every test here fails; with the "perplexity" rows
removed from ``DEFAULT_PRICES`` (argue/llm/pricing.py) the table-price tests fail (genai-prices
then prices sonar's requests at its high-context $12 per 1000, not the default low context's $5);
with ``record(result.usage)`` removed from ``SkillToolkit.run`` the ledger test fails.
"""

from __future__ import annotations

import copy

import httpx
import pytest

from argue.domain import Usage
from argue.engine.metering import MeteredModel
from argue.engine.schemas import ResearchCallDraft
from argue.engine.toolkit import ResearchRequest, SkillToolkit
from argue.llm import ScriptedModel, UsageLedger
from argue.llm.pricing import describe_cost
from argue.personas import load_catalog
from argue.skills.dogpile import dogpile
from argue.skills.dogpile.sources import perplexity
from tests.loopback import LoopbackServer, Reply
from tests.skills.dogpile.payloads import PERPLEXITY_COMPLETION

# Sonar's table price: $1 per million input and output tokens, $5 per 1000 requests.
SONAR_COST = (14 + 70) / 1_000_000 + 0.005


@pytest.fixture
def perplexity_server(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> LoopbackServer:
    monkeypatch.setenv("ARGUE_PERPLEXITY_URL", loopback.url)
    monkeypatch.setenv("PERPLEXITY_API_KEY", "pplx-test")
    return loopback


async def test_an_answer_is_one_usage_row_priced_by_the_table(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    perplexity_server.enqueue(Reply(json=PERPLEXITY_COMPLETION))
    result = await perplexity.search("does debate help?", client=client, limit=5)
    assert result.status == "ok", result.note
    [usage] = result.usage
    assert (usage.provider, usage.model, usage.input_tokens, usage.output_tokens) == (
        "perplexity",
        "sonar",
        14,
        70,
    )
    assert usage.unpriced_calls == 0 and usage.cost_usd == pytest.approx(SONAR_COST)
    assert usage.purpose == "dogpile/perplexity"


async def test_the_cost_the_reply_states_wins(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    payload = copy.deepcopy(PERPLEXITY_COMPLETION)
    payload["usage"]["cost"] = {"request_cost": 0.008, "total_cost": 0.00812}
    perplexity_server.enqueue(Reply(json=payload))
    [usage] = (await perplexity.search("q", client=client, limit=5)).usage
    assert usage.cost_usd == pytest.approx(0.00812)


async def test_a_reply_without_token_counts_is_unpriced_not_free(
    perplexity_server: LoopbackServer, client: httpx.AsyncClient
) -> None:
    payload = {k: v for k, v in PERPLEXITY_COMPLETION.items() if k != "usage"}
    perplexity_server.enqueue(Reply(json=payload))
    [usage] = (await perplexity.search("q", client=client, limit=5)).usage
    assert (usage.cost_usd, usage.unpriced_calls) == (0.0, 1)


async def test_a_request_that_timed_out_is_possibly_billed(
    perplexity_server: LoopbackServer,
) -> None:
    perplexity_server.enqueue(Reply(json=PERPLEXITY_COMPLETION, delay_s=1.0))
    async with httpx.AsyncClient(timeout=httpx.Timeout(0.3)) as slow_client:
        result = await perplexity.search("q", client=slow_client, limit=5)
    assert result.status == "failed" and "read timeout" in result.note
    [usage] = result.usage
    assert (usage.possibly_billed_calls, usage.output_tokens, usage.cost_usd) == (1, 0, 0.0)


async def test_dogpile_carries_the_usage_and_the_toolkit_records_it(
    perplexity_server: LoopbackServer, tmp_path
) -> None:
    perplexity_server.enqueue(Reply(json=PERPLEXITY_COMPLETION))
    direct = await dogpile("q", sources=["perplexity"])
    assert [u.provider for u in direct.usage] == ["perplexity"]

    ledger: list[Usage] = []
    written: list[Usage] = []
    metered = MeteredModel(ScriptedModel(replies=[]), ledger, record=written.append)
    toolkit = SkillToolkit(metered, sources=["perplexity"], plugins=False)
    persona = load_catalog().get("embry")
    call = ResearchCallDraft(skill="dogpile", query="does debate help?")
    result = await toolkit.run(
        ResearchRequest(call=call, persona=persona, letter="A", debate_id="x")
    )
    assert result.status == "ok", result.note
    assert [u.provider for u in ledger] == ["perplexity"] == [u.provider for u in written]
    total = UsageLedger(ledger).total()
    assert describe_cost(total) == f"${SONAR_COST:.4f}"
