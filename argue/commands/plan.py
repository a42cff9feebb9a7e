"""Plan before spending: what ``--dry-run`` and ``--detach`` of ``argue QUESTION …`` print.

``--dry-run`` prints the seating (and why), the mode, the models and an estimate of model calls,
tokens and cost for the requested rounds (``argue.app.plan``); it creates no debate folder and
calls no model. ``--detach`` creates the debate, then ``argue.app.detach`` runs it in a
background process of its own session (``resume <id>``, the same run from the same
config.json), its output in ``debates/<id>/run.log``; it prints the id at once and exits 0 once
the background run owns the debate, so ``status``, ``interject``, ``stop`` and ``resume`` work
on it from then on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from argue.commands._debate import _report, cli_words, command_name
from argue.console import stdout_console
from argue.text.controls import dumps as safe_dumps

if TYPE_CHECKING:
    from argue.app import ChatModel, DebatePlan, DebateStore, DetachedRun, SeatChoice

__all__ = ["announce_models", "dry_run_plan", "show_detached"]

# In ARGUE_HOME: the single-model warning was shown once (--dry-run still lists it).
SHARED_MODEL_SEEN = "shared_model_warning_shown"


def announce_models(choices: Sequence[SeatChoice], debate: ChatModel, lang: str = "en") -> None:
    """One line on stderr: the personas' own models, or the warning that all share one."""
    from argue.app import first_time, shared_model_warning
    from argue.records.labels import label

    warning = shared_model_warning(choices, lang)
    if warning:
        if first_time(SHARED_MODEL_SEEN):
            _report(warning)
    elif any((c.provider, c.model) != (debate.provider, debate.model) for c in choices):
        _report(
            label(
                "t_persona_models",
                lang,
                models=", ".join(f"{c.persona.display_name} {c.label()}" for c in choices),
                debate=f"{debate.provider}/{debate.model}",
            )
        )


# ------------------------------------------------------------------ --dry-run


def dry_run_plan(plan: DebatePlan, *, json_output: bool, warnings: Sequence[str] = ()) -> NoReturn:
    """Print the plan and exit 0; nothing is written and no model is called. ``warnings``:
    what a real run would stop on (a server nothing answers at), said and not failed."""
    from argue.app import budget_note, dry_run_document, shared_model_warning
    from argue.records.labels import label, label_of
    from argue.records.terminal import persona_label, persona_lens

    if json_output:
        document = dry_run_document(plan, list(warnings))
        document["warnings"] = [cli_words(w) for w in document["warnings"]]
        print(safe_dumps(document, ensure_ascii=False))
        raise typer.Exit(0)
    lang = plan.language
    estimate = plan.estimate()

    def say(key: str, **fields: object) -> str:
        return label(key, lang, **fields)

    why = say("dr_auto", reason=plan.reason) if plan.reason else say("dr_named")
    shown = [
        w for w in (shared_model_warning(plan.seats, lang), *plan.source_lines(), *warnings) if w
    ]
    note = budget_note(estimate, plan.budget_usd, plan.max_tokens, lang)
    for warning in shown:
        _report(warning)
    mode_shown = plan.mode if lang == "en" else label_of("mode", plan.mode, lang, default=plan.mode)
    lines = [
        say("dr_title"),
        say("t_question", question=plan.question),
        say("dr_mode", mode=mode_shown) + (say("dr_detach") if plan.request.detach else ""),
        say("dr_seating", why=why),
        *(
            f"  {c.letter}  {persona_label(c.persona, lang)} — {persona_lens(c.persona, lang)} "
            f"— {c.label()} ({_seat_source(c.source, lang)})"
            for c in plan.seats
        ),
        say("dr_debate_model", model=f"{plan.chat_model.provider}/{plan.chat_model.model}"),
        say("dr_rounds", n=plan.rounds, sources=", ".join(plan.sources) or say("dr_no_source")),
    ]
    rounds = plan.rounds
    if note:
        lines.append(say("dr_budget", note=note))
    heads = [say("dr_calls"), say("dr_tokens"), say("dr_cost")]
    column_calls = "calls" if lang == "en" else heads[0]
    step_width = max([20, *(len(_step_word(s.step, lang)) for s in estimate.steps if s.calls_max)])
    width = max(len(h) for h in heads) + 2
    lines += [
        say("dr_estimate", n=rounds),
        f"  {heads[0]:<{width}}{_span(estimate.calls_min, estimate.calls_max)}",
        f"  {heads[1]:<{width}}{_span(estimate.tokens_min, estimate.tokens_max)}",
        f"  {heads[2]:<{width}}{_describe_cost(estimate, lang)}",
        f"  {say('dr_step'):<{step_width}} {say('dr_model'):<32} {column_calls:>7} "
        f"{say('dr_tokens'):>17}",
    ]
    for step in estimate.steps:
        if step.calls_max:
            lines.append(
                f"  {_step_word(step.step, lang):<{step_width}} {step.model.label():<32} "
                f"{_span(step.calls_min, step.calls_max):>7} "
                f"{_span(step.tokens_min, step.tokens_max):>17}"
            )
    lines.append(say("dr_prices"))
    lines += [f"  {line}" for line in _describe_prices(estimate, lang)]
    lines.append(say("dr_assumptions", text=_assumptions(lang)))
    for line in lines:
        stdout_console.print(line, markup=False, highlight=False)
    raise typer.Exit(0)


def _span(low: int, high: int) -> str:
    return f"{low:,}" if low == high else f"{low:,}–{high:,}"


def _price_source(source: str, lang: str) -> str:
    from argue.records.labels import label_of

    return label_of("price_source", source, lang, default=source)


def _step_word(step: str, lang: str) -> str:
    from argue.records.labels import label_of

    return label_of("step", step, lang, default=step)


def _describe_cost(estimate: Any, lang: str) -> str:
    """The estimate's cost (``DebateEstimate.describe_cost``), in the debate's language."""
    from argue.records.labels import label

    if lang == "en":
        return str(estimate.describe_cost())
    low, high = estimate.priced_cost
    span = f"${low:.4f}" if round(low, 4) == round(high, 4) else f"${low:.4f}–${high:.4f}"
    if estimate.cost_known:
        return span
    missing = label("dr_no_price_for", lang, models=", ".join(estimate.unpriced_models))
    if all(s.cost_max is None for s in estimate.steps if s.calls_max):
        return label("dr_cost_unknown", lang, missing=missing)
    return label("dr_cost_at_least", lang, span=span, missing=missing)


def _describe_prices(estimate: Any, lang: str) -> list[str]:
    from argue.records.labels import label

    if lang == "en":
        return list(estimate.describe_prices())
    lines = []
    for model, price in estimate.prices.items():
        if price["source"] is None:
            lines.append(label("dr_no_price", lang, model=model))
        else:
            lines.append(
                label(
                    "dr_price",
                    lang,
                    model=model,
                    input=f"{price['input_per_mtok']:.2f}",
                    output=f"{price['output_per_mtok']:.2f}",
                    source=_price_source(price["source"], lang),
                )
            )
    return lines


def _assumptions(lang: str) -> str:
    from argue.app import ASSUMPTION, TYPICAL_CALLS
    from argue.records.labels import label

    if lang == "en":
        return ASSUMPTION
    sizes = ", ".join(
        f"{_step_word(kind, lang)} ~{typical.input_tokens}/{typical.output_tokens}"
        for kind, typical in TYPICAL_CALLS.items()
    )
    return label("dr_assumptions_fr", lang, sizes=sizes)


def _seat_source(source: str, lang: str) -> str:
    """Where a seat's model comes from ("debate model", …), French when the debate is."""
    from argue.records.labels import label_of

    value = source.replace(" ", "_").replace("-", "_")
    return label_of("seat_source", value, lang, default=source)


# ------------------------------------------------------------------ --detach


def show_detached(store: DebateStore, run: DetachedRun, json_output: bool) -> NoReturn:
    """What ``--detach`` prints once the background run owns the debate; exit 0."""
    from argue.records.labels import label

    if json_output:
        document = {
            "id": run.id,
            "detached": True,
            "pid": run.pid,
            "status": run.status,
            "log": run.log,
        }
        print(json.dumps(document))
    command, debate_id = command_name(), store.debate_id
    _report(
        label(
            "t_background",
            store.config().language,
            pid=run.pid,
            log=run.log,
            watch=f"{command} watch {debate_id}",
            interject=f"{command} interject {debate_id}",
            stop=f"{command} stop {debate_id}",
            transcript=f"{command} transcript {debate_id}",
        )
    )
    raise typer.Exit(0)
