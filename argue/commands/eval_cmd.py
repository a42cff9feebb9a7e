"""``argue eval``: debate vs a single answer vs a majority vote, on questions with known answers.

``argue eval DATASET …`` (the default ``run`` command) and ``argue eval merge FOLDER…``.
Everything heavy is imported inside the commands: ``argue --help`` stays instant.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup


class _RunByDefault(TyperGroup):
    """``argue eval X …`` means ``argue eval run X …`` unless X is a sub-command or --help."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


EXIT_CODES = """\b
Exit codes of argue eval DATASET (argue eval run --help for its options):
  0    every item ran and was answered on every arm
  1    failed (e.g. the provider refused the API key), or partial: some items have no
       answer (a failed call, an expired batch; left out of accuracy); re-run the same
       command to ask exactly those again
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
    "questions with known answers: argue eval qa.jsonl, or argue eval --dataset du-arithmetic.",
    epilog=EXIT_CODES,
)

DEFAULT_PERSONAS = "embry,horus,brandon"  # argue.app.EvalRequest's default, as the flag shows it


@eval_app.command("run", epilog=EXIT_CODES)
def eval_command(
    dataset_file: Path | None = typer.Argument(
        None,
        help='JSONL, one {"question", "answer"} per line (optional "id", "choices").',
        show_default=False,
    ),
    dataset: str | None = typer.Option(
        None,
        "--dataset",
        help="A built-in dataset instead of a file: du-arithmetic (Du et al.'s own 100 "
        "problems, a+b*c+d-e*f, fixed: no --n or --seed) or mixed-arithmetic (argue's "
        "random-operator set, --n items from --seed; formerly 'arithmetic').",
    ),
    ignore_unknown_fields: bool = typer.Option(
        False,
        "--ignore-unknown-fields",
        help="Ignore dataset fields other than id, question, answer, choices, answer_type, "
        "facts (default: "
        "refused, naming the line and field).",
    ),
    n: int = typer.Option(20, "--n", help="Built-in dataset: items."),
    seed: int = typer.Option(0, "--seed", help="Built-in dataset: random seed."),
    arms: str = typer.Option(
        "debate,single,vote",
        "--arms",
        help="Arms to run, comma-separated: debate, single, vote, society (argue's structured "
        "take on Du et al.'s multiagent debate: N identical agents see each other's answers "
        "for R rounds, then vote), du (Du et al.'s code to the letter: the paper's prompts, "
        "free text, its parser and majority; number items).",
    ),
    rounds: int = typer.Option(2, "--rounds", help="Debate rounds."),
    samples: int | None = typer.Option(
        None,
        "--samples",
        help="Vote samples per item (default: the debate arm's mean calls per item).",
    ),
    society_agents: int = typer.Option(3, "--society-agents", help="Society arm: agents (N)."),
    society_rounds: int = typer.Option(
        2,
        "--society-rounds",
        help="Society arm: rounds (R); N × R calls per item.",
    ),
    du_agents: int | None = typer.Option(
        None,
        "--du-agents",
        help="du arm: agents (default the paper's: 2 on arithmetic, 3 on GSM-style items).",
    ),
    du_rounds: int | None = typer.Option(
        None,
        "--du-rounds",
        help="du arm: rounds (default the paper's: 3 on arithmetic, 2 on GSM-style items).",
    ),
    personas: str = typer.Option(
        DEFAULT_PERSONAS,
        "--personas",
        help="Debaters, comma-separated (3+: panel, 2: adversarial).",
    ),
    concurrency: int | None = typer.Option(
        None,
        "--concurrency",
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
        help="For the whole eval (all items and arms, earlier runs included): no new item "
        "starts once this much has been spent; the ones in flight finish. Needs a priced model.",
    ),
    max_tokens: int | None = typer.Option(
        None,
        "--max-tokens",
        help="For the whole eval: no new item starts once the calls have used this many tokens "
        "(input + output); the ones in flight finish.",
    ),
    batch: bool = typer.Option(
        False,
        "--batch",
        help="Send the calls through the provider's batch engine (OpenAI's Batch API, "
        "Anthropic's Message Batches): every item at once, one batch per wave, at the batch "
        "price (half); slower (up to 24 h). Batch ids are kept in the eval folder: re-running "
        "re-attaches. Other providers: direct calls, said so.",
    ),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON report on stdout."),
) -> None:
    """Run the arms over the dataset; re-running the same command resumes.

    Ctrl-C: no new item starts, the ones in flight finish and are saved (Ctrl-C again stops
    at once). The report then covers what is done and says what was not run.
    """
    from argue import app
    from argue.commands._debate import _report, app_errors, command_name, workspace

    with app_errors():
        request = app.EvalRequest.build(
            dataset_file=dataset_file,
            dataset=dataset,
            ignore_unknown_fields=ignore_unknown_fields,
            n=n,
            seed=seed,
            arms=arms.split(","),
            rounds=rounds,
            samples=samples,
            society_agents=society_agents,
            society_rounds=society_rounds,
            du_agents=du_agents,
            du_rounds=du_rounds,
            personas=personas.split(","),
            concurrency=concurrency,
            shard=shard,
            provider=provider,
            model=model,
            budget_usd=budget_usd,
            max_tokens=max_tokens,
            batch=batch,
        )
        plan = app.prepare_eval(request, workspace(debates_dir))
        with _progress(len(plan.items) * len(plan.arms)) as advance:
            outcome = app.run_eval(
                plan, reporter=_report, on_result=advance, command=command_name()
            )
    _show(outcome.report, json_output)
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)


@eval_app.command("merge")
def merge_command(
    folders: list[Path] = typer.Argument(..., help="Eval folders of the shards to merge."),
    out: Path | None = typer.Option(None, "--out", help="Merged folder (default: beside)."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON report on stdout."),
) -> None:
    """Merge the per-item JSONL of shards (same dataset, model and debate) and report."""
    from argue import app
    from argue.commands._debate import app_errors

    with app_errors():
        outcome = app.merge_evals(folders, out)
    _show(outcome.report, json_output)


# ------------------------------------------------------------------ helpers


@contextmanager
def _progress(total: int) -> Iterator[Callable[[Any], None]]:
    """A progress bar on stderr (a terminal only); yields what advances it by one result."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from argue.console import stderr_console

    progress = Progress(
        TextColumn("eval"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.description}"),
        console=stderr_console,
        transient=True,
        disable=not stderr_console.is_terminal,
    )
    task = progress.add_task("", total=total)

    def advance(result: Any) -> None:
        verdict = "unanswered" if result and result.unanswered else None
        label = (
            f"{result.arm} {result.item}: {verdict or ('right' if result.correct else 'wrong')}"
            if result
            else "resumed"
        )
        progress.update(task, advance=1, description=label)

    with progress:
        yield advance


def _show(report: dict[str, Any], json_output: bool) -> None:
    from argue.commands._output import echo_json

    if json_output:
        echo_json(report)
    else:
        print_report(report)


def print_report(report: dict[str, Any]) -> None:
    """The eval report as a table and its verdict lines, on stdout."""
    from rich.table import Table

    from argue.app import judged_lines, run_lines, table_caption
    from argue.console import stdout_console

    table = Table(
        title=f"argue eval — {report['dataset']} — {report['model']}",
        caption=table_caption(report),
    )
    columns = ("arm", "answered", "accuracy", "95 % CI", "paper", "calls", "tokens", "cost", "time")
    for column in columns:
        table.add_column(column, justify="left" if column == "arm" else "right", no_wrap=True)
    for arm, s in report["arms"].items():
        accuracy = f"{s['accuracy']:.1%}" if s["accuracy"] is not None else "-"
        interval = f"{s['ci95'][0]:.0%}–{s['ci95'][1]:.0%}" if s.get("ci95") else "-"
        answered = f"{s.get('answered', s['n'])} of {s.get('items', s['n'])}"
        paper = s.get("paper") or {}
        paper_cell = (
            f"{paper['accuracy']:.1%} of {paper['n']}" if paper.get("accuracy") is not None else "-"
        )
        if s["mean_cost_usd"] is not None:
            cost = f"${s['mean_cost_usd']:.4f}"
        elif s["mean_cost_usd_at_least"] > 0:
            cost = f"≥${s['mean_cost_usd_at_least']:.4f}"
        else:
            cost = "unknown"
        table.add_row(
            arm,
            answered,
            accuracy,
            interval,
            paper_cell,
            f"{s['mean_calls']:.1f}",
            f"{s['mean_tokens']:.0f}",
            cost,
            f"{s['wall_time_s']:.1f} s",
        )
    stdout_console.print(table)
    for line in report["vote_matching"]:
        stdout_console.print(line, markup=False)
    for comparison in report["comparisons"]:
        stdout_console.print(comparison["verdict"], markup=False)
    for line in judged_lines(report):
        stdout_console.print(line, markup=False, highlight=False)
    for line in run_lines(report):
        stdout_console.print(line, markup=False, highlight=False)
    line = batch_line(report.get("batch"))
    if line:
        stdout_console.print(line, markup=False, highlight=False)


def batch_line(batch: dict[str, Any] | None) -> str | None:
    """What --batch did, in one line: the batches, the calls they answered, the price."""
    if not batch:
        return None
    if batch.get("engine") is None:
        return str(batch.get("note") or "--batch: direct calls were used")
    run = batch.get("this_run") or {}
    refused = run.get("refused") or []
    return (
        f"batch: this run sent {run.get('requests_submitted', 0)} request(s) in "
        f"{len(run.get('created') or [])} new batch(es) and re-attached "
        f"{run.get('requests_reattached', 0)} to {len(run.get('reattached') or [])} earlier "
        f"one(s) on the {batch['engine']}; {batch['answered']} of its {batch['requests']} "
        f"request(s) answered, priced at {batch['price']}"
        + (f"; refused {len(refused)} recorded batch(es) not this eval's" if refused else "")
    )
