"""``argue QUESTION …``: seat the personas, create the debate, run it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from argue.app import QUESTION_MAX_CHARS
from argue.commands._debate import (
    DEBATES_DIR_HELP,
    _report,
    app_errors,
    command_name,
    finish,
    max_attempts_option,
    quiet_option,
    request_timeout_option,
    slots_option,
    stdin_moderator,
    structured_output_option,
    workspace,
)
from argue.commands.plan import announce_models, dry_run_plan, show_detached
from argue.console import stdout_console

if TYPE_CHECKING:
    from argue.app import DebatePlan, DebateStore

__all__ = ["QUESTION_MAX_CHARS", "argue_command"]


# The built-in rows, for help text read without the table; argue/cli.py puts the table's own
# words in its place (registered plugins and their key variables included) when help is asked.
PROVIDER_HELP = "anthropic | openai | ollama | local (default: auto-detect)."
# Filled from the mode and source tables (plugins included) when help is shown (argue/cli.py);
# these built-in words are what a run that shows no help carries.
MODE_HELP = "adversarial (default) | panel | socratic | devils-advocate."
# Filled from the mode table (a registered mode's roles included) when help is shown.
ROLE_HELP = (
    "ROLE=PERSONA: who takes a mode's role (repeatable): questioner, defender (socratic); "
    "advocate (devils-advocate)."
)
SOURCES_HELP = (
    "Research sources for dogpile (default: $ARGUE_RESEARCH_SOURCES or all): "
    "{sources}; only those that can answer now are used (a key set, the library not empty); "
    "none: memory and colleagues only."
)


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
        None, "--rounds", help="Maximum number of rounds, 1 to 50 (default 3)."
    ),
    mode: str | None = typer.Option(None, "--mode", help=MODE_HELP),
    role: list[str] | None = typer.Option(None, "--role", metavar="ROLE=PERSONA", help=ROLE_HELP),
    questioner: str | None = typer.Option(
        None, "--questioner", help="Socratic mode: who asks (the same as --role questioner=NAME)."
    ),
    defender: str | None = typer.Option(
        None, "--defender", help="Socratic mode: who defends (the same as --role defender=NAME)."
    ),
    advocate: str | None = typer.Option(
        None,
        "--advocate",
        help="Devil's advocate mode: who argues against its own view (the same as --role "
        "advocate=NAME).",
    ),
    provider: str | None = typer.Option(None, "--provider", help=PROVIDER_HELP),
    model: str | None = typer.Option(None, "--model", help="Model name for the provider."),
    sources: str | None = typer.Option(
        None,
        "--sources",
        help=SOURCES_HELP.format(sources="arxiv,github,brave,perplexity,youtube,library"),
    ),
    budget_usd: float | None = typer.Option(
        None, "--budget-usd", help="Stop (resumable) once this much has been spent."
    ),
    max_tokens: int | None = typer.Option(
        None,
        "--max-tokens",
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
    verifier_model: str | None = typer.Option(
        None,
        "--verifier-model",
        help="MODEL or provider:MODEL for the support check, which asks whether each quoted "
        "sentence supports its claim (default: config verifier_model, else the judge's: the "
        "debate's model).",
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
    quiet: bool = quiet_option(),
    lang: str | None = typer.Option(
        None,
        "--lang",
        help="Language of headings and labels: en | fr (default: detected from the question).",
    ),
) -> None:
    """Start a debate and run it to its synthesis.

    Defaults come from $ARGUE_HOME/config.toml ([defaults]) when a flag is not given.
    """
    from argue import app

    with app_errors():
        request = app.StartRequest.build(
            question=app.question_text(question, question_file, interactive=interactive),
            personas=None if personas is None else personas.split(","),
            persona_a=persona_a,
            persona_b=persona_b,
            mode=mode,
            roles=app.role_assignments(role or []),
            questioner=questioner,
            defender=defender,
            advocate=advocate,
            provider=provider,
            model=model,
            persona_models=persona_model or [],
            verifier_model=verifier_model,
            sources=None if sources is None else _split(sources),
            rounds=rounds,
            budget_usd=budget_usd,
            max_tokens=max_tokens,
            lang=lang,
            request_timeout_s=request_timeout,
            max_attempts=max_attempts,
            slots=slots,
            structured_output=structured_output,
            interactive=interactive,
            detach=detach,
        )
        plan = app.prepare(request, workspace(debates_dir))
        if dry_run:
            warnings = [plan.unreachable.warning(command_name())] if plan.unreachable else []
            dry_run_plan(plan, json_output=json_output, warnings=warnings)
        store = app.create(plan, command=command_name())
        _announce(store, plan, json_output)
        if detach:
            sys.stdout.flush()  # the id line is out before the background run starts
            show_detached(store, app.detach(store, reporter=_report), json_output)
        moderator = stdin_moderator(plan.language) if interactive else None
        result = app.run_debate(
            store,
            plan.chat_model,
            plan.workspace,
            reporter=_report,
            moderator=moderator,
            command=command_name(),
        )
    finish(store, result, json_output, quiet=quiet)


def _split(names: str) -> list[str]:
    return [n.strip() for n in names.split(",") if n.strip()]


def _announce(store: DebateStore, plan: DebatePlan, json_output: bool) -> None:
    """The id on stdout (stderr under --json), then the question, seating and models."""
    from argue.records.labels import label, label_of
    from argue.records.terminal import persona_label

    language = plan.language
    id_line = label("t_debate_id", language, id=store.debate_id)
    if json_output:
        _report(id_line)
    else:
        stdout_console.print(id_line, markup=False)
    _report(label("t_question", language, question=plan.question))
    _report(
        label(
            "t_personas",
            language,
            personas=label("t_vs", language).join(persona_label(p, language) for p in plan.lineup),
            mode=label_of("mode", plan.mode, language, default=plan.mode),
            model=f"{plan.chat_model.provider}/{plan.chat_model.model}",
        )
    )
    if plan.implied_panel:
        _report(label("t_panel_implied", language, n=plan.named_count))
    if plan.reason:
        _report(label("t_auto_selected", language, reason=plan.reason))
    announce_models(plan.seats, plan.chat_model, language)
    for line in plan.source_lines():  # the sources left out, named once (config.json keeps them)
        _report(line)
