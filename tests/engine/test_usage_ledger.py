"""Every billed answer is counted, once, durably; unknown prices say so; token budgets pause.

Teeth check (repeat it after touching metering): in argue/llm/_wrapped.py make
``WrappedModel.on_error`` (``MeteredModel``'s base) pass nothing to ``on_answers`` (drop the usage
of a failed call) and run this file: the "fails validation twice" and "cut off" tests fail.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import pytest
from pydantic import BaseModel

from argue.domain import Usage
from argue.engine import DebateRunner
from argue.engine.metering import MeteredModel
from argue.llm import ModelOutputError, ModelPrice, PriceTable, ScriptedModel
from argue.llm._scripted import CutOff
from argue.llm.base import Message
from tests.engine.script import DebateScript, ScriptedToolkit

NAMES = {"Embry": "A", "Horus": "B"}


class Killed(BaseException):
    """The process dying (kill -9): nothing in argue catches it."""


NOT_JSON = "I would rather talk about something else."


@dataclass
class Faulty:
    """A DebateScript whose answers for some "letter:round:phase" keys are broken: ``invalid``
    keys get text that is not JSON (the re-ask too), ``cut`` keys are cut off by the limit (the
    resend too). ``answers`` counts every reply the "provider" sent (not scripted exceptions)."""

    script: DebateScript
    invalid: set[str] = field(default_factory=set)
    cut: set[str] = field(default_factory=set)
    kill_at: int | None = None  # the process "dies" instead of sending this answer (1-based)
    answers: int = 0

    def __call__(self, messages: list[Message], output: type[BaseModel] | None) -> object:
        if self.kill_at is not None and self.answers + 1 >= self.kill_at:
            raise Killed
        value = self.script(messages, output)
        key = self.script.log[-1]
        if isinstance(value, Exception):
            return value
        self.answers += 1
        if key in self.invalid:
            return NOT_JSON
        if key in self.cut:
            return CutOff('{"position": "half an ans')
        return value


def run(store, responder, *, model: str = "scripted-1", prices: PriceTable | None = None):
    scripted = ScriptedModel(responder, model=model, prices=prices)
    events: list[str] = []
    runner = DebateRunner(store, scripted, ScriptedToolkit(), reporter=events.append)
    state = asyncio.run(runner.run())
    return state, scripted, events


def jsonl_records(store) -> list[dict]:
    lines = store.paths.usage_log.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def snapshot_calls(store) -> int:
    return sum(u["calls"] for u in json.loads(store.paths.usage.read_text(encoding="utf-8")))


def test_a_call_that_fails_validation_twice_is_counted_twice(new_store):
    store = new_store("invalid", rounds=1)
    faulty = Faulty(DebateScript(names=NAMES), invalid={"B:1:ReflectionDraft"})
    state, _, _ = run(store, faulty)

    assert state.status == "completed"
    failed = [r for r in jsonl_records(store) if r["purpose"] == "B/R1/reflection"]
    assert len(failed) == 2  # the first answer and the re-ask: both billed, both counted
    assert all(r["calls"] == 1 for r in failed)
    assert any(f.phase == "reflection" and f.persona == "B" for f in store_failures(store))
    assert len(jsonl_records(store)) == faulty.answers == snapshot_calls(store)


def test_a_truncated_answer_that_raises_is_counted(new_store):
    store = new_store("cut", rounds=1)
    faulty = Faulty(DebateScript(names=NAMES), cut={"A:1:ArgumentDraft"})
    state, _, _ = run(store, faulty)

    assert state.status == "completed"  # B still argued
    cut = [r for r in jsonl_records(store) if r["purpose"] == "A/R1/argument"]
    assert len(cut) == 2  # cut off, resent with a larger limit, cut off again
    assert len(jsonl_records(store)) == faulty.answers == snapshot_calls(store)


def test_metered_model_records_each_answer_durably_before_returning():
    durable: list[Usage] = []
    usage: list[Usage] = []
    metered = MeteredModel(
        ScriptedModel(replies=[{"bad": 1}, NOT_JSON]), usage, record=durable.append
    )

    class Answer(BaseModel):
        text: str

    with pytest.raises(ModelOutputError):
        asyncio.run(metered.complete([Message(role="user", content="hi")], output=Answer))
    assert len(durable) == len(usage) == 2
    assert metered.total().calls == 2


def test_a_torn_last_line_is_skipped_and_the_rest_kept(new_store):
    store = new_store("torn")
    for n in range(3):
        store.append_usage(Usage(provider="p", model="m", input_tokens=n, purpose=f"call {n}"))
    with store.paths.usage_log.open("ab") as handle:  # kill -9 in the middle of a write
        handle.write(b'{"provider": "p", "model": "m", "input_tok')

    loaded = store.load_usage()
    assert [u.purpose for u in loaded] == ["call 0", "call 1", "call 2"]

    store.append_usage(Usage(provider="p", model="m", purpose="after the crash"))
    assert [u.purpose for u in store.load_usage()] == [
        "call 0",
        "call 1",
        "call 2",
        "after the crash",
    ]


def test_a_crash_mid_phase_loses_no_call_and_resume_counts_none_twice(new_store):
    """The process dies in the middle of round 1 (usage.json, the checkpoint snapshot, lags
    behind) and the last line of usage.jsonl is torn: resume loses no answer, repeats none."""
    store = new_store("crash", rounds=2)
    dying = Faulty(DebateScript(names=NAMES), kill_at=5)  # during round 1's arguments
    with pytest.raises(Killed):
        run(store, dying)
    assert len(store.load_usage()) == dying.answers == 4  # the 5th never came back
    snapshot = snapshot_calls(store) if store.paths.usage.exists() else 0
    assert snapshot < dying.answers  # what a phase-boundary snapshot alone would have lost
    with store.paths.usage_log.open("ab") as handle:
        handle.write(b'{"provider": "scripted", "model": "scri')  # torn by kill -9

    resumed = Faulty(DebateScript(names=NAMES))
    state, _, _ = run(store, resumed)
    assert state.status == "completed"
    total = dying.answers + resumed.answers
    assert len(store.load_usage()) == total == snapshot_calls(store)
    assert len(jsonl_records_lenient(store)) == total


def test_an_old_folder_with_only_usage_json_still_loads_and_resumes(new_store):
    store = new_store("legacy", rounds=1)
    old = [
        {"provider": "scripted", "model": "scripted-1", "input_tokens": 10, "cost_usd": 0.5},
        {"provider": "scripted", "model": "scripted-1", "output_tokens": 5, "calls": 2},
    ]
    store.paths.usage.write_text(json.dumps(old), encoding="utf-8")
    assert [u.calls for u in store.load_usage()] == [1, 2]

    faulty = Faulty(DebateScript(names=NAMES))
    state, _, _ = run(store, faulty)
    assert state.status == "completed"
    assert len(store.load_usage()) == 2 + faulty.answers  # the old ones kept, none twice
    assert snapshot_calls(store) == 3 + faulty.answers


def test_an_unpriced_model_shows_unknown_cost_never_zero(new_store):
    store = new_store("unpriced", rounds=1)
    state, _, events = run(store, Faulty(DebateScript(names=NAMES)), prices=PriceTable())
    assert state.status == "completed"

    for name in ("transcript.md", "synthesis.md"):
        footer = (store.paths.root / name).read_text(encoding="utf-8").rstrip().splitlines()[-3:]
        text = "\n".join(footer)
        assert "unknown (" in text and "unpriced call" in text, text
        assert "$0.0000" not in text
        assert "scripted/scripted-1 (" in text
    progress = [e for e in events if "so far" in e]
    assert progress and all("cost unknown" in e and "$0.0000" not in e for e in progress)


def test_a_priced_model_shows_its_cost(new_store):
    store = new_store("priced", rounds=1)
    prices = PriceTable({"scripted": {"scripted-1": ModelPrice(input=1.0, output=2.0)}})
    run(store, Faulty(DebateScript(names=NAMES)), prices=prices)
    footer = (store.paths.root / "synthesis.md").read_text(encoding="utf-8").rstrip()
    assert "unknown" not in footer.splitlines()[-3] and " · cost $0.0" in footer


def test_footers_name_every_model_that_answered(new_store):
    """`resume --model` mid-debate: both models are named, each with its calls."""
    store = new_store("two_models", rounds=2, budget_tokens=1)  # pauses after the framing
    script = DebateScript(names=NAMES)
    first = Faulty(script)
    state, _, _ = run(store, first, model="model-one")
    assert state.status == "budget_exhausted"
    config = store.config()
    config.budget_tokens = 10_000_000  # `resume --max-tokens 10000000 --model model-two`
    store.save_config(config)
    second = Faulty(script)
    state, _, _ = run(store, second, model="model-two")
    assert state.status == "completed"

    for name in ("transcript.md", "synthesis.md"):
        text = (store.paths.root / name).read_text(encoding="utf-8")
        models_line = text.rstrip().splitlines()[-1]
        assert models_line == (
            f"Models: scripted/model-one ({first.answers} call), "
            f"scripted/model-two ({second.answers} calls)"
        )
    summary = json.loads(store.paths.summary.read_text(encoding="utf-8"))
    assert {k: v["calls"] for k, v in summary["usage_by_model"].items()} == {
        "scripted/model-one": first.answers,
        "scripted/model-two": second.answers,
    }


def test_max_tokens_pauses_the_debate_and_a_larger_limit_resumes_it(new_store):
    store = new_store("tokens", rounds=2, budget_tokens=2500)
    state, _, events = run(store, Faulty(DebateScript(names=NAMES)))
    assert state.status == "budget_exhausted"
    assert "2500-token budget" in state.termination_detail
    assert any("larger --max-tokens" in e for e in events)
    assert len(store.committed_rounds()) < 2
    spent = sum(u.input_tokens + u.output_tokens for u in store.load_usage())
    assert spent >= 2500

    config = store.config()
    config.budget_tokens = 10_000_000  # what `resume --max-tokens 10000000` saves
    store.save_config(config)
    state, _, _ = run(store, Faulty(DebateScript(names=NAMES)))
    assert state.status == "completed"
    assert store.committed_rounds() == [1, 2]


def store_failures(store):
    from argue.engine import load_history

    return load_history(store).failures


def jsonl_records_lenient(store) -> list[dict]:
    records = []
    for line in store.paths.usage_log.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records


def test_an_out_of_range_confidence_is_clamped_and_the_repair_recorded_with_its_answer(
    new_store,
):
    # A grammar-constrained server cannot enforce ``confidence <= 1``: code clamps 1.3 to 1.0
    # (no re-ask) and the repair is written beside that answer in usage.jsonl.
    store = new_store("clamped", rounds=1)
    script = DebateScript(names=NAMES)

    def responder(messages: list[Message], output: type[BaseModel] | None) -> object:
        value = script(messages, output)
        if script.log[-1] != "B:1:ReflectionDraft":
            return value
        data = value.model_dump(mode="json") if isinstance(value, BaseModel) else dict(value)
        return {**data, "confidence": 1.3}

    state, _, _ = run(store, responder)

    assert state.status == "completed"
    reflection = [r for r in jsonl_records(store) if r["purpose"] == "B/R1/reflection"]
    assert len(reflection) == 1  # repaired, not re-asked
    assert reflection[0]["repairs"] == ["confidence: 1.3 is out of range, clamped to 1.0"]
    recorded = store.paths.root / "persona_b" / "arguments" / "round_001.reflection.json"
    assert json.loads(recorded.read_text())["confidence"] == 1.0
    assert sum("repairs" in r for r in jsonl_records(store)) == 1


def test_what_the_adapter_changed_in_how_it_asks_is_told_once_each():
    # A structured-output dialect the server rejected is said on the terminal (not only kept
    # in the adapter): once, when it happens.
    inner = ScriptedModel(lambda messages, output: "fine")
    inner.dialect_notes = []  # type: ignore[attr-defined]
    told: list[str] = []
    metered = MeteredModel(inner, [], notify=told.append)

    asyncio.run(metered.complete([Message(role="user", content="hi")]))
    inner.dialect_notes.append("the server rejected json_schema (HTTP 500); now json_object")  # type: ignore[attr-defined]
    asyncio.run(metered.complete([Message(role="user", content="hi")]))
    asyncio.run(metered.complete([Message(role="user", content="hi")]))

    assert len(told) == 1 and "rejected json_schema" in told[0]
