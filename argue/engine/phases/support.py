"""The support check: does each quoted sentence support what cites it?

A quote located word for word proves the document says those words, not that they support the
claim ("the sieve bound holds" quoted for "the sieve bound fails"). One request per persona per
round, beside the reflections and the judge, shows a model each claim that could rank and each
counter with a located quote, beside the quoted sentence (both fenced as data; never the
persona's reasoning), and asks: supports, contradicts or unrelated. Code records the verdict per
citation (``argue.records.support``); only ``supports`` ranks. Offline (the scripted model),
deterministic rules answer instead: content words shared and negation on one side only.
"""

from __future__ import annotations

from dataclasses import dataclass

from argue.domain import Failure, SupportVerdict
from argue.engine import prompts
from argue.engine.phases._common import PhaseOutcome
from argue.engine.schemas import SUPPORT_CHECKS, SupportDraft
from argue.llm.base import ChatModel, ModelAuthError, ModelError
from argue.records.history import DebateHistory
from argue.records.support import RULES, SupportCheck, SupportRecord
from argue.text import content_words, strip_accents, words

RULE_PROVIDERS = frozenset({"scripted", "fake"})
"""Providers whose "model" is a test double: the support check uses the rules instead."""

PHASE = "support check"


@dataclass(frozen=True)
class SupportItem:
    """One located quote to check, and what cites it."""

    claim_id: str  # "" for a counter
    counter: int  # 1-based position of the counter in the rebuttal, 0 for a claim
    citation: int
    evidence_id: str
    text: str  # the claim's (or the counter's) words
    sentence: str  # the quoted span in its sentence, as the document has it

    def verdict(self, support: SupportVerdict, note: str) -> SupportCheck:
        return SupportCheck(
            claim_id=self.claim_id,
            counter=self.counter,
            citation=self.citation,
            evidence_id=self.evidence_id,
            support=support,
            note=note,
        )


def support_items(history: DebateHistory, letter: str, round_no: int) -> list[SupportItem]:
    """What the persona's support check asks about: every quoted citation of each claim that
    could rank (not a refusal, no unverified reference), then of each counter."""
    record = history.round(round_no)
    items = []
    argument = record.arguments.get(letter)
    for claim in argument.claims if argument else []:
        if claim.refusal or claim.unverified_references:
            continue  # it cannot rank whatever its quotes say
        items += [
            SupportItem(claim.id, 0, i, c.evidence_id, claim.text, c.sentence or c.located)
            for i, c in enumerate(claim.citations)
            if c.is_quoted
        ]
    rebuttal = record.rebuttals.get(letter)
    for position, counter in enumerate(rebuttal.counters if rebuttal else [], start=1):
        items += [
            SupportItem("", position, i, c.evidence_id, counter.text, c.sentence or c.located)
            for i, c in enumerate(counter.citations)
            if c.is_quoted
        ]
    return items


def uses_rules(model: ChatModel) -> bool:
    """The scripted (or fake) model is checked by rules: tests stay offline and deterministic."""
    return model.provider in RULE_PROVIDERS


async def check_support(
    verifier: ChatModel, history: DebateHistory, letter: str, round_no: int
) -> PhaseOutcome[SupportRecord]:
    """The persona's support check of the round: one request (none when nothing is quoted, or
    with the rules). A failed call leaves every citation ``unchecked``, saying why, and is
    recorded as a failure; rejected credentials end the debate."""
    record = history.round(round_no)
    if letter not in record.arguments and letter not in record.rebuttals:
        return PhaseOutcome(None)
    items = support_items(history, letter, round_no)
    asked, over = items[:SUPPORT_CHECKS], items[SUPPORT_CHECKS:]
    left_out = [
        item.verdict("unchecked", f"not checked: over the limit of {SUPPORT_CHECKS} a round")
        for item in over
    ]
    if uses_rules(verifier):
        checks = [item.verdict(*rule_verdict(item.text, item.sentence)) for item in asked]
        return PhaseOutcome(
            SupportRecord(
                persona=letter, round=round_no, checked_by=RULES, checks=checks + left_out
            )
        )
    checked_by = f"{verifier.provider}/{verifier.model}"
    if not asked:
        return PhaseOutcome(
            SupportRecord(persona=letter, round=round_no, checked_by=checked_by, checks=left_out)
        )
    try:
        result = await verifier.complete(
            prompts.support_messages([(i.evidence_id, i.text, i.sentence) for i in asked]),
            output=SupportDraft,
            purpose=f"{letter}/R{round_no}/support",
        )
    except ModelAuthError:
        raise
    except ModelError as exc:
        failure = Failure(
            round=round_no,
            persona=letter,
            phase=PHASE,
            kind="failed",
            what=f"{PHASE} model call",
            reason=f"{exc}; its quoted citations stay unchecked (not ranked)",
            cause=exc.cause,
        )
        note = f"the support check failed ({exc})"
        return PhaseOutcome(
            SupportRecord(
                persona=letter,
                round=round_no,
                checked_by=checked_by,
                available=False,
                checks=[item.verdict("unchecked", note) for item in asked] + left_out,
            ),
            [failure],
        )
    draft: SupportDraft = result.parsed()
    said: dict[int, tuple[SupportVerdict, str]] = {}
    for verdict in draft.checks:
        said.setdefault(verdict.item, (verdict.verdict, verdict.reason.strip()))
    checks = [
        item.verdict(*said.get(n, ("unchecked", "the checker gave no verdict for it")))
        for n, item in enumerate(asked, start=1)
    ]
    return PhaseOutcome(
        SupportRecord(
            persona=letter, round=round_no, checked_by=checked_by, checks=checks + left_out
        )
    )


# ---------------------------------------------------------------- the rules (offline)

NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "nor",
        "neither",
        "nothing",
        "nobody",
        "cannot",
        "without",
        "fails",
        "fail",
        "failed",
        "false",
        # French
        "ne",
        "pas",
        "jamais",
        "aucun",
        "aucune",
        "sans",
        "ni",
        "rien",
    }
)
"""Words that negate a clause; a word ending in ``n't`` does too."""


def _negation(text: str) -> str | None:
    """The first negating word of ``text`` (None: it affirms)."""
    return next((w for w in words(text) if w in NEGATIONS or w.endswith("n't")), None)


def _stems(text: str) -> set[str]:
    """Content words without accents and a plural ``s``, negations left out."""
    stems = set()
    for word in content_words(text):
        if word in NEGATIONS or word.endswith("n't"):
            continue
        word = strip_accents(word)
        stems.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return stems


def rule_verdict(claim: str, sentence: str) -> tuple[SupportVerdict, str]:
    """The offline verdict and its note: ``unrelated`` when the claim and the sentence share
    fewer than two content words (one, when either has at most three); else ``contradicts``
    when exactly one of them is negated, ``supports`` when both affirm or both deny."""
    mine, theirs = _stems(claim), _stems(sentence)
    shared = sorted(mine & theirs)
    needed = 1 if min(len(mine), len(theirs)) <= 3 else 2
    if len(shared) < needed:
        return "unrelated", (
            f"rules: the sentence shares {len(shared)} content word(s) with it "
            f"({', '.join(shared) or 'none'}): it does not address it"
        )
    together = ", ".join(shared[:6])
    said, denied = _negation(claim), _negation(sentence)
    if (said is None) != (denied is None):
        which = f"the claim says {said!r}" if said else f"the sentence says {denied!r}"
        return "contradicts", (
            f"rules: the sentence is about the same things ({together}), but {which} and the "
            "other does not"
        )
    return "supports", f"rules: the sentence says the same things ({together}), in the same sense"
