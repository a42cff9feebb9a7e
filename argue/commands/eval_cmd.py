"""``argue eval``: debate vs a single answer vs a majority vote, on questions with known answers.

``argue eval DATASET …`` (the default ``run`` command) and ``argue eval merge FOLDER…``.
Everything heavy is imported inside the commands: ``argue --help`` stays instant.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperGroup

from argue.console import die

if TYPE_CHECKING:
    from argue.eval.datasets import Dataset


class _RunByDefault(TyperGroup):
    """``argue eval X …`` means ``argue eval run X …`` unless X is a sub-command or --help."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


EXIT_CODES = """\b
Exit codes of argue eval DATASET (argue eval run --help for its options):
  0    every item ran on every arm
  1    failed (e.g. the provider refused the API key)
  2    usage error (bad dataset line, unknown arm, --budget-usd on an unpriced model)
  3    stopped on budget (--budget-usd / --max-tokens cover the whole eval), like a debate
       stopped on budget; re-run with a larger budget to resume
  130  interrupted (Ctrl-C: in-flight items finish and are saved; twice: at once);
       re-run the same command to resume
"""

eval_app = typer.Typer(
    cls=_RunByDefault,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    help="Does debating pay off? Debate vs a single answer vs a cost-matched majority vote on "
    "questions with known answers: argue eval qa.jsonl, or argue eval --dataset arithmetic.",
    epilog=EXIT_CODES,
)

DEFAULT_PERSONAS = "embry,horus,brandon"


@eval_app.command("run", epilog=EXIT_CODES)
def eval_command(
    dataset_file: Path | None = typer.Argument(
        None,
        help='JSONL, one {"question", "answer"} per line (optional "id", "choices").',
        show_default=False,
    ),
    dataset: str | None = typer.Option(
        None, "--dataset", help="A built-in dataset instead of a file: arithmetic."
    ),
    n: int = typer.Option(20, "--n", min=1, max=100_000, help="Built-in dataset: items."),
    seed: int = typer.Option(0, "--seed", help="Built-in dataset: random seed."),
    arms: str = typer.Option("debate,single,vote", "--arms", help="Arms to run, comma-separated."),
    rounds: int = typer.Option(2, "--rounds", min=1, max=10, help="Debate rounds."),
    samples: int | None = typer.Option(
        None,
        "--samples",
        min=1,
        max=200,
        help="Vote samples per item (default: the debate arm's mean calls per item).",
    ),
    personas: str = typer.Option(
        DEFAULT_PERSONAS,
        "--personas",
        help="Debaters, comma-separated (3+: panel, 2: adversarial).",
    ),
    concurrency: int | None = typer.Option(
        None,
        "--concurrency",
        min=1,
        max=256,
        help="Items in flight (default $ARGUE_MAX_CONCURRENCY, else 4).",
    ),
    shard: str | None = typer.Option(
        None, "--shard", help="i/n: run only shard i of n (merge with argue eval merge)."
    ),
    provider: str | None = typer.Option(None, "--provider", help="Provider (default: auto)."),
    model: str | None = typer.Option(None, "--model", help="Model name for the provider."),
    debates_dir: Path | None = typer.Option(
        None, "--debates-dir", help="Where debates live; the eval folder goes under evals/."
    ),
    budget_usd: float | None = typer.Option(
        None,
        "--budget-usd",
        min=0.0,
        help="For the whole eval (all items and arms, earlier runs included): no new item "
        "starts once this much has been spent; the ones in flight finish. Needs a priced model.",
    ),
    max_tokens: int | None = typer.Option(
        None,
        "--max-tokens",
        min=1,
        help="For the whole eval: no new item starts once the calls have used this many tokens "
        "(input + output); the ones in flight finish.",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON report on stdout."),
) -> None:
    """Run the arms over the dataset; re-running the same command resumes.

    Ctrl-C: no new item starts, the ones in flight finish and are saved (Ctrl-C again stops
    at once). The report then covers what is done and says what was not run.
    """
    import os

    from argue.eval.arms import ARMS
    from argue.eval.datasets import DatasetError, parse_shard
    from argue.eval.datasets import shard as take_shard

    chosen = [a.strip() for a in arms.split(",") if a.strip()]
    unknown = [a for a in chosen if a not in ARMS]
    if not chosen or unknown:
        die(f"unknown arm(s) {', '.join(unknown) or '(none)'}; choose from: {', '.join(ARMS)}")
    chosen = list(dict.fromkeys(chosen))
    try:
        data = _dataset(dataset_file, dataset, n, seed)
        shard_of = parse_shard(shard) if shard else None
    except DatasetError as exc:
        die(str(exc), 2)
    items = take_shard(data, *shard_of) if shard_of else data.items
    lineup = _personas(personas)
    from argue.commands._debate import _report, _require_price, _resolve, _settings

    settings = _settings()
    chat_model = _resolve(
        settings.provider(provider, os.environ), settings.model(model, os.environ)
    )
    _require_price(chat_model, budget_usd)
    limit = concurrency or _default_concurrency()
    mode = "panel" if len(lineup) >= 3 else "adversarial"
    key = _key(data, chat_model, lineup, mode, rounds, samples)
    name = f"{_safe(data.name)}_{key[:10]}" + (
        f"_shard{shard_of[0]}of{shard_of[1]}" if shard_of else ""
    )
    from argue.eval.folder import EvalFolder

    folder = EvalFolder(settings.debates_dir(debates_dir, os.environ) / "evals" / name)
    manifest = folder.manifest() or {
        "name": name,
        "key": key,
        "dataset": data.name,
        "fingerprint": data.fingerprint,
        "items": len(data.items),
        "provider": chat_model.provider,
        "model": chat_model.model,
        "personas": [p.name for p in lineup],
        "mode": mode,
        "rounds": rounds,
    }
    manifest["shard"] = list(shard_of) if shard_of else None
    folder.save_manifest(manifest)
    _report(
        f"Eval folder: {folder.root} — {len(items)} item(s) × {', '.join(chosen)}; "
        f"{limit} item(s) at a time"
    )
    from argue.app import EXIT_BY_STATUS
    from argue.eval.budget import EvalBudget, EvalControl

    control = EvalControl(EvalBudget(budget_usd, max_tokens), report=_report)
    results, seconds = _run(
        items, chosen, chat_model, lineup, mode, rounds, samples, limit, folder, control
    )
    missing = [(i.id, a) for a in chosen for i in items if (i.id, a) not in results]
    status = (control.stopped or "interrupted") if missing else "completed"
    run = _run_fields(status, missing, control)
    _show(results.values(), [folder.manifest()], json_output, seconds, str(folder.root), run)
    if status != "completed":
        raise typer.Exit(EXIT_BY_STATUS[status])


@eval_app.command("merge")
def merge_command(
    folders: list[Path] = typer.Argument(..., help="Eval folders of the shards to merge."),
    out: Path | None = typer.Option(None, "--out", help="Merged folder (default: beside)."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON report on stdout."),
) -> None:
    """Merge the per-item JSONL of shards (same dataset, model and debate) and report."""
    from argue.eval.folder import EvalFolder

    shards = [EvalFolder(f) for f in folders]
    manifests = [s.manifest() for s in shards]
    for folder, manifest in zip(folders, manifests, strict=True):
        if not manifest.get("key"):
            die(f"{folder}: not an eval folder (no eval.json)", 2)
    if len({m["key"] for m in manifests}) > 1:
        die("these folders are not shards of one eval (dataset, model or debate differ)", 2)
    target = EvalFolder(out or folders[0].parent / f"{manifests[0]['key'][:10]}_merged")
    merged = dict(target.results())
    for shard in shards:
        for key, record in shard.results().items():
            if key not in merged:
                merged[key] = record
                target.append_result(record)
    target.save_manifest({**manifests[0], "shard": None, "merged_from": [str(f) for f in folders]})
    _show(merged.values(), manifests, json_output, None, str(target.root))


# ------------------------------------------------------------------ helpers


def _dataset(path: Path | None, builtin: str | None, n: int, seed: int) -> Dataset:
    from argue.eval.datasets import DatasetError, arithmetic, load_jsonl

    if path is not None and builtin is not None:
        raise DatasetError("give a DATASET file or --dataset, not both")
    if builtin is not None:
        if builtin != "arithmetic":
            raise DatasetError(f"unknown built-in dataset {builtin!r}; available: arithmetic")
        return arithmetic(n, seed)
    if path is None:
        raise DatasetError("give a DATASET file (JSONL) or --dataset arithmetic")
    return load_jsonl(path)


def _personas(names: str) -> list[Any]:
    from argue.engine import ModeError, seat_lineup
    from argue.personas import PersonaFileError, UnknownPersonaError, load_catalog

    named = [n.strip() for n in names.split(",") if n.strip()]
    if len(named) < 2:
        die("--personas needs at least two names, e.g. embry,horus", 2)
    mode = "panel" if len(named) >= 3 else "adversarial"
    try:
        return seat_lineup(mode, named, "", load_catalog()).personas
    except (ModeError, UnknownPersonaError, PersonaFileError) as exc:
        die(str(exc), 2)


def _default_concurrency() -> int:
    import os

    from argue.concurrency import parse_max_concurrency
    from argue.llm._resolve import DEFAULT_MAX_CONCURRENCY

    try:
        return parse_max_concurrency(os.environ, DEFAULT_MAX_CONCURRENCY)
    except ValueError as error:
        die(str(error), 2)


def _key(
    data: Dataset, chat_model: Any, lineup: list[Any], mode: str, rounds: int, samples: int | None
) -> str:
    import hashlib

    what = [
        data.fingerprint,
        chat_model.provider,
        chat_model.model,
        [p.name for p in lineup],
        mode,
        rounds,
        samples,
    ]
    return hashlib.sha256(json.dumps(what).encode()).hexdigest()


def _safe(name: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:40].lstrip(".") or "dataset"


def _run(
    items: list[Any],
    arms: list[str],
    chat_model: Any,
    lineup: list[Any],
    mode: str,
    rounds: int,
    samples: int | None,
    limit: int,
    folder: Any,
    control: Any,
) -> tuple[dict[Any, Any], float | None]:
    """The results for these items and arms, and the wall time. First Ctrl-C: ``control``
    stops new work and the run returns once the in-flight items are saved. Second Ctrl-C:
    cancelled at once; the results are those on disk (no wall time)."""
    import asyncio
    import signal
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from argue.commands._debate import _report, command_name
    from argue.console import stderr_console
    from argue.eval.arms import ArmSettings
    from argue.eval.runner import run_eval
    from argue.llm import ModelAuthError

    settings = ArmSettings(
        model=chat_model,
        debates_dir=folder.debates,
        personas=lineup,
        mode=mode,
        rounds=rounds,
        record_usage=folder.append_usage,
    )
    progress = Progress(
        TextColumn("eval"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=stderr_console,
        transient=True,
        disable=not stderr_console.is_terminal,
    )
    task = progress.add_task("", total=len(items) * len(arms))

    def advance(result: Any) -> None:
        label = (
            f"{result.arm} {result.item}: {'right' if result.correct else 'wrong'}"
            if result
            else "resumed"
        )
        progress.update(task, advance=1, description=label)

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        current = asyncio.current_task()
        presses = 0

        def on_sigint() -> None:
            nonlocal presses
            presses += 1
            if presses == 1:
                control.request_stop()
                _report(
                    f"Ctrl-C: no new item starts; the {control.in_flight} in flight finish and "
                    "are saved, then the eval stops (Ctrl-C again: at once). Re-run the same "
                    "command to resume."
                )
            elif current is not None:
                current.cancel()

        loop.add_signal_handler(signal.SIGINT, on_sigint)
        try:
            return await run_eval(
                items,
                arms,
                settings,
                folder,
                concurrency=limit,
                samples=samples,
                on_done=advance,
                control=control,
            )
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            close = getattr(chat_model, "aclose", None)
            if close is not None:
                await close()

    started = time.monotonic()
    try:
        with progress:
            results = asyncio.run(main())
    except ModelAuthError as exc:
        die(f"{exc} — check the provider's API key", 1)
    except (asyncio.CancelledError, KeyboardInterrupt):
        _report(
            "Stopped at once: calls in flight were dropped, finished items are saved. Re-run "
            f"the same command to resume ({command_name()} eval …)."
        )
        control.request_stop()
        wanted = {item.id for item in items}
        done = folder.results()
        return {k: r for k, r in done.items() if k[0] in wanted and k[1] in arms}, None
    return results, time.monotonic() - started


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


def _show(
    results: Any,
    manifests: list[dict[str, Any]],
    json_output: bool,
    seconds: float | None,
    where: str,
    run: dict[str, Any] | None = None,
) -> None:
    from argue.commands._output import echo_json
    from argue.eval.report import build_report, print_report

    report = build_report(results, manifests)
    report["folder"] = where
    report.update(run or {})
    if seconds is not None:
        report["run_seconds"] = round(seconds, 3)
    if json_output:
        echo_json(report)
    else:
        print_report(report)
