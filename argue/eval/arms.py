"""The arms, one item at a time: ``single`` (one call), ``vote`` (K samples, majority),
``society`` (Du et al.'s multiagent debate: N identical agents, R rounds, majority of the last
answers) and ``debate`` (an answer-seeking argue debate). Each returns an ``ItemResult``: the
answer, its normalised form, whether it is right, and the calls, tokens and cost it took."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from argue.domain import Mode, Persona, Usage
from argue.eval.datasets import EvalItem
from argue.eval.normalize import majority, normalize
from argue.llm.base import ChatModel, Message, ModelAuthError, ModelError

ARMS = ("debate", "single", "vote", "society")
DEFAULT_SOCIETY_AGENTS = 3  # the paper's headline: 3 agents × 2 rounds
DEFAULT_SOCIETY_ROUNDS = 2
MAX_SOCIETY_AGENTS = 10  # each later-round prompt holds the other N-1 full answers
MAX_SOCIETY_ROUNDS = 10
NO_RESEARCH = "research is off in argue eval: the debate argues from reasoning alone"


class ShortAnswer(BaseModel):
    """What the single and vote arms ask for: brief working, then the answer alone."""

    reasoning: str = Field(max_length=4000, description="Your working, briefly")
    answer: str = Field(max_length=300, description="The answer alone")


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
    started_at: float = Field(description="Unix time the arm started on the item")
    finished_at: float
    error: str | None = Field(default=None, description="why there is no answer, if none")
    detail: dict[str, Any] = Field(default_factory=dict)


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
    record_usage: Callable[[Usage], None] = lambda _: None
    usage_seen: list[Usage] = field(default_factory=list)


def _finish(item: EvalItem, arm: str, started: float, usage: list[Usage], **fields: Any) -> Any:
    from argue.llm import UsageLedger
    from argue.llm.pricing import total_tokens

    total = UsageLedger(usage).total()
    answer = fields.pop("answer", None)
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
        started_at=started,
        finished_at=time.time(),
        **fields,
    )


def _messages(item: EvalItem) -> list[Message]:
    from argue.engine.prompts import ANSWER_FORMS

    return [
        Message(
            role="system",
            content="You answer questions accurately. Answer only with the JSON object requested.",
        ),
        Message(
            role="user",
            content=f"Question: {item.prompt()}\n\nWork it out briefly in `reasoning`, then give "
            f"`answer`: {ANSWER_FORMS[item.kind]}.",
        ),
    ]


async def _ask(settings: ArmSettings, item: EvalItem, usage: list[Usage], purpose: str) -> str:
    return (await _call(settings, _messages(item), usage, purpose)).answer


async def _call(
    settings: ArmSettings, messages: list[Message], usage: list[Usage], purpose: str
) -> ShortAnswer:
    from argue.engine.metering import MeteredModel

    metered = MeteredModel(settings.model, usage, record=settings.record_usage)
    result = await metered.complete(messages, output=ShortAnswer, purpose=purpose)
    return result.value  # type: ignore[return-value]


async def run_single(settings: ArmSettings, item: EvalItem) -> ItemResult:
    started = time.time()
    usage: list[Usage] = []
    try:
        answer = await _ask(settings, item, usage, f"eval/{item.id}/single")
    except ModelAuthError:
        raise
    except ModelError as exc:
        return _finish(item, "single", started, usage, error=f"the call failed: {exc}")
    return _finish(item, "single", started, usage, answer=answer)


async def run_vote(settings: ArmSettings, item: EvalItem) -> ItemResult:
    """K independent samples (the provider's default sampling), then the majority answer."""
    started = time.time()
    usage: list[Usage] = []
    k = settings.vote_samples

    async def sample(n: int) -> str | None:
        try:
            return await _ask(settings, item, usage, f"eval/{item.id}/vote/{n}")
        except ModelAuthError:
            raise
        except ModelError:
            return None

    answers = await asyncio.gather(*(sample(n) for n in range(1, k + 1)))
    normalized = [normalize(a, item.kind, item.choices) for a in answers]
    winner, counts = majority(normalized)
    raw = next((a for a, n in zip(answers, normalized, strict=True) if n == winner), None)
    detail = {"samples": k, "failed_samples": answers.count(None), "votes": counts}
    if winner is None:
        return _finish(item, "vote", started, usage, detail=detail, error="no sample answered")
    return _finish(item, "vote", started, usage, answer=raw, detail=detail)


def society_followup(item: EvalItem, others: list[ShortAnswer]) -> str:
    """A later round's user turn: the other agents' previous full answers (fenced: model text),
    then the question again (the paper's ``construct_message``, gsm wording; with no other
    answer — one agent, or the others failed — the paper's "verify your answer")."""
    from argue.engine.prompts import ANSWER_FORMS, data

    ask = f"Work it out briefly in `reasoning`, then give `answer`: {ANSWER_FORMS[item.kind]}."
    if not others:
        return f"Can you verify that your answer is correct? Reiterate your answer. {ask}"
    shown = []
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
    others go on, and the majority is of the agents that answered the last round."""
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
            last[agent] = await _call(settings, list(conversation), usage, purpose)
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
    normalized = [normalize(a, item.kind, item.choices) for a in final]
    winner, counts = majority(normalized)
    raw = next((a for a, v in zip(final, normalized, strict=True) if v == winner), None)
    failed.sort(key=lambda f: (f["round"], f["agent"]))
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
    if winner is None:
        why = (
            f"no agent answered round {rounds}"
            if not answered
            else f"no round-{rounds} answer could be read as a {item.kind}"
        )
        return _finish(item, "society", started, usage, detail=detail, error=why)
    return _finish(item, "society", started, usage, answer=raw, detail=detail)


class NoResearch:
    """The eval's research toolkit: every call refused (nothing happens), said so in the record."""

    skill_names = ("dogpile",)

    def menu(self, persona: Persona) -> str:
        return f"- ({NO_RESEARCH})"

    async def run(self, request: Any) -> Any:
        from argue.skills.base import SkillResult

        return SkillResult.refused(request.call.skill, request.call.query, NO_RESEARCH)


async def run_debate(settings: ArmSettings, item: EvalItem) -> ItemResult:
    """An answer-seeking debate in ``debates/<item>/`` (resumed if a run left it unfinished)."""
    from argue.engine import DebateRunner, create_debate, load_history
    from argue.store import DebateStore, StoreError

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
            answer_format=item.kind,
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
