"""Commands on existing debates: resume, stop, interject, status, transcript, synthesize."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from argue.console import _UNSAFE, die, stdout_console

if TYPE_CHECKING:
    from argue.store import DebateStore

from argue.commands._debate import (
    DEBATES_DIR_HELP,
    _completeness,
    _debates_dir,
    _finish,
    _limits,
    _open,
    _price_table,
    _report,
    _require_price,
    _resolve,
    _run,
    _usage_summary,
    max_attempts_option,
    request_timeout_option,
    slots_option,
    structured_output_option,
)

# ------------------------------------------------------------------ resume / stop / status


def resume_command(
    debate_id: str = typer.Argument(..., help="The debate to continue."),
    provider: str | None = typer.Option(None, "--provider", help="Override the provider."),
    model: str | None = typer.Option(None, "--model", help="Override the model."),
    budget_usd: float | None = typer.Option(
        None, "--budget-usd", min=0.0, help="A new spending limit (e.g. after budget_exhausted)."
    ),
    max_tokens: int | None = typer.Option(
        None, "--max-tokens", min=1, help="A new token limit (e.g. after budget_exhausted)."
    ),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    request_timeout: float | None = request_timeout_option(),
    max_attempts: int | None = max_attempts_option(),
    slots: int | None = slots_option(),
    structured_output: str | None = structured_output_option(),
    json_output: bool = typer.Option(False, "--json", help="End with one JSON object on stdout."),
) -> None:
    """Continue a stopped or interrupted debate from its last committed step."""
    store = _open(_debates_dir(debates_dir), debate_id)
    config = store.config()
    state = store.state()
    from argue.records.labels import label
    from argue.records.terminal import word

    lang = config.language
    if state.status == "completed":
        ending = word("termination", state.termination, lang)
        _report(label("t_already_completed", lang, id=debate_id, termination=ending))
        _finish(store, state, json_output)
    if store.is_locked():
        die(f"debate {debate_id} is being run by another process (pid {state.pid})", 2)
    chat_model = _resolve(
        provider or config.provider,
        model or config.model,
        _limits(request_timeout, max_attempts, slots, structured_output),
    )
    _require_price(chat_model, budget_usd if budget_usd is not None else config.budget_usd)
    if budget_usd is not None:
        config.budget_usd = budget_usd
    if max_tokens is not None:
        config.budget_tokens = max_tokens
    if budget_usd is not None or max_tokens is not None:
        store.save_config(config)
    _report(label("t_resuming", lang, id=debate_id, n=max(store.committed_rounds(), default=0)))
    state = _run(store, chat_model, config.research_sources)
    _finish(store, state, json_output)


def stop_command(
    debate_id: str | None = typer.Argument(None, help="The debate to stop (default: all running)."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Ask running debates to finish their current batch, checkpoint and exit (status stopped)."""
    from argue.store import iter_debates

    root = _debates_dir(debates_dir)
    targets = (
        [_open(root, debate_id)] if debate_id else [s for s in iter_debates(root) if s.is_locked()]
    )
    if not targets:
        _report("No running debate to stop.")
        return
    for store in targets:
        if not store.is_locked():
            _report(
                f"{store.debate_id} is not running "
                f"(status {store.state().status}); nothing to stop."
            )
            continue
        store.request_stop()
        stdout_console.print(f"Stop requested for {store.debate_id}", markup=False)


def interject_command(
    debate_id: str = typer.Argument(..., help="The debate to address."),
    note: str = typer.Argument(..., help="A constraint that binds the next rounds."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Add a moderator note; it binds every round that starts after it."""
    if not note.strip():
        die("the note is empty", 2)
    store = _open(_debates_dir(debates_dir), debate_id)
    status = store.state().status
    if status in ("completed", "failed"):
        die(f"debate {debate_id} is {status}: no later round for the note to bind", 2)
    first, why = store.first_round_for_a_new_note()
    # Only a round still running will drain (and record) a note that no round reads.
    in_round = store.state().phase in ("research", "argument", "rebuttal", "reflection", "scoring")
    running = status == "running" and store.is_locked() and in_round
    if first is None and not running:
        die(f"debate {debate_id}: no later round for the note to bind ({why})", 2)
    store.post_note(note.strip())
    if first is None:
        # The running last round drains it at its end and records it as read by no round.
        stdout_console.print(
            f"Note recorded for {debate_id}, but no later round will read it: {why}.",
            markup=False,
        )
    else:
        stdout_console.print(
            f"Note queued for {debate_id}: {why}, so round {first} is the first round whose "
            "prompts will see it (if the debate gets that far).",
            markup=False,
        )


def _status_row(store: DebateStore, *, full: bool = True) -> dict[str, Any]:
    """One debate's row. The table (``full=False``) reads config.json, state.json and, for a
    debate marked running, the lock: a bounded read per folder, however many rounds it has.
    ``--json`` adds usage, partial and failures, which read the whole record."""
    config = store.config()
    state = store.state()
    status = state.status
    if status == "running" and not store.is_locked():
        status = "interrupted"
        state = state.model_copy(update={"status": status})
    row = {
        "id": config.id,
        "question": config.question,
        "mode": config.mode,
        "personas": config.personas,
        "status": status,
        "round": state.round,
        "max_rounds": config.max_rounds,
        "termination": state.termination,
        "updated_at": state.updated_at,
    }
    if full:
        row.update(usage=_usage_summary(store), **_completeness(store, state))
    else:
        row["language"] = config.language  # the table's words; not in --json
    return row


def status_command(
    debate_id: str | None = typer.Argument(None, help="One debate (default: all)."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
    follow: bool = typer.Option(
        False, "--follow", "-f", help="Follow one running debate (the same as: watch ID)."
    ),
) -> None:
    """Show where debates stand."""
    from argue.store import StoreError, iter_debates

    root = _debates_dir(debates_dir)
    if follow:
        from argue.commands.watch import follow_and_exit

        if not debate_id or json_output:
            die("--follow takes one debate ID and no --json", 2)
        follow_and_exit(_open(root, debate_id), interval=1.0)
    try:
        if debate_id:
            rows: Any = _status_row(_open(root, debate_id), full=json_output)
        else:
            rows = []
            for store in iter_debates(root):
                try:
                    rows.append(_status_row(store, full=json_output))
                except StoreError as exc:
                    _report(f"warning: skipped {store.debate_id}: {exc}")
    except StoreError as exc:
        die(str(exc), 1)
    if json_output:
        print(json.dumps(rows, ensure_ascii=False))
        return
    items = [rows] if isinstance(rows, dict) else rows
    if not items:
        stdout_console.print(f"No debates in {root}", markup=False)
        return
    languages = {row.get("language", "en") for row in items}
    lang = languages.pop() if len(languages) == 1 else "en"
    table = status_table(items, stdout_console.width, wrap=stdout_console.is_terminal, lang=lang)
    stdout_console.print(table, markup=False, emoji=False)


def status_table(
    rows: list[dict[str, Any]], width: int, *, wrap: bool = False, lang: str = "en"
) -> str:
    """Id, status, round and termination always whole; mode and personas only when there is
    room; the question takes what is left: in a terminal (``wrap``) it wraps onto lines of its
    own column, piped it is cut to one line (one debate a line, for grep and scripts).

    Plain lines, not a rich Table: a thousand debates render in milliseconds (a Table took
    0.4 s). Every cell comes from a debate's files, so control characters go before widths
    are measured. ``lang`` "fr": French headers, and words for status, termination and mode
    (English keeps the ids a script greps for)."""
    from rich.cells import cell_len, set_cell_size

    from argue.records.labels import label
    from argue.records.terminal import word

    def shown(kind: str, value: str | None) -> str:
        return (value or "—") if lang == "en" else word(kind, value, lang)

    names = ["id", "status", "round", "termination", "mode", "personas", "question"]
    headers = [label(f"status_h_{name}", lang) for name in names[:-1]]
    question_header = label("status_h_question", lang)
    cells = [
        [
            _cell(value)
            for value in (
                row["id"],
                shown("status", row["status"]),
                f"{row['round']}/{row['max_rounds']}",
                shown("termination", row["termination"]),
                shown("mode", row["mode"]),
                ", ".join(row["personas"].values()),
            )
        ]
        for row in rows
    ]
    widths = [max([len(h), *(cell_len(c[i]) for c in cells)]) for i, h in enumerate(headers)]
    gap = 3
    keep = 4 if sum(widths) + gap * 6 + 20 > width else 6  # mode, personas only when roomy
    used = sum(w + gap for w in widths[:keep])
    question_width = max(8, width - used)

    def line(values: list[str], question: str) -> str:
        padded = "".join(
            v + " " * (w + gap - cell_len(v))
            for v, w in zip(values, widths[: len(values)], strict=True)
        )
        return (padded + question).rstrip()

    lines = [line(headers[:keep], question_header), "─" * (used + question_width)]
    for row, values in zip(rows, cells, strict=True):
        question = _cell(row["question"])
        if wrap:
            first, *rest = _wrap_cell(question, question_width)
            lines.append(line(values[:keep], first))
            lines.extend(" " * used + more for more in rest)
            continue
        if cell_len(question) > question_width:
            question = set_cell_size(question, question_width - 1).rstrip() + "…"
        lines.append(line(values[:keep], question))
    return "\n".join(lines)


def _wrap_cell(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` cells, broken between words (a word wider than
    the column is folded); never an empty list."""
    from rich.cells import cell_len, chop_cells

    lines: list[str] = []
    current = ""
    for word in text.split():
        pieces = chop_cells(word, width) if cell_len(word) > width else [word]
        for piece in pieces:
            joined = f"{current} {piece}" if current else piece
            if cell_len(joined) <= width:
                current = joined
            else:
                lines.append(current)
                current = piece
    return [*lines, current] if current or not lines else lines


def _cell(value: object) -> str:
    return " ".join(_UNSAFE.sub("", str(value)).split())


# ------------------------------------------------------------------ transcript / synthesize


def transcript_command(
    debate_id: str = typer.Argument(..., help="The debate to show."),
    raw: bool = typer.Option(False, "--raw", help="Print the Markdown source as is."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Print a debate's transcript, re-rendered from its saved records."""
    from argue.engine import render_current_transcript

    store = _open(_debates_dir(debates_dir), debate_id)
    _print_markdown(render_current_transcript(store), raw)


def synthesize_command(
    debate_id: str = typer.Argument(..., help="The debate to synthesize."),
    provider: str | None = typer.Option(None, "--provider", help="Override the provider."),
    model: str | None = typer.Option(None, "--model", help="Override the model."),
    raw: bool = typer.Option(False, "--raw", help="Print the Markdown source as is."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """(Re)write synthesis.md; a debate that did not finish gets a synthesis labelled partial."""
    import asyncio

    from argue.engine import resynthesize
    from argue.llm import ModelError, ProviderNotConfigured, resolve_model
    from argue.store import DebateLocked

    store = _open(_debates_dir(debates_dir), debate_id)
    config = store.config()
    chat_model = None
    if not store.paths.synthesis_prose.exists():
        try:
            chat_model = resolve_model(
                provider or config.provider, model or config.model, prices=_price_table()
            )
        except ProviderNotConfigured as exc:
            _report(f"No model available ({exc}); writing the synthesis without its prose parts.")
    try:
        text = asyncio.run(resynthesize(store, chat_model, _report))
    except DebateLocked:
        die(f"debate {debate_id} is still running; stop it first or wait", 2)
    except ModelError as exc:
        die(str(exc), 1)
    _report(f"Synthesis written to {store.paths.synthesis}")
    _refresh_report(store)
    _print_markdown(text, raw)


def _refresh_report(store: DebateStore) -> None:
    """``synthesize`` rewrites report.html too; a failure is said, and the synthesis stands."""
    from argue.commands.report import write_report
    from argue.store import StoreError

    try:
        _report(f"Report written to {write_report(store)}")
    except (StoreError, OSError) as exc:
        _report(f"Report not refreshed: {exc}")


def _print_markdown(text: str, raw: bool) -> None:
    if raw or not sys.stdout.isatty():
        sys.stdout.write(text)
        return
    from rich.markdown import Markdown

    stdout_console.print(Markdown(text))
