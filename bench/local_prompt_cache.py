"""Seconds for 6 in-process llama.cpp calls alternating two personas over a long shared prefix.

Layout as the engine sends it (issue #23): [system persona card] [user: proposition + debate
record, cache_point] [user: this round's evidence, cache_point] [user: this phase's instruction],
each phase with its own output schema. The bundled Gemma 3 270M answers (24 tokens a call).

Run: ``.venv/bin/python bench/local_prompt_cache.py [--baseline]``. ``--baseline`` runs the
calls as argue did before issue #23: no state cache, the schema instruction as the first system
message. Compare the two totals (a ratio; seconds depend on the machine and its load).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argue.llm import _local
from argue.llm._adapter import CallSettings
from argue.llm._local import LocalLlamaModel
from argue.llm.base import Message


class Opening(BaseModel):
    claim: str = Field(max_length=200)
    confidence: float = Field(ge=0, le=1)


class Rebuttal(BaseModel):
    target: Literal["A", "B"]
    objection: str = Field(max_length=200)


class Closing(BaseModel):
    stance: Literal["for", "against", "undecided"]
    summary: str = Field(max_length=200)


PHASES = [
    (Opening, "Phase: opening. State your main claim and how confident you are."),
    (Rebuttal, "Phase: rebuttal. Name the participant you answer and your strongest objection."),
    (Closing, "Phase: closing. Give your final stance and a one-sentence summary."),
]
PERSONAS = {
    "A": "You are Ada, a precise transport economist. You argue from measured outcomes, cite the "
    "evidence by id, and concede points the record supports. Rules: stay on the proposition; "
    "never invent evidence; answer in the JSON asked for.",
    "B": "You are Bram, a sceptical urban historian. You weigh what cities lived through, doubt "
    "single studies, and press on costs to residents. Rules: stay on the proposition; never "
    "invent evidence; answer in the JSON asked for.",
}
TOPICS = ["congestion", "air quality", "retail footfall", "bus speeds", "housing", "noise"]
CITIES = ["Stockholm", "London", "Oslo", "Milan", "Ghent", "Madrid", "Paris", "Singapore"]


def record_text(sentences: int) -> str:
    lines = ["Proposition: cities should ban private cars from their historic centres.", ""]
    for i in range(sentences):
        city, topic = CITIES[i % len(CITIES)], TOPICS[(i * 5) % len(TOPICS)]
        speaker = "A" if i % 2 == 0 else "B"
        lines.append(
            f"[{speaker} turn {i}] In {city}, the effect on {topic} after the {1990 + i} "
            f"scheme was reported as {(i * 7) % 23 + 2} percent, which {speaker} reads as "
            f"{'support' if i % 3 else 'weak support'} for the proposition."
        )
    return "\n".join(lines)


def evidence_text(items: int) -> str:
    return "\n".join(
        f"E{i}: {CITIES[(i * 3) % len(CITIES)]} city council report {2000 + i}, section {i % 9}: "
        f"{TOPICS[i % len(TOPICS)]} changed by {(i * 11) % 17 + 1} percent within two years."
        for i in range(items)
    )


def conversation(persona: str, instruction: str, record: str, evidence: str) -> list[Message]:
    return [
        Message(role="system", content=PERSONAS[persona]),
        Message(role="user", content=record, cache_point=True),
        Message(role="user", content=f"Evidence for this round:\n{evidence}", cache_point=True),
        Message(role="user", content=instruction),
    ]


def main() -> None:
    baseline = "--baseline" in sys.argv
    if baseline:  # the schema first, as before
        _local.with_text_last = lambda messages, text: [  # type: ignore[assignment]
            Message(role="system", content=text),
            *messages,
        ]
    record, evidence = record_text(60), evidence_text(25)
    model = LocalLlamaModel(announce=lambda line: None)
    started = time.monotonic()
    with model._lock:
        llama = model._loaded()
    if baseline:
        llama.set_cache(None)
    print(f"load {time.monotonic() - started:.1f} s; cache={getattr(llama, 'cache', None)}")
    total_started = time.monotonic()
    for output, instruction in PHASES:
        for persona in ("A", "B"):
            messages = conversation(persona, instruction, record, evidence)
            call = CallSettings(output=output, max_tokens=24, temperature=0.0, purpose=None)
            t0 = time.monotonic()
            reply = model._complete_blocking(messages, call)
            print(
                json.dumps(
                    {
                        "persona": persona,
                        "schema": output.__name__,
                        "seconds": round(time.monotonic() - t0, 2),
                        "prompt_tokens": reply.usage.input_tokens,
                    }
                ),
                flush=True,
            )
    mode = "baseline" if baseline else "prompt cache"
    print(json.dumps({"total_s": round(time.monotonic() - total_started, 2), "mode": mode}))


if __name__ == "__main__":
    main()
