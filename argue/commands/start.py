"""``argue QUESTION …``: seat the personas, create the debate, run it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from argue.console import die, stdout_console

if TYPE_CHECKING:
    from argue.domain import Persona
    from argue.personas import PersonaCatalog

from argue.commands._debate import (
    DEBATES_DIR_HELP,
    _finish,
    _limits,
    _report,
    _require_price,
    _resolve,
    _run,
    _settings,
    command_name,
    max_attempts_option,
    request_timeout_option,
    slots_option,
    structured_output_option,
)

# ------------------------------------------------------------------ argue

# --question-file: at most 4 bytes a character are ever read. 15,000 leaves room in the shared
# memory's 20,000-character archive entry (the question and a conclusion of up to 4,000).
QUESTION_MAX_CHARS = 15_000


def argue_command(
    question: str | None = typer.Argument(
        None, help="The question to debate (or give --question-file)."
    ),
    question_file: str | None = typer.Option(
        None,
        "--question-file",
        metavar="PATH",
        help=f"Read the question from PATH ('-': stdin): UTF-8 text, at most "
        f"{QUESTION_MAX_CHARS:,} characters.",
    ),
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
    persona_model: list[str] | None = typer.Option(
        None,
        "--persona-model",
        help="NAME=MODEL: a persona (name or letter) speaks with its own model, on the debate's "
        "provider or as provider:model (repeatable).",
    ),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Print the seating, models and an estimate of calls, tokens and cost; create "
        "nothing, call no model.",
    ),
    detach: bool = typer.Option(
        False,
        "--detach",
        help="Run the debate in the background (log: debates/<id>/run.log); print its id.",
    ),
    request_timeout: float | None = request_timeout_option(),
    max_attempts: int | None = max_attempts_option(),
    slots: int | None = slots_option(),
    structured_output: str | None = structured_output_option(),
    json_output: bool = typer.Option(False, "--json", help="End with one JSON object on stdout."),
    lang: str | None = typer.Option(
        None,
        "--lang",
        help="Language of headings and labels: en | fr (default: detected from the question).",
    ),
) -> None:
    """Start a debate and run it to its synthesis.

    Defaults come from $ARGUE_HOME/config.toml ([defaults]) when a flag is not given.
    """
    import os

    from argue.engine import ModeError, create_debate

    question = _question(question, question_file, interactive)
    if lang is not None and lang not in ("en", "fr"):
        die(f"unknown language {lang!r}; choose en or fr", 2)
    from argue.records.labels import detect_language, label
    from argue.records.terminal import persona_label

    language = lang or detect_language(question)
    settings = _settings()
    named_count = len([n for n in (personas or "").split(",") if n.strip()])
    implied_panel = mode is None and named_count >= 3
    # The spec's own panel command names three personas and no mode: that means a panel.
    mode_name = "panel" if implied_panel else _check_mode(mode or settings.defaults.mode)
    lineup, reason = _lineup(
        mode_name,
        persona_a,
        persona_b,
        personas,
        questioner,
        defender,
        advocate,
        question,
        language,
    )
    research_sources = _sources(settings.sources(sources, os.environ))
    chat_model = _resolve(
        settings.provider(provider, os.environ),
        settings.model(model, os.environ),
        _limits(request_timeout, max_attempts, slots, structured_output),
    )
    budget = budget_usd if budget_usd is not None else settings.defaults.budget_usd
    _require_price(chat_model, budget)
    from argue.commands import plan

    seats = plan.seat_models(
        lineup, persona_model or [], chat_model, budget, detach=detach, interactive=interactive
    )
    from argue.commands.reach import first_unreachable

    # Before any folder exists: a dead model server is one line, not a failed debate.
    dead = first_unreachable({chat_model.provider, *(seat.provider for seat in seats)}, os.environ)
    if dead is not None and not dry_run:
        die(dead.sentence(command_name()), 2)
    if dry_run:
        plan.dry_run(
            question=question,
            mode=mode_name,
            lineup=lineup,
            reason=reason,
            choices=seats,
            debate=chat_model,
            rounds=rounds or settings.defaults.rounds,
            sources=research_sources,
            budget_usd=budget,
            max_tokens=max_tokens,
            detach=detach,
            json_output=json_output,
            lang=language,
            warnings=[dead.warning(command_name())] if dead is not None else [],
        )
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
            language=language,
            persona_models=plan.recorded(seats, chat_model),
        )
    except ModeError as exc:
        die(str(exc), 2)
    except OSError as exc:
        die(f"cannot create the debate folder: {exc}", 2)
    id_line = label("t_debate_id", language, id=store.debate_id)
    if json_output:
        _report(id_line)
    else:
        stdout_console.print(id_line, markup=False)
    _report(label("t_question", language, question=question))
    _report(
        label(
            "t_personas",
            language,
            personas=label("t_vs", language).join(persona_label(p, language) for p in lineup),
            mode=label(f"mode_{mode_name}", language),
            model=f"{chat_model.provider}/{chat_model.model}",
        )
    )
    if implied_panel:
        _report(label("t_panel_implied", language, n=named_count))
    if reason:
        _report(label("t_auto_selected", language, reason=reason))
    plan.announce_models(seats, chat_model, language)
    if detach:
        plan.start_detached(store, json_output)
    state = _run(store, chat_model, research_sources, interactive=interactive)
    _finish(store, state, json_output)


def _question(argument: str | None, path: str | None, interactive: bool) -> str:
    """The question argument, or the text of ``--question-file`` (``-``: stdin), read with a
    bounded read: a huge file or an endless stream costs at most 4 x the cap in bytes."""
    if path is None:
        if argument is None:
            die("give a question, or --question-file PATH ('-' reads stdin)", 2)
        return argument
    if argument is not None:
        die("give either a question or --question-file, not both", 2)
    if path == "-" and interactive:
        die("--question-file - reads stdin, which --interactive needs for moderator notes", 2)
    source = "stdin" if path == "-" else path
    limit = 4 * QUESTION_MAX_CHARS  # a UTF-8 character is at most 4 bytes
    try:
        if path == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as handle:
                data = handle.read(limit + 1)
    except OSError as exc:
        die(f"cannot read the question from {source}: {exc.strerror or exc}", 2)
    too_long = f"{source}: the question is over the limit of {QUESTION_MAX_CHARS:,} characters"
    if len(data) > limit:
        die(too_long, 2)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        die(f"{source}: the question is not UTF-8 text", 2)
    if "\x00" in text:
        die(f"{source}: the question is not text (it holds NUL bytes)", 2)
    if len(text) > QUESTION_MAX_CHARS:
        die(too_long, 2)
    if not text.strip():
        die(f"{source}: the question is empty", 2)
    return text.strip()


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
    lang: str = "en",
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
        lineup = seat_lineup(mode, named, question, _catalog(), lang)  # type: ignore[arg-type]
    except (ModeError, UnknownPersonaError) as exc:
        die(str(exc), 2)
    return lineup.personas, lineup.reason


def _sources(names: list[str]) -> list[str]:
    if not names:
        return []
    from argue.skills.dogpile import SOURCE_NAMES

    unknown = [s for s in names if s not in SOURCE_NAMES]
    if unknown:
        die(f"unknown source(s) {', '.join(unknown)}; choose from: {', '.join(SOURCE_NAMES)}", 2)
    return names
