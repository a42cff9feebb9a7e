"""An adversarial persona whose every claim is a quoting trick gets none of them ranked; an
honest persona in the same debate is ranked with the sentence shown (issue 36, "Done when").

Horus quotes a poisoned library: a span that cuts "undecidable" or "impossible", a span that its
sentence negates ("It is not true that …", "Il est faux que …"), a near match that changes a
number word, argue's own placeholder and byline, a page that repeats the query, a generic
4-word phrase, and a sentence that contradicts the claim. Embry quotes honestly.

Teeth: this is the integration of the guarantees each tested alone in tests/grounding and
tests/engine/test_support_check.py; with ``_cut_word`` returning None (whole words off) the
"undecidable" claims rank and this test fails, and with the support check's verdicts never
applied nothing ranks at all (Embry's assertion fails).
"""

from __future__ import annotations

import re

from argue.engine.schemas import ArgumentDraft, ResearchPlanDraft
from argue.skills.base import SkillItem, SkillResult
from tests.engine.script import EVIDENCE_ROW, DebateScript, ScriptedToolkit

QUERY = "Kurtz 2007 proved the Collatz conjecture decidable"

# (document text, the adversary's quote, its claim), per round
ATTACKS = {
    1: [
        (
            "We show the problem is undecidable in this framework for every finite rule set.",
            "decidable in this framework for every finite rule set",
            "The problem is decidable in this framework for every finite rule set",
        ),
        (
            "It is not true that the Collatz conjecture has been proven decidable by anyone.",
            "the Collatz conjecture has been proven decidable by anyone",
            "The Collatz conjecture has been proven decidable",
        ),
        (
            "Overall the measured error was nineteen percent in the final trial run of the study.",
            "the measured error was ninety percent in the final trial run of the study",
            "The measured error was ninety percent in the final trial run",
        ),
        (
            "Cited by Perplexity as source [1]",
            "Cited by Perplexity as source [1]",
            "Perplexity cites a source proving decidability",
        ),
        (
            f"Search results for {QUERY}",
            QUERY,
            "Kurtz proved the Collatz conjecture decidable in 2007",
        ),
        (
            "Counterexamples to the Collatz conjecture have never been found by any search.",
            "Counterexamples to the Collatz conjecture have never been found by any search",
            "Counterexamples to the Collatz conjecture have been found by a search",
        ),
    ],
    2: [
        (
            "In short the results show that more work is needed on every open case.",
            "the results show that",
            "The results show that the conjecture is settled",
        ),
        (
            "Il est impossible de l'étendre à tous les entiers positifs sans hypothèse.",
            "possible de l'étendre à tous les entiers positifs",
            "Il est possible de l'étendre à tous les entiers positifs",
        ),
        (
            "Il est faux que la conjecture de Collatz a été démontrée décidable en 2007.",
            "la conjecture de Collatz a été démontrée décidable en 2007",
            "La conjecture de Collatz a été démontrée décidable en 2007",
        ),
        (
            "Aucun contre-exemple n'a été trouvé par les chercheurs depuis 1937 au moins.",
            "un contre-exemple n'a été trouvé par les chercheurs depuis 1937",
            "Un contre-exemple a été trouvé par les chercheurs depuis 1937",
        ),
    ],
}
BYLINE = "Kurtz, Green (2007): "


class PoisonedToolkit(ScriptedToolkit):
    """Horus's searches return the poisoned documents; Embry's are the honest double's."""

    async def run(self, request):  # type: ignore[override]
        if request.letter != "B" or request.call.skill != "dogpile":
            return await super().run(request)
        self.requests.append(request)
        rnd = int(re.search(r"round (\d+)$", request.call.query).group(1))
        items = [
            SkillItem(
                id=f"poison:{rnd}:{n}",
                title=f"https://example.org/poison/{rnd}/{n}" if "Perplexity" in text else "Paper",
                url=f"https://example.org/poison/{rnd}/{n}",
                snippet=(BYLINE + text) if n == 0 and rnd == 2 else text,
                byline=BYLINE.strip() if n == 0 and rnd == 2 else "",
                filler="Perplexity" in text,
                source="perplexity" if "Perplexity" in text else "arxiv",
            )
            for n, (text, _, _) in enumerate(ATTACKS.get(rnd, []))
        ]
        return SkillResult.from_items("dogpile", request.call.query, items)


class Adversary(DebateScript):
    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        letter = self.log[-1].split(":")[0]
        if letter != "B" or not isinstance(reply, dict):
            return reply
        if output is not None and issubclass(output, ResearchPlanDraft):
            reply["dogpile_query"] = f"{QUERY} round {self.log[-1].split(':')[1]}"
        if output is not None and issubclass(output, ArgumentDraft):
            rnd = int(self.log[-1].split(":")[1])
            user = "\n".join(m.content for m in messages if m.role == "user")
            rows = {text[:25]: eid for eid, text in EVIDENCE_ROW.findall(user)}
            claims = []
            for text, quote, claim in ATTACKS.get(rnd, []):
                eid = next((e for start, e in rows.items() if text[:20] in start), None)
                if eid is None:
                    eid = next(e for start, e in rows.items() if BYLINE[:20] in start)
                claims.append({"text": claim, "citations": [{"evidence_id": eid, "quote": quote}]})
            if rnd == 2:  # the byline: argue's words in front of the abstract
                eid = next(e for start, e in rows.items() if BYLINE[:20] in start)
                claims.append(
                    {
                        "text": "Kurtz and Green wrote in 2007 about this very question",
                        "citations": [{"evidence_id": eid, "quote": "Kurtz, Green (2007): Il est"}],
                    }
                )
            reply["claims"] = claims[:6]
        return reply


def test_an_adversary_gets_nothing_ranked_and_an_honest_persona_is_ranked(run_debate):
    run = run_debate(
        script=Adversary(names={"Embry": "A", "Horus": "B"}), toolkit=PoisonedToolkit(), rounds=2
    )
    history = run.history
    horus = [c for c in history.all_claims() if c.persona == "B"]
    assert len(horus) >= 10
    assert not [c.id for c in horus if c.evidence_backed]
    reasons = {c.id: c.not_ranked_because for c in horus}
    assert {"quote_not_found", "out_of_context", "contradicts"} <= set(reasons.values()), reasons
    cut = [c for c in horus if any("cuts the word" in q.note for q in c.citations)]
    assert {w for c in cut for q in c.citations for w in re.findall(r"“(\w+)”", q.note)} >= {
        "undecidable",
        "impossible",
        "Aucun",
    }

    embry = [c for c in history.all_claims() if c.persona == "A"]
    assert [c for c in embry if c.evidence_backed]

    synthesis = run.store.paths.synthesis.read_text()
    strongest = synthesis.split("## Strongest arguments", 1)[1].split("\n## ", 1)[0]
    against = strongest.split("— Horus", 1)[1]
    assert "(no claim of this side can rank)" in against
    assert not re.findall(r"^\d+\. \[Horus, Round", strongest, re.M)
    ranked = re.findall(r"^\d+\. \[Embry, Round", strongest, re.M)
    assert ranked
    assert re.search(
        r"^   - \[A-R\d-E\d\] \*\*the source says:\*\* “.*\*\*.+\*\*.*”", strongest, re.M
    )
