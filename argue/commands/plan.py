"""Plan before spending: ``--dry-run`` and ``--detach`` of ``argue QUESTION …``.

``--dry-run`` prints the seating (and why), the mode, the models and an estimate of model calls,
tokens and cost for the requested rounds (``argue.engine.estimate``); it creates no debate
folder and calls no model. ``--detach`` creates the debate, then runs it in a background process
of its own session (``resume <id>``, the same run from the same config.json), its output in
``debates/<id>/run.log``; it prints the id at once and exits 0 once the background run owns the
debate, so ``status``, ``interject``, ``stop`` and ``resume`` work on it from then on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from argue.commands._debate import _price_table, _report, command_name
from argue.commands.persona_models import (
    SeatChoice,
    choose_seat_models,
    recorded,
    resolve_seat_models,
    shared_model_warning,
)
from argue.console import die, stdout_console

if TYPE_CHECKING:
    from argue.domain import Persona
    from argue.llm import ChatModel
    from argue.store import DebateStore

__all__ = ["announce_models", "dry_run", "recorded", "seat_models", "start_detached"]

RUN_LOG = "run.log"
# How long --detach waits for the background run to take the debate's lock before it returns.
STARTUP_DEADLINE_S = 60.0
# In ARGUE_HOME: the single-model warning was shown once (--dry-run still lists it).
SHARED_MODEL_SEEN = "shared_model_warning_shown"


def seat_models(
    lineup: Sequence[Persona],
    flags: Sequence[str],
    debate: ChatModel,
    budget_usd: float | None,
    *,
    detach: bool,
    interactive: bool,
) -> list[SeatChoice]:
    """Each persona's model, checked like the debate's (configured, priced under a budget)."""
    if detach and interactive:
        die("--interactive reads notes from this terminal; with --detach use `interject ID NOTE`")
    choices = choose_seat_models(lineup, flags, debate)
    resolve_seat_models(recorded(choices, debate), debate, budget_usd=budget_usd)
    return choices


def announce_models(choices: Sequence[SeatChoice], debate: ChatModel, lang: str = "en") -> None:
    """One line on stderr: the personas' own models, or the warning that all share one."""
    from argue.records.labels import label

    warning = shared_model_warning(choices, lang)
    if warning:
        if _first_time(SHARED_MODEL_SEEN):
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


def _first_time(marker: str) -> bool:
    """True the first time in this ``ARGUE_HOME`` (a small file remembers it): a warning about
    the usual set-up is said once, not on every run. A home that cannot be written says it
    every time."""
    from argue.paths import ArgueHomeError, argue_home
    from argue.store._atomic import write_text_atomic

    try:
        path = argue_home() / marker
        if path.exists():
            return False
        write_text_atomic(path, "shown once; delete this file to see it again\n")
    except (ArgueHomeError, OSError):
        pass
    return True


# ------------------------------------------------------------------ --dry-run


def dry_run(
    *,
    question: str,
    mode: str,
    lineup: Sequence[Persona],
    reason: str | None,
    choices: Sequence[SeatChoice],
    debate: ChatModel,
    rounds: int,
    sources: Sequence[str],
    budget_usd: float | None,
    max_tokens: int | None,
    detach: bool,
    json_output: bool,
    lang: str = "en",
    warnings: Sequence[str] = (),
) -> NoReturn:
    """Print the plan and exit 0; nothing is written and no model is called. ``warnings``:
    what a real run would stop on (a server nothing answers at), said and not failed."""
    from argue.engine.estimate import ModelRef, estimate_debate

    if not question.strip():
        die("the question is empty")
    estimate = estimate_debate(
        mode=mode,
        letters=[c.letter for c in choices],
        rounds=rounds,
        debate_model=ModelRef(debate.provider, debate.model),
        persona_models={c.letter: ModelRef(c.provider, c.model) for c in choices},
        prices=_price_table(),
    )
    from argue.records.labels import label
    from argue.records.terminal import persona_label, persona_lens

    def say(key: str, **fields: object) -> str:
        return label(key, lang, **fields)

    if json_output:
        lang = "en"  # the JSON document keeps its English words
    why = say("dr_auto", reason=reason) if reason else say("dr_named")
    warnings = [w for w in (shared_model_warning(choices, lang), *warnings) if w]
    budget_note = _budget_note(estimate, budget_usd, max_tokens, lang)
    if json_output:
        print(
            json.dumps(
                {
                    "dry_run": True,
                    "question": question.strip(),
                    "mode": mode,
                    "seating_reason": why,
                    "personas": [
                        {
                            "letter": c.letter,
                            "name": c.persona.name,
                            "display_name": c.persona.display_name,
                            "label": c.persona.label(),
                            "lens": c.persona.lens,
                            "provider": c.provider,
                            "model": c.model,
                            "model_source": c.source,
                        }
                        for c in choices
                    ],
                    "provider": debate.provider,
                    "model": debate.model,
                    "rounds": rounds,
                    "sources": list(sources),
                    "budget_usd": budget_usd,
                    "max_tokens": max_tokens,
                    "budget_note": budget_note,
                    "detach": detach,
                    "estimate": estimate.as_json(),
                    "warnings": warnings,
                },
                ensure_ascii=False,
            )
        )
        raise typer.Exit(0)
    for warning in warnings:
        _report(warning)
    mode_shown = mode if lang == "en" else say(f"mode_{mode}")
    lines = [
        say("dr_title"),
        say("t_question", question=question.strip()),
        say("dr_mode", mode=mode_shown) + (say("dr_detach") if detach else ""),
        say("dr_seating", why=why),
        *(
            f"  {c.letter}  {persona_label(c.persona, lang)} — {persona_lens(c.persona, lang)} "
            f"— {c.label()} ({_seat_source(c.source, lang)})"
            for c in choices
        ),
        say("dr_debate_model", model=f"{debate.provider}/{debate.model}"),
        say("dr_rounds", n=rounds, sources=", ".join(sources) or say("dr_all")),
    ]
    if budget_note:
        lines.append(say("dr_budget", note=budget_note))
    heads = [say(k) for k in ("dr_calls", "dr_tokens", "dr_cost")]
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


def _budget_note(
    estimate: Any, budget_usd: float | None, max_tokens: int | None, lang: str = "en"
) -> str | None:
    from argue.records.labels import label

    notes = []
    if budget_usd is not None:
        low, high = estimate.priced_cost
        if high <= budget_usd:
            fits = label("dr_fits", lang)
        elif low <= budget_usd:
            fits = label("dr_may_pause_budget", lang)
        else:
            fits = label("dr_will_pause_budget", lang)
        notes.append(f"${budget_usd:g}{label('colon', lang)} {fits}")
    if max_tokens is not None:
        if estimate.tokens_max <= max_tokens:
            fits = label("dr_fits", lang)
        elif estimate.tokens_min <= max_tokens:
            fits = label("dr_may_pause", lang)
        else:
            fits = label("dr_will_pause", lang)
        notes.append(label("dr_budget_tokens", lang, n=f"{max_tokens:,}", fits=fits))
    return (label("semicolon", lang) + " ").join(notes) or None


def _price_source(source: str, lang: str) -> str:
    from argue.records.labels import _LABELS, label

    key = f"price_source_{source}"
    return label(key, lang) if key in _LABELS else source


def _step_word(step: str, lang: str) -> str:
    from argue.records.labels import _LABELS, label

    return label(f"step_{step}", lang) if f"step_{step}" in _LABELS else step


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
    from argue.engine.estimate import ASSUMPTION, TYPICAL_CALLS
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
    from argue.records.labels import _LABELS, label

    key = "seat_source_" + source.replace(" ", "_").replace("-", "_")
    return label(key, lang) if key in _LABELS else source


# ------------------------------------------------------------------ --detach


def start_detached(store: DebateStore, json_output: bool) -> NoReturn:
    """Run the debate in a background process (own session, output in run.log); exit 0."""
    root = store.paths.root.resolve()
    log_path = root / RUN_LOG
    command = [
        sys.executable,
        "-m",
        "argue",
        "resume",
        store.debate_id,
        "--debates-dir",
        str(root.parent),
    ]
    try:
        fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        die(f"cannot create {log_path}: {exc.strerror}", 1)
    try:
        os.write(fd, f"argue: background run of {store.debate_id}\n".encode())
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=fd,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        die(f"cannot start the background run: {exc}", 1)
    finally:
        os.close(fd)
    sys.stdout.flush()  # the id line is already out: the caller printed it before this
    code = _wait_until_running(store, process)
    state = store.state()
    if code not in (None, 0, 3) and not store.is_locked():
        die(
            f"the background run of {store.debate_id} exited with code {code} "
            f"(status {state.status}); see {log_path}",
            1,
        )
    if json_output:
        print(
            json.dumps(
                {
                    "id": store.debate_id,
                    "detached": True,
                    "pid": process.pid,
                    "status": state.status,
                    "log": str(log_path),
                }
            )
        )
    from argue.records.labels import label

    run, debate_id = command_name(), store.debate_id
    _report(
        label(
            "t_background",
            store.config().language,
            pid=process.pid,
            log=log_path,
            watch=f"{run} watch {debate_id}",
            interject=f"{run} interject {debate_id}",
            stop=f"{run} stop {debate_id}",
            transcript=f"{run} transcript {debate_id}",
        )
    )
    raise typer.Exit(0)


def _wait_until_running(store: DebateStore, process: subprocess.Popen[bytes]) -> int | None:
    """Until the background run holds the lock (None) or has exited (its exit code)."""
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    while not store.is_locked():
        code = process.poll()
        if code is not None:
            return code
        if time.monotonic() > deadline:
            _report(f"The background run has not started within {STARTUP_DEADLINE_S:g} s yet.")
            return None
        time.sleep(0.05)
    return None
