"""A refusal is a refusal, not an argument (issue 20).

A model that declines inside a schema-valid answer ("I'm sorry, but I can't help with that" as
a claim, citing real evidence with a real quote) was ranked the strongest argument. Its claim is
now marked refused by the model, earns no evidence and no novelty, and is never ranked.

Teeth: with ``refusal=is_refusal(claim.text)`` removed from the argument phase, the ranking and
the scoring tests fail.
"""

from __future__ import annotations

import json
import re

import pytest

from argue.engine.schemas import ArgumentDraft
from argue.text.refusal import first_words, is_refusal
from tests.engine.script import DebateScript

REFUSAL = "I'm sorry, but I can't help with arguing this position."


class RefusesAsB(DebateScript):
    def __call__(self, messages, output):  # type: ignore[override]
        reply = super().__call__(messages, output)
        is_argument = output is not None and issubclass(output, ArgumentDraft)
        if is_argument and isinstance(reply, dict) and self._letter(messages[0].content) == "B":
            for claim in reply["claims"]:
                claim["text"] = REFUSAL  # the citations and their quotes stay real
        return reply


def test_a_claim_that_only_refuses_is_never_ranked_nor_scored(run_debate):
    run = run_debate(script=RefusesAsB(names={"Embry": "A", "Horus": "B"}), rounds=1)
    claims = json.loads(run.store.paths.argument("B", 1).read_text())["claims"]
    assert all(c["refusal"] for c in claims)
    assert all(c["citations"][0]["verdict"] == "quoted" for c in claims if c["citations"])

    synthesis = run.store.paths.synthesis.read_text()
    strongest = synthesis.split("## Strongest arguments", 1)[1].split("\n## ", 1)[0]
    assert REFUSAL not in strongest and not re.findall(r"^\d+\. \[Horus, Round", strongest, re.M)
    assert re.findall(r"^\d+\. \[Embry, Round", strongest, re.M)

    transcript = run.store.paths.transcript.read_text()
    assert "**[B1.c1]** **refused by the model (not an argument)**:" in transcript

    score = json.loads(run.store.paths.round_score(1).read_text())["personas"]["B"]
    components = {c["name"]: c for c in score["components"]}
    assert components["evidence_quality"]["value"] == 0
    assert components["novelty"]["value"] == 0


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but I can't help with that.",
        "I cannot assist with this request.",
        "As an AI language model, I cannot take sides in a debate.",
        "Je suis désolée, mais je ne peux pas répondre à cette question.",
        "Je ne peux pas participer à ce débat.",
        "En tant qu'IA, je ne prends pas position.",
        "I’m unable to continue with this.",
    ],
)
def test_refusal_formulas_in_english_and_french(text: str):
    assert is_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "I cannot agree with B1.c2: the stopping-time bound fails for n = 27.",
        "Sorry states are a known failure mode of the Syracuse map's heuristics.",
        "The model refused to answer, which shows the benchmark is biased.",
        "Je ne peux pas accepter B1.c2 : la borne échoue pour n = 27.",
        "I'm sorry, but " + "the evidence says otherwise and here is why. " * 20,
    ],
)
def test_arguments_that_mention_refusing_are_not_refusals(text: str):
    assert not is_refusal(text)


def test_first_words_quotes_the_start_on_one_line():
    assert first_words("I'm sorry,\n\nbut   no.") == "I'm sorry, but no."
    assert first_words("x" * 300, limit=10) == "x" * 9 + "…"
