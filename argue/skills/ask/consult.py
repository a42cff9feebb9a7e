"""The ask skill: one persona consults a colleague, who answers in its own voice and lens.

A colleague who is itself debating the current question answers only from what it has
published in the debate and from its memory; its private research is never in the prompt
(spec: personas cannot see an opponent's research, only its published arguments).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence

from pydantic import BaseModel, Field, ValidationError

from argue.domain import Persona
from argue.llm.base import ChatModel, Message, ModelError
from argue.personas.card import persona_card
from argue.personas.catalog import PersonaCatalog
from argue.personas.routing import NoColleagueError, route_colleague
from argue.skills.base import SkillItem, SkillResult

SKILL_NAME = "ask"
MAX_ANSWER_WORDS = 200

MemoryRecall = Callable[[str, str], Awaitable[SkillResult]]


class ColleagueAnswer(BaseModel):
    answer: str = Field(
        min_length=1,
        # Bounded, like every string argue asks for: a grammar-constrained local model otherwise
        # writes until max_tokens (2,048 tokens of one answer in tests/e2e/test_llama_server.py).
        max_length=1500,
        description="The colleague's answer, in its own voice, in a short paragraph",
    )
    confidence: float = Field(ge=0.0, le=1.0, description="How sure the colleague is, 0-1")


def answer_id(colleague_name: str, question: str) -> str:
    digest = hashlib.sha1(question.encode("utf-8")).hexdigest()[:10]
    return f"ask:{colleague_name}:{digest}"


def _participant_texts(
    participants: Mapping[str, Sequence[str]] | None, name: str
) -> list[str] | None:
    """The colleague's published arguments if it takes part in the debate, else None."""
    if not participants:
        return None
    for key, texts in participants.items():
        if key.strip().lower() == name:
            return [text for text in texts if text.strip()]
    return None


async def _recall(
    memory_recall: MemoryRecall | None, question: str, name: str
) -> tuple[list[str], str]:
    """Memory lines for the prompt, and what happened, in plain words."""
    if memory_recall is None:
        return [], "no memory skill available"
    try:
        result = await memory_recall(question, name)
    except Exception as error:  # a skill must not raise; if one does, say so and carry on
        return [], f"memory recall raised {type(error).__name__}: {error}"
    if result.status == "ok":
        lines = [
            f"{item.title}: {item.snippet}" if item.snippet else item.title for item in result.items
        ]
        return lines, f"memory recalled {len(lines)} item(s)"
    return [], f"memory recall {result.status}: {result.note or 'no reason given'}"


def consult_messages(
    question: str,
    *,
    asker: Persona,
    colleague: Persona,
    published: list[str] | None,
    memory: list[str],
) -> list[Message]:
    system = (
        f"{persona_card(colleague)}\n\n"
        f"{asker.display_name} ({asker.role}; lens: {asker.lens}) is consulting you as a "
        f"colleague. Answer in your own voice and from your own lens, in at most "
        f"{MAX_ANSWER_WORDS} words. Say plainly what you do not know."
    )
    if published is None:
        user = f"Question from {asker.display_name}: {question}"
        return [Message(role="system", content=system), Message(role="user", content=user)]

    system += (
        "\nYou are a participant in the current debate. Answer ONLY from your published "
        "arguments and your memory, given below. Do not use private research, notes or anything "
        "you have not published. If they do not cover the question, say so."
    )
    sections = ["Your published arguments in this debate:"]
    sections += [f"[{index}] {text}" for index, text in enumerate(published, start=1)] or [
        "(none yet)"
    ]
    sections.append("Your memory:")
    sections += [f"- {line}" for line in memory] or ["(nothing recalled)"]
    sections.append(f"Question from {asker.display_name}: {question}")
    user = "\n".join(sections)
    return [Message(role="system", content=system), Message(role="user", content=user)]


def _parse_answer(value: object) -> ColleagueAnswer:
    if isinstance(value, ColleagueAnswer):
        return value
    if isinstance(value, str):
        return ColleagueAnswer.model_validate_json(value)
    return ColleagueAnswer.model_validate(value, from_attributes=True)


async def ask(
    question: str,
    *,
    asker: Persona,
    catalog: PersonaCatalog,
    model: ChatModel,
    colleague: str | None = None,
    participants: Mapping[str, Sequence[str]] | None = None,
    memory_recall: MemoryRecall | None = None,
) -> SkillResult:
    """Ask a colleague (named, or routed by keywords among ``asker``'s colleagues)."""
    started = time.perf_counter()
    if not question.strip():
        return SkillResult.refused(SKILL_NAME, question, "nothing to ask: the question is empty")

    notes: list[str] = []
    if colleague is None:
        # A debating colleague with nothing published yet could only say "nothing to go on":
        # route around it while another colleague is free.
        silent = {name for name, texts in (participants or {}).items() if not texts}
        try:
            chosen, reason = route_colleague(question, asker, catalog, exclude=silent)
        except NoColleagueError:
            try:
                chosen, reason = route_colleague(question, asker, catalog)
            except NoColleagueError as error:
                return SkillResult.refused(SKILL_NAME, question, str(error))
        notes.append(reason)
    else:
        if colleague not in catalog:
            known = ", ".join(catalog.names())
            return SkillResult.refused(
                SKILL_NAME, question, f"unknown colleague '{colleague}' (known: {known})"
            )
        chosen = catalog.get(colleague)
        if chosen.name == asker.name:
            return SkillResult.refused(
                SKILL_NAME, question, f"{asker.name} cannot ask itself; name a colleague"
            )
        listed = "" if chosen.name in asker.colleagues else f" (not in {asker.name}'s colleagues)"
        notes.append(f"asked {chosen.name} by name{listed}")

    published = _participant_texts(participants, chosen.name)
    memory: list[str] = []
    if published is not None:
        memory, memory_note = await _recall(memory_recall, question, chosen.name)
        notes.append(f"answered from {chosen.name}'s published arguments and memory only")
        notes.append(f"{len(published)} published argument(s); {memory_note}")
        if not published and not memory:
            notes.append("nothing to answer from yet")
            return SkillResult.refused(SKILL_NAME, question, "; ".join(notes))

    messages = consult_messages(
        question, asker=asker, colleague=chosen, published=published, memory=memory
    )
    try:
        reply = await model.complete(messages, output=ColleagueAnswer, purpose="ask")
        answer = _parse_answer(reply.value)
    except ModelError as error:
        notes.append(f"model call failed: {error}")
        return SkillResult.failed(
            SKILL_NAME, question, "; ".join(notes), elapsed_s=time.perf_counter() - started
        )
    except ValidationError as error:
        notes.append(f"model output was not an answer: {error.errors()[0]['msg']}")
        return SkillResult.failed(
            SKILL_NAME, question, "; ".join(notes), elapsed_s=time.perf_counter() - started
        )

    item = SkillItem(
        id=answer_id(chosen.name, question),
        title=f"{chosen.display_name} on: {question}",
        snippet=answer.answer,
        source=SKILL_NAME,
        score=answer.confidence,
        provenance="testimony",
    )
    return SkillResult.from_items(
        SKILL_NAME, question, [item], note="; ".join(notes), elapsed_s=time.perf_counter() - started
    )
