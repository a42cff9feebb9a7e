"""A scripted model for eval tests: the debate script (tests/engine/script.py) plus answers.

Questions are arithmetic ("What is 2+3*4?"): the script finds the expression in the prompt and
knows the right answer, and the knobs decide who answers it right.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from argue.engine.schemas import AnswerSynthesisDraft, ReflectionDraft
from argue.eval.datasets import evaluate
from argue.llm.base import Message, ModelUnavailableError
from tests.engine.script import DebateScript

EXPRESSION = re.compile(r"What is (?:the result of )?(\d+(?:[-+*]\d+)+)\?")


def right_answer(text: str) -> str:
    found = EXPRESSION.findall(text)
    return str(evaluate(found[0])) if found else "0"


def wrong(answer: str) -> str:
    return str(int(answer) + 1)


@dataclass
class EvalScript(DebateScript):
    """``single(right)``: what a single/vote call answers; ``persona(letter, right)``: a
    persona's answer in its reflection; ``final(right)``: the synthesis's final answer, or None
    for a synthesis call that fails."""

    single: Callable[[str], str] = lambda right: right
    persona: Callable[[str, str], str] = lambda letter, right: right
    final: Callable[[str], str | None] = lambda right: right
    delay_s: float = 0.0
    spans: list[tuple[float, float]] = field(default_factory=list)

    def __call__(self, messages: list[Message], output: type[BaseModel] | None) -> object:
        user = next((m.content for m in messages if m.role == "user"), "")
        right = right_answer(user)
        if output is not None and output.__name__ == "ShortAnswer":
            self.log.append("-:0:ShortAnswer")
            return {"reasoning": "I computed it.", "answer": self.single(right)}
        value: Any = super().__call__(messages, output)
        if output is not None and issubclass(output, AnswerSynthesisDraft):
            final = self.final(right)
            if final is None:
                return ModelUnavailableError("scripted", "the synthesis call found no server")
            return {**value.model_dump(mode="json"), "final_answer": final}
        # Asked by the schema, or (over the wire, where only the base name travels) the prompt.
        asked = output is not None and (
            "answer" in output.model_fields or "return `answer`" in user
        )
        if asked and issubclass(output, ReflectionDraft) and isinstance(value, dict):  # type: ignore[arg-type]
            value["answer"] = self.persona(self.log[-1].split(":")[0], right)
        return value

    async def timed(self, messages: list[Message], output: type[BaseModel] | None) -> object:
        """The responder with a delay, recording when each call ran (for overlap tests)."""
        start = time.monotonic()
        await asyncio.sleep(self.delay_s)
        value = self(messages, output)
        self.spans.append((start, time.monotonic()))
        return value


FENCED = r"<data {what} [^>]*>\n(.*?)\n</data "


def fenced(what: str, text: str) -> str | None:
    """The text of the first ``<data what …>`` fence in ``text`` (argue.engine.prompts.data)."""
    found = re.search(FENCED.format(what=what), text, re.S)
    return found.group(1) if found else None


@dataclass
class JudgedScript:
    """A scripted model for judged items (free-text answers, a judge call per fact).

    ``answer(prompt)``: the free text an answering call gives (``FreeTextAnswer``), from its
    last user turn; ``verdict(fact, answer)``: the judge's verdict on one fact (``FactVerdict``),
    or an Exception for a judge call that fails. By default the judge finds a fact consistent
    when the answer contains it word for word, and inconsistent otherwise. ``judged`` lists
    the (fact, answer) pairs the judge was shown, as they came out of their fences."""

    answer: Callable[[str], str] = lambda prompt: "- none"
    verdict: Callable[[str, str], str | Exception] = lambda fact, answer: (
        "consistent" if fact in answer else "inconsistent"
    )
    judged: list[tuple[str, str]] = field(default_factory=list)

    def __call__(self, messages: list[Message], output: type[BaseModel] | None) -> object:
        user = [m.content for m in messages if m.role == "user"][-1]
        name = output.__name__ if output is not None else ""
        if name == "FreeTextAnswer":
            return {"reasoning": "notes", "answer": self.answer(user)}
        if name == "FactVerdict":
            fact, answer = fenced("fact", user), fenced("answer", user)
            assert fact is not None and answer is not None, user
            self.judged.append((fact, answer))
            verdict = self.verdict(fact, answer)
            if isinstance(verdict, Exception):
                return verdict
            return {"verdict": verdict, "reason": f"checked {fact[:20]}"}
        raise AssertionError(f"a judged eval asked for {name or 'text'}")
