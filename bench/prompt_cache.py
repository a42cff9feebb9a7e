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

- Anthropic (claude-sonnet-4-6): the same debate sent by argue's Anthropic adapter (schemas in
  the prompt, breakpoints and all) to the loopback fake, whose usage counts cache reads and
  writes block by block as Anthropic's documentation describes them
  (``tests/e2e/anthropic_cache.py``: a block that changed, or grew, is a new block). Reads at
  the cache-read price, writes at the cache-write price, the rest at the input price; without
  caching every input token at the input price. The share of input tokens read from the cache
  is printed beside it.
- OpenAI (gpt-5.4), an estimate: the shared character prefix of the messages as the engine
  builds them (the scripted model's layout: no schema text, no phase guide), rounded down to
  128-token steps, at the cached price.

Output tokens are the scripted replies' length / 4, the same in both columns. Figures are counts
and ratios from one run (no wall-clock claims).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.engine import DebateRunner, create_debate
from argue.llm import ScriptedModel
from argue.llm.base import Message
from argue.llm.pricing import PriceTable
from argue.personas import load_catalog
from argue.skills.ask import ColleagueAnswer, consult_messages
from argue.skills.base import SkillItem, SkillResult
from tests.engine.script import DebateScript, names_of

ANTHROPIC_MODEL = "claude-sonnet-4-6"
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

    model = ScriptedModel(responder)
    toolkit = BenchToolkit()
    toolkit.model = model
    asyncio.run(DebateRunner(store, model, toolkit).run())
    return measured


def run_over_anthropic(personas: list[str], rounds: int, folder: Path) -> dict[str, float]:
    """The same debate sent by argue's Anthropic adapter to the loopback fake, whose usage
    counts cache reads and writes block by block, as Anthropic's cache does
    (``tests/e2e/anthropic_cache.py``): what argue would be billed, schemas in the prompt and
    all, with no character-prefix optimism. Costs in dollars, by kind."""
    from argue.llm._anthropic import AnthropicModel
    from argue.llm._providers import AnthropicProvider
    from tests.e2e.anthropic_cache import AnthropicPromptCache
    from tests.e2e.fake_llm import FakeLLM

    catalog = load_catalog()
    lineup = [catalog.get(name) for name in personas]
    store = create_debate(
        folder,
        question="Is the Collatz conjecture decidable?",
        mode="panel" if len(lineup) > 2 else "adversarial",
        personas=lineup,
        max_rounds=rounds,
        provider="anthropic",
        model=ANTHROPIC_MODEL,
    )
    script = DebateScript(names={}, confidence=lambda k, r: 0.3 + 0.5 * (r % 2))
    fake = FakeLLM(script, anthropic_cache=AnthropicPromptCache()).start()
    try:
        model = AnthropicModel(
            ANTHROPIC_MODEL, provider=AnthropicProvider(api_key="sk-ant-bench", base_url=fake.url)
        )
        toolkit = BenchToolkit()
        toolkit.model = model  # type: ignore[assignment]

        async def debate() -> None:
            try:
                await DebateRunner(store, model, toolkit).run()
            finally:
                await model.aclose()

        asyncio.run(debate())
    finally:
        fake.stop()
    assert not fake.errors, fake.errors
    price = PriceTable().lookup("anthropic", ANTHROPIC_MODEL)
    assert price is not None
    usage = fake.anthropic_usage
    tokens = {
        kind: sum(u[field] for u in usage)
        for kind, field in (
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
    cost = {kind: tokens[kind] * rate[kind] / 1e6 for kind in tokens}
    uncached = (
        (tokens["read"] + tokens["write"] + tokens["plain"]) * price.input
        + tokens["output"] * price.output
    ) / 1e6
    inputs = tokens["read"] + tokens["write"] + tokens["plain"]
    return {
        "requests": len(usage),
        **cost,
        "total": sum(cost.values()),
        "uncached": uncached,
        "read_share": tokens["read"] / inputs,
    }


def shared_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    low, high = 0, n
    while low < high:  # the longest common prefix, by bisection on slices
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def analyse(measured: Run, rounds: int) -> dict[str, float]:
    anthropic = PriceTable().lookup("anthropic", "claude-sonnet-4-6")
    openai = PriceTable().lookup("openai", "gpt-5.4")
    assert anthropic is not None and openai is not None
    total_chars = cached_chars = 0
    cost = {"anthropic": 0.0, "anthropic_cached": 0.0, "openai": 0.0, "openai_cached": 0.0}
    seen: dict[str, list[str]] = {}
    for request in sorted(measured.requests, key=lambda r: r.started):
        earlier = seen.setdefault(request.caller, [])
        shared = max((shared_prefix(request.text, e) for e in earlier), default=0)
        earlier.append(request.text)
        cacheable = shared if shared >= MIN_CACHED_TOKENS * CHARS_PER_TOKEN else 0
        total_chars += len(request.text)
        cached_chars += cacheable
        tokens = len(request.text) / CHARS_PER_TOKEN
        read = cacheable / CHARS_PER_TOKEN
        last_point = max(request.cache_points, default=0)
        long_enough = last_point >= MIN_CACHED_TOKENS * CHARS_PER_TOKEN
        written = max(last_point - cacheable, 0) / CHARS_PER_TOKEN if long_enough else 0.0
        out = request.output_chars / CHARS_PER_TOKEN
        cost["anthropic"] += (tokens * anthropic.input + out * anthropic.output) / 1e6
        cost["anthropic_cached"] += (
            read * anthropic.cache_read
            + written * anthropic.cache_write
            + (tokens - read - written) * anthropic.input
            + out * anthropic.output
        ) / 1e6
        steps = (read // 128) * 128 if read >= MIN_CACHED_TOKENS else 0
        cost["openai"] += (tokens * openai.input + out * openai.output) / 1e6
        cost["openai_cached"] += (
            steps * openai.cache_read + (tokens - steps) * openai.input + out * openai.output
        ) / 1e6
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
        **cost,
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
            print(
                f"{name:10} {figures['requests']:.0f} requests · cacheable "
                f"{figures['cacheable_share']:.1%} of input characters · waves/round "
                f"{figures['waves_per_round']:.2f}\n"
                f"{'':10} Anthropic, sent by its adapter, cache counted block by block: "
                f"${wire['uncached']:.3f} uncached → ${wire['total']:.3f} cached "
                f"({wire['total'] / wire['uncached']:.2f}; {wire['read_share']:.0%} of input "
                f"tokens read from the cache): reads ${wire['read']:.3f}, writes "
                f"${wire['write']:.3f}, uncached input ${wire['plain']:.3f}, output "
                f"${wire['output']:.3f}\n"
                f"{'':10} OpenAI (estimate: messages as the engine builds them, no schema) "
                f"${figures['openai']:.3f} → cached ${figures['openai_cached']:.3f} "
                f"({figures['openai_cached'] / figures['openai']:.2f})"
            )


if __name__ == "__main__":
    main()
