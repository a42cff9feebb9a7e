"""The command line: parse, call the engine, print. No debate logic lives here.

Exit codes: 0 completed, 1 failed, 2 usage error, 3 stopped or paused (resumable),
130 interrupted by Ctrl-C.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from argue.commands.library import library_app
from argue.commands.memory import memory_app
from argue.commands.personas import personas_app
from argue.commands.research import research_command
from argue.commands.taxonomy import taxonomy_command
from argue.console import die, stderr_console, stdout_console

if TYPE_CHECKING:
    from argue.config import Settings
    from argue.domain import DebateState, Persona
    from argue.llm import ChatModel, PriceTable
    from argue.personas import PersonaCatalog
    from argue.store import DebateStore

EXIT_BY_STATUS = {
    "completed": 0,
    "failed": 1,
    "stopped": 3,
    "budget_exhausted": 3,
    "interrupted": 130,
    "running": 1,
}

app = typer.Typer(
    name="argue",
    help="Structured debates between LLM personas that end in a nuanced synthesis, not a winner.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
    rich_markup_mode=None,
)
DEBATES_DIR_HELP = "Where debates are written (default: $ARGUE_DEBATES_DIR or ./debates)."


def _settings() -> Settings:
    from argue.config import ConfigError, load_settings

    try:
        return load_settings()
    except ConfigError as exc:
        die(str(exc), 2)


def _debates_dir(option: Path | None) -> Path:
    import os

    return _settings().debates_dir(option, os.environ)


def _open(debates_dir: Path, debate_id: str) -> DebateStore:
    from argue.store import DebateStore, StoreError

    try:
        return DebateStore.open(debates_dir, debate_id)
    except StoreError as exc:
        die(str(exc), 2)


def _report(message: str) -> None:
    stderr_console.print(message, markup=False, highlight=False)


# ------------------------------------------------------------------ argue


@app.command("argue")
def argue_command(
    question: str = typer.Argument(..., help="The question to debate."),
    persona_a: str | None = typer.Option(None, "--persona-a", help="First persona (adversarial)."),
    persona_b: str | None = typer.Option(None, "--persona-b", help="Second persona."),
    personas: str | None = typer.Option(
        None, "--personas", help="Comma-separated personas, e.g. embry,horus,brandon (panel: 3+)."
    ),
    rounds: int | None = typer.Option(
        None, "--rounds", min=1, max=50, help="Maximum number of rounds (default 3)."
    ),
    mode: str | None = typer.Option(
        None, "--mode", help="adversarial (default) | panel | socratic | devils-advocate."
    ),
    questioner: str | None = typer.Option(None, "--questioner", help="Socratic mode: who asks."),
    defender: str | None = typer.Option(None, "--defender", help="Socratic mode: who defends."),
    advocate: str | None = typer.Option(
        None, "--advocate", help="Devil's advocate mode: who argues against its own view."
    ),
    provider: str | None = typer.Option(
        None, "--provider", help="anthropic | openai | ollama | local (default: auto-detect)."
    ),
    model: str | None = typer.Option(None, "--model", help="Model name for the provider."),
    sources: str | None = typer.Option(
        None,
        "--sources",
        help="Research sources for dogpile (default: $ARGUE_RESEARCH_SOURCES or all): "
        "arxiv,github,brave,perplexity,youtube,library.",
    ),
    budget_usd: float | None = typer.Option(
        None, "--budget-usd", min=0.0, help="Stop (resumable) once this much has been spent."
    ),
    max_tokens: int | None = typer.Option(
        None,
        "--max-tokens",
        min=1,
        help="Stop (resumable) once the calls have used this many tokens (input + output, "
        "any model).",
    ),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    interactive: bool = typer.Option(
        False, "--interactive", help="After each round, ask for a moderator note on stdin."
    ),
    json_output: bool = typer.Option(False, "--json", help="End with one JSON object on stdout."),
) -> None:
    """Start a debate and run it to its synthesis.

    Defaults come from $ARGUE_HOME/config.toml ([defaults]) when a flag is not given.
    """
    import os

    from argue.engine import ModeError, create_debate

    settings = _settings()
    mode_name = _check_mode(mode or settings.defaults.mode)
    lineup, reason = _lineup(
        mode_name, persona_a, persona_b, personas, questioner, defender, advocate, question
    )
    research_sources = _sources(settings.sources(sources, os.environ))
    chat_model = _resolve(
        settings.provider(provider, os.environ), settings.model(model, os.environ)
    )
    budget = budget_usd if budget_usd is not None else settings.defaults.budget_usd
    _require_price(chat_model, budget)
    try:
        store = create_debate(
            settings.debates_dir(debates_dir, os.environ),
            question=question,
            mode=mode_name,  # type: ignore[arg-type]
            personas=lineup,
            max_rounds=rounds or settings.defaults.rounds,
            provider=chat_model.provider,
            model=chat_model.model,
            research_sources=research_sources,
            budget_usd=budget,
            budget_tokens=max_tokens,
            selection_reason=reason,
        )
    except ModeError as exc:
        die(str(exc), 2)
    except OSError as exc:
        die(f"cannot create the debate folder: {exc}", 2)
    id_line = f"Debate ID: {store.debate_id}"
    if json_output:
        _report(id_line)
    else:
        stdout_console.print(id_line, markup=False)
    _report(f"Question: {question}")
    _report(
        "Personas: "
        + " vs ".join(p.label() for p in lineup)
        + f"  ·  Mode: {mode_name}  ·  Model: {chat_model.provider}/{chat_model.model}"
    )
    if reason:
        _report(f"Auto-selected: {reason}")
    state = _run(store, chat_model, research_sources, interactive=interactive)
    _finish(store, state, json_output)


def _check_mode(mode: str) -> str:
    from argue.engine.modes import MODES, resolve_mode_name

    name = resolve_mode_name(mode)
    if name is None:
        die(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}", 2)
    return name


def _catalog() -> PersonaCatalog:
    from argue.personas import PersonaFileError, load_catalog

    try:
        return load_catalog()
    except PersonaFileError as exc:
        die(str(exc), 2)


def _lineup(
    mode: str,
    persona_a: str | None,
    persona_b: str | None,
    personas: str | None,
    questioner: str | None,
    defender: str | None,
    advocate: str | None,
    question: str,
) -> tuple[list[Persona], str | None]:
    """The persona flags turned into names in seat order (A, B, …); the engine seats them.

    Conflicting or ignored flags are usage errors rather than silent choices.
    """
    for flag, value in (("--questioner", questioner), ("--defender", defender)):
        if value and mode != "socratic":
            die(f"{flag} only applies to --mode socratic", 2)
    if advocate and mode != "devils-advocate":
        die("--advocate only applies to --mode devils-advocate", 2)
    seats = [n.strip() for n in (persona_a, persona_b) if n and n.strip()]
    listed = [n.strip() for n in (personas or "").split(",") if n.strip()]
    if personas is not None and not listed:
        die("--personas is empty; give comma-separated names, e.g. embry,horus", 2)
    if listed and seats:
        die("use either --personas or --persona-a/--persona-b, not both", 2)
    named = listed or seats
    if mode == "socratic" and (questioner or defender):
        if named:
            die("use either --questioner/--defender or --persona-a/--persona-b, not both", 2)
        named = [n for n in (questioner, defender) if n]
        if not questioner:
            die("--defender needs --questioner too (or name neither to auto-select)", 2)
    if mode == "devils-advocate" and advocate:
        others = [n for n in named if n.lower() != advocate.lower()]
        if len(others) > 1:
            die(f"devil's advocate mode has one opponent; got {', '.join(others)}", 2)
        named = [advocate, *others]
    from argue.engine import ModeError, seat_lineup
    from argue.personas import UnknownPersonaError

    try:
        lineup = seat_lineup(mode, named, question, _catalog())  # type: ignore[arg-type]
    except (ModeError, UnknownPersonaError) as exc:
        die(str(exc), 2)
    return lineup.personas, lineup.reason


def _sources(names: list[str]) -> list[str]:
    if not names:
        return []
    from skills.dogpile import SOURCE_NAMES

    unknown = [s for s in names if s not in SOURCE_NAMES]
    if unknown:
        die(f"unknown source(s) {', '.join(unknown)}; choose from: {', '.join(SOURCE_NAMES)}", 2)
    return names


def _resolve(provider: str | None, model: str | None) -> ChatModel:
    from argue.llm import ProviderNotConfigured, resolve_model

    try:
        return resolve_model(provider, model, prices=_price_table())
    except ProviderNotConfigured as exc:
        die(str(exc), 2)


def _price_table() -> PriceTable:
    """Built-in prices, then config.toml's [prices], then ARGUE_PRICES (a bad file: exit 2)."""
    import os

    from argue.llm import PriceTableError, load_price_table

    try:
        return load_price_table(os.environ, _settings().prices)
    except PriceTableError as exc:
        die(str(exc), 2)


def _require_price(chat_model: ChatModel, budget_usd: float | None) -> None:
    """A cost budget cannot be enforced for a model without a price: a usage error."""
    from argue.llm.pricing import missing_price_message

    if budget_usd is not None and not _price_table().knows(chat_model.provider, chat_model.model):
        die(missing_price_message(chat_model.provider, chat_model.model), 2)


def _read_moderator_note(round_no: int) -> str | None:
    """Blocking read of one line from stdin (run in a thread); EOF or empty means none."""
    stderr_console.print(
        f"Round {round_no} done. Moderator note for the next rounds (Enter to continue): ",
        end="",
        markup=False,
    )
    try:
        return input()
    except EOFError:
        return None


def _run(
    store: DebateStore, chat_model: Any, research_sources: list[str], *, interactive: bool = False
) -> DebateState:
    import asyncio
    import signal

    from argue.concurrency import run_in_daemon_thread
    from argue.engine import DebateRunner, SkillToolkit, memory_writer
    from argue.llm import mask_secrets
    from argue.store import DebateLocked

    toolkit = SkillToolkit(
        chat_model, sources=research_sources or None, external=_settings().external_skills
    )

    async def moderator(round_no: int) -> str | None:
        return await run_in_daemon_thread(_read_moderator_note, round_no)

    runner = DebateRunner(
        store,
        chat_model,
        toolkit,
        reporter=_report,
        memory_writer=memory_writer,
        moderator=moderator if interactive else None,
    )

    async def main() -> DebateState:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        presses = 0

        def on_sigint() -> None:
            nonlocal presses
            presses += 1
            if presses == 1:
                _report(
                    "Ctrl-C: finishing the current batch, then saving (Ctrl-C again to cancel now)."
                )
                runner.request_stop("interrupt")
            elif task is not None:
                task.cancel()

        loop.add_signal_handler(signal.SIGINT, on_sigint)
        loop.add_signal_handler(signal.SIGTERM, lambda: runner.request_stop("stop"))
        try:
            return await runner.run()
        finally:
            close = getattr(chat_model, "aclose", None)
            if close is not None:
                await close()

    try:
        return asyncio.run(main())
    except DebateLocked as exc:
        die(str(exc), 2)
    except (asyncio.CancelledError, KeyboardInterrupt):
        _report(f"Cancelled. Resume with: ./run.sh resume {store.debate_id}")
        raise typer.Exit(130) from None
    except Exception as exc:
        store.update_state(
            status="failed", error=mask_secrets(f"{type(exc).__name__}: {exc}"), pid=None
        )
        die(
            f"debate {store.debate_id} failed: {mask_secrets(f'{type(exc).__name__}: {exc}')}",
            1,
        )


def _finish(store: DebateStore, state: DebateState, json_output: bool) -> None:
    code = EXIT_BY_STATUS.get(state.status, 1)
    synthesis = store.paths.synthesis
    if state.status in ("stopped", "budget_exhausted", "interrupted"):
        _report(
            f"Debate {store.debate_id} is {state.status}. "
            f"Resume with: ./run.sh resume {store.debate_id}"
        )
    elif state.status == "failed":
        _report(f"Debate {store.debate_id} failed: {state.error}")
    else:
        _report(f"Synthesis: {synthesis}")
    if json_output:
        committed = store.committed_rounds()
        print(
            json.dumps(
                {
                    "id": store.debate_id,
                    "status": state.status,
                    "termination": state.termination,
                    "rounds": len(committed),
                    "synthesis_path": str(synthesis) if synthesis.exists() else None,
                    "usage": _usage_summary(store),
                    **_completeness(store, state),
                }
            )
        )
    raise typer.Exit(code)


# ------------------------------------------------------------------ resume / stop / status


@app.command("resume")
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
    json_output: bool = typer.Option(False, "--json", help="End with one JSON object on stdout."),
) -> None:
    """Continue a stopped or interrupted debate from its last committed step."""
    store = _open(_debates_dir(debates_dir), debate_id)
    config = store.config()
    state = store.state()
    if state.status == "completed":
        _report(f"Debate {debate_id} is already completed ({state.termination}).")
        _finish(store, state, json_output)
    if store.is_locked():
        die(f"debate {debate_id} is being run by another process (pid {state.pid})", 2)
    chat_model = _resolve(provider or config.provider, model or config.model)
    _require_price(chat_model, budget_usd if budget_usd is not None else config.budget_usd)
    if budget_usd is not None:
        config.budget_usd = budget_usd
    if max_tokens is not None:
        config.budget_tokens = max_tokens
    if budget_usd is not None or max_tokens is not None:
        store.save_config(config)
    _report(f"Resuming {debate_id} after round {max(store.committed_rounds(), default=0)}")
    state = _run(store, chat_model, config.research_sources)
    _finish(store, state, json_output)


@app.command("stop")
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


@app.command("interject")
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


def _completeness(store: DebateStore, state: DebateState) -> dict[str, Any]:
    """``partial`` (and why) and how many failures the record holds, for --json outputs."""
    from argue.engine import load_history

    history = load_history(store)
    reasons = history.partial_reasons(state)
    return {"partial": bool(reasons), "partial_reasons": reasons, "failures": len(history.failures)}


def _usage_summary(store: DebateStore) -> dict[str, Any]:
    """Calls, tokens and cost for --json outputs. ``cost_usd`` is null unless every call has a
    known price; ``cost_usd_at_least`` is the priced part; ``cost`` says it in words."""
    from argue.llm import UsageLedger
    from argue.llm.pricing import describe_cost, total_tokens

    ledger = UsageLedger(store.load_usage())
    total = ledger.total()
    return {
        "calls": total.calls,
        "tokens": total_tokens(total),
        "cost_usd": round(total.cost_usd, 6) if total.unpriced_calls == 0 else None,
        "cost_usd_at_least": round(total.cost_usd, 6),
        "unpriced_calls": total.unpriced_calls,
        "cost": describe_cost(total),
        "models": {name: usage.calls for name, usage in ledger.by_model().items()},
    }


def _status_row(store: DebateStore) -> dict[str, Any]:
    config = store.config()
    state = store.state()
    status = state.status
    if status == "running" and not store.is_locked():
        status = "interrupted"
        state = state.model_copy(update={"status": status})
    return {
        "id": config.id,
        "question": config.question,
        "mode": config.mode,
        "personas": config.personas,
        "status": status,
        "round": state.round,
        "max_rounds": config.max_rounds,
        "termination": state.termination,
        "updated_at": state.updated_at,
        "usage": _usage_summary(store),
        **_completeness(store, state),
    }


@app.command("status")
def status_command(
    debate_id: str | None = typer.Argument(None, help="One debate (default: all)."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    json_output: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show where debates stand."""
    from argue.store import StoreError, iter_debates

    root = _debates_dir(debates_dir)
    try:
        if debate_id:
            rows: Any = _status_row(_open(root, debate_id))
        else:
            rows = []
            for store in iter_debates(root):
                try:
                    rows.append(_status_row(store))
                except StoreError as exc:
                    _report(f"warning: skipped {store.debate_id}: {exc}")
    except StoreError as exc:
        die(str(exc), 1)
    if json_output:
        print(json.dumps(rows, ensure_ascii=False))
        return
    from rich.table import Table

    items = [rows] if isinstance(rows, dict) else rows
    if not items:
        stdout_console.print(f"No debates in {root}", markup=False)
        return
    from rich.table import Column

    id_width = max(len(row["id"]) for row in items)
    table = Table(
        Column("id", no_wrap=True, min_width=id_width),
        Column("status", no_wrap=True),
        Column("round", no_wrap=True),
        Column("mode", no_wrap=True),
        Column("personas"),
        Column("termination", no_wrap=True),
        Column("question", no_wrap=True, overflow="ellipsis", ratio=1),
    )
    for row in items:
        table.add_row(
            row["id"],
            row["status"],
            f"{row['round']}/{row['max_rounds']}",
            row["mode"],
            ", ".join(row["personas"].values()),
            row["termination"] or "",
            row["question"][:60],
        )
    stdout_console.print(table)


# ------------------------------------------------------------------ transcript / synthesize


@app.command("transcript")
def transcript_command(
    debate_id: str = typer.Argument(..., help="The debate to show."),
    raw: bool = typer.Option(False, "--raw", help="Print the Markdown source as is."),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
) -> None:
    """Print a debate's transcript, re-rendered from its saved records."""
    from argue.engine import render_current_transcript

    store = _open(_debates_dir(debates_dir), debate_id)
    _print_markdown(render_current_transcript(store), raw)


@app.command("synthesize")
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
    _print_markdown(text, raw)


def _print_markdown(text: str, raw: bool) -> None:
    if raw or not sys.stdout.isatty():
        sys.stdout.write(text)
        return
    from rich.markdown import Markdown

    stdout_console.print(Markdown(text))


app.add_typer(personas_app, name="personas", help="List and show personas.")
app.add_typer(library_app, name="library", help="The local library of books and transcripts.")
app.add_typer(memory_app, name="memory", help="What personas remember from past debates.")
app.command("research", help="Run a dogpile search and print each source's status.")(
    research_command
)
app.command("taxonomy", help="Tag a text with the six taxonomy bridges.")(taxonomy_command)


def main() -> None:
    from argue.paths import ArgueHomeError
    from argue.store import StoreError

    try:
        app(prog_name="argue")
    except StoreError as exc:
        stderr_console.print(f"error: {exc}", markup=False)
        raise SystemExit(1) from None
    except ArgueHomeError as exc:
        stderr_console.print(f"error: {exc}", markup=False)
        raise SystemExit(2) from None
