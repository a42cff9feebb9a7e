"""What a debate will ask of its models before it runs: calls, tokens and cost (``--dry-run``).

Calls follow the engine's schedule: framing (and the mode's own step before the first round,
e.g. the devil's advocate's private view); per round and persona a research plan (round 1
always; later rounds only when the reflection did not plan the next round's research), up to
``RESEARCH_BUDGET`` ``ask`` consultations, the argument, the rebuttal (plus one re-ask when it
conceded nothing), the reflection, the support check of its quotes; one judge per round; the
synthesis. Whatever may or may not happen is a range (minimum, maximum). Tokens come from typical
prompt and answer sizes (``TYPICAL_CALLS``: assumptions, not measurements); cost from the price
table, and is unknown for a model without a price. Pure logic: no I/O, no model call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from argue.engine.modes import mode_named
from argue.engine.phases import RESEARCH_BUDGET
from argue.llm.pricing import PriceTable


@dataclass(frozen=True)
class TypicalCall:
    """Tokens of one call of a kind in a typical debate (prompt incl. system prompt and schema).

    ``per_round``: extra input per earlier round (the digest and earlier claims grow);
    ``per_other``: extra input per other persona (their claims in the prompt);
    ``per_seat_round``: extra input per persona and round (material read by the synthesis)."""

    input_tokens: int
    output_tokens: int
    per_round: int = 0
    per_other: int = 0
    per_seat_round: int = 0

    def input_for(self, round_no: int, seats: int, rounds: int) -> int:
        return (
            self.input_tokens
            + self.per_round * max(round_no - 1, 0)
            + self.per_other * max(seats - 1, 0)
            + self.per_seat_round * seats * rounds
        )


TYPICAL_CALLS: dict[str, TypicalCall] = {
    "framing": TypicalCall(900, 300, per_other=60),
    "pre-debate step": TypicalCall(1000, 300),
    "research plan": TypicalCall(2000, 300, per_round=300, per_other=250),
    "ask consultation": TypicalCall(1500, 400),
    "argument": TypicalCall(4500, 1000, per_round=500),
    "rebuttal": TypicalCall(4500, 900, per_round=500, per_other=700),
    "concession re-ask": TypicalCall(5500, 900, per_round=500, per_other=700),
    "reflection": TypicalCall(4500, 700, per_round=500, per_other=400),
    "judge": TypicalCall(1500, 500, per_other=1200),
    "support check": TypicalCall(1200, 300),
    "synthesis": TypicalCall(2500, 2500, per_seat_round=700),
}
"""The assumption behind every token figure (see ``ASSUMPTION``). The rebuttal and the
reflection carry the round's evidence and the record of closed rounds (about 500 tokens a round
for a pair; a provider reads most of it from its prompt cache, which these counts ignore)."""

ASSUMPTION = (
    "tokens assume typical sizes per call (input incl. system prompt and schema / output): "
    + ", ".join(
        f"{kind} ~{typical.input_tokens}/{typical.output_tokens}"
        for kind, typical in TYPICAL_CALLS.items()
    )
    + "; prompts grow by a few hundred tokens per earlier round and per other persona. "
    "The maximum assumes every round runs; a debate that converges earlier uses fewer. "
    "An answer that fails validation is re-asked once (not counted here)."
)


@dataclass(frozen=True)
class ModelRef:
    provider: str
    model: str

    def label(self) -> str:
        return f"{self.provider}/{self.model}"


@dataclass
class StepEstimate:
    """One kind of call on one model: how many calls and tokens, at least and at most."""

    step: str
    model: ModelRef
    calls_min: int = 0
    calls_max: int = 0
    input_min: int = 0
    input_max: int = 0
    output_min: int = 0
    output_max: int = 0
    cost_min: float | None = 0.0
    cost_max: float | None = 0.0

    @property
    def tokens_min(self) -> int:
        return self.input_min + self.output_min

    @property
    def tokens_max(self) -> int:
        return self.input_max + self.output_max

    def add(self, typical: TypicalCall, input_tokens: int, low: int, high: int) -> None:
        self.calls_min += low
        self.calls_max += high
        self.input_min += low * input_tokens
        self.input_max += high * input_tokens
        self.output_min += low * typical.output_tokens
        self.output_max += high * typical.output_tokens

    def as_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "model": self.model.label(),
            "calls": {"min": self.calls_min, "max": self.calls_max},
            "tokens": {"min": self.tokens_min, "max": self.tokens_max},
            "cost_usd": None
            if self.cost_min is None or self.cost_max is None
            else {"min": round(self.cost_min, 6), "max": round(self.cost_max, 6)},
        }


@dataclass
class DebateEstimate:
    rounds: int
    steps: list[StepEstimate] = field(default_factory=list)
    unpriced_models: list[str] = field(default_factory=list)
    # model label -> its price per million tokens and where that price came from
    prices: dict[str, dict[str, Any]] = field(default_factory=dict)

    def describe_prices(self) -> list[str]:
        """One line per model: "openai/o3  $2.00 in / $8.00 out per Mtok  (genai-prices 0.2.3)"."""
        lines = []
        for label, price in self.prices.items():
            if price["source"] is None:
                lines.append(f"{label}  no price")
            else:
                lines.append(
                    f"{label}  ${price['input_per_mtok']:.2f} in / "
                    f"${price['output_per_mtok']:.2f} out per Mtok  ({price['source']})"
                )
        return lines

    @property
    def calls_min(self) -> int:
        return sum(s.calls_min for s in self.steps)

    @property
    def calls_max(self) -> int:
        return sum(s.calls_max for s in self.steps)

    @property
    def tokens_min(self) -> int:
        return sum(s.tokens_min for s in self.steps)

    @property
    def tokens_max(self) -> int:
        return sum(s.tokens_max for s in self.steps)

    @property
    def priced_cost(self) -> tuple[float, float]:
        """USD of the calls whose model has a price (the whole cost when every model has one)."""
        low = sum(s.cost_min or 0.0 for s in self.steps)
        high = sum(s.cost_max or 0.0 for s in self.steps)
        return low, high

    @property
    def cost_known(self) -> bool:
        return not self.unpriced_models

    def describe_cost(self) -> str:
        """ "$0.0512–$0.0930", "unknown (no price for …)" or "at least $X–$Y (no price for …)"."""
        low, high = self.priced_cost
        span = f"${low:.4f}" if round(low, 4) == round(high, 4) else f"${low:.4f}–${high:.4f}"
        if self.cost_known:
            return span
        missing = f"no price for {', '.join(self.unpriced_models)}"
        if all(s.cost_max is None for s in self.steps if s.calls_max):
            return f"unknown ({missing})"
        return f"at least {span} ({missing})"

    def as_json(self) -> dict[str, Any]:
        low, high = self.priced_cost
        return {
            "rounds": self.rounds,
            "calls": {"min": self.calls_min, "max": self.calls_max},
            "tokens": {"min": self.tokens_min, "max": self.tokens_max},
            "cost_usd": {"min": round(low, 6), "max": round(high, 6)} if self.cost_known else None,
            "cost_usd_at_least": {"min": round(low, 6), "max": round(high, 6)},
            "unpriced_models": self.unpriced_models,
            "prices": self.prices,
            "cost": self.describe_cost(),
            "steps": [s.as_json() for s in self.steps if s.calls_max],
            "assumptions": ASSUMPTION,
        }


def estimate_debate(
    *,
    mode: str,
    letters: Sequence[str],
    rounds: int,
    debate_model: ModelRef,
    persona_models: Mapping[str, ModelRef] | None = None,
    prices: PriceTable | None = None,
    verifier_model: ModelRef | None = None,
) -> DebateEstimate:
    """The calls, tokens and cost of a debate of ``rounds`` rounds between ``letters``; the
    support check runs on ``verifier_model`` (default the judge's, ``debate_model``)."""
    verifier = verifier_model or debate_model
    prices = prices or PriceTable()
    own = dict(persona_models or {})
    seats = len(letters)
    steps: dict[tuple[str, ModelRef], StepEstimate] = {}

    def add(step: str, model: ModelRef, round_no: int, low: int, high: int) -> None:
        typical = TYPICAL_CALLS[step]
        entry = steps.setdefault((step, model), StepEstimate(step, model))
        entry.add(typical, typical.input_for(round_no, seats, rounds), low, high)

    add("framing", debate_model, 0, 1, 1)
    if mode_named(mode).pre_debate is not None:
        add("pre-debate step", debate_model, 0, 1, 1)
    for round_no in range(1, rounds + 1):
        for letter in letters:
            model = own.get(letter, debate_model)
            # Round 1 always plans; later rounds use the plan the reflection returned, unless
            # it returned none (or failed), then a plan call comes first.
            add("research plan", model, round_no, 1 if round_no == 1 else 0, 1)
            add("ask consultation", model, round_no, 0, RESEARCH_BUDGET)
            add("argument", model, round_no, 1, 1)
            add("rebuttal", model, round_no, 1, 1)
            add("concession re-ask", model, round_no, 0, 1)
            add("reflection", model, round_no, 1, 1)
            # None when nothing it said was quoted (or the scripted model's rules check it).
            add("support check", verifier, round_no, 0, 1)
        add("judge", debate_model, round_no, 1, 1)
    add("synthesis", debate_model, rounds, 1, 1)

    from argue.domain import Usage

    unpriced: list[str] = []
    price_of: dict[str, dict[str, Any]] = {}
    for entry in steps.values():
        model = entry.model
        found = prices.lookup_with_source(model.provider, model.model)
        price_of.setdefault(
            model.label(),
            {"input_per_mtok": None, "output_per_mtok": None, "source": None}
            if found is None
            else {
                "input_per_mtok": found[0].input,
                "output_per_mtok": found[0].output,
                "source": found[1],
            },
        )
        if found is None:
            entry.cost_min = entry.cost_max = None
            if model.label() not in unpriced:
                unpriced.append(model.label())
            continue
        for bound in ("min", "max"):
            usage = Usage(
                provider=model.provider,
                model=model.model,
                input_tokens=getattr(entry, f"input_{bound}"),
                output_tokens=getattr(entry, f"output_{bound}"),
            )
            setattr(entry, f"cost_{bound}", prices.cost(usage))
    order = list(TYPICAL_CALLS)
    ordered = sorted(steps.values(), key=lambda entry: order.index(entry.step))
    return DebateEstimate(rounds=rounds, steps=ordered, unpriced_models=unpriced, prices=price_of)
