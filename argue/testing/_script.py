"""A procedural debate script for the ``ScriptedModel``: schema-valid replies built from the
prompt, for every call a debate makes (framing, research plans, arguments, rebuttals,
reflections, the judge, the support check, the synthesis, a colleague's answer).

Like pydantic-ai's TestModel: no ML, the reply is derived from what the prompt shows (evidence
ids, opponent claim ids, persona letters), with knobs for the behaviours a test wants to see.
It reads the prompts as a model would, so it follows the engine's wording: a prompt change that
breaks it breaks argue's own tests first.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from argue.domain import Persona
from argue.engine.schemas import (
    ArgumentDraft,
    FramingDraft,
    JudgeDraft,
    PrivateViewDraft,
    RebuttalDraft,
    ReflectionDraft,
    ResearchPlanDraft,
    SupportDraft,
    SynthesisDraft,
)
from argue.engine.toolkit import ResearchRequest
from argue.llm._scripted import ScriptedReply
from argue.llm.base import Message
from argue.skills.base import SkillItem, SkillResult

EVIDENCE_ID = re.compile(r"\[([A-Z]-R\d+-E\d+)\]")
# A row of the evidence table (argue.engine.prompts.evidence_table): "[id] title — text (where)".
# A title may hold " — " itself: the text is what follows the last one.
EVIDENCE_ROW = re.compile(r"^\[([A-Z]-R\d+-E\d+)\] (?:.*) — (.*?) \([^()]*\)$", re.M)


def quotes_shown(section: str, limit: int = 200) -> dict[str, str]:
    """Each evidence id of a prompt's table with the start of its text as shown, cut at a word
    (what a model that copies verbatim would quote)."""
    quotes = {}
    for match in EVIDENCE_ROW.finditer(section):
        text = match.group(2).rstrip("…").strip()
        if len(text) > limit:
            text = text[:limit].rsplit(" ", 1)[0]
        quotes[match.group(1)] = text
    return quotes


# What the plan prompt offers (argue.engine.prompts.research_slots), read as a model would.
NEXT_ASK = re.compile(r"Also return `next_ask` for round (\d+): `colleague`, one of: ([^;]+);")
OFFERED_COLLEAGUES = re.compile(r"`ask` \(required\): `colleague`, one of: ([^;]+);")
OFFERED_FREE = re.compile(
    r"`free_calls` \(optional, at most (\d+)\): each a `skill`, one of: ([^;]+);"
)
CLAIM_ID = re.compile(r"\[([A-Z]\d+\.c\d+)\]")
WORDS = [
    "orbit",
    "measure",
    "density",
    "stopping",
    "parity",
    "residue",
    "tree",
    "cycle",
    "heuristic",
    "ergodic",
    "bound",
    "sieve",
    "lattice",
    "kernel",
    "drift",
    "entropy",
    "spectral",
    "dyadic",
    "syracuse",
    "fractran",
    "automaton",
    "oracle",
    "halting",
    "register",
    "counter",
    "modular",
    "carry",
    "binary",
    "ternary",
    "graph",
    "cover",
]


def claim_words(letter: str, rnd: int, i: int) -> list[str]:
    """The three topic words of the script's claim ``i`` of ``letter`` in round ``rnd``: the
    research double's item ``i + 1`` of that round says them too, so an honest claim is about
    what it quotes (the support check's rules find it supported)."""
    return [WORDS[(rnd * 7 + i * 3 + ord(letter) * 5 + j) % len(WORDS)] for j in range(3)]


SUPPORT_ITEM = re.compile(
    r"Item (\d+):\nClaim:\n<data claim \w+>\n(.*?)\n</data \w+>\nSentence \(from [^)]*\):\n"
    r"<data sentence \w+>\n(.*?)\n</data \w+>",
    re.S,
)


def support_verdicts(user: str, judge: Callable[[str, str], tuple[str, str]]) -> dict[str, Any]:
    """A support check's answer: each item's claim and sentence, as the prompt fences them,
    judged by ``judge(claim, sentence)``."""
    checks = []
    for number, claim, sentence in SUPPORT_ITEM.findall(user):
        verdict, reason = judge(claim, sentence)
        checks.append({"item": int(number), "verdict": verdict, "reason": reason})
    return {"checks": checks}


def _rules(claim: str, sentence: str) -> tuple[str, str]:
    from argue.engine.phases.support import rule_verdict

    return rule_verdict(claim, sentence)


@dataclass
class DebateScript:
    """Knobs: what the scripted personas do. Defaults give a lively, well-behaved debate."""

    names: dict[str, str] | None = None
    """Display name -> seat letter ({"Embry": "A", "Horus": "B"}, see ``names_of``). None: a
    persona gets the next letter the first time its name is seen (the first round's research
    plans are asked in seat order), which is how a provider that knows no lineup plays any
    debate; a dict: a name not in it is "-"."""
    confidence: Callable[[str, int], float] = lambda letter, rnd: 0.6 + 0.05 * rnd
    concede: bool = True
    repeat_claims: bool = False
    # Plans fill the required slots (dogpile, memory, and ask the first colleague offered);
    # ``free_skill`` adds one free call when the prompt offers one (a persona without colleagues).
    free_skill: str | None = None
    same_queries: bool = False  # the same queries every round (research that finds nothing new)
    synthesis_ready: bool = False
    cite_bogus: bool = False
    # What a persona quotes from the text it was shown: by default the text itself (verbatim);
    # a test makes one persona fabricate or paraphrase.
    quote: Callable[[str, int, str], str] = lambda letter, rnd, shown: shown
    fail: Callable[[str, int, str], Exception | None] = lambda letter, rnd, phase: None
    # What a claim says, from its default words: a test makes one persona misread its source.
    claim_text: Callable[[str, int, int, str], str] = lambda letter, rnd, i, text: text
    # A counter's quote from the first evidence row shown (None: counters cite nothing).
    counter_quote: Callable[[str, int, str], str] | None = None
    # A support check's verdict for (claim, sentence), when a model (not the rules) is asked.
    support: Callable[[str, str], tuple[str, str]] = _rules
    log: list[str] = field(default_factory=list)
    _learned: dict[str, str] = field(default_factory=dict, repr=False)

    def __call__(self, messages: list[Message], output: type[BaseModel] | None) -> ScriptedReply:
        system = messages[0].content
        # A re-ask appends messages; the original request is every user message before the
        # first answer. Its last one is this phase's instruction (the earlier ones hold the
        # record of closed rounds and the round's material).
        request = list(itertools.takewhile(lambda m: m.role != "assistant", messages))
        asked = [m.content for m in request if m.role == "user"]
        user = "\n\n".join(asked)
        letter = self._letter(system)
        rnd = round_of(request)
        phase = output.__name__ if output else "text"
        self.log.append(f"{letter}:{rnd}:{phase}")
        failure = self.fail(letter, rnd, phase)
        if failure is not None:
            return failure
        if _is(output, FramingDraft):
            question = re.search(r"Question: (.*)", user)
            letters = re.findall(r"^- ([A-Z]):", user, re.M)
            return FramingDraft.model_validate(
                {
                    "proposition": f"It is true that {question.group(1) if question else 'X'}",
                    "angles": [{"persona": k, "angle": f"angle {k}"} for k in letters],
                }
            )
        if _is(output, PrivateViewDraft):
            return PrivateViewDraft(holds_proposition=True, view="I would hold it true.")
        if _is(output, ResearchPlanDraft):
            return self._plan(letter, rnd, user)
        if _is(output, ArgumentDraft):
            section = user.split("Your evidence", 1)[-1]
            ids = EVIDENCE_ID.findall(section)
            shown = quotes_shown(section)
            claims = []
            for i in range(2):
                if self.repeat_claims:
                    text = f"The same claim number {i} again and again"
                else:
                    a, b, c = claim_words(letter, rnd, i)
                    text = f"{letter} round {rnd} claim {i}: {a} {b} {c} {letter.lower()}{rnd}x{i}"
                text = self.claim_text(letter, rnd, i, text)
                cited = ids[i : i + 1] + (["Z-R9-E9"] if self.cite_bogus else [])
                citations = [
                    {"evidence_id": eid, "quote": self.quote(letter, rnd, shown.get(eid, ""))}
                    for eid in cited
                ]
                claims.append({"text": text, "citations": citations, "warrant": "because"})
            return {
                "position": f"{letter} position r{rnd}",
                "claims": claims,
                "taxonomy_tags": ["precision", "not-a-bridge"],
            }
        if _is(output, RebuttalDraft):
            section = user.split("Opponents' claims this round", 1)[-1].split("Your evidence", 1)[0]
            targets = CLAIM_ID.findall(section)
            counters = (
                [{"target_claim_id": targets[0], "kind": "refute", "text": "weak"}]
                if targets
                else []
            )
            if counters and self.counter_quote is not None:
                shown = quotes_shown(user.split("Your evidence", 1)[-1])
                first = next(iter(shown), None)
                if first is not None:
                    quote = self.counter_quote(letter, rnd, shown[first])
                    counters[0]["citations"] = [{"evidence_id": first, "quote": quote}]
            counters.append({"target_claim_id": "Q9.c9", "kind": "question", "text": "strawman"})
            concessions = (
                [
                    {
                        "target_claim_id": targets[-1],
                        "kind": "full",
                        "text": "fair point",
                        "reason": "well supported",
                    }
                ]
                if self.concede and targets
                else []
            )
            rebuttal: dict[str, Any] = {
                "counters": counters,
                "concessions": concessions,
                "common_ground": ["shared"],
            }
            if offered := NEXT_ASK.search(user):  # next round's colleague question
                first = offered.group(2).split(",")[0].strip()
                rebuttal["next_ask"] = {
                    "colleague": first,
                    "question": f"{letter} query 2"
                    + ("" if self.same_queries else f" round {offered.group(1)}"),
                }
            return rebuttal
        if _is(output, ReflectionDraft):
            # Before the last round the reflection also plans the next round's research.
            planning = "plan your research for round" in user
            reflection: dict[str, Any] = {
                "confidence": self.confidence(letter, rnd),
                "belief_updates": [
                    {"belief": f"{letter} learned in round {rnd}", "new_strength": 0.99}
                ],
                "would_change_my_mind": f"{letter}: a counterexample",
                "position_now": f"{letter} still holds r{rnd}",
            }
            if planning:  # the last round's schema has no such key: a strict API sends none
                reflection["next_research"] = self._plan(letter, rnd + 1, user)
            return reflection
        if _is(output, JudgeDraft):
            letters = re.findall(r"one per persona letter: ([A-Z, ]+);", user)
            found = [x.strip() for x in letters[0].split(",")] if letters else []
            return JudgeDraft.model_validate(
                {
                    "ratings": [
                        {"persona": k, "coherence": 0.8, "reason": "consistent"} for k in found
                    ],
                    "synthesis_ready": self.synthesis_ready,
                    "ready_reason": "enough material" if self.synthesis_ready else "not yet",
                }
            )
        if _is(output, SupportDraft):
            return support_verdicts(user, self.support)
        if _is(output, SynthesisDraft):
            ids = CLAIM_ID.findall(user)
            return SynthesisDraft.model_validate(
                {
                    "agreements": [
                        {"point": "Both accept the base facts", "claim_ids": [*ids[:2], "X1.c9"]}
                    ],
                    "disagreements": [
                        {
                            "point": "Whether it generalises",
                            "sides": [
                                {"persona": "A", "position": "yes"},
                                {"persona": "B", "position": "no"},
                            ],
                            "crux": "a proof",
                        }
                    ],
                    "open_questions": ["Can it be extended?"],
                    "conclusion": "A nuanced conclusion.",
                }
            )
        if output is not None and output.__name__ == "ColleagueAnswer":
            return {"answer": f"A colleague's view on: {user[:80]}", "confidence": 0.7}
        return "ok"

    def _plan(self, letter: str, rnd: int, prompt: str) -> dict[str, Any]:
        """The slots, queries numbered in run order: dogpile 0, memory 1, then ask, then free."""

        def query(n: int) -> str:
            return f"{letter} query {n}" + ("" if self.same_queries else f" round {rnd}")

        plan: dict[str, Any] = {
            "why": f"{letter} looks for support",
            "dogpile_query": query(0),
            "memory_query": query(1),
        }
        if colleagues := OFFERED_COLLEAGUES.search(prompt):
            first = colleagues.group(1).split(",")[0].strip()
            plan["ask"] = {"colleague": first, "question": query(2)}
        free = OFFERED_FREE.search(prompt)
        if self.free_skill and free:
            plan["free_calls"] = [{"skill": self.free_skill, "query": query(len(plan) - 1)}]
        return plan

    def _letter(self, system: str) -> str:
        match = re.search(r"You are (.+?), taking part", system)
        if match is None:
            return "-"
        name = match.group(1)
        if self.names is not None:
            return self.names.get(name, "-")
        if name not in self._learned:
            self._learned[name] = "ABCDEFGHIJ"[min(len(self._learned), 9)]
        return self._learned[name]


def asked(messages: list[Message]) -> str:
    """What a request asks, as one text: its user messages before any answer (the record of
    closed rounds, the round's material, the phase's instruction), joined."""
    request = itertools.takewhile(lambda m: m.role != "assistant", messages)
    return "\n\n".join(m.content for m in request if m.role == "user")


PHASE_ROUND = re.compile(r"Round (\d+)(?: of \d+)? — [A-Z]")


def round_of(messages: list[Message]) -> int:
    """The round a request is for, from its instruction ("Round 3 of 5 — ARGUMENT"), also
    when a wire adapter joined the record, the material and the instruction into one turn."""
    text = asked(messages)
    found = PHASE_ROUND.findall(text)
    if found:
        return int(found[-1])
    other = re.search(r"Round (\d+)", text)  # the judge: "Round 3 material"
    return int(other.group(1)) if other else 0


def _is(output: type[BaseModel] | None, schema: type[BaseModel]) -> bool:
    """The engine asks for per-persona subclasses of the research and reflection schemas."""
    return output is not None and issubclass(output, schema)


def names_of(personas: list[Persona]) -> dict[str, str]:
    return {p.display_name: "ABCDEFGHIJ"[i] for i, p in enumerate(personas)}


class ScriptedToolkit:
    """Research double: each call returns two items whose text is private to the caller."""

    def __init__(self, fail_skill: str | None = None) -> None:
        self.requests: list[ResearchRequest] = []
        self.fail_skill = fail_skill

    def menu(self, persona: Persona) -> str:
        return "- dogpile: search"

    async def run(self, request: ResearchRequest) -> SkillResult:
        self.requests.append(request)
        call = request.call
        if call.skill == self.fail_skill:
            return SkillResult.failed(call.skill, call.query, "arxiv: HTTP 503 from loopback")
        if call.skill == "ask":  # as the real skill: one answer, the colleague's testimony
            answer = SkillItem(
                id=f"ask:{call.colleague}:{call.query}",
                title=f"{call.colleague} on: {call.query}",
                snippet=f"SECRET-RESEARCH-{request.letter} testimony about {call.query}",
                source="ask",
                provenance="testimony",
            )
            return SkillResult.from_items(call.skill, call.query, [answer])
        # A round's search names its round (the script's queries do): its items are about
        # what the script's claims of that round say, each item n about claim n - 1.
        rnd = re.search(r"round (\d+)$", call.query)
        items = [
            SkillItem(
                id=f"lib:{request.letter}:{call.query}:{n}",
                title=f"Source {n} for {call.query}",
                url=f"https://example.org/{request.letter}/{n}/{abs(hash(call.query)) % 1000}",
                snippet=f"SECRET-RESEARCH-{request.letter} detail {n} about {call.query}"
                + (
                    f" on {' '.join(claim_words(request.letter, int(rnd.group(1)), n - 1))}"
                    if rnd and call.skill == "dogpile"
                    else ""
                ),
                source="arxiv" if n == 1 else "library",
            )
            for n in (1, 2)
        ]
        return SkillResult.from_items(call.skill, call.query, items)
