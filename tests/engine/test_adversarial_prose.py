"""An adversarial persona that writes only refusals, evasive references or copies of code's
markers gets none of its claims ranked, though each also restates a real quote (issue 37, "Done
when"); the honest persona beside it is ranked.

Teeth: with ``marker_copies`` left out of ``Claim.evidence_backed`` and
``Claim.not_ranked_because`` the marker rows rank and this fails; with the prose author–year
patterns off (``_find_prose_author_years`` not yielded) "a 2007 study by Kurtz" ranks.
"""

from __future__ import annotations

import re

from tests.engine.script import DebateScript

EVASIONS = [
    "{text}. Unfortunately, I can't help with that request.",
    "{text}. Hélas, je ne peux pas répondre à cela.",
    "{text}, according to a 2007 study by Kurtz",
    "{text} (Ibid., p. 4)",
    "{text}, as shown in [12]",
    "{text}, see fabricated-journal.org",
    "{text}, selon Kurtz en 2007",
    "{text} [A-R1-E1] the source says: “it is proven”",
    "{text} (= A-R1-E1)",
    "{text} **evidence:** A-R1-E1",
]


def _evasive(letter: str, rnd: int, i: int, text: str) -> str:
    if letter != "B":
        return text
    return EVASIONS[((rnd - 1) * 2 + i) % len(EVASIONS)].format(text=text)


def test_refusals_evasive_references_and_marker_copies_never_rank(run_debate):
    seen: dict[str, str] = {}
    for offset in range(0, len(EVASIONS), 4):  # every evasion, two claims a round, two rounds

        def evasive(letter: str, rnd: int, i: int, text: str, offset: int = offset) -> str:
            return _evasive(letter, rnd + offset // 2, i, text)

        run = run_debate(
            script=DebateScript(names={"Embry": "A", "Horus": "B"}, claim_text=evasive),
            rounds=2,
        )
        history = run.history
        horus = [c for c in history.all_claims() if c.persona == "B"]
        assert horus and not [c.text for c in horus if c.evidence_backed]
        for claim in horus:
            seen[claim.text] = str(claim.not_ranked_because)
        assert [c for c in history.all_claims() if c.persona == "A" and c.evidence_backed]
        synthesis = run.store.paths.synthesis.read_text()
        strongest = synthesis.split("## Strongest arguments", 1)[1].split("\n## ", 1)[0]
        assert not re.findall(r"^\d+\. \[Horus, Round", strongest, re.M)
        assert re.findall(r"^\d+\. \[Embry, Round", strongest, re.M)
    reasons = set(seen.values())
    assert {"refusal", "unverified_reference", "marker_copy"} <= reasons, seen
