"""What an eval asks: items from a JSONL file, or a built-in set: ``du-arithmetic`` (Du et
al.'s own 100 problems) or ``mixed-arithmetic`` (argue's random-operator set).

An item is exact-answer (a number, a choice or a short text, inferred from ``answer``) or
``judged``: a free-text answer scored against reference ``facts`` by a model call per fact
(Du et al.'s biography task; ``argue.eval.judging``). A dataset is one or the other.

Every line of a dataset is checked before any model call; a bad one is a ``DatasetError``
naming the file and the line (the command turns it into exit 2).

``du-arithmetic`` needs numpy's legacy seeded generator. It is reproduced here in pure Python
(MT19937 and numpy's masked ``randint``, about 40 lines) rather than made an optional extra:
the paper's items then come with the base install and ``argue --help`` never imports numpy,
and a test compares all 100 problems with numpy's own output whenever numpy is importable.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
import stat
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from argue.domain import AnswerFormat
from argue.eval.normalize import choice_letter, normalize_number, plain_number

MAX_LINE_CHARS = 100_000
MAX_ITEMS = 100_000
MAX_NUMBER_DIGITS = 1000
"""An answer's number (or any number in a line) longer than this is refused: a 5,000-digit
integer is past what int() converts, and no eval asks for one."""
_NOT_FINITE = {"nan", "inf", "infinity"}
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MAX_FACTS = 50
MAX_FACT_CHARS = 1_000
"""A judged item's reference facts: each one is a model call, and the judge's prompt holds
the fact and the whole answer; 50 facts of 1,000 characters bound both."""

ItemKind = AnswerFormat | Literal["judged"]
"""An item's answer kind: the debate engine's answer formats, or ``judged`` (free text
against reference facts), which only the eval knows."""


class DatasetError(ValueError):
    """A dataset that cannot be evaluated; the message names the file and line."""


class EvalItem(BaseModel):
    id: str
    question: str
    answer: str = Field(
        description="The expected answer (a choice as its letter); a judged item: empty"
    )
    choices: list[str] | None = None
    kind: ItemKind
    facts: list[str] | None = Field(
        default=None, description="A judged item's reference facts, each judged on its own"
    )

    @property
    def judged(self) -> bool:
        return self.kind == "judged"

    def prompt(self) -> str:
        """The question as every arm sees it (choices listed as (A) …, (B) …)."""
        if not self.choices:
            return self.question
        lines = [f"({LETTERS[i]}) {choice}" for i, choice in enumerate(self.choices)]
        return self.question + "\n" + "\n".join(lines)

    @property
    def slug(self) -> str:
        """A file-name-safe form of the id (the item's debate folder)."""
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", self.id)[:60].lstrip(".") or "item"
        if safe != self.id:
            safe += "_" + hashlib.sha256(self.id.encode()).hexdigest()[:8]
        return safe


class Dataset(BaseModel):
    name: str
    items: list[EvalItem]
    fingerprint: str = Field(description="sha256 of the items: same data, same eval folder")


def _fingerprint(items: list[EvalItem]) -> str:
    """Over each item's fields; ``facts`` only when set, so an exact-answer dataset keeps the
    fingerprint (hence the eval folder) it had before judged items existed."""
    dumped = [
        i.model_dump(mode="json", exclude={"facts"} if i.facts is None else None) for i in items
    ]
    payload = json.dumps(dumped, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def load_jsonl(
    path: Path, *, max_line_chars: int = MAX_LINE_CHARS, ignore_unknown_fields: bool = False
) -> Dataset:
    """``{"question", "answer"}`` per line, optional ``id`` and ``choices``; blank lines skipped.
    A judged line is ``{"question", "answer_type": "judged", "facts": [...]}`` (``_judged_item``);
    judged and exact-answer lines do not mix in one dataset.

    A raw GSM8K line (``"answer": "<working> #### 72"``) is a number item whose answer is what
    follows ``####``. A field other than these is refused, naming the line and the field,
    unless ``ignore_unknown_fields`` (``--ignore-unknown-fields``).

    Read line by line with the cap applied while reading: a line over ``max_line_chars`` is
    refused once that many bytes (4 per character at most) have been read, never read whole.
    A FIFO or device is refused before it is opened."""
    from argue.files import BoundedReadError, regular_file_or_none

    try:
        if regular_file_or_none(path) is None:
            raise DatasetError(f"{path}: cannot read the dataset (no such file)")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except BoundedReadError as exc:
        raise DatasetError(f"{path}: cannot read the dataset ({exc.reason})") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read the dataset ({exc.strerror or exc})") from None
    items: list[EvalItem] = []
    seen: dict[str, int] = {}
    limit = 4 * max_line_chars + 2  # UTF-8 bytes of the longest line allowed, and its CR LF
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise DatasetError(f"{path}: cannot read the dataset (not a regular file)")
        number = 0
        while raw := handle.readline(limit + 1):
            number += 1
            where = f"{path}:{number}"
            if len(raw) > limit:
                raise DatasetError(f"{where}: line longer than {max_line_chars} characters")
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise DatasetError(f"{where}: not UTF-8 text") from None
            if not line.strip():
                continue
            if len(line) > max_line_chars:
                raise DatasetError(f"{where}: line longer than {max_line_chars} characters")
            item = _parse_line(
                line, where, default_id=f"line{number}", ignore_unknown=ignore_unknown_fields
            )
            if item.id in seen:
                raise DatasetError(f"{where}: id {item.id!r} already used on line {seen[item.id]}")
            if items and item.judged != items[0].judged:
                first = next(iter(seen.values()))
                raise DatasetError(
                    f"{where}: {'a judged' if item.judged else 'an exact-answer'} item after "
                    f"{'judged' if items[0].judged else 'exact-answer'} ones (line {first}): "
                    "judged items (scored fact by fact by a model) go in a dataset of their own"
                )
            seen[item.id] = number
            items.append(item)
            if len(items) > MAX_ITEMS:
                raise DatasetError(f"{where}: more than {MAX_ITEMS} items")
    if not items:
        raise DatasetError(f"{path}: no items (expected one JSON object per line)")
    return Dataset(name=path.stem, items=items, fingerprint=_fingerprint(items))


class _BadNumber(ValueError):
    pass


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _BadNumber(
            f"a number of {len(text.lstrip('-'))} digits (at most {MAX_NUMBER_DIGITS})"
        )
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS:
        raise _BadNumber(f"a number of {len(text)} characters (at most {MAX_NUMBER_DIGITS})")
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(f"{text} is not a finite number")
    return value


def _parse_constant(text: str) -> float:
    raise _BadNumber(f"{text} is not a finite number")


def _loads(line: str, where: str) -> object:
    try:
        return json.loads(
            line, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant
        )
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{where}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    except _BadNumber as exc:
        raise DatasetError(f"{where}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise DatasetError(f"{where}: not valid JSON ({str(exc)[:80]})") from None


def _check_text(value: object, field: str, where: str) -> None:
    """No NUL in any text; no non-finite number or overlong digit run in the answer."""
    texts = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    for text in texts:
        if isinstance(text, str) and "\x00" in text:
            raise DatasetError(f"{where}: '{field}' contains a NUL character")
    if field != "answer" or not isinstance(value, str):
        return
    if value.strip().lower().lstrip("+-") in _NOT_FINITE:
        raise DatasetError(f"{where}: 'answer' {value.strip()!r} is not a finite number")
    if sum(map(str.isdigit, value)) > MAX_NUMBER_DIGITS:  # "1,000,…" as well as "1000…"
        raise DatasetError(f"{where}: 'answer' has more than {MAX_NUMBER_DIGITS} digits")


FIELDS = ("id", "question", "answer", "choices", "answer_type", "facts")
GSM8K_MARK = re.compile(r"####\s*([^\n]*?)\s*$")


def _parse_line(
    line: str, where: str, default_id: str, *, ignore_unknown: bool = False
) -> EvalItem:
    data = _loads(line, where)
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected a JSON object with question and answer")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown and not ignore_unknown:
        raise DatasetError(
            f"{where}: unknown field(s) {', '.join(unknown)} (expected {', '.join(FIELDS)}; "
            "--ignore-unknown-fields ignores others)"
        )
    if "answer_type" in data:
        return _judged_item(data, where, default_id)
    if "facts" in data:
        raise DatasetError(
            f'{where}: \'facts\' belong to a judged item: add "answer_type": "judged"'
        )
    for field in FIELDS:
        _check_text(data.get(field), field, where)
    if isinstance(data.get("answer"), str) and "####" in data["answer"]:
        data["answer"] = _gsm8k_answer(data["answer"], where)
    question = _question(data, where)
    answer = data.get("answer")
    if isinstance(answer, bool) or not isinstance(answer, str | int | float):
        raise DatasetError(f"{where}: 'answer' must be a string or a number")
    answer_text = str(answer).strip()
    if not answer_text:
        raise DatasetError(f"{where}: 'answer' is empty")
    item_id = _item_id(data, where, default_id)
    choices = data.get("choices")
    if choices is None:
        kind: AnswerFormat = "number" if normalize_number(answer_text) is not None else "text"
        if isinstance(answer, str) and kind == "number" and not plain_number(answer_text):
            kind = "text"  # "3 apples" is a short text, not the number 3
        return EvalItem(id=item_id, question=question, answer=answer_text, kind=kind)
    if (
        not isinstance(choices, list)
        or not 2 <= len(choices) <= len(LETTERS)
        or not all(isinstance(c, str) and c.strip() for c in choices)
    ):
        raise DatasetError(f"{where}: 'choices' must be a list of 2 to 26 non-empty strings")
    letter = choice_letter(answer_text, choices)
    if letter is None:
        raise DatasetError(
            f"{where}: 'answer' {answer_text!r} is neither a choice letter "
            f"(A-{LETTERS[len(choices) - 1]}) nor one of the choices"
        )
    return EvalItem(
        id=item_id,
        question=question,
        answer=letter,
        choices=[c.strip() for c in choices],
        kind="choice",
    )


def _question(data: dict[str, object], where: str) -> str:
    question = data.get("question")
    if not isinstance(question, str) or not question.strip():
        raise DatasetError(f"{where}: 'question' must be a non-empty string")
    return question.strip()


def _item_id(data: dict[str, object], where: str, default_id: str) -> str:
    item_id = data.get("id", default_id)
    if isinstance(item_id, bool) or not isinstance(item_id, str | int) or not str(item_id):
        raise DatasetError(f"{where}: 'id' must be a non-empty string or an integer")
    return str(item_id)


def _judged_item(data: dict[str, object], where: str, default_id: str) -> EvalItem:
    """``{"question", "answer_type": "judged", "facts": [...]}``: 1 to 50 facts, each a
    non-empty string of at most 1,000 characters. An ``answer`` on such a line is ignored
    (neither checked nor kept): the facts are the reference, and a reference answer — Du et
    al.'s source article, say — may ride along; ``choices`` are refused (a free-text answer
    has none)."""
    if data["answer_type"] != "judged":
        raise DatasetError(
            f"{where}: 'answer_type' must be \"judged\" (free text scored against 'facts'), "
            f"got {str(data['answer_type'])[:40]!r}; leave it out for an exact answer"
        )
    if "choices" in data:
        raise DatasetError(f"{where}: a judged item has no 'choices' (its answer is free text)")
    for field in ("id", "question", "facts"):
        _check_text(data.get(field), field, where)
    question = _question(data, where)
    item_id = _item_id(data, where, default_id)
    facts = data.get("facts")
    if not isinstance(facts, list) or not 1 <= len(facts) <= MAX_FACTS:
        raise DatasetError(f"{where}: 'facts' must be a list of 1 to {MAX_FACTS} strings")
    for number, fact in enumerate(facts, 1):
        if not isinstance(fact, str) or not fact.strip():
            raise DatasetError(f"{where}: fact {number} must be a non-empty string")
        if len(fact) > MAX_FACT_CHARS:
            raise DatasetError(f"{where}: fact {number} is longer than {MAX_FACT_CHARS} characters")
    return EvalItem(
        id=item_id,
        question=question,
        answer="",
        kind="judged",
        facts=[fact.strip() for fact in facts],
    )


def _gsm8k_answer(answer: str, where: str) -> str:
    """GSM8K's final answer: the number after the last ``####`` ("1,000" as 1000)."""
    match = GSM8K_MARK.search(answer)
    final = match.group(1).replace(",", "") if match else ""
    if not re.fullmatch(r"[-+]?\d+(\.\d+)?", final):
        raise DatasetError(
            f"{where}: 'answer' has '####' but no number after it; a GSM8K answer ends in "
            "'#### <number>' (e.g. \"… #### 72\")"
        )
    return final


# ------------------------------------------------------------------ arithmetic sets

DU_ITEMS = 100
DU_SEED = 0
DU_NAME = "du-arithmetic"


def du_arithmetic() -> Dataset:
    """Du et al.'s (2023) own 100 problems, exactly: "What is the result of a+b*c+d-e*f?".

    The paper's ``math/gen_math.py`` (composable-models/llm_multiagent_debate) calls
    ``np.random.seed(0)`` once, then ``a, b, c, d, e, f = np.random.randint(0, 30, size=6)``
    for each of its 100 problems, and scores against ``a + b * c + d - e * f``. That is numpy's
    legacy global ``RandomState``: MT19937 seeded by ``init_genrand(0)``, and each integer one
    32-bit output masked to 5 bits, drawn again while above 29 (numpy's masked rejection for
    ``randint``). ``_LegacyMT19937`` reproduces exactly that in pure Python, so the base install
    needs no numpy (it comes only with the ``local`` extra, and ``argue --help`` must not import
    it); tests/eval/test_du_arithmetic.py checks all 100 problems against numpy whenever numpy
    is importable, and against problems copied from numpy's output otherwise.

    The question is the paper's pattern without its trailing "Make sure to state your answer at
    the end of the response." (each arm adds its own answer instructions). The set is fixed: no
    seed, no size (``--shard`` runs part of it).
    """
    rng = _LegacyMT19937(DU_SEED)
    items = []
    for index in range(1, DU_ITEMS + 1):
        a, b, c, d, e, f = (rng.randint_below(30) for _ in range(6))
        items.append(
            EvalItem(
                id=f"du-{index:03d}",
                question=f"What is the result of {a}+{b}*{c}+{d}-{e}*{f}?",
                answer=str(a + b * c + d - e * f),
                kind="number",
            )
        )
    return Dataset(name=DU_NAME, items=items, fingerprint=_fingerprint(items))


class _LegacyMT19937:
    """numpy's legacy ``RandomState`` bit stream (MT19937, ``mt19937_seed``) and its
    ``randint(0, high)`` for one value, in pure Python."""

    N, M = 624, 397

    def __init__(self, seed: int) -> None:
        state = [0] * self.N
        state[0] = seed & 0xFFFFFFFF
        for i in range(1, self.N):
            previous = state[i - 1]
            state[i] = (1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF
        self.state, self.pos = state, self.N

    def _generate(self) -> None:
        mt, n, m = self.state, self.N, self.M
        for i in range(n):
            y = (mt[i] & 0x80000000) | (mt[(i + 1) % n] & 0x7FFFFFFF)
            mt[i] = mt[(i + m) % n] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
        self.pos = 0

    def next_uint32(self) -> int:
        if self.pos >= self.N:
            self._generate()
        y = self.state[self.pos]
        self.pos += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def randint_below(self, high: int) -> int:
        """``RandomState.randint(0, high)`` for 1 < high <= 2**32: masked rejection."""
        top = high - 1
        mask = (1 << top.bit_length()) - 1
        while (value := self.next_uint32() & mask) > top:
            pass
        return value


def mixed_arithmetic(n: int, seed: int = 0) -> Dataset:
    """argue's own random-operator set (``--dataset mixed-arithmetic``): six integers in
    [0, 30) joined by five operators each drawn from +, − and ×, exact answers.

    Not Du et al.'s problems (``du_arithmetic`` is): their pattern is always a+b*c+d-e*f. The
    same ``seed`` gives the same expressions; answers are computed by code (× before + and −).
    Item ids and the dataset name are those of the former ``--dataset arithmetic``, so an eval
    started under that name resumes in the same folder.
    """
    if n < 1:
        raise DatasetError("--n must be at least 1")
    rng = random.Random(seed)
    items = []
    for index in range(1, n + 1):
        numbers = [rng.randrange(0, 30) for _ in range(6)]
        operators = [rng.choice("+-*") for _ in range(5)]
        expression = str(numbers[0]) + "".join(
            f"{op}{num}" for op, num in zip(operators, numbers[1:], strict=True)
        )
        items.append(
            EvalItem(
                id=f"arith-{seed}-{index:04d}",
                question=f"What is the result of {expression}?",
                answer=str(evaluate(expression)),
                kind="number",
            )
        )
    return Dataset(name=f"arithmetic_s{seed}", items=items, fingerprint=_fingerprint(items))


arithmetic = mixed_arithmetic  # the Python name before the split (bench/, older callers)


def evaluate(expression: str) -> int:
    """Integers with + - * and the usual precedence (no eval())."""
    tokens = re.findall(r"\d+|[-+*]", expression)
    total, term, sign = 0, 1, 1
    for token in tokens:
        if token.isdigit():
            term *= int(token)  # a product runs until the next + or -
        elif token in "+-":
            total += sign * term
            sign, term = (1 if token == "+" else -1), 1
    return total + sign * term


def shard(dataset: Dataset, index: int, count: int) -> list[EvalItem]:
    """Items whose position p has p % count == index - 1 (shards 1..count cover all once)."""
    return [item for p, item in enumerate(dataset.items) if p % count == index - 1]


def parse_shard(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise DatasetError(f"--shard must be i/n with 1 <= i <= n, got {text!r}")
    return int(match.group(1)), int(match.group(2))
