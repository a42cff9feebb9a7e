"""What the debate commands share: settings, folders, the model, running and finishing a debate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from argue.console import die, stderr_console

if TYPE_CHECKING:
    from argue.config import Settings
    from argue.domain import DebateState
    from argue.llm import ChatModel, PriceTable, ServerLimits
    from argue.store import DebateStore

EXIT_BY_STATUS = {
    "completed": 0,
    "failed": 1,
    "stopped": 3,
    "budget_exhausted": 3,
    "interrupted": 130,
    "running": 1,
}

DEBATES_DIR_HELP = (
    "Where debates are written (default: $ARGUE_DEBATES_DIR, else [defaults] debates_dir in "
    "config.toml, else $ARGUE_HOME/debates; ./run.sh uses the clone's debates/ folder)."
)


def command_name() -> str:
    """How the user runs argue, for hints: ``./run.sh`` in a clone, ``argue`` when installed."""
    import os

    return os.environ.get("ARGUE_LAUNCHER") or "argue"


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


def request_timeout_option() -> Any:
    return typer.Option(
        None,
        "--request-timeout",
        min=1.0,
        metavar="SECONDS",
        help="One model request's timeout (default 120 s hosted, 600 s self-hosted; "
        "$ARGUE_REQUEST_TIMEOUT_S).",
    )


def max_attempts_option() -> Any:
    return typer.Option(
        None,
        "--max-attempts",
        min=1,
        max=20,
        help="Attempts per model call on outages (default 4 hosted, 3 self-hosted; "
        "$ARGUE_MAX_ATTEMPTS). A rejection is never retried.",
    )


def slots_option() -> Any:
    return typer.Option(
        None,
        "--slots",
        min=1,
        max=256,
        help="Model requests in flight at once (default 4; 1 for a one-slot server; "
        "$ARGUE_MAX_CONCURRENCY).",
    )


def structured_output_option() -> Any:
    return typer.Option(
        None,
        "--structured-output",
        metavar="DIALECT",
        help="auto (default: negotiated and remembered per server) | json_schema | "
        "json_object_schema | json_object | text ($ARGUE_STRUCTURED_OUTPUT).",
    )


def _limits(
    request_timeout: float | None,
    max_attempts: int | None,
    slots: int | None,
    structured_output: str | None,
) -> ServerLimits | None:
    """The limit flags as ServerLimits (None when none is given); a bad dialect exits 2."""
    from pydantic import ValidationError

    from argue.llm import ServerLimits

    if (request_timeout, max_attempts, slots, structured_output) == (None, None, None, None):
        return None
    try:
        return ServerLimits(
            request_timeout_s=request_timeout,
            max_attempts=max_attempts,
            slots=slots,
            structured_output=(
                structured_output.strip().lower().replace("+", "_") if structured_output else None
            ),  # type: ignore[arg-type]
        )
    except ValidationError:
        die(
            f"--structured-output: unknown dialect {structured_output!r} (auto, json_schema, "
            "json_object_schema, json_object or text)",
            2,
        )


def _resolve(
    provider: str | None, model: str | None, limits: ServerLimits | None = None
) -> ChatModel:
    from argue.llm import ProviderNotConfigured, resolve_model

    try:
        return resolve_model(
            provider,
            model,
            prices=_price_table(),
            limits=limits,
            configured_limits=_settings().providers,
        )
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


def _read_moderator_note(round_no: int, lang: str = "en") -> str | None:
    """Blocking read of one line from stdin (run in a thread); EOF or empty means none."""
    from argue.records.labels import label

    stderr_console.print(label("t_moderator_prompt", lang, n=round_no), end="", markup=False)
    try:
        return input()
    except EOFError:
        return None


def _run(
    store: DebateStore, chat_model: Any, research_sources: list[str], *, interactive: bool = False
) -> DebateState:
    import asyncio
    import signal

    from argue.commands.persona_models import models_for_run
    from argue.concurrency import run_in_daemon_thread
    from argue.engine import DebateRunner, SkillToolkit, memory_writer
    from argue.llm import mask_secrets
    from argue.records.labels import label
    from argue.store import DebateLocked, StoreWriteError

    config = store.config()
    lang = config.language
    persona_models = models_for_run(config, chat_model)
    toolkit = SkillToolkit(
        chat_model, sources=research_sources or None, external=_settings().external_skills
    )

    async def moderator(round_no: int) -> str | None:
        return await run_in_daemon_thread(_read_moderator_note, round_no, lang)

    runner = DebateRunner(
        store,
        chat_model,
        toolkit,
        reporter=_report,
        memory_writer=memory_writer,
        moderator=moderator if interactive else None,
        persona_models=persona_models,
    )

    async def main() -> DebateState:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        presses = 0

        def on_sigint() -> None:
            nonlocal presses
            presses += 1
            if presses == 1:
                _report(label("t_ctrl_c", lang))
                runner.request_stop("interrupt")
            elif task is not None:
                task.cancel()

        loop.add_signal_handler(signal.SIGINT, on_sigint)
        loop.add_signal_handler(signal.SIGTERM, lambda: runner.request_stop("stop"))
        try:
            return await runner.run()
        finally:
            for each in {id(m): m for m in (chat_model, *persona_models.values())}.values():
                close = getattr(each, "aclose", None)
                if close is not None:
                    await close()

    try:
        return asyncio.run(main())
    except DebateLocked as exc:
        die(str(exc), 2)
    except StoreWriteError as exc:
        die(str(exc), 1)
    except (asyncio.CancelledError, KeyboardInterrupt):
        _report(label("t_cancelled", lang, command=f"{command_name()} resume {store.debate_id}"))
        raise typer.Exit(130) from None
    except Exception as exc:
        store.update_state(
            status="failed", error=mask_secrets(f"{type(exc).__name__}: {exc}"), pid=None
        )
        error = mask_secrets(f"{type(exc).__name__}: {exc}")
        die(label("t_run_failed", lang, id=store.debate_id, error=error), 1)


def _finish(store: DebateStore, state: DebateState, json_output: bool) -> None:
    from argue.records.labels import label

    code = EXIT_BY_STATUS.get(state.status, 1)
    synthesis = store.paths.synthesis
    lang = store.config().language
    if state.status in ("stopped", "budget_exhausted", "interrupted"):
        status = state.status if lang == "en" else label(f"status_{state.status}", lang)
        command = f"{command_name()} resume {store.debate_id}"
        _report(label("t_paused", lang, id=store.debate_id, status=status, command=command))
    elif state.status == "failed":
        _report(label("t_failed", lang, id=store.debate_id, error=state.error))
    else:
        _report(label("t_synthesis_path", lang, path=synthesis))
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


def _completeness(store: DebateStore, state: DebateState) -> dict[str, Any]:
    """``partial`` (and why) and how many failures the record holds, for --json outputs."""
    from argue.engine import load_history

    history = load_history(store)
    # A synthesis on disk without its prose parts (the synthesis call failed) is partial.
    prose_missing = store.paths.synthesis.exists() and not store.paths.synthesis_prose.exists()
    reasons = history.partial_reasons(
        state, prose_missing=prose_missing and bool(history.all_claims())
    )
    return {"partial": bool(reasons), "partial_reasons": reasons, "failures": len(history.failures)}


def _usage_summary(store: DebateStore) -> dict[str, Any]:
    """Calls, tokens and cost for --json outputs. ``cost_usd`` is null unless every call has a
    known price and no request timed out (``possibly_billed_calls``: sent, never answered, maybe
    billed); ``cost_usd_at_least`` is the priced part; ``cost`` says it in words."""
    from argue.llm import UsageLedger
    from argue.llm.pricing import describe_cost, total_tokens

    ledger = UsageLedger(store.load_usage())
    total = ledger.total()
    exact = total.unpriced_calls == 0 and total.possibly_billed_calls == 0
    return {
        "calls": total.calls,
        "tokens": total_tokens(total),
        "cost_usd": round(total.cost_usd, 6) if exact else None,
        "cost_usd_at_least": round(total.cost_usd, 6),
        "unpriced_calls": total.unpriced_calls,
        "possibly_billed_calls": total.possibly_billed_calls,
        "cost": describe_cost(total),
        "models": {name: usage.calls for name, usage in ledger.by_model().items()},
    }
