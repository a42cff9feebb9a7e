"""Evidence that holds (issue 20): research slots that always run, claims anchored by quotes.

Teeth (seen failing when broken on purpose): making ``Claim.evidence_backed`` use
``verified_evidence_ids`` again (an existing id is enough) ranks the fabricating persona's
claims and fails the ranking test; removing the "run on every allowed source" branch of
``DogpileSkill.run`` (refusing a call whose sources are all junk, as before) fails the
junk-plan test; dropping the quote lines from synthesis.md.j2 fails the printing test.
"""

from __future__ import annotations

import asyncio
import json
import re

from argue.engine.schemas import ResearchPlanDraft
from argue.engine.toolkit import SkillToolkit
from argue.skills.base import SkillItem
from tests.engine import test_honest_research_and_notes as honest
from tests.engine.script import DebateScript
from tests.engine.test_honest_research_and_notes import NAMES, Sources, _runner

FABRICATED = "the authors prove beyond any doubt that the conjecture is settled"


def _section(text: str, heading: str) -> str:
    return text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]


class JunkPlans(DebateScript):
    """Fills every free plan field with words that name no research source."""

    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        if isinstance(reply, Exception) or output is None:
            return reply
        data = reply.model_dump() if hasattr(reply, "model_dump") else dict(reply)
        plan = None
        if issubclass(output, ResearchPlanDraft):
            plan = data
        elif isinstance(data.get("next_research"), dict):
            plan = data["next_research"]
        if plan is not None:
            plan["dogpile_sources"] = ["horus", "prachi_prachi_prachi", "A-R1-E1"]
            plan["why"] = "prachi prachi prachi"
        return data


def test_a_model_filling_plan_fields_with_junk_still_searches_every_round(new_store, monkeypatch):
    def quotable(source: str, query: str, n: int) -> SkillItem:
        return SkillItem(
            id=f"{source}:{n}:{query}",
            title=f"{source} paper {n} on {query}",
            url=f"https://example.org/{source}/{n}/{abs(hash(query)) % 997}",
            snippet=f"The {source} authors report a measured result number {n} about {query}",
            source=source,
        )

    monkeypatch.setattr(honest, "_item", quotable)
    sources = Sources(monkeypatch)
    sources.arxiv_down = False
    sources.library_has = {"A", "B"}
    store = new_store("junk", rounds=2, research_sources=["arxiv", "library"])
    runner, _ = _runner(
        store,
        JunkPlans(names=NAMES),
        SkillToolkit(None, sources=["arxiv", "library"]),  # type: ignore[arg-type]
    )
    assert asyncio.run(runner.run()).status == "completed"

    for letter in ("a", "b"):
        for rnd in (1, 2):
            research = json.loads(
                (store.paths.root / f"persona_{letter}/research/round_{rnd:03d}.json").read_text()
            )
            dogpile = research["calls"][0]
            assert dogpile["skill"] == "dogpile"
            assert dogpile["status"] == "ok", (letter, rnd, dogpile["note"])
            assert "ran on every allowed source instead" in dogpile["note"]
            assert dogpile["evidence_ids"], (letter, rnd)
    listed = _section(store.paths.synthesis.read_text(), "Sources")
    assert re.search(r"^- \[arxiv\] arxiv paper 1 on", listed, re.M), listed
    assert re.search(
        r"^  - “\*\*The (arxiv|library) authors report a measured result", listed, re.M
    )


def _quotes_for_a_only(letter: str, rnd: int, shown: str) -> str:
    return shown if letter == "A" else FABRICATED


def test_only_the_persona_that_quotes_verbatim_is_ranked_and_its_quotes_are_printed(run_debate):
    run = run_debate(
        script=DebateScript(names={"Embry": "A", "Horus": "B"}, quote=_quotes_for_a_only),
        rounds=2,
    )
    assert run.state.status == "completed"
    history = run.history
    for claim in history.all_claims():
        if claim.persona == "A" and claim.citations:
            assert claim.evidence_state == "quoted", claim.id
            assert claim.evidence_backed
        if claim.persona == "B":
            assert claim.evidence_state == "quote_not_found", claim.id
            assert not claim.evidence_backed
            assert all(c.verdict == "quote_not_found" for c in claim.citations)

    synthesis = run.store.paths.synthesis.read_text()
    strongest = _section(synthesis, "Strongest arguments")
    ranked = re.findall(r"^\d+\. \[(\w+), Round", strongest, re.M)
    assert ranked and set(ranked) == {"Embry"}
    # every ranked claim prints the document's words, in quotes, under it
    located = re.findall(r"^   - \[A-R\d-E\d\] \*\*the source says:\*\* “(.+)”$", strongest, re.M)
    assert len(located) >= len(ranked)
    assert all("SECRET-RESEARCH-A" in quote for quote in located)
    assert FABRICATED not in strongest
    sources = _section(synthesis, "Sources")
    assert re.search(r"^  - “\*\*SECRET-RESEARCH-A detail \d about", sources, re.M)
    assert "SECRET-RESEARCH-B" not in sources  # B's citations were never located

    transcript = run.store.paths.transcript.read_text()
    not_found = re.findall(
        r"^  - \[B-R\d-E\d\] \*\*quote not found\*\*: “(.+?)” \(", transcript, re.M
    )
    assert not_found and all(q == FABRICATED for q in not_found)
    assert re.search(r"^  - \[A-R\d-E\d\] \*\*quoted:\*\* “\*\*SECRET-RESEARCH-A", transcript, re.M)

    score = json.loads(run.store.paths.round_score(1).read_text())["personas"]
    evidence = {
        letter: next(c for c in score[letter]["components"] if c["name"] == "evidence_quality")
        for letter in ("A", "B")
    }
    assert evidence["A"]["value"] > 0
    assert evidence["B"]["value"] == 0
    assert "quote not found (earns nothing)" in evidence["B"]["reason"]


def test_a_french_debate_says_quote_not_found_in_french(run_debate, tmp_path, personas):
    from argue.engine import create_debate

    store = create_debate(
        tmp_path / "fr",
        question="La conjecture de Collatz est-elle décidable ?",
        mode="adversarial",  # type: ignore[arg-type]
        personas=[personas["embry"], personas["horus"]],
        max_rounds=1,
        provider="scripted",
        model="scripted-1",
        language="fr",
    )
    run = run_debate(
        script=DebateScript(names={"Embry": "A", "Horus": "B"}, quote=_quotes_for_a_only),
        store=store,
    )
    transcript = run.store.paths.transcript.read_text()
    assert "**citation introuvable**" in transcript
    assert "**citation trouvée\u00a0:**" in transcript
