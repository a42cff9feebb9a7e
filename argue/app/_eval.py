"""``argue eval``: debate vs a single answer vs a majority vote on questions with known answers,
as an application function (the CLI draws the progress bar and prints the report)."""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from argue.app._errors import OperationError, UsageError
from argue.app._start import Request, validated
from argue.app._workspace import Reporter, Workspace, quiet

if TYPE_CHECKING:
    from argue.domain import Mode, Persona
    from argue.eval.batching import BatchPolling
    from argue.eval.datasets import Dataset, EvalItem
    from argue.eval.folder import EvalFolder
    from argue.llm import ChatModel
    from argue.llm._batch import BatchClient

DEFAULT_PERSONAS = ("embry", "horus", "brandon")
DEFAULT_ARMS = ("debate", "single", "vote")


class EvalRequest(Request):
    """What ``argue eval …`` asks for; re-running the same request resumes it."""

    dataset_file: Path | None = None
    dataset: str | None = None  # a built-in set instead of a file: "du-arithmetic", …
    ignore_unknown_fields: bool = False  # a dataset line's unknown fields: ignored, not refused
    n: int = Field(default=20, ge=1, le=100_000)
    seed: int = 0
    arms: list[str] = Field(default_factory=lambda: list(DEFAULT_ARMS))
    rounds: int = Field(default=2, ge=1, le=10)
    samples: int | None = Field(default=None, ge=1, le=200)
    # The society arm (Du et al.'s protocol): argue.eval.arms' DEFAULT_/MAX_SOCIETY_*.
    society_agents: int = Field(default=3, ge=1, le=10)
    society_rounds: int = Field(default=2, ge=1, le=10)
    # The du arm (Du et al.'s code to the letter): None is the paper's for the dataset's
    # wording (math 2 × 3, gsm 3 × 2; argue.eval.du_protocol.DEFAULT_SHAPE).
    du_agents: int | None = Field(default=None, ge=1, le=10)
    du_rounds: int | None = Field(default=None, ge=1, le=10)
    personas: list[str] = Field(default_factory=lambda: list(DEFAULT_PERSONAS))
    concurrency: int | None = Field(default=None, ge=1, le=256)
    shard: str | None = None  # "i/n"
    provider: str | None = None
    model: str | None = None
    budget_usd: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    max_tokens: int | None = Field(default=None, ge=1)
    # Independent calls through the provider's batch engine (argue.eval.batching); direct
    # calls, said so, for a provider without one.
    batch: bool = False

    @classmethod
    def build(cls, **fields: Any) -> EvalRequest:
        """A request from keyword fields; a bad value is a one-line UsageError naming it."""
        return validated(cls, fields)


class EvalOutcome(BaseModel):
    """The eval's report (``argue.eval.report.build_report`` plus how the run ended) and the
    exit code the CLI uses (0 every item answered on every arm, 1 partial: some have no answer
    — a failed call, an expired batch — and a re-run asks exactly those again, 3 stopped on
    budget, 130 interrupted)."""

    report: dict[str, Any]
    status: str
    exit_code: int


@dataclass
class EvalPlan:
    """A checked eval request: the items, arms, debaters, model and folder."""

    request: EvalRequest
    data: Dataset
    items: list[EvalItem]
    shard: tuple[int, int] | None
    arms: list[str]
    lineup: list[Persona]
    mode: Mode
    chat_model: ChatModel
    concurrency: int
    folder: EvalFolder
    # --batch: the provider's batch engine, or the line saying why direct calls are used.
    batch_client: BatchClient | None = None
    batch_note: str | None = None
    batch_polling: BatchPolling | None = None
    # The du arm: the paper's wording for this dataset and its agents × rounds.
    du_wording: str = "gsm"
    du_shape: tuple[int, int] = (3, 2)


# How often a batch is first asked after, in seconds (then less and less often).
BATCH_POLL_ENV = "ARGUE_BATCH_POLL_S"


def prepare_eval(request: EvalRequest, workspace: Workspace | None = None) -> EvalPlan:
    """Check the request and resolve its model and folder (``debates/evals/<name>``)."""
    from argue.concurrency import parse_max_concurrency
    from argue.eval.arms import ARMS, check_arms
    from argue.eval.datasets import DatasetError, parse_shard
    from argue.eval.datasets import shard as take_shard
    from argue.eval.folder import EvalFolder
    from argue.llm._batch_engines import batch_client_for
    from argue.llm._resolve import DEFAULT_MAX_CONCURRENCY

    workspace = workspace or Workspace()
    chosen = [a.strip() for a in request.arms if a.strip()]
    unknown = [a for a in chosen if a not in ARMS]
    if not chosen or unknown:
        raise UsageError(
            f"unknown arm(s) {', '.join(unknown) or '(none)'}; choose from: {', '.join(ARMS)}"
        )
    chosen = list(dict.fromkeys(chosen))
    try:
        data = _dataset(
            request.dataset_file,
            request.dataset,
            request.n,
            request.seed,
            ignore_unknown_fields=request.ignore_unknown_fields,
        )
        shard_of = parse_shard(request.shard) if request.shard else None
        check_arms(data.items, chosen)  # a judged dataset: single and society only
    except DatasetError as exc:
        raise UsageError(str(exc)) from None
    items = take_shard(data, *shard_of) if shard_of else data.items
    lineup = _lineup(request.personas)
    settings = workspace.settings
    chat_model = workspace.resolve(
        settings.provider(request.provider, workspace.env),
        settings.model(request.model, workspace.env),
    )
    workspace.require_price(chat_model, request.budget_usd)
    try:
        limit = request.concurrency or parse_max_concurrency(workspace.env, DEFAULT_MAX_CONCURRENCY)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    mode: Mode = "panel" if len(lineup) >= 3 else "adversarial"
    wording, du_shape, du_default = _du(request)
    key = _key(
        data,
        chat_model,
        lineup,
        mode,
        request.rounds,
        request.samples,
        _society(request),
        None if du_shape == du_default else du_shape,
    )
    name = f"{_safe(data.name)}_{key[:10]}" + (
        f"_shard{shard_of[0]}of{shard_of[1]}" if shard_of else ""
    )
    folder = EvalFolder(workspace.root / "evals" / name, within=workspace.root)
    batch_client: BatchClient | None = None
    batch_note: str | None = None
    polling: BatchPolling | None = None
    if request.batch:
        polling = _batch_polling(workspace.env)
        engine = batch_client_for(chat_model, workspace.env)
        if isinstance(engine, str):
            batch_note = f"`batch`: {engine}"
        else:
            batch_client = engine
            # A wave's calls across all items make one batch: every (item, arm) at once.
            limit = max(limit, len(items) * len(chosen))
    return EvalPlan(
        request=request,
        data=data,
        items=items,
        shard=shard_of,
        arms=chosen,
        lineup=lineup,
        mode=mode,
        chat_model=chat_model,
        concurrency=limit,
        folder=folder,
        batch_client=batch_client,
        batch_note=batch_note,
        batch_polling=polling,
        du_wording=wording,
        du_shape=du_shape,
    )


def _du(request: EvalRequest) -> tuple[str, tuple[int, int], tuple[int, int]]:
    """The du arm's wording for this dataset, its agents × rounds (the flags over the
    paper's), and the paper's."""
    from argue.eval.du_protocol import DEFAULT_SHAPE, wording_for

    wording = wording_for(request.dataset)
    default = DEFAULT_SHAPE[wording]
    shape = (request.du_agents or default[0], request.du_rounds or default[1])
    return wording, shape, default


def _batch_polling(env: Any) -> BatchPolling:
    from argue.eval.batching import BatchPolling

    raw = (env.get(BATCH_POLL_ENV) or "").strip()
    if not raw:
        return BatchPolling()
    try:
        first = float(raw)
    except ValueError:
        first = -1.0
    if not 0 < first <= 3600:
        raise UsageError(f"{BATCH_POLL_ENV}={raw!r}: give seconds between 0 and 3600, e.g. 5")
    return BatchPolling.starting_at(first)


def run_eval(
    plan: EvalPlan,
    *,
    reporter: Reporter = quiet,
    on_result: Callable[[Any], None] | None = None,
    command: str = "argue",
) -> EvalOutcome:
    """Run the arms over the items, resuming what the folder already holds.

    In the main thread, the first SIGINT stops new work (the items in flight finish and are
    saved) and the second cancels at once; the report covers what is done either way. One
    eval runs per folder: a second one, or a folder behind a link, is a UsageError at once."""
    from argue.eval.folder import EvalFolderError

    try:
        with plan.folder.running():
            return _run_eval(plan, reporter=reporter, on_result=on_result, command=command)
    except EvalFolderError as exc:
        raise UsageError(str(exc)) from None


def _run_eval(
    plan: EvalPlan,
    *,
    reporter: Reporter,
    on_result: Callable[[Any], None] | None,
    command: str,
) -> EvalOutcome:
    from argue.app._run import EXIT_BY_STATUS
    from argue.eval.budget import EvalBudget, EvalControl

    request, folder, data = plan.request, plan.folder, plan.data
    manifest = folder.manifest() or {
        "name": folder.root.name,
        "key": _key(
            data,
            plan.chat_model,
            plan.lineup,
            plan.mode,
            request.rounds,
            request.samples,
            _society(request),
            None if _du(request)[1] == _du(request)[2] else _du(request)[1],
        ),
        "dataset": data.name,
        "fingerprint": data.fingerprint,
        "seed": dataset_seed(request),
        "items": len(data.items),
        "provider": plan.chat_model.provider,
        "model": plan.chat_model.model,
        "personas": [p.name for p in plan.lineup],
        "mode": plan.mode,
        "rounds": request.rounds,
    }
    _check_society(manifest, request, folder.root)
    manifest.update(
        du_wording=plan.du_wording, du_agents=plan.du_shape[0], du_rounds=plan.du_shape[1]
    )
    _fence_of(manifest)
    manifest["shard"] = list(plan.shard) if plan.shard else None
    folder.save_manifest(manifest)
    at_once = (
        f"every item at once, calls sent through the {plan.batch_client.engine} a wave at a time"
        if plan.batch_client is not None
        else f"{plan.concurrency} item(s) at a time"
    )
    reporter(
        f"Eval folder: {folder.root} — {len(plan.items)} item(s) × {', '.join(plan.arms)}; "
        f"{at_once}"
    )
    if plan.batch_note is not None:
        reporter(plan.batch_note)
    control = EvalControl(EvalBudget(request.budget_usd, request.max_tokens), report=reporter)
    batching = None
    if plan.batch_client is not None:
        from argue.eval.batching import BatchCollector

        batching = BatchCollector(
            plan.batch_client, folder, report=reporter, polling=plan.batch_polling
        )
    results, seconds = _run(plan, control, reporter, on_result, command, batching)
    missing = [(i.id, a) for a in plan.arms for i in plan.items if (i.id, a) not in results]
    unanswered = [key for key, record in results.items() if record.unanswered]
    status = (
        (control.stopped or "interrupted") if missing else "partial" if unanswered else "completed"
    )
    run = _run_fields(status, missing, control)
    run["unanswered"] = _unanswered_fields(unanswered)
    batch = _batch_fields(plan, batching)
    if batch is not None:
        run["batch"] = batch
    report = eval_report(
        results.values(), [folder.manifest()], seconds, str(folder.root), run, len(plan.items)
    )
    exit_code = EVAL_EXIT.get(status, EXIT_BY_STATUS.get(status, 1))
    return EvalOutcome(report=report, status=status, exit_code=exit_code)


# An eval whose every item ran but some have no answer (failed, expired): partial, exit 1.
EVAL_EXIT = {"partial": 1}


FENCE = re.compile(r"[0-9a-f]{16}")


def _fence_of(manifest: dict[str, Any]) -> str:
    """The eval folder's fence nonce (``argue.engine.prompts.FENCE_NONCE``), drawn once and
    kept in eval.json: every per-request random part of a body is fixed per eval folder, so a
    re-run rebuilds the same requests and finds them in the batches recorded. One that is not
    16 hex digits (an edited or foreign eval.json) is drawn again."""
    import secrets

    fence = manifest.get("fence")
    if not isinstance(fence, str) or not FENCE.fullmatch(fence):
        fence = secrets.token_hex(8)
        manifest["fence"] = fence
    return fence


def _unanswered_fields(keys: list[tuple[str, str]]) -> dict[str, Any]:
    by_arm: dict[str, int] = {}
    for _, arm in keys:
        by_arm[arm] = by_arm.get(arm, 0) + 1
    return {"item_arms": len(keys), "by_arm": by_arm}


def merge_evals(folders: list[Path], out: Path | None = None) -> EvalOutcome:
    """Merge the per-item JSONL of shards (same dataset, model and debate) into one folder."""
    from argue.eval.folder import EvalFolderError

    try:
        return _merge_evals(folders, out)
    except EvalFolderError as exc:
        raise UsageError(str(exc)) from None


def _merge_evals(folders: list[Path], out: Path | None) -> EvalOutcome:
    from argue.eval.folder import EvalFolder

    shards = [EvalFolder(f) for f in folders]
    manifests = [s.manifest() for s in shards]
    for folder, manifest in zip(folders, manifests, strict=True):
        if not manifest.get("key"):
            raise UsageError(f"{folder}: not an eval folder (no eval.json)")
    if len({m["key"] for m in manifests}) > 1:
        raise UsageError(
            "these folders are not shards of one eval (dataset, model, debate or society differ)"
        )
    target = EvalFolder(out or folders[0].parent / f"{manifests[0]['key'][:10]}_merged")
    with target.running():  # two merges into one folder would write each record twice
        merged = dict(target.results())
        for shard in shards:
            for key, record in shard.results().items():
                if key not in merged or (merged[key].unanswered and not record.unanswered):
                    merged[key] = record
                    target.append_result(record)
        merged_from = [str(f) for f in folders]
        target.save_manifest({**manifests[0], "shard": None, "merged_from": merged_from})
    items = len({item for item, _ in merged})
    report = eval_report(merged.values(), manifests, None, str(target.root), None, items)
    left = sum(1 for record in merged.values() if record.unanswered)
    status = "partial" if left else "completed"
    report.update(
        status=status,
        unanswered=_unanswered_fields([key for key, record in merged.items() if record.unanswered]),
    )
    return EvalOutcome(report=report, status=status, exit_code=EVAL_EXIT.get(status, 0))


def eval_report(
    results: Any,
    manifests: list[dict[str, Any]],
    seconds: float | None,
    where: str,
    run: dict[str, Any] | None = None,
    items: int | None = None,
) -> dict[str, Any]:
    from argue.eval.report import build_report

    report = build_report(results, manifests, items)
    report["folder"] = where
    report.update(run or {})
    if seconds is not None:
        report["run_seconds"] = round(seconds, 3)
    return report


# ------------------------------------------------------------------ helpers


BUILTIN_DATASETS = ("du-arithmetic", "mixed-arithmetic")


def dataset_seed(request: EvalRequest) -> int | None:
    """The seed the items were drawn with: --seed for mixed-arithmetic, the paper's 0 for
    du-arithmetic, None for a dataset file (its items are what they are)."""
    from argue.eval.datasets import DU_SEED

    if request.dataset == "du-arithmetic":
        return DU_SEED
    if request.dataset == "mixed-arithmetic":
        return request.seed
    return None


def _dataset(
    path: Path | None,
    builtin: str | None,
    n: int,
    seed: int,
    *,
    ignore_unknown_fields: bool = False,
) -> Dataset:
    """The items. ``du-arithmetic`` is the paper's fixed set: a --seed or --n (other than the
    default or 100) is refused rather than silently ignored; ``--shard`` runs part of it."""
    from argue.eval.datasets import (
        DU_ITEMS,
        DU_SEED,
        DatasetError,
        du_arithmetic,
        load_jsonl,
        mixed_arithmetic,
    )

    available = ", ".join(BUILTIN_DATASETS)
    if path is not None and builtin is not None:
        raise DatasetError("give a `dataset_file` or a `dataset`, not both")
    if builtin == "du-arithmetic":
        if seed != DU_SEED or n not in (EvalRequest.model_fields["n"].default, DU_ITEMS):
            raise DatasetError(
                "`dataset` du-arithmetic is Du et al.'s fixed 100 problems (seed 0): `n` and "
                "`seed` do not apply (`shard` i/n runs part of it; `dataset` mixed-arithmetic "
                "takes `n` and `seed`)"
            )
        return du_arithmetic()
    if builtin == "mixed-arithmetic":
        return mixed_arithmetic(n, seed)
    if builtin == "arithmetic":
        raise DatasetError(
            "`dataset` arithmetic was split in two: `dataset` mixed-arithmetic is the same "
            "random-operator set (an eval started as arithmetic resumes under it); "
            "`dataset` du-arithmetic is Du et al.'s own 100 problems"
        )
    if builtin is not None:
        raise DatasetError(f"unknown built-in dataset {builtin!r}; available: {available}")
    if path is None:
        raise DatasetError(f"give a `dataset_file` (JSONL) or a `dataset` ({available})")
    return load_jsonl(path, ignore_unknown_fields=ignore_unknown_fields)


def _lineup(names: list[str]) -> list[Persona]:
    from argue.engine import ModeError, seat_lineup
    from argue.personas import PersonaFileError, UnknownPersonaError, load_catalog

    named = [n.strip() for n in names if n.strip()]
    if len(named) < 2:
        raise UsageError("`personas` needs at least two names, e.g. embry,horus")
    mode: Mode = "panel" if len(named) >= 3 else "adversarial"
    try:
        return seat_lineup(mode, named, "", load_catalog()).personas
    except (ModeError, UnknownPersonaError, PersonaFileError) as exc:
        raise UsageError(str(exc)) from None


def _key(
    data: Dataset,
    chat_model: ChatModel,
    lineup: list[Persona],
    mode: str,
    rounds: int,
    samples: int | None,
    society: tuple[int, int] = (3, 2),
    du_shape: tuple[int, int] | None = None,
) -> str:
    what: list[Any] = [
        data.fingerprint,
        chat_model.provider,
        chat_model.model,
        [p.name for p in lineup],
        mode,
        rounds,
        samples,
    ]
    if society != (3, 2):  # the default keeps the key (and folder) evals had before the arm
        what.append(list(society))
    if du_shape is not None:  # the paper's shape keeps the key evals had before the du arm
        what.append(["du", *du_shape])
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()


def _society(request: EvalRequest) -> tuple[int, int]:
    return request.society_agents, request.society_rounds


def _check_society(manifest: dict[str, Any], request: EvalRequest, root: Path) -> None:
    """Record the society arm's N × R in eval.json; a folder that recorded others is refused
    (its society results were made with them: the key, hence the folder, differs per N × R)."""
    recorded = (manifest.get("society_agents"), manifest.get("society_rounds"))
    if recorded == (None, None):  # a new manifest, or one written before the society arm
        manifest.update(society_agents=request.society_agents)
        manifest.update(society_rounds=request.society_rounds)
    elif recorded != _society(request):
        raise UsageError(
            f"{root}: this eval's society arm runs {recorded[0]} agents × {recorded[1]} rounds, "
            f"not {request.society_agents} × {request.society_rounds}: re-run with "
            f"`society_agents` {recorded[0]} `society_rounds` {recorded[1]}, or use another "
            "eval folder"
        )


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:40].lstrip(".") or "dataset"


def _run(
    plan: EvalPlan,
    control: Any,
    reporter: Reporter,
    on_result: Callable[[Any], None] | None,
    command: str,
    batching: Any = None,
) -> tuple[dict[Any, Any], float | None]:
    """The results for these items and arms, and the wall time (None when cancelled)."""
    import asyncio
    import signal

    from argue.eval.arms import ArmSettings
    from argue.eval.runner import run_eval as run_items
    from argue.llm import ModelAuthError

    request, folder, chat_model = plan.request, plan.folder, plan.chat_model
    settings = ArmSettings(
        model=chat_model,
        debates_dir=folder.debates,
        personas=plan.lineup,
        mode=plan.mode,
        rounds=request.rounds,
        society_agents=request.society_agents,
        society_rounds=request.society_rounds,
        du_wording=plan.du_wording,  # type: ignore[arg-type]
        du_agents=plan.du_shape[0],
        du_rounds=plan.du_shape[1],
        record_usage=folder.append_usage,
    )
    in_main_thread = threading.current_thread() is threading.main_thread()

    async def main() -> Any:
        from argue.engine.prompts import FENCE_NONCE

        FENCE_NONCE.set(_fence_of(folder.manifest()))  # this task's and its children's
        loop = asyncio.get_running_loop()
        current = asyncio.current_task()
        presses = 0

        def on_sigint() -> None:
            nonlocal presses
            presses += 1
            if presses == 1:
                control.request_stop()
                if batching is not None:
                    reporter(
                        f"Ctrl-C: no new item starts; the {control.in_flight} in flight wait "
                        "for their batches (Ctrl-C again: stop at once; the batches submitted "
                        "are recorded in batches.jsonl and the same command re-attaches to "
                        "them)."
                    )
                else:
                    reporter(
                        f"Ctrl-C: no new item starts; the {control.in_flight} in flight "
                        "finish and are saved, then the eval stops (Ctrl-C again: at once). "
                        "Re-run the same command to resume."
                    )
            elif current is not None:
                current.cancel()

        if in_main_thread:
            loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            return await run_items(
                plan.items,
                plan.arms,
                settings,
                folder,
                concurrency=plan.concurrency,
                samples=request.samples,
                # None (the library default) is no callable: run_items always calls on_done
                on_done=on_result if on_result is not None else (lambda _: None),
                control=control,
                batching=batching,
            )
        finally:
            if in_main_thread:
                loop.remove_signal_handler(signal.SIGINT)
            close = getattr(chat_model, "aclose", None)
            if close is not None:
                await close()

    started = time.monotonic()
    try:
        results = asyncio.run(main())
    except ModelAuthError as exc:
        raise OperationError(f"{exc} — check the provider's API key") from None
    except (asyncio.CancelledError, KeyboardInterrupt):
        reporter(
            "Stopped at once: calls in flight were dropped, finished items are saved. Re-run "
            f"the same command to resume ({command} eval …)."
        )
        control.request_stop()
        wanted = {item.id for item in plan.items}
        done = folder.results()
        return {k: r for k, r in done.items() if k[0] in wanted and k[1] in plan.arms}, None
    return results, time.monotonic() - started


def _batch_fields(plan: EvalPlan, batching: Any) -> dict[str, Any] | None:
    """What ``--batch`` did: the engine, its price, every batch of the eval (ids, requests,
    how they ended) and this run's share; or the line saying direct calls were used."""
    if not plan.request.batch:
        return None
    if batching is None:
        return {"engine": None, "note": plan.batch_note}
    fields: dict[str, Any] = batching.summary()
    return fields


def _run_fields(status: str, missing: list[tuple[str, str]], control: Any) -> dict[str, Any]:
    """How the run ended, what the whole eval spent against its budget, what was not run."""
    by_arm: dict[str, int] = {}
    for _, arm in missing:
        by_arm[arm] = by_arm.get(arm, 0) + 1
    return {
        "status": status,
        **control.budget.summary(),
        "not_run": {
            "items": len({item for item, _ in missing}),
            "item_arms": len(missing),
            "by_arm": by_arm,
        },
    }
