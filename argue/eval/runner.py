"""Run the arms over the items: concurrently under one limit, resuming what is on disk.

Items run ``concurrency`` at a time (each arm of each item is one task); the provider's own
slot limit (``ARGUE_MAX_CONCURRENCY``) still caps the calls in flight. ``debate``, ``single``
and ``society`` (its N × R calls inside the one task: rounds in turn, a round's agents at once)
run first; ``vote`` runs after them, so that K can match the calls the debate arm
actually spent per item. An answered (item, arm) is never run again; an unanswered one (a
failed call, an expired batch, a missing sample or agent: ``ItemResult.unanswered``) is run
again by the next run, and only those.

``control`` (an ``EvalControl``) is asked before each (item, arm) starts, and before the vote
wave: once the whole eval's budget is reached or a stop was requested (Ctrl-C), nothing new
starts; the (item, arm) runs in flight finish and are written to ``items.jsonl``. The vote wave
does not start after such a stop (its K is fixed only from a complete debate wave).

``batching`` (a ``BatchCollector``, ``argue eval --batch``): each (item, arm) runs in a lane of
its own, its calls gathered with the other lanes' into provider batches (``argue.eval.batching``);
the caller then sets ``concurrency`` to every (item, arm) of a wave, so that a wave's calls
across all items form one batch.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from typing import TYPE_CHECKING

from argue.eval.arms import (
    ArmSettings,
    ItemResult,
    run_debate,
    run_single,
    run_society,
    run_vote,
)
from argue.eval.budget import EvalControl, TalliedModel
from argue.eval.datasets import EvalItem
from argue.eval.du_protocol import run_du
from argue.eval.folder import EvalFolder
from argue.llm.base import ChatModel

if TYPE_CHECKING:
    from argue.eval.batching import BatchCollector

RUNNERS = {
    "debate": run_debate,
    "single": run_single,
    "vote": run_vote,
    "society": run_society,
    "du": run_du,
}
DEFAULT_VOTE_SAMPLES = 5


def vote_matching(done: dict[tuple[str, str], ItemResult], samples: int | None) -> tuple[int, str]:
    """K for the vote arm and the sentence that states how it was chosen."""
    if samples is not None:
        return samples, f"vote: {samples} samples per item, as set with --samples"
    calls = [r.calls for (_, arm), r in done.items() if arm == "debate"]
    if not calls:
        return DEFAULT_VOTE_SAMPLES, (
            f"vote: {DEFAULT_VOTE_SAMPLES} samples per item (default); NOT cost-matched: "
            "no debate result to match"
        )
    mean = sum(calls) / len(calls)
    k = max(1, round(mean))
    return k, (
        f"vote: {k} samples per item, matched to the debate arm's mean of {mean:.1f} model "
        f"calls per item (over {len(calls)} debate{'' if len(calls) == 1 else 's'}): the same "
        "number of calls, not of tokens"
    )


async def run_eval(
    items: Sequence[EvalItem],
    arms: Sequence[str],
    settings: ArmSettings,
    folder: EvalFolder,
    *,
    concurrency: int,
    samples: int | None = None,
    on_done: Callable[[ItemResult | None], None] = lambda _: None,
    control: EvalControl | None = None,
    batching: BatchCollector | None = None,
) -> dict[tuple[str, str], ItemResult]:
    """Every (item, arm) not on disk yet; returns all results for these items and arms.
    ``on_done`` is called once per (item, arm), finished now (the result) or earlier (None);
    an (item, arm) not started because of ``control`` gets no call."""
    collecting: AbstractAsyncContextManager[object] = (
        batching.collecting() if batching is not None else nullcontext()
    )
    async with collecting:
        return await _run_waves(
            items, arms, settings, folder, concurrency, samples, on_done, control, batching
        )


@asynccontextmanager
async def _lane_model(
    batching: BatchCollector | None, key: tuple[str, str], model: ChatModel
) -> AsyncIterator[ChatModel]:
    """``model`` itself, or with ``--batch`` the lane whose calls go into batches."""
    if batching is None:
        yield model
        return
    async with batching.lane(key, model) as laned:
        yield laned


async def _run_waves(
    items: Sequence[EvalItem],
    arms: Sequence[str],
    settings: ArmSettings,
    folder: EvalFolder,
    concurrency: int,
    samples: int | None,
    on_done: Callable[[ItemResult | None], None],
    control: EvalControl | None,
    batching: BatchCollector | None,
) -> dict[tuple[str, str], ItemResult]:
    known = folder.results()
    # An unanswered (item, arm) is run again, and only those: the answered ones are done.
    done = {key: record for key, record in known.items() if not record.unanswered}
    gate = asyncio.Semaphore(concurrency)
    control = control or EvalControl()
    control.budget.add_records(folder.result_lines())  # a resumed eval starts from its spend

    async def one(arm: str, item: EvalItem) -> None:
        key = (item.id, arm)
        async with gate:
            if not control.may_start():
                return
            control.in_flight += 1
            try:
                async with _lane_model(batching, key, settings.model) as model:
                    tallied = TalliedModel(model, lambda usage: control.budget.add_call(key, usage))
                    result = await RUNNERS[arm](dataclasses.replace(settings, model=tallied), item)
            finally:
                control.in_flight -= 1
        folder.append_result(result)
        done[key] = result
        control.budget.add_finished(result)
        on_done(result)

    async def wave(wave_arms: Sequence[str]) -> None:
        todo = []
        for arm in wave_arms:
            for item in items:
                if (item.id, arm) in done:
                    on_done(None)
                else:
                    todo.append(one(arm, item))
        tasks = [asyncio.ensure_future(t) for t in todo]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()

    await wave([a for a in arms if a != "vote"])
    votes_left = any((item.id, "vote") not in done for item in items)
    if "vote" in arms and (not votes_left or control.may_start()):
        manifest = folder.manifest()
        if "vote_samples" not in manifest or (
            samples is not None and manifest["vote_samples"] != samples
        ):
            k, sentence = vote_matching(done, samples)
            manifest.update(vote_samples=k, vote_matching=sentence)
            folder.save_manifest(manifest)
        settings.vote_samples = int(manifest["vote_samples"])
        await wave(["vote"])
    wanted = {item.id for item in items}
    latest = {**known, **done}  # still unanswered: the last attempt's record
    return {key: r for key, r in latest.items() if key[0] in wanted and key[1] in arms}
