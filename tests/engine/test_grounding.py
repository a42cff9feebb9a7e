"""Grounding: nothing unverified passes as verified (issue 7).

A scripted model that fabricates references in every free-text field, spoofs code's markers,
concedes its own claims and cites model-written items (a colleague's answer, a memory, a
taxonomy label) must yield a transcript and synthesis in which every fabricated reference
carries **unverified** right after it, no model-written link is clickable, and ``## Sources``
holds retrieved documents only.

Teeth (repeat by hand after changing the guarantees): make ``Evidence.is_document`` return
True, or drop ``UNVERIFIED`` from ``argue.render.inline.model_text``, or accept self-targets
in ``phases.target_note``/``make_rebuttal`` — each makes at least one test here fail.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel

from argue.engine.schemas import (
    ArgumentDraft,
    JudgeDraft,
    RebuttalDraft,
    ReflectionDraft,
    ResearchPlanDraft,
    SynthesisDraft,
)
from argue.engine.toolkit import ResearchRequest
from argue.skills.base import SkillItem, SkillResult
from tests.engine.script import DebateScript, ScriptedToolkit, asked, quotes_shown

FAKE_URL = "https://fabricated.example.org/tao-proof"
FAKE_DOI = "doi:10.9999/fake.2019.001"
FAKE_ARXIV = "arXiv:1909.99999"
FAKE_CITE = "Tao (2019)"
FAKE_PAIR = "Smith & Jones, 2021"
FAKE_EVIDENCE = "Z-R9-E9"
FAKES = (FAKE_URL, FAKE_DOI, FAKE_ARXIV, FAKE_CITE, FAKE_PAIR, FAKE_EVIDENCE)
FABRICATION = (
    f" As {FAKE_CITE} proved, see {FAKE_URL} and {FAKE_DOI}, also {FAKE_ARXIV}; "
    f"cf. {FAKE_PAIR} and {FAKE_EVIDENCE}."
)


def _as_dict(reply: object) -> dict:
    return reply.model_dump() if isinstance(reply, BaseModel) else dict(reply)  # type: ignore[arg-type]


class FabricatingScript(DebateScript):
    """The default script, with fabricated references appended to every free-text field."""

    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        if isinstance(reply, Exception) or output is None or isinstance(reply, str):
            return reply
        data = _as_dict(reply)
        f = FABRICATION
        if issubclass(output, ResearchPlanDraft):  # per-persona subclasses of the schema
            data["why"] += f
        elif output is not None and issubclass(output, ArgumentDraft):
            data["position"] += f
            for claim in data["claims"]:
                claim["text"] += f
                claim["warrant"] += f
        elif issubclass(output, RebuttalDraft):
            for counter in data["counters"]:
                counter["text"] += f
            for concession in data["concessions"]:
                concession["text"] += f
                concession["reason"] += f
            data["common_ground"] = [g + f for g in data["common_ground"]]
        elif issubclass(output, ReflectionDraft):
            data["position_now"] += f
            data["would_change_my_mind"] += f
        elif output is JudgeDraft:
            for rating in data["ratings"]:
                rating["reason"] += f
        elif output is SynthesisDraft:
            for agreement in data["agreements"]:
                agreement["point"] += f
            for disagreement in data["disagreements"]:
                disagreement["point"] += f
                disagreement["crux"] += f
                for side in disagreement["sides"]:
                    side["position"] += f
            data["open_questions"] = [q + f for q in data["open_questions"]]
            data["conclusion"] += "\n\n" + f
        return data


def _assert_every_fake_is_marked(text: str, where: str) -> int:
    """Every occurrence of a fabricated reference is followed, on its line, by **unverified**."""
    seen = 0
    for fake in FAKES:
        for match in re.finditer(re.escape(fake), text):
            seen += 1
            tail = text[match.end() : match.end() + 20]
            line = text[text.rfind("\n", 0, match.start()) + 1 : text.find("\n", match.end())]
            assert re.match(r"`? \*\*unverified\*\*", tail), (where, fake, line)
    return seen


def test_fabricated_references_in_every_field_are_marked_unverified(run_debate):
    names = {"Embry": "A", "Horus": "B"}
    run = run_debate(script=FabricatingScript(names=names), rounds=2)
    assert run.state.status == "completed"
    transcript = run.store.paths.transcript.read_text()
    synthesis = run.store.paths.synthesis.read_text()
    # position, 2 claims, 2 warrants, counters, concession text+reason, common ground,
    # reflection x2, research why, judge reasons — for 2 personas over 2 rounds
    assert _assert_every_fake_is_marked(transcript, "transcript") >= len(FAKES) * 2 * 2 * 10
    assert _assert_every_fake_is_marked(synthesis, "synthesis") >= len(FAKES) * 6
    for text in (transcript, synthesis):
        assert f"<{FAKE_URL}" not in text and f"]({FAKE_URL}" not in text
        assert f"`{FAKE_URL}`" in text  # a code span: never an autolink
        # model text cannot write code's bold markers
        assert "**unverified** **unverified**" not in text


def test_a_claim_carrying_a_fabricated_reference_is_not_evidence_backed(run_debate):
    run = run_debate(script=FabricatingScript(names={"Embry": "A", "Horus": "B"}), rounds=1)
    claims = json.loads(run.store.paths.argument("A", 1).read_text())["claims"]
    assert claims[0]["verified_evidence_ids"]  # it does cite a real document…
    assert FAKE_CITE in claims[0]["unverified_references"]  # …and carries a fabrication
    score = json.loads(run.store.paths.round_score(1).read_text())["personas"]["A"]
    evidence = next(c for c in score["components"] if c["name"] == "evidence_quality")
    assert evidence["reason"].startswith(
        "0/2 claims backed by a quote found in a retrieved document"
    )
    synthesis = run.store.paths.synthesis.read_text()
    strongest = synthesis.split("## Strongest arguments", 1)[1].split("\n## ", 1)[0]
    embry = strongest.split("— Embry", 1)[1].split("\n### ", 1)[0]
    assert "(no claim of this side can rank)" in embry
    assert "it carries references that match no retrieved document" in embry


def test_a_model_written_url_of_a_retrieved_document_is_inert_but_verified(run_debate):
    class CitesReal(DebateScript):
        def __call__(self, messages, output):  # type: ignore[override]
            reply = super().__call__(messages, output)
            if output is not None and issubclass(output, ArgumentDraft):
                user = asked(messages)
                url = re.search(r"\((https://example\.org/[^)]+)\)", user).group(1)
                data = _as_dict(reply)
                data["claims"][0]["text"] += f" (see {url})"
                return data
            return reply

    run = run_debate(script=CitesReal(names={"Embry": "A", "Horus": "B"}), rounds=1)
    claim = json.loads(run.store.paths.argument("A", 1).read_text())["claims"][0]
    assert claim["unverified_references"] == []
    line = next(x for x in run.store.paths.transcript.read_text().splitlines() if "[A1.c1]" in x)
    assert re.search(r"`https://example\.org/[^`]+` \*\*\(= A-R1-E\d\)\*\*", line), line
    assert "unverified" not in line


def test_a_spoofed_evidence_marker_looks_different_from_codes(run_debate):
    class Spoofs(DebateScript):
        def __call__(self, messages, output):  # type: ignore[override]
            reply = super().__call__(messages, output)
            if output is not None and issubclass(output, ArgumentDraft):
                data = _as_dict(reply)
                for claim in data["claims"]:
                    claim["citations"] = []
                    claim["text"] += " — **evidence:** A-R1-E1 — _warrant:_ proven"
                return data
            return reply

    run = run_debate(script=Spoofs(names={"Embry": "A", "Horus": "B"}), rounds=1)
    line = next(x for x in run.store.paths.transcript.read_text().splitlines() if "[A1.c1]" in x)
    # code's own marker appears only when code cites; the model's copy is escaped text
    assert "— **evidence:**" not in line
    assert r"\*\*evidence:\*\*" in line
    assert r"\_warrant:\_ proven" in line


def test_a_self_concession_is_shown_as_not_counted(run_debate):
    class ConcedesOwn(DebateScript):
        def __call__(self, messages, output):  # type: ignore[override]
            reply = super().__call__(messages, output)
            if output is not None and issubclass(output, RebuttalDraft):
                letter = self._letter(messages[0].content)
                data = _as_dict(reply)
                data["concessions"] = [
                    {
                        "target_claim_id": f"{letter}1.c1",
                        "kind": "full",
                        "text": "I concede my own point",
                        "reason": "it is mine",
                    }
                ]
                return data
            return reply

    run = run_debate(script=ConcedesOwn(names={"Embry": "A", "Horus": "B"}), rounds=1)
    rebuttal = json.loads(run.store.paths.rebuttal("A", 1).read_text())
    concession = rebuttal["concessions"][0]
    assert concession["valid_target"] is False
    assert concession["target_note"] == "A1.c1 is Embry's own claim: not counted"
    assert rebuttal["declined_to_concede"] is True
    synthesis = run.store.paths.synthesis.read_text()
    log = synthesis.split("## Concession log", 1)[1].split("\n## ", 1)[0]
    assert "conceded (full) [A1.c1] — **A1.c1 is Embry's own claim: not counted**" in log
    assert "to Embry" not in log
    score = json.loads(run.store.paths.round_score(1).read_text())["personas"]["A"]
    quality = next(c for c in score["components"] if c["name"] == "concession_quality")
    assert quality["value"] == 0.0


def test_a_concession_to_an_earlier_round_opponent_claim_counts(run_debate):
    class ConcedesEarlier(DebateScript):
        def __call__(self, messages, output):  # type: ignore[override]
            reply = super().__call__(messages, output)
            user = asked(messages)
            if output is not None and issubclass(output, RebuttalDraft) and "Round 2" in user:
                letter = self._letter(messages[0].content)
                other = "B" if letter == "A" else "A"
                data = _as_dict(reply)
                data["concessions"] = [
                    {
                        "target_claim_id": f"{other}1.c2",
                        "kind": "partial",
                        "text": "your first-round point stands",
                        "reason": "on reflection",
                    }
                ]
                data["counters"] = [
                    {"target_claim_id": f"{other}1.c1", "kind": "refute", "text": "still wrong"}
                ]
                return data
            return reply

    run = run_debate(script=ConcedesEarlier(names={"Embry": "A", "Horus": "B"}), rounds=2)
    rebuttal = json.loads(run.store.paths.rebuttal("A", 2).read_text())
    assert rebuttal["concessions"][0]["valid_target"] is True
    assert rebuttal["concessions"][0]["to_persona"] == "B"
    assert rebuttal["counters"][0]["valid_target"] is True
    assert rebuttal["reasked_for_concession"] is False
    transcript = run.store.paths.transcript.read_text()
    assert "not an opponent claim id" not in transcript.split("## Round 2", 1)[1]


def test_a_judge_that_rates_nobody_usable_is_reported_as_such(run_debate):
    class JudgeByName(DebateScript):
        def __call__(self, messages, output):  # type: ignore[override]
            if output is JudgeDraft:
                return JudgeDraft(
                    ratings=[{"persona": "Embry", "coherence": 0.7, "reason": "fine"}],
                    synthesis_ready=False,
                    ready_reason="no",
                )
            return super().__call__(messages, output)

    run = run_debate(script=JudgeByName(names={"Embry": "A", "Horus": "B"}), rounds=1)
    score = json.loads(run.store.paths.round_score(1).read_text())["personas"]["A"]
    coherence = next(c for c in score["components"] if c["name"] == "logical_coherence")
    assert coherence["value"] is None
    assert (
        "judge answered but gave no rating for persona A (it rated: Embry)" in (coherence["reason"])
    )
    assert "unavailable" not in coherence["reason"]


class ProvenanceToolkit(ScriptedToolkit):
    """One document and one model-written item of each kind from the dogpile search; the
    other calls (memory, ask: every plan has them) find nothing."""

    async def run(self, request: ResearchRequest) -> SkillResult:
        self.requests.append(request)
        q = request.call.query
        if request.call.skill != "dogpile":
            return SkillResult.from_items(request.call.skill, q, [])
        items = [
            SkillItem(
                id=f"doc:{request.letter}:{q}",
                title=f"Retrieved paper for {q}",
                url=f"https://papers.example.org/{request.letter}/{abs(hash(q)) % 997}",
                snippet="Terras (1976): almost all orbits descend",
                source="arxiv",
            ),
            SkillItem(
                id=f"ask:{q}",
                title=f"Horus on: {q}",
                snippet="COLLEAGUE-SAYS it is settled by Tao (2019)",
                source="ask",
                provenance="testimony",
            ),
            SkillItem(
                id=f"mem:{abs(hash(q)) % 97}",
                title="argument (embry; model-written)",
                snippet="MEMORY-SAYS my earlier claim was right",
                source="memory",
                provenance="recall",
            ),
            SkillItem(
                id="taxonomy:precision",
                title="Precision",
                snippet="LABEL-SAYS accuracy and technical detail",
                source="taxonomy",
                provenance="label",
            ),
        ]
        return SkillResult.from_items(request.call.skill, q, items)


class CitesEverything(DebateScript):
    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        if output is not None and issubclass(output, ArgumentDraft):
            user = asked(messages)
            section = user.split("Your evidence", 1)[-1]
            ids = re.findall(r"\[([A-Z]-R\d+-E\d+)\]", section)
            shown = quotes_shown(section)
            data = _as_dict(reply)
            data["claims"][0]["citations"] = [  # only model-written items
                {"evidence_id": eid, "quote": shown.get(eid, "")} for eid in ids[1:4]
            ]
            data["claims"][1]["citations"] = [{"evidence_id": ids[0], "quote": shown[ids[0]]}]
            # about what it quotes (the support check finds the document's sentence supports it)
            data["claims"][1]["text"] += " — almost all orbits descend"
            return data
        return reply


def test_model_written_items_are_citable_but_never_verified_evidence(run_debate):
    run = run_debate(
        script=CitesEverything(names={"Embry": "A", "Horus": "B"}),
        toolkit=ProvenanceToolkit(),
        rounds=1,
    )
    research = json.loads(run.store.paths.research("A", 1).read_text())
    assert [e["provenance"] for e in research["evidence"]] == [
        "document",
        "testimony",
        "recall",
        "label",
    ]
    claims = json.loads(run.store.paths.argument("A", 1).read_text())["claims"]
    assert claims[0]["verified_evidence_ids"] == []
    assert claims[0]["model_written_evidence_ids"] == ["A-R1-E2", "A-R1-E3", "A-R1-E4"]
    assert claims[1]["verified_evidence_ids"] == ["A-R1-E1"]
    score = json.loads(run.store.paths.round_score(1).read_text())
    evidence = next(
        c for c in score["personas"]["A"]["components"] if c["name"] == "evidence_quality"
    )
    assert evidence["reason"].startswith(
        "1/2 claims backed by a quote found in a retrieved document; sources: arxiv"
    )
    assert "model-written items are not evidence" in evidence["reason"]
    assert score["new_verified_evidence"] == 2  # one document per persona, nothing else

    synthesis = run.store.paths.synthesis.read_text()
    sources = synthesis.split("## Sources", 1)[1].split("\n## ", 1)[0]
    assert "Retrieved paper for" in sources
    for said in ("COLLEAGUE-SAYS", "MEMORY-SAYS", "LABEL-SAYS", "Horus on:", "Precision"):
        assert said not in sources
    assert "## Answers cited (model-written" in synthesis
    assert "## Memories cited (model-written" in synthesis
    assert "## Taxonomy labels cited (model-written)" in synthesis
    # the colleague's fabricated citation is checked like any model text
    assert "Tao (2019) **unverified**" in synthesis

    transcript = run.store.paths.transcript.read_text()
    assert "_(model-written answer, not evidence)_" in transcript
    assert "_(recalled memory, model-written, not evidence)_" in transcript
    assert "**model-written, not evidence:** A-R1-E2, A-R1-E3, A-R1-E4" in transcript
    # the model is told too
    argument_prompt = next(
        r.last_user_message
        for r in run.model.requests
        if (r.output is not None and issubclass(r.output, ArgumentDraft))
        and r.purpose == "A/R1/argument"
    )
    assert "MODEL-WRITTEN ANSWER, NOT EVIDENCE" in argument_prompt


def test_a_previous_debates_conclusion_comes_back_as_model_written_memory(
    run_debate, personas, tmp_path
):
    """Laundering through the cross-debate archive, ask and taxonomy, with the real skills."""
    import asyncio

    from argue.engine import DebateRunner, SkillToolkit, create_debate, memory_writer
    from argue.llm import ScriptedModel
    from argue.skills.memory import MemoryStore

    names = {"Embry": "A", "Horus": "B"}
    first = run_debate(script=FabricatingScript(names=names), rounds=1, memory_writer=memory_writer)
    with MemoryStore() as memory:
        [archived] = [r for r in memory.list(None) if r.kind == "debate"]
    assert archived.origin == "model"
    assert "model-written conclusion, never checked against sources" in archived.text

    # Embry asks a colleague; Horus, given none, has a free call left: a taxonomy label.
    loner = personas["horus"].model_copy(update={"colleagues": []})
    store = create_debate(
        tmp_path / "second",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], loner],
        max_rounds=1,
        provider="scripted",
        model="scripted-1",
        research_sources=["library"],
    )
    script = CitesEverything(names=names, free_skill="taxonomy")
    # the memory query must find the archived debate
    original = script.__call__

    def plan_for_archive(messages, output):
        reply = original(messages, output)
        if output is not None and issubclass(output, ResearchPlanDraft):
            data = _as_dict(reply)
            data["memory_query"] = f"debate {first.store.debate_id} conclusion"
            for call in data.get("free_calls", []):
                call["query"] = "precise technical accuracy and robust resilience"
            return data
        return reply

    model = ScriptedModel(plan_for_archive)
    state = asyncio.run(DebateRunner(store, model, SkillToolkit(model, sources=["library"])).run())
    assert state.status == "completed"
    kinds = {}
    for letter in ("A", "B"):
        research = json.loads(store.paths.research(letter, 1).read_text())
        kinds[letter] = {e["skill"]: e["provenance"] for e in research["evidence"]}
        claims = json.loads(store.paths.argument(letter, 1).read_text())["claims"]
        assert all(c["verified_evidence_ids"] == [] for c in claims)
    assert kinds == {
        "A": {"memory": "recall", "ask": "testimony"},
        "B": {"memory": "recall", "taxonomy": "label"},
    }
    sources = store.paths.synthesis.read_text().split("## Sources", 1)[1].split("\n## ", 1)[0]
    assert "(no retrieved document was cited)" in sources
    assert first.store.debate_id not in sources
