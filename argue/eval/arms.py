"""The arms, one item at a time: ``single`` (one call), ``vote`` (K samples, majority),
``society`` (Du et al.'s multiagent debate: N identical agents, R rounds, majority of the last
answers) and ``debate`` (an answer-seeking argue debate). Each returns an ``ItemResult``: the
answer, its normalised form, whether it is right, and the calls, tokens and cost it took.

A judged item (free text against reference facts, ``argue.eval.judging``) runs on ``single``
and ``society`` only (``check_arms``): a free-text answer has no majority to take, so ``vote``
has nothing to vote on, and the debate's answer is the synthesis's short answer (300
characters, "a short phrase") — judging it against a biography's facts would measure the cap,
not the debate. After the arm's answer, the eval's own model judges each fact (one call each,
tallied and budgeted with the arm's calls, and counted apart in ``judge_calls``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from argue.domain import Mode, Persona, Usage
from argue.eval.datasets import DatasetError, EvalItem
from argue.eval.judging import FactJudgment, JudgedScore, judge_answer, partial_note
from argue.eval.normalize import majority, normalize
from argue.llm.base import ChatModel, Message, ModelAuthError, ModelError

ARMS = ("debate", "single", "vote", "society", "du")
JUDGED_ARMS = ("single", "society")
NUMBER_ONLY_ARMS = ("du",)  # the paper's math and gsm protocols read a number from the reply
DEFAULT_SOCIETY_AGENTS = 3  # the paper's headline: 3 agents × 2 rounds
DEFAULT_SOCIETY_ROUNDS = 2
MAX_SOCIETY_AGENTS = 10  # each later-round prompt holds the other N-1 full answers
MAX_SOCIETY_ROUNDS = 10
NO_RESEARCH = "research is off in argue eval: the debate argues from reasoning alone"


class ShortAnswer(BaseModel):
    """What the single and vote arms ask for: brief working, then the answer alone."""

    reasoning: str = Field(max_length=4000, description="Your working, briefly")
    answer: str = Field(max_length=300, description="The answer alone")


class FreeTextAnswer(ShortAnswer):
    """What a judged item asks for: the answer as the free text the question asks for (a
    bullet-point biography fits; the short answer's 300 characters would not)."""

    reasoning: str = Field(max_length=4000, description="Your notes, briefly (may be empty)")
    answer: str = Field(max_length=8000, description="The full answer the question asks for")


FREE_TEXT_FORM = (
    "the full answer the question asks for, as free text (a list: one item per line); every "
    "statement in it will be checked against reference facts"
)


def check_arms(items: Sequence[EvalItem], arms: Sequence[str]) -> None:
    """A judged dataset runs only the arms that can answer free text (the module docstring);
    another arm is a ``DatasetError`` (a usage error) before any model call."""
    not_numbers = sorted({item.kind for item in items if item.kind != "number"})
    for arm in arms:
        if arm in NUMBER_ONLY_ARMS and not_numbers:
            raise DatasetError(
                f"arm {arm} is Du et al.'s math and gsm protocols, which read a number from the "
                f"reply: it runs on number items only, not {', '.join(not_numbers)} items"
            )
    refused = [arm for arm in arms if arm not in JUDGED_ARMS]
    if not refused or not any(item.judged for item in items):
        return
    raise DatasetError(
        f"arm(s) {', '.join(refused)} cannot run on judged items (free-text answers scored "
        "against facts): vote has no majority of free texts, and the debate's answer is a "
        f"short answer of 300 characters; use --arms {','.join(JUDGED_ARMS)}"
    )


class ItemResult(BaseModel):
    """One arm on one item: a line of items.jsonl."""

    item: str
    arm: str
    answer: str | None = None
    normalized: str | None = None
    expected: str
    correct: bool = False
    calls: int = 0
    tokens: int = 0
    cost_usd: float = Field(default=0.0, description="USD of the priced calls")
    unpriced_calls: int = 0
    possibly_billed_calls: int = Field(
        default=0,
        exclude_if=lambda v: not v,
        description="requests sent and never answered (timed out, connection dropped): maybe "
        "billed at a cost nobody can read, so cost_usd is a lower bound",
    )
    started_at: float = Field(description="Unix time the arm started on the item")
    finished_at: float
    error: str | None = Field(default=None, description="why there is no answer, if none")
    detail: dict[str, Any] = Field(default_factory=dict)
    # A judged item (free text against reference facts); the defaults are an exact-answer
    # item's, so records written before judged items existed load unchanged.
    answer_type: Literal["exact", "judged"] = "exact"
    score: float | None = Field(
        default=None,
        description="judged: consistent facts / judged facts (None: no fact judged or no answer)",
    )
    judgments: list[FactJudgment] = Field(default_factory=list)
    judge_model: str | None = Field(default=None, description="provider/model of the judge")
    judge_calls: int = Field(default=0, description="of calls: the judge's")
    judge_tokens: int = Field(default=0, description="of tokens: the judge's")
    judge_cost_usd: float = Field(default=0.0, description="of cost_usd: the judge's")
    partial: str | None = Field(
        default=None, description="why a judged score covers only some of the facts"
    )

    @property
    def unanswered(self) -> bool:
        """No answer to score: a call failed, a batch expired, a sample or an agent is missing.
        Left out of accuracy and of the paired tests, counted apart, and run again by a re-run
        (``argue.eval.runner``); an answer that cannot be read is answered (and wrong)."""
        return self.error is not None


@dataclass
class ArmSettings:
    """What the arms share for a whole eval."""

    model: ChatModel
    debates_dir: Path
    personas: list[Persona]
    mode: Mode
    rounds: int
    vote_samples: int = 0
    society_agents: int = DEFAULT_SOCIETY_AGENTS
    society_rounds: int = DEFAULT_SOCIETY_ROUNDS
    # The du arm (argue.eval.du_protocol): the paper's wording for this dataset, agents × rounds.
    du_wording: Literal["math", "gsm"] = "gsm"
    du_agents: int = 3
    du_rounds: int = 2
    record_usage: Callable[[Usage], None] = lambda _: None
    usage_seen: list[Usage] = field(default_factory=list)


def _finish(
    item: EvalItem,
    arm: str,
    started: float,
    usage: list[Usage],
    *,
    judged: tuple[str, list[Usage], list[FactJudgment]] | None = None,
    **fields: Any,
) -> Any:
    """The record; ``judged`` is a judged item's (judge model, judge usage, judgments)."""
    from argue.llm import UsageLedger
    from argue.llm.pricing import total_tokens

    if item.judged:
        judge_model, judge_usage, judgments = judged or ("", [], [])
        judge_total = UsageLedger(judge_usage).total()
        usage = [*usage, *judge_usage]
        score = JudgedScore.of(judgments)
        fields.update(
            answer_type="judged",
            score=score.fraction,
            judgments=judgments,
            judge_model=judge_model or None,
            judge_calls=judge_total.calls,
            judge_tokens=total_tokens(judge_total),
            judge_cost_usd=round(judge_total.cost_usd, 8),
            partial=partial_note(score),
            correct=score.judged > 0 and score.consistent == score.judged,
            expected=f"{len(item.facts or ())} reference fact(s)",
        )
    total = UsageLedger(usage).total()
    answer = fields.pop("answer", None)
    if item.judged:  # free text: nothing to normalise, compare or parse
        return ItemResult(
            item=item.id,
            arm=arm,
            answer=answer,
            calls=total.calls,
            tokens=total_tokens(total),
            cost_usd=round(total.cost_usd, 8),
            unpriced_calls=total.unpriced_calls,
            possibly_billed_calls=total.possibly_billed_calls,
            started_at=started,
            finished_at=time.time(),
            **fields,
        )
    normalized = normalize(answer, item.kind, item.choices)
    expected = normalize(item.answer, item.kind, item.choices)
    return ItemResult(
        item=item.id,
        arm=arm,
        answer=answer,
        normalized=normalized,
        expected=item.answer,
        correct=normalized is not None and normalized == expected,
        calls=total.calls,
        tokens=total_tokens(total),
        cost_usd=round(total.cost_usd, 8),
        unpriced_calls=total.unpriced_calls,
        possibly_billed_calls=total.possibly_billed_calls,
        started_at=started,
        finished_at=time.time(),
        **fields,
    )


def answer_form(item: EvalItem) -> str:
    """What the ``answer`` field is to hold, for this item's kind."""
    from argue.engine.prompts import ANSWER_FORMS

    return FREE_TEXT_FORM if item.judged else ANSWER_FORMS[item.kind]


def _ask_for(item: EvalItem) -> str:
    if item.judged:
        return f"Put brief notes in `reasoning`, then give `answer`: {answer_form(item)}."
    return f"Work it out briefly in `reasoning`, then give `answer`: {answer_form(item)}."


def _output(item: EvalItem) -> type[ShortAnswer]:
    return FreeTextAnswer if item.judged else ShortAnswer


def _messages(item: EvalItem) -> list[Message]:
    return [
        Message(
            role="system",
            content="You answer questions accurately. Answer only with the JSON object requested.",
        ),
        Message(
            role="user",
            content=f"Question: {item.prompt()}\n\n{_ask_for(item)}",
        ),
    ]


async def _ask(settings: ArmSettings, item: EvalItem, usage: list[Usage], purpose: str) -> str:
    return (await _call(settings, _messages(item), usage, purpose, _output(item))).answer


async def _call(
    settings: ArmSettings,
    messages: list[Message],
    usage: list[Usage],
    purpose: str,
    output: type[ShortAnswer] = ShortAnswer,
) -> ShortAnswer:
    from argue.engine.metering import MeteredModel

    metered = MeteredModel(settings.model, usage, record=settings.record_usage)
    result = await metered.complete(messages, output=output, purpose=purpose)
    return result.value  # type: ignore[return-value]


def _judge_name(settings: ArmSettings) -> str:
    return f"{settings.model.provider}/{settings.model.model}"


async def _judge(
    settings: ArmSettings,
    item: EvalItem,
    answers: Sequence[tuple[int | None, str]],
    judge_usage: list[Usage],
    purpose: str,
) -> tuple[str, list[Usage], list[FactJudgment]]:
    """Every fact of ``item`` against each (agent, answer): the judged part of ``_finish``."""
    judgments: list[FactJudgment] = []
    for agent, answer in answers:
        judgments += await judge_answer(
            settings.model,
            question=item.prompt(),
            answer=answer,
            facts=item.facts or [],
            usage=judge_usage,
            record=settings.record_usage,
            purpose=purpose if agent is None else f"{purpose}/a{agent}",
            agent=agent,
        )
    return _judge_name(settings), judge_usage, judgments


async def run_single(settings: ArmSettings, item: EvalItem) -> ItemResult:
    started = time.time()
    usage: list[Usage] = []
    try:
        answer = await _ask(settings, item, usage, f"eval/{item.id}/single")
    except ModelAuthError:
        raise
    except ModelError as exc:
        return _finish(item, "single", started, usage, error=f"the call failed: {exc}")
    if item.judged:
        judged = await _judge(settings, item, [(None, answer)], [], f"eval/{item.id}/single/judge")
        return _finish(item, "single", started, usage, answer=answer, judged=judged)
    return _finish(item, "single", started, usage, answer=answer)


async def run_vote(settings: ArmSettings, item: EvalItem) -> ItemResult:
    """K independent samples (the provider's default sampling), then the majority answer.
    Not for judged items (``check_arms`` refuses the arm before the eval starts)."""
    if item.judged:
        raise DatasetError(f"item {item.id}: the vote arm cannot run on a judged item")
    started = time.time()
    usage: list[Usage] = []
    k = settings.vote_samples

    errors: list[str] = []

    async def sample(n: int) -> str | None:
        try:
            return await _ask(settings, item, usage, f"eval/{item.id}/vote/{n}")
        except ModelAuthError:
            raise
        except ModelError as exc:
            errors.append(str(exc)[:300])
            return None

    answers = await asyncio.gather(*(sample(n) for n in range(1, k + 1)))
    normalized = [normalize(a, item.kind, item.choices) for a in answers]
    winner, counts = majority(normalized)
    raw = next((a for a, n in zip(answers, normalized, strict=True) if n == winner), None)
    failed = answers.count(None)
    detail: dict[str, Any] = {"samples": k, "failed_samples": failed, "votes": counts}
    if failed:  # a vote of fewer than K samples is not the vote asked for: unanswered
        detail["majority_of_the_rest"] = raw
        why = f"{failed} of {k} sample(s) failed, so the vote is unanswered: {errors[0]}"
        return _finish(item, "vote", started, usage, detail=detail, error=why)
    if winner is None:
        detail["no_answer"] = "no sample's answer could be read"
    return _finish(item, "vote", started, usage, answer=raw, detail=detail)


def society_followup(item: EvalItem, others: list[ShortAnswer]) -> str:
    """A later round's user turn: the other agents' previous full answers (fenced: model text),
    then the question again (the paper's ``construct_message``, gsm wording; with no other
    answer — one agent, or the others failed — the paper's "verify your answer")."""
    from argue.engine.prompts import data

    ask = _ask_for(item)
    if not others and item.judged:  # the paper's biography wording for an agent alone
        return f"Closely examine your answer and give an updated answer. {ask}"
    if not others:
        return f"Can you verify that your answer is correct? Reiterate your answer. {ask}"
    shown = []
    if item.judged:  # the paper's biography wording: the others' answers themselves
        for other in others:
            shown.append(f"One agent's answer:\n{data(other.answer, 'answer')}")
        return (
            "These are the answers to the question from the other agents:\n\n"
            + "\n\n".join(shown)
            + "\n\nUsing these other answers as additional advice, closely examine your "
            f"answer and theirs and give your updated answer. The original question: "
            f"{item.prompt()}\n\n{ask}"
        )
    for other in others:
        solution = f"{other.reasoning}\n\nAnswer: {other.answer}"
        shown.append(f"One agent's solution:\n{data(solution, 'solution')}")
    return (
        "These are the solutions to the question from the other agents:\n\n"
        + "\n\n".join(shown)
        + "\n\nUsing the solutions from the other agents as additional information, can you "
        f"give your answer to the question? The original question: {item.prompt()}\n\n{ask}"
    )


async def run_society(settings: ArmSettings, item: EvalItem) -> ItemResult:
    """Du et al.'s multiagent debate (``composable-models/llm_multiagent_debate``): N identical
    agents each answer the question as the single arm does; in each later round an agent sees
    its own previous answer as its own turn and the other agents' previous full answers
    (working and answer) in the user turn, and answers again. The answer is the majority of the
    last round's parsed answers (a tie goes to the lowest-numbered agent, as the paper's
    ``most_frequent`` keeps the first; unparsed answers do not vote). N × R calls, the agents
    of a round concurrently. An agent whose call fails drops out (said in ``detail``); the
    others go on, and the majority is of the agents that answered the last round.

    A judged item has no majority: as the paper's ``biography/eval_conversation.py`` does,
    every agent's last-round answer is judged fact by fact, and the item's score is the
    consistent facts over the judged facts of all of them (N × facts judge calls); ``answer``
    is the lowest-numbered answering agent's, the others are in ``answers_by_round``. The paper
    also stops a biography's rounds early, and skips its judging, when an agent answers one
    short bullet (the model "doesn't know this person"); argue runs every round and judges
    every answer."""
    started = time.time()
    usage: list[Usage] = []
    n, rounds = settings.society_agents, settings.society_rounds
    conversations = [_messages(item) for _ in range(n)]
    last: list[ShortAnswer | None] = [None] * n
    alive = list(range(n))
    answers: list[list[str | None]] = []
    failed: list[dict[str, Any]] = []

    async def turn(agent: int, round_no: int, previous: list[ShortAnswer | None]) -> None:
        conversation = conversations[agent]
        if round_no > 1:
            own = previous[agent]
            assert own is not None
            others = [a for i, a in enumerate(previous) if i != agent and a is not None]
            conversation.append(Message(role="assistant", content=own.model_dump_json()))
            conversation.append(Message(role="user", content=society_followup(item, others)))
        purpose = f"eval/{item.id}/society/r{round_no}/a{agent + 1}"
        try:
            last[agent] = await _call(settings, list(conversation), usage, purpose, _output(item))
        except ModelAuthError:
            raise
        except ModelError as exc:
            last[agent] = None
            failed.append({"agent": agent + 1, "round": round_no, "error": str(exc)[:500]})

    for round_no in range(1, rounds + 1):
        previous = list(last)
        await asyncio.gather(*(turn(agent, round_no, previous) for agent in alive))
        alive = [agent for agent in alive if last[agent] is not None]
        answers.append([a.answer if a is not None else None for a in last])
        if not alive:
            break
    final = [a.answer if a is not None else None for a in last]
    failed.sort(key=lambda f: (f["round"], f["agent"]))
    if item.judged:
        return await _society_judged(settings, item, started, usage, final, answers, failed)
    normalized = [normalize(a, item.kind, item.choices) for a in final]
    winner, counts = majority(normalized)
    raw = next((a for a, v in zip(final, normalized, strict=True) if v == winner), None)
    answered = sum(1 for a in final if a is not None)
    detail: dict[str, Any] = {
        "agents": n,
        "rounds": rounds,
        "answers_by_round": answers,
        "votes": counts,
        "failed_calls": failed,
        "answer_source": f"majority of the agents' round-{rounds} answers (unparsed answers "
        "do not vote; a tie goes to the lowest-numbered agent)",
    }
    if failed:
        detail["partial"] = f"{len(failed)} of {n} agent(s) failed and dropped out; " + (
            f"the majority is of the {answered} agent(s) that answered round {rounds}"
            if answered
            else f"every agent had failed by round {len(answers)}"
        )
    if failed:  # an agent dropped out: not the N-agent majority asked for, so unanswered
        detail["majority_of_the_rest"] = raw
        first = failed[0]
        why = (
            f"{len(failed)} call(s) failed (agent {first['agent']}, round {first['round']}: "
            f"{first['error'][:200]}), so the society is unanswered"
        )
        return _finish(item, "society", started, usage, detail=detail, error=why)
    if winner is None:
        detail["no_answer"] = f"no round-{rounds} answer could be read as a {item.kind}"
    return _finish(item, "society", started, usage, answer=raw, detail=detail)


async def _society_judged(
    settings: ArmSettings,
    item: EvalItem,
    started: float,
    usage: list[Usage],
    final: list[str | None],
    answers: list[list[str | None]],
    failed: list[dict[str, Any]],
) -> ItemResult:
    """The society's end on a judged item: every agent's last answer judged (``run_society``)."""
    n, rounds = settings.society_agents, settings.society_rounds
    answering = [(agent, a) for agent, a in enumerate(final, 1) if a is not None]
    detail: dict[str, Any] = {
        "agents": n,
        "rounds": rounds,
        "answers_by_round": answers,
        "failed_calls": failed,
        "answer_source": f"every agent's round-{rounds} answer judged fact by fact (Du et al.'s "
        "biography evaluation); the score pools their judged facts; `answer` is the "
        "lowest-numbered answering agent's",
    }
    if failed:
        detail["partial"] = f"{len(failed)} of {n} agent(s) failed and dropped out; " + (
            f"the {len(answering)} that answered round {rounds} are judged"
            if answering
            else f"every agent had failed by round {len(answers)}"
        )
    if failed or not answering:  # an agent dropped out: unanswered, nothing judged
        first = failed[0] if failed else None
        return _finish(
            item,
            "society",
            started,
            usage,
            detail=detail,
            judged=(_judge_name(settings), [], []),
            error=f"{len(failed)} call(s) failed (agent {first['agent']}, round "
            f"{first['round']}: {first['error'][:200]}), so the society is unanswered"
            if first
            else f"no agent answered round {rounds}",
        )
    judged = await _judge(settings, item, answering, [], f"eval/{item.id}/society/judge")
    return _finish(
        item, "society", started, usage, answer=answering[0][1], detail=detail, judged=judged
    )


class NoResearch:
    """The eval's research toolkit: every call refused (nothing happens), said so in the record."""

    skill_names = ("dogpile",)

    def menu(self, persona: Persona) -> str:
        return f"- ({NO_RESEARCH})"

    async def run(self, request: Any) -> Any:
        from argue.skills.base import SkillResult

        return SkillResult.refused(request.call.skill, request.call.query, NO_RESEARCH)


async def run_debate(settings: ArmSettings, item: EvalItem) -> ItemResult:
    """An answer-seeking debate in ``debates/<item>/`` (resumed if a run left it unfinished).
    Not for judged items (``check_arms`` refuses the arm before the eval starts)."""
    from argue.engine import DebateRunner, create_debate, load_history
    from argue.store import DebateStore, StoreError

    if item.kind == "judged":
        raise DatasetError(f"item {item.id}: the debate arm cannot run on a judged item")
    answer_format = item.kind
    started = time.time()
    try:
        store = DebateStore.open(settings.debates_dir, item.slug)
    except StoreError:
        settings.debates_dir.mkdir(parents=True, exist_ok=True)
        store = create_debate(
            settings.debates_dir,
            question=item.prompt(),
            mode=settings.mode,
            personas=settings.personas,
            max_rounds=settings.rounds,
            provider=settings.model.provider,
            model=settings.model.model,
            debate_id=item.slug,
            answer_format=answer_format,
        )
    state = await DebateRunner(store, settings.model, NoResearch()).run()
    usage = store.load_usage()
    history = load_history(store)
    final = debate_answer(store, history, item)
    store.save(store.paths.root / "final_answer.json", final)
    detail = {
        "debate_id": store.debate_id,
        "status": state.status,
        "termination": state.termination,
        **final,
    }
    error = None
    if final["answer"] is None:
        error = (
            f"the debate failed: {state.error}" if state.error else f"no answer ({state.status})"
        )
    return _finish(
        item, "debate", started, usage, answer=final["answer"], detail=detail, error=error
    )


def debate_answer(store: Any, history: Any, item: EvalItem) -> dict[str, Any]:
    """The synthesis's ``final_answer``; when the synthesis failed, the majority of the
    personas' last answers — labelled so, with the reason."""
    from argue.records.prose import AnswerSynthesisDraft

    last: dict[str, str] = {}
    for record in history.ordered_rounds():
        for letter, reflection in record.reflections.items():
            if reflection.answer:
                last[letter] = reflection.answer
    prose = store.load_if_readable(store.paths.synthesis_prose, AnswerSynthesisDraft)
    if prose is not None and prose.final_answer.strip():
        return {"answer": prose.final_answer, "answer_source": "synthesis", "last_answers": last}
    reasons = [f.reason for f in history.failures if f.phase == "synthesis"]
    why = reasons[-1] if reasons else "the synthesis wrote no final answer"
    normalized = [normalize(last[k], item.kind, item.choices) for k in history.letters if k in last]
    winner, counts = majority(normalized)
    raw = next((a for a in last.values() if normalize(a, item.kind, item.choices) == winner), None)
    return {
        "answer": raw,
        "answer_source": "majority of the personas' last answers (the synthesis failed: "
        f"{why}; a tie goes to the earliest seat)",
        "last_answers": last,
        "votes": counts,
    }
