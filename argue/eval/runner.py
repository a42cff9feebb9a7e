"""Run the arms over the items: concurrently under one limit, resuming what is on disk.

Items run ``concurrency`` at a time (each arm of each item is one task); the provider's own
slot limit (``ARGUE_MAX_CONCURRENCY``) still caps the calls in flight. ``debate`` and
``single`` run first; ``vote`` runs after them, so that K can match the calls the debate arm
actually spent per item. A finished (item, arm) is never run again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from argue.eval.arms import ArmSettings, ItemResult, run_debate, run_single, run_vote
from argue.eval.datasets import EvalItem
from argue.eval.folder import EvalFolder

RUNNERS = {"debate": run_debate, "single": run_single, "vote": run_vote}
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
        f"calls per item (over {len(calls)} debates): the same number of calls, not of tokens"
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
) -> dict[tuple[str, str], ItemResult]:
    """Every (item, arm) not on disk yet; returns all results for these items and arms.
    ``on_done`` is called once per (item, arm), finished now (the result) or earlier (None)."""
    done = folder.results()
    gate = asyncio.Semaphore(concurrency)

    async def one(arm: str, item: EvalItem) -> None:
        async with gate:
            result = await RUNNERS[arm](settings, item)
        folder.append_result(result)
        done[(item.id, arm)] = result
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
    if "vote" in arms:
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
    return {key: r for key, r in done.items() if key[0] in wanted and key[1] in arms}
