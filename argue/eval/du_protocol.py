"""The ``du`` arm: Du et al.'s multiagent debate as the paper's code runs it, to the letter
(composable-models/llm_multiagent_debate, ``math/gen_math.py`` and ``gsm/gen_gsm.py``, with
their answer parsing and majority from ``gen_math.py`` and ``gsm/eval_gsm.py``).

Two wordings, chosen per dataset (``wording_for``): ``math`` (the paper's arithmetic task:
argue's arithmetic sets) and ``gsm`` (any other number item: GSM8K and the like). For each:

- the messages are the paper's strings byte for byte: no system message; round 1 the paper's
  question prompt; each later round, after the agent's own previous reply (as its assistant
  turn, verbatim), one user turn with every other agent's previous reply, raw, in the paper's
  template (with no other agent, the paper's "verify your answer" turn);
- free text: no JSON, no schema, no fence — the replies are passed on as the paper passes them;
- agents × rounds: the paper's per script (math 2 × 3, gsm 3 × 2), ``--du-agents`` and
  ``--du-rounds`` change them; the agents of a round run together (the paper runs them in
  turn, but each sees only the others' previous-round replies, so the order changes nothing);
- the answer is parsed from the whole last reply with the paper's parser (math: the last
  space-separated token ``float()`` accepts after commas became dots; gsm: the last
  ``{…}`` holding digits, else the last number in the reply) and the item's answer is the
  paper's ``most_frequent`` of the agents' answers (math drops the replies that do not parse,
  gsm keeps them as a vote for "nothing"); right when it equals the expected number as floats;
- a failed call is asked again (the paper retries forever, 20 s apart; argue at most
  ``MAX_CALL_ATTEMPTS`` times, the provider adapter's own back-off inside each). An agent whose
  call still fails leaves the item unanswered (``error``), never dropped from the majority.

What the paper's code does and argue does not (the model, its temperature and output limit,
the gsm scorer counting an unparsed answer right) is listed in the README's ``argue eval``.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Sequence
from typing import Any, Literal

from argue.domain import Usage
from argue.eval.datasets import EvalItem
from argue.eval.normalize import paper_number
from argue.llm.base import ChatResult, Message, ModelAuthError, ModelError

ARM = "du"
Wording = Literal["math", "gsm"]
WORDINGS: tuple[Wording, ...] = ("math", "gsm")
# The paper's agents × rounds: gen_math.py's `agents = 2; rounds = 3`, gen_gsm.py's 3 and 2.
DEFAULT_SHAPE: dict[str, tuple[int, int]] = {"math": (2, 3), "gsm": (3, 2)}
MAX_AGENTS = 10
MAX_ROUNDS = 10
MAX_CALL_ATTEMPTS = 3
ARITHMETIC_DATASETS = ("du-arithmetic", "mixed-arithmetic")

# -- the paper's strings, byte for byte (the ``.format`` of the paper already applied where
# it has no argument; where it has one, the text before and after it).

# gen_math.py: """What is the result of {}+{}*{}+{}-{}*{}? Make sure to state …""".format(a, …)
MATH_ASK = " Make sure to state your answer at the end of the response."
# gen_math.py construct_message
MATH_ALONE = (
    "Can you verify that your answer is correct. Please reiterate your answer, making sure to "
    "state your answer at the end of the response."
)
MATH_PREFIX = "These are the recent/updated opinions from other agents: "
MATH_OTHER = ("\n\n One agent response: ```", "```")
MATH_SUFFIX = (
    "\n\n Use these opinions carefully as additional advice, can you provide an updated "
    "answer? Make sure to state your answer at the end of the response."
)

# gen_gsm.py: """Can you solve the following math problem? {} Explain …""".format(question)
GSM_QUESTION = (
    "Can you solve the following math problem? ",
    " Explain your reasoning. Your final answer should be a single numerical number, in the "
    "form \\boxed{answer}, at the end of your response. ",
)
# gen_gsm.py construct_message: this string is not formatted there, so its braces stay double.
GSM_ALONE = (
    "Can you double check that your answer is correct. Please reiterate your answer, with your "
    "final answer a single numerical number, in the form \\boxed{{answer}}."
)
GSM_PREFIX = "These are the solutions to the problem from other agents: "
GSM_OTHER = ("\n\n One agent solution: ```", "```")
GSM_SUFFIX = (
    "\n\n Using the solutions from other agents as additional information, can you provide "
    "your answer to the math problem? \n The original math problem is ",
    ". Your final answer should be a single numerical number, in the form \\boxed{answer}, at "
    "the end of your response.",
)


def wording_for(dataset: str | None) -> Wording:
    """``math`` for argue's arithmetic sets (the paper's arithmetic task), else ``gsm``."""
    return "math" if dataset in ARITHMETIC_DATASETS else "gsm"


def first_prompt(item: EvalItem, wording: Wording) -> str:
    """Round 1's user turn. math: the question ("What is the result of a+b*c+d-e*f?", as
    ``du_arithmetic`` writes it) and the paper's ask; gsm: the question inside the paper's."""
    if wording == "math":
        return item.question + MATH_ASK
    return GSM_QUESTION[0] + item.question + GSM_QUESTION[1]


def followup(item: EvalItem, wording: Wording, others: Sequence[str]) -> str:
    """A later round's user turn: the paper's ``construct_message`` over the other agents'
    previous replies, raw."""
    if wording == "math":
        if not others:
            return MATH_ALONE
        shown = "".join(MATH_OTHER[0] + reply + MATH_OTHER[1] for reply in others)
        return MATH_PREFIX + shown + MATH_SUFFIX
    if not others:
        return GSM_ALONE
    shown = "".join(GSM_OTHER[0] + reply + GSM_OTHER[1] for reply in others)
    return GSM_PREFIX + shown + GSM_SUFFIX[0] + item.question + GSM_SUFFIX[1]


# -- the paper's parsing and majority


_BOXED = re.compile(r"\{([0-9.,$]*)\}")
_LAST_NUMBER = re.compile(r"\d+\.?\d*")


def gsm_answer(reply: str) -> str | None:
    """eval_gsm.py: ``parse_answer`` (the last ``{…}`` of digits, commas, dots and $ that
    leaves digits once all but digits and dots are removed), else ``solve_math_problems``
    (the last ``\\d+\\.?\\d*`` of the reply)."""
    for found in reversed(_BOXED.findall(reply)):
        solution = re.sub(r"[^0-9.]", "", found)
        if solution:
            return solution
    numbers = _LAST_NUMBER.findall(reply)
    return numbers[-1] if numbers else None


def math_answer(reply: str) -> float | None:
    """gen_math.py: ``parse_answer(text.replace(",", "."))``."""
    return paper_number(reply)


def most_frequent(values: Sequence[Any]) -> Any:
    """The paper's ``most_frequent``: the first value to reach the highest count."""
    counter, best = 0, values[0]
    for value in values:
        frequency = values.count(value)
        if frequency > counter:
            counter, best = frequency, value
    return best


def paper_answer(replies: Sequence[str], wording: Wording) -> tuple[Any, list[Any]]:
    """The item's answer from the agents' last replies, and each reply's parse. math: the
    replies that do not parse are left out (none left: None, the paper skips the item); gsm:
    every parse votes, None included (a winning None: no answer)."""
    if wording == "math":
        parsed: list[Any] = [math_answer(r) for r in replies]
        kept = [v for v in parsed if v is not None]
        return (most_frequent(kept) if kept else None), parsed
    parsed = [gsm_answer(r) for r in replies]
    return (most_frequent(parsed) if parsed else None), parsed


def _as_float(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return number if not math.isnan(number) else None


def paper_correct(value: Any, expected: str) -> bool:
    """``float(pred) == float(answer)``, as both scripts compare."""
    got, want = _as_float(value), _as_float(expected.replace(",", ""))
    return got is not None and want is not None and got == want


def answer_text(value: Any) -> str | None:
    """The answer as the record keeps it: ``246`` for the paper's 246.0, else as parsed."""
    if value is None:
        return None
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return str(int(value))
        return repr(value)
    return str(value)


# -- the arm


class _AgentFailed(Exception):
    def __init__(self, agent: int, round_no: int, attempts: int, error: ModelError) -> None:
        super().__init__(
            f"agent {agent}, round {round_no}: the call failed {attempts} time(s): {error}"[:600]
        )


async def run_du(settings: Any, item: EvalItem) -> Any:
    """Du et al.'s protocol on one number item (the module docstring); an ``ItemResult``."""
    from argue.engine.metering import MeteredModel
    from argue.eval.arms import _finish

    started = time.time()
    usage: list[Usage] = []
    wording: Wording = settings.du_wording
    n, rounds = settings.du_agents, settings.du_rounds
    metered = MeteredModel(settings.model, usage, record=settings.record_usage)
    contexts: list[list[Message]] = [
        [Message(role="user", content=first_prompt(item, wording))] for _ in range(n)
    ]
    replies_by_round: list[list[str]] = []
    retried: list[dict[str, Any]] = []

    async def turn(agent: int, round_no: int, previous: list[str]) -> str:
        context = contexts[agent]
        if round_no > 1:
            others = previous[:agent] + previous[agent + 1 :]
            context.append(Message(role="user", content=followup(item, wording, others)))
        purpose = f"eval/{item.id}/du/r{round_no}/a{agent + 1}"
        for attempt in range(1, MAX_CALL_ATTEMPTS + 1):
            try:
                result: ChatResult[Any] = await metered.complete(list(context), purpose=purpose)
            except ModelAuthError:
                raise
            except ModelError as error:
                if attempt == MAX_CALL_ATTEMPTS:
                    raise _AgentFailed(agent + 1, round_no, attempt, error) from None
                retried.append({"agent": agent + 1, "round": round_no, "error": str(error)[:300]})
                continue
            reply = result.text if isinstance(result.value, str) else str(result.value)
            context.append(Message(role="assistant", content=reply))
            return reply
        raise AssertionError("unreachable")

    detail: dict[str, Any] = {
        "agents": n,
        "rounds": rounds,
        "wording": wording,
        "protocol": "Du et al.'s code (math/gen_math.py, gsm/gen_gsm.py): the paper's "
        "prompts, free text, no system message",
        "retried_calls": retried,
    }
    try:
        previous: list[str] = []
        for round_no in range(1, rounds + 1):
            previous = list(
                await asyncio.gather(*(turn(agent, round_no, previous) for agent in range(n)))
            )
            replies_by_round.append(previous)
    except _AgentFailed as failed:
        detail["replies_by_round"] = replies_by_round
        return _finish(item, ARM, started, usage, detail=detail, error=str(failed))
    value, parsed = paper_answer(replies_by_round[-1], wording)
    detail.update(
        replies_by_round=replies_by_round,
        parsed=[answer_text(v) for v in parsed],
        answer_source=(
            "the paper's most_frequent of the agents' last answers ("
            + (
                "replies that do not parse left out"
                if wording == "math"
                else "an unparsed reply votes for no answer"
            )
            + "; a tie goes to the first agent)"
        ),
    )
    if value is None:
        detail["no_answer"] = "no agent's last reply holds a number the paper's parser reads"
    record = _finish(item, ARM, started, usage, answer=answer_text(value), detail=detail)
    return record.model_copy(update={"correct": paper_correct(value, item.answer)})
