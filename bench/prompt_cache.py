"""Prompt caching and waves: how much of each request a provider cache can reuse, how many model
waves a round takes, and what a debate costs at list prices with and without caching.

Run: ``.venv/bin/python bench/prompt_cache.py [--rounds 8] [--latency 0.05]``

An 8-round pair and a 5-persona panel run against the scripted model (the engine's test double,
answering after ``--latency`` seconds), with a research toolkit whose items are the size real
sources return (a ~350-character snippet each) and whose ``ask`` calls are real model calls (the
colleague answers as the skill would ask it), so the colleague wave shows where it happens.

Every request is taken as the model saw it: system text, then each message in order. For each
request, the longest prefix it shares with an earlier request of the same caller (the same
system text: a persona, a colleague, the judge) is found; it counts as cacheable when it is at
least 1,024 tokens long (tokens estimated as characters / 4, the usual rule of thumb for English
text). Costs use the price table in ``argue/llm/pricing.py``:

- Anthropic (claude-sonnet-4-6): the same debate sent by argue's Anthropic adapter (a
  persona's one stable output schema on the wire, breakpoints and all) to the loopback fake,
  whose usage counts cache reads and writes block by block as Anthropic's documentation
  describes them (``tests/e2e/anthropic_cache.py``: a block that changed, or grew, is a new
  block; the output format keys the cache). Reads at the cache-read price, writes at the
  cache-write price, the rest at the input price; without caching every input token at the
  input price. The share of input tokens read from the cache is printed beside it, and how
  many requests carry a schema the API enforces (``output_config`` or a forced tool), persona
  requests apart, and how many were re-asked.
- OpenAI (gpt-5.4): the same debate sent by argue's OpenAI adapter as to api.openai.com
  (``prompt_cache_key``, ``json_object`` with the schema in the prompt), the fake counting
  cached tokens as OpenAI's automatic prefix cache does (``tests/e2e/openai_cache.py``: the
  longest prefix shared with an earlier request of the same key, from 1,024 tokens in 128-token
  steps), read at the cached price, the rest at the input price.

The share of characters in a shared prefix and the waves a round come from the scripted model
(its requests as the engine builds them); the costs from the two wire runs. Output tokens are
the replies' length / 4, the same with and without caching. Figures are counts and ratios from
one run (no wall-clock claims).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.engine import DebateRunner, create_debate
from argue.llm import ScriptedModel
from argue.llm.base import Message
from argue.llm.pricing import PriceTable
from argue.personas import load_catalog
from argue.skills.ask import ColleagueAnswer, consult_messages
from argue.skills.base import SkillItem, SkillResult
from tests.e2e.openai_cache import shared_prefix
from tests.e2e.wire_debate import run_wire_debate
from tests.engine.script import DebateScript, names_of

ANTHROPIC_MODEL = "claude-sonnet-4-6"
# A persona's system text says this (the judge's, a colleague's, the framing's do not).
PERSONA_MARK = "taking part in a structured debate"
REASK_MARK = "Your reply did not validate"
OPENAI_MODEL = "gpt-5.4"
MIN_CACHED_TOKENS = 1024
CHARS_PER_TOKEN = 4
FILLER = (
    "The measured effect held across the three cohorts studied, although the authors caution "
    "that the sample was drawn from a single region and that the instrument changed between "
    "the second and third waves; they report the effect size with its interval and discuss "
    "two alternative explanations, neither of which fits the timing of the change they observe "
    "in the later records."
)


@dataclass
class Request:
    caller: str  # the system text: one persona, colleague or judge
    text: str
    cache_points: list[int]  # offsets in ``text`` where a cache point ends
    output_chars: int = 0
    started: float = 0.0
    ended: float = 0.0
    name: str = ""


@dataclass
class Run:
    requests: list[Request] = field(default_factory=list)


def as_sent(messages: list[Message]) -> tuple[str, str, list[int]]:
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    text = system
    points = [len(text)] if system else []
    for message in messages:
        if message.role == "system":
            continue
        text += f"\n\n[{message.role}]\n{message.content}"
        if message.cache_point:
            points.append(len(text))
    return system, text, points


class BenchToolkit:
    """Items of a real source's size; ``ask`` answered by the model, as the skill does."""

    def __init__(self) -> None:
        self.model: ScriptedModel | None = None
        self.catalog = load_catalog()

    def menu(self, persona: object) -> str:
        return "- dogpile: search\n- memory: recall\n- ask: consult a colleague"

    async def run(self, request):  # type: ignore[no-untyped-def]
        call = request.call
        if call.skill == "ask" and self.model is not None:
            colleague = self.catalog.get(call.colleague or request.persona.colleagues[0])
            reply = await self.model.complete(
                consult_messages(
                    call.query,
                    asker=request.persona,
                    colleague=colleague,
                    published=None,
                    memory=[],
                ),
                output=ColleagueAnswer,
                purpose="ask",
            )
            answer = reply.parsed()
            items = [
                SkillItem(
                    id=f"ask:{call.query}",
                    title=f"{colleague.display_name} on {call.query}",
                    snippet=f"{answer.answer} {FILLER[:200]}",
                    source="ask",
                    provenance="testimony",
                )
            ]
            return SkillResult.from_items(call.skill, call.query, items)
        items = [
            SkillItem(
                id=f"{call.skill}:{request.letter}:{call.query}:{n}",
                title=f"Study {n} on {call.query}",
                url=f"https://example.org/{request.letter}/{n}/{abs(hash(call.query)) % 1000}",
                snippet=f"{call.query}: finding {n}. {FILLER}",
                source="arxiv" if n == 1 else "openalex",
            )
            for n in range(1, 4 if call.skill == "dogpile" else 2)
        ]
        return SkillResult.from_items(call.skill, call.query, items)


def run(personas: list[str], rounds: int, latency: float, folder: Path) -> Run:
    catalog = load_catalog()
    lineup = [catalog.get(name) for name in personas]
    store = create_debate(
        folder,
        question="Is the Collatz conjecture decidable?",
        mode="panel" if len(lineup) > 2 else "adversarial",
        personas=lineup,
        max_rounds=rounds,
        provider="scripted",
        model="scripted-1",
    )
    script = DebateScript(names=names_of(lineup), confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    measured = Run()

    async def responder(messages, output):  # type: ignore[no-untyped-def]
        started = time.monotonic()
        reply = script(messages, output)
        caller, text, points = as_sent(messages)
        await asyncio.sleep(latency)
        body = reply.model_dump_json() if hasattr(reply, "model_dump_json") else str(reply)
        measured.requests.append(
            Request(
                caller,
                text,
                points,
                len(body),
                started,
                time.monotonic(),
                output.__name__ if output else "text",
            )
        )
        return reply

    model = ScriptedModel(responder, provider="bench")  # not "scripted": support checks are calls
    toolkit = BenchToolkit()
    toolkit.model = model
    asyncio.run(DebateRunner(store, model, toolkit).run())
    return measured


def _priced(tokens: dict[str, int], rate: dict[str, float], requests: int) -> dict[str, float]:
    cost = {kind: tokens[kind] * rate[kind] / 1e6 for kind in tokens}
    inputs = sum(tokens[kind] for kind in tokens if kind != "output")
    uncached = (inputs * rate["plain"] + tokens["output"] * rate["output"]) / 1e6
    return {
        "requests": requests,
        **cost,
        "total": sum(cost.values()),
        "uncached": uncached,
        "read_share": tokens["read"] / inputs,
    }


def run_over_anthropic(personas: list[str], rounds: int, folder: Path) -> dict[str, float]:
    """The same debate sent by argue's Anthropic adapter to the loopback fake, whose usage
    counts cache reads and writes block by block, as Anthropic's cache does
    (``tests/e2e/anthropic_cache.py``): what argue would be billed, schemas in the prompt and
    all, with no character-prefix optimism. Costs in dollars, by kind."""
    from tests.e2e.anthropic_cache import AnthropicPromptCache
    from tests.e2e.fake_llm import FakeLLM

    script = DebateScript(names={}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    fake = FakeLLM(script, anthropic_cache=AnthropicPromptCache()).start()
    try:
        run_wire_debate(
            folder, personas, rounds, "anthropic", ANTHROPIC_MODEL, fake.url, BenchToolkit()
        )
    finally:
        fake.stop()
    assert not fake.errors, fake.errors
    price = PriceTable().lookup("anthropic", ANTHROPIC_MODEL)
    assert price is not None
    usage = fake.anthropic_usage
    tokens = {
        kind: sum(u[name] for u in usage)
        for kind, name in (
            ("read", "cache_read_input_tokens"),
            ("write", "cache_creation_input_tokens"),
            ("plain", "input_tokens"),
            ("output", "output_tokens"),
        )
    }
    rate = {
        "read": price.cache_read,
        "write": price.cache_write,
        "plain": price.input,
        "output": price.output,
    }
    priced = _priced(tokens, rate, len(usage))
    bodies = [body for _, _, body in fake.anthropic_log]
    persona = [b for b in bodies if PERSONA_MARK in _system_text(b)]
    priced["constrained"] = sum(1 for b in bodies if "output_config" in b or "tool_choice" in b)
    priced["persona"] = len(persona)
    priced["persona_constrained"] = sum(1 for b in persona if "output_config" in b)
    priced["reasks"] = sum(1 for b in bodies if REASK_MARK in json.dumps(b["messages"][-1:]))
    return priced


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system") or []
    return system if isinstance(system, str) else "".join(b.get("text", "") for b in system)


def run_over_openai(personas: list[str], rounds: int, folder: Path) -> dict[str, float]:
    """The same debate sent by argue's OpenAI adapter (as for api.openai.com) to the loopback
    fake, whose usage counts cached tokens as OpenAI's automatic prefix cache does
    (``tests/e2e/openai_cache.py``). Costs in dollars, by kind (no writes: OpenAI has none)."""
    from tests.e2e.fake_llm import FakeLLM
    from tests.e2e.openai_cache import OpenAIPromptCache

    script = DebateScript(names={}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    fake = FakeLLM(script, openai_cache=OpenAIPromptCache()).start()
    try:
        run_wire_debate(folder, personas, rounds, "openai", OPENAI_MODEL, fake.url, BenchToolkit())
    finally:
        fake.stop()
    assert not fake.errors, fake.errors
    price = PriceTable().lookup("openai", OPENAI_MODEL)
    assert price is not None
    usage = [u for _, u, _ in fake.openai_log]
    read = sum(u["prompt_tokens_details"]["cached_tokens"] for u in usage)
    tokens = {
        "read": read,
        "write": 0,
        "plain": sum(u["prompt_tokens"] for u in usage) - read,
        "output": sum(u["completion_tokens"] for u in usage),
    }
    rate = {"read": price.cache_read, "write": 0.0, "plain": price.input, "output": price.output}
    return _priced(tokens, rate, len(usage))


def analyse(measured: Run, rounds: int) -> dict[str, float]:
    """Requests, the share of input characters in a cacheable shared prefix, waves a round."""
    total_chars = cached_chars = 0
    seen: dict[str, list[str]] = {}
    for request in sorted(measured.requests, key=lambda r: r.started):
        earlier = seen.setdefault(request.caller, [])
        shared = max((shared_prefix(request.text, e) for e in earlier), default=0)
        earlier.append(request.text)
        total_chars += len(request.text)
        cached_chars += shared if shared >= MIN_CACHED_TOKENS * CHARS_PER_TOKEN else 0
    spans = sorted((r.started, r.ended) for r in measured.requests)
    waves = 0
    horizon = float("-inf")
    for started, ended in spans:
        if started >= horizon:
            waves += 1
        horizon = max(horizon, ended)
    return {
        "requests": len(measured.requests),
        "cacheable_share": cached_chars / total_chars,
        "waves_per_round": (waves - 2) / rounds,  # framing and synthesis excluded
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    lineups = {
        "pair (2)": ["embry", "horus"],
        "panel (5)": ["embry", "horus", "brandon", "mirela", "vesper"],
    }
    print(f"{args.rounds} rounds, scripted model answering after {args.latency * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        for index, (name, personas) in enumerate(lineups.items()):
            figures = analyse(
                run(personas, args.rounds, args.latency, Path(tmp) / str(index)), args.rounds
            )
            wire = run_over_anthropic(personas, args.rounds, Path(tmp) / f"wire{index}")
            oai = run_over_openai(personas, args.rounds, Path(tmp) / f"oai{index}")
            print(
                f"{name:10} {figures['requests']:.0f} requests · cacheable "
                f"{figures['cacheable_share']:.1%} of input characters · waves/round "
                f"{figures['waves_per_round']:.2f}"
            )
            print(
                f"{'':10} Anthropic: {wire['constrained']:.0f} of {wire['requests']:.0f} requests "
                f"schema-constrained on the wire (persona requests: "
                f"{wire['persona_constrained']:.0f} of {wire['persona']:.0f}); "
                f"{wire['reasks']:.0f} re-asks"
            )
            for label, got in (("Anthropic", wire), ("OpenAI", oai)):
                print(
                    f"{'':10} {label}, as sent by its adapter: ${got['uncached']:.3f} uncached → "
                    f"${got['total']:.3f} cached ({got['total'] / got['uncached']:.2f}; "
                    f"{got['read_share']:.0%} of input tokens read from the cache): reads "
                    f"${got['read']:.3f}, writes ${got['write']:.3f}, uncached input "
                    f"${got['plain']:.3f}, output ${got['output']:.3f}"
                )


if __name__ == "__main__":
    main()
