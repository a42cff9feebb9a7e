"""The three arms, one item at a time: ``single`` (one call), ``vote`` (K samples, majority)
and ``debate`` (an answer-seeking argue debate). Each returns an ``ItemResult``: the answer, its
normalised form, whether it is right, and the calls, tokens and cost it took."""

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

ARMS = ("debate", "single", "vote")
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
    from argue.engine.metering import MeteredModel

    metered = MeteredModel(settings.model, usage, record=settings.record_usage)
    result = await metered.complete(_messages(item), output=ShortAnswer, purpose=purpose)
    return result.value.answer  # type: ignore[union-attr]


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
