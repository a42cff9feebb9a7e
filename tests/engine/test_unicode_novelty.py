"""Null production in any script: a debate whose claims repeat, word for word, in Russian or in
Chinese ends in ``null_production`` like an English one (issue 8 item 7, issue 14 item 1).

Teeth, checked by hand: with the word split of ``argue.engine.scoring`` put back to the old
Latin-only one, ``re.findall(r"[a-z0-9àâçéèêëîïôûùüÿñæœ]+", text.lower())`` minus stopwords, every
Russian or Chinese claim has no word, similarity 0 to everything, counts as novel every round,
and both debates below run to ``max_rounds`` instead (``test_repeated_claims_end_the_debate``
fails for both scripts; ``test_distinct_claims_are_novel`` still passes). Done without editing
the file: a pytest plugin module (``-p old_tokens`` on ``PYTHONPATH``) assigning the old function
to ``argue.engine.scoring._counts`` (the cached counter behind ``tokens``), which ``novelty_of``
looks up at call time.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from pydantic import BaseModel

from argue.engine.schemas import ArgumentDraft
from argue.llm.base import Message
from tests.engine.script import DebateScript

NAMES = {"Embry": "A", "Horus": "B"}

# Two different claims per persona, the same ones every round.
SENTENCES = {
    "russian": {
        "A": (
            "Гипотеза Коллатца проверена компьютером для всех чисел до двух в шестидесятой.",
            "Эвристика плотности предсказывает, что почти все орбиты спускаются вниз.",
        ),
        "B": (
            "Конвей показал, что обобщённые задачи такого рода алгоритмически неразрешимы.",
            "Результат Тао о почти всех орбитах не исключает нетривиального цикла.",
        ),
    },
    "chinese": {
        "A": (
            "考拉兹猜想已经被计算机验证到二的六十次方以内的所有整数。",
            "密度启发式论证预测几乎所有轨道最终都会下降。",
        ),
        "B": (
            "康威证明了这类广义问题在算法上是不可判定的。",
            "陶哲轩关于几乎所有轨道的结果并不排除非平凡循环的存在。",
        ),
    },
}


@dataclass
class SameSentences(DebateScript):
    """The scripted debate with each persona's claims replaced by fixed sentences."""

    sentences: dict[str, tuple[str, str]] | None = None

    def __call__(self, messages: list[Message], output: type[BaseModel] | None) -> object:
        reply = super().__call__(messages, output)
        if (
            (output is not None and issubclass(output, ArgumentDraft))
            and isinstance(reply, dict)
            and self.sentences
        ):
            letter = self._letter(messages[0].content)
            for claim, text in zip(reply["claims"], self.sentences[letter], strict=True):
                claim["text"] = text
        return reply


def _swinging(letter: str, rnd: int) -> float:
    return 0.3 if rnd % 2 else 0.8  # confidence keeps moving: no convergence


@pytest.mark.parametrize("language", SENTENCES)
def test_repeated_claims_end_the_debate(run_debate, language: str) -> None:
    script = SameSentences(
        names=NAMES,
        confidence=_swinging,
        same_queries=True,  # research that finds nothing new
        sentences=SENTENCES[language],
    )
    run = run_debate(rounds=6, script=script)
    assert run.state.termination == "null_production", run.state.termination_detail
    assert run.state.round == 3
    history = run.history
    assert history.rounds[1].score.novel_claims == 4  # four different sentences: all new
    assert all(history.rounds[k].score.novel_claims == 0 for k in (2, 3))


@pytest.mark.parametrize("language", SENTENCES)
def test_distinct_claims_are_novel(run_debate, language: str) -> None:
    """The control: one round of these claims is all novel (the tokenizer tells them apart)."""
    script = SameSentences(
        names=NAMES, confidence=_swinging, same_queries=True, sentences=SENTENCES[language]
    )
    run = run_debate(rounds=1, script=script)
    texts = [claim.text for claim in run.history.rounds[1].claims()]
    assert sorted(texts) == sorted(s for pair in SENTENCES[language].values() for s in pair)
    assert run.history.rounds[1].score.novel_claims == 4
