"""Offline, a source whose host name cannot be looked up is named once and not asked again in
the debate; the line suggests ``--sources library`` (issue 40, item 5).

Teeth: without ``_drop_unreachable`` in ``SkillToolkit.run`` the source stays in the next
plan's enum and the toolkit test fails; with ConnectError's lookup failure reported as "could
not connect" again, the note test fails.
"""

from __future__ import annotations

import httpx
import pytest

from argue.engine.phases.research import OFFLINE_HINT, _research_failures
from argue.engine.schemas import ResearchCallDraft
from argue.engine.toolkit import ResearchRequest, SkillToolkit
from argue.personas import load_catalog
from argue.skills.dogpile import NAME_LOOKUP_FAILED
from argue.skills.dogpile.sources import arxiv
from argue.skills.dogpile.sources._http import ALLOW_PRIVATE_ENV


def _no_dns(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("[Errno -3] Temporary failure in name resolution", request=request)


async def test_a_name_lookup_failure_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")  # no address check: it would look the name up
    async with httpx.AsyncClient(transport=httpx.MockTransport(_no_dns)) as client:
        result = await arxiv.search("collatz", client=client, limit=2)
    assert result.status == "failed"
    assert result.note.startswith(f"arxiv: {NAME_LOOKUP_FAILED} ")


async def test_an_unreachable_source_is_not_offered_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from argue.llm import ScriptedModel

    monkeypatch.setenv(ALLOW_PRIVATE_ENV, "1")
    toolkit = SkillToolkit(ScriptedModel([]), sources=["arxiv", "github"], plugins=False)
    transport = httpx.MockTransport(_no_dns)
    real = httpx.AsyncClient

    def offline_client(*args, **kwargs):
        kwargs["transport"] = transport
        return real(*args, **kwargs)

    monkeypatch.setattr(httpx, "AsyncClient", offline_client)
    persona = load_catalog().get("embry")
    call = ResearchCallDraft(skill="dogpile", query="collatz decidability", sources=["arxiv"])
    request = ResearchRequest(call=call, persona=persona, letter="A", debate_id="d")
    result = await toolkit.run(request)
    assert result.status == "failed"
    assert "arxiv" not in toolkit.source_names and "github" in toolkit.source_names
    assert toolkit.unused_sources["arxiv"].startswith("unreachable in this debate")
    failures = _research_failures(call, result, 1, "A")
    assert failures and all(f.reason.endswith(OFFLINE_HINT) for f in failures)
    assert "--sources library" in failures[0].reason
