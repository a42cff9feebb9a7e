"""``argue config show [--json]``: the effective settings and where each one came from.

Every setting has a value and a source: ``flag`` (an option given to this command, the same
options ``argue QUESTION`` takes), ``env`` (an environment variable), ``config file``
($ARGUE_HOME/config.toml), ``default`` or ``auto-detected`` (provider resolution). Credentials
are never printed: a key is shown as "set (masked)" or "not set", and every line still passes
through ``mask_secrets``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import typer

from argue.commands._debate import DEBATES_DIR_HELP, _settings
from argue.console import stdout_console
from argue.text.controls import dumps as safe_dumps

config_app = typer.Typer(
    name="config",
    help="Show the effective settings (flags > environment > config.toml > defaults).",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


def key_variables() -> tuple[str, ...]:
    """Every credential variable, from the provider table then the research-source table."""
    from argue.llm import provider_specs
    from argue.skills.dogpile import all_sources

    names = [v for spec in provider_specs() for v in spec.key_vars]
    names += [v for source in all_sources() for v in source.secret_variables]
    return tuple(dict.fromkeys(names))


def url_variables() -> tuple[str, ...]:
    """Every URL override variable, from the same two tables (OLLAMA_HOST has its own line)."""
    from argue.llm import provider_specs
    from argue.skills.dogpile import all_sources

    names = [v for spec in provider_specs() for v in spec.url_vars if v != "OLLAMA_HOST"]
    names += [source.url_env for source in all_sources() if source.url_env]
    return tuple(dict.fromkeys(names))


MASKED = "set (masked)"


@dataclass
class Entry:
    value: Any
    source: str  # flag | env | config file | default | auto-detected | none
    detail: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "detail": self.detail}


@config_app.command("show")
def show_command(
    provider: str | None = typer.Option(None, "--provider", help="As for `argue QUESTION`."),
    model: str | None = typer.Option(None, "--model", help="As for `argue QUESTION`."),
    rounds: int | None = typer.Option(None, "--rounds", min=1, max=50),
    mode: str | None = typer.Option(None, "--mode"),
    sources: str | None = typer.Option(None, "--sources"),
    budget_usd: float | None = typer.Option(None, "--budget-usd", min=0.0),
    debates_dir: Path | None = typer.Option(None, "--debates-dir", help=DEBATES_DIR_HELP),
    json_output: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Print each effective setting, its value and where it came from; keys are masked."""
    from argue.llm import mask_secrets

    entries = effective_settings(
        os.environ,
        provider=provider,
        model=model,
        rounds=rounds,
        mode=mode,
        sources=sources,
        budget_usd=budget_usd,
        debates_dir=debates_dir,
    )
    if json_output:
        text = safe_dumps({k: e.as_json() for k, e in entries.items()}, ensure_ascii=False)
        print(mask_secrets(text))
        return
    width = max(len(k) for k in entries)
    for key, entry in entries.items():
        value = "(none)" if entry.value is None else _text(entry.value)
        if key == "sources" and not entry.value:
            value = "all"
        where = entry.source + (f": {entry.detail}" if entry.detail else "")
        line = f"{key:<{width}}  {value}  [{where}]"
        stdout_console.print(mask_secrets(line), markup=False, highlight=False)


def _text(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(none)"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items()) or "(none)"
    return str(value)


def effective_settings(
    env: Mapping[str, str],
    *,
    provider: str | None = None,
    model: str | None = None,
    rounds: int | None = None,
    mode: str | None = None,
    sources: str | None = None,
    budget_usd: float | None = None,
    debates_dir: Path | None = None,
) -> dict[str, Entry]:
    """Every setting argue reads, in the order a user reads them."""
    from argue.llm._resolve import DEFAULT_MAX_CONCURRENCY
    from argue.paths import argue_home, config_file_path

    settings = _settings()  # a bad config.toml: one line naming file and field, exit 2
    path = config_file_path()
    defaults = settings.defaults
    in_file = defaults.model_fields_set  # the [defaults] keys config.toml actually sets
    file_note = str(path)

    def pick(flag: Any, env_name: str | None, key: str, fallback: Any, fallback_note: str = ""):
        if flag is not None:
            return Entry(flag, "flag", f"--{key.replace('_', '-')}")
        if env_name and env.get(env_name):
            return Entry(env[env_name], "env", env_name)
        if key in in_file:
            return Entry(getattr(defaults, key), "config file", f"{file_note} [defaults].{key}")
        return Entry(fallback, "default", fallback_note)

    out: dict[str, Entry] = {}
    out["argue_home"] = (
        Entry(str(argue_home()), "env", "ARGUE_HOME")
        if env.get("ARGUE_HOME")
        else Entry(str(argue_home()), "default", "the platform's user data folder")
    )
    out["config_file"] = Entry(
        str(path),
        "default",
        "$ARGUE_HOME/config.toml; "
        + ("read" if path.is_file() else "absent: built-in defaults apply"),
    )
    out["provider"], out["model"] = _model_entries(env, settings, provider, model, pick)
    out["rounds"] = pick(rounds, None, "rounds", defaults.rounds)
    out["mode"] = pick(mode, None, "mode", defaults.mode)
    source_entry = pick(sources, "ARGUE_RESEARCH_SOURCES", "sources", [], "all sources")
    source_entry.value = settings.sources(sources, env)
    out["sources"] = source_entry
    dirs = pick(debates_dir, "ARGUE_DEBATES_DIR", "debates_dir", None)
    dirs.value = str(settings.debates_dir(debates_dir, env))
    out["debates_dir"] = dirs
    out["budget_usd"] = pick(budget_usd, None, "budget_usd", None, "no cost limit")
    out["max_concurrency"] = (
        Entry(env["ARGUE_MAX_CONCURRENCY"], "env", "ARGUE_MAX_CONCURRENCY")
        if env.get("ARGUE_MAX_CONCURRENCY")
        else Entry(DEFAULT_MAX_CONCURRENCY, "default", "concurrent calls per provider")
    )
    out["prices"] = _prices_entry(env, settings, file_note)
    out["local_model"] = (
        Entry(env["ARGUE_LOCAL_MODEL"], "env", "ARGUE_LOCAL_MODEL")
        if env.get("ARGUE_LOCAL_MODEL")
        else Entry("bundled Gemma 3 270M", "default", "a smoke-test model, not a debater")
    )
    out["ollama_host"] = (
        Entry(_safe_url(env["OLLAMA_HOST"]), "env", "OLLAMA_HOST")
        if env.get("OLLAMA_HOST")
        else Entry("127.0.0.1:11434", "default")
    )
    for name in url_variables():
        out[name.lower()] = (
            Entry(_safe_url(env[name]), "env", name) if env.get(name) else Entry(None, "default")
        )
    for name in key_variables():
        out[name.lower()] = (
            Entry(MASKED, "env", name) if env.get(name) else Entry("not set", "default")
        )
    out["external_skills"] = (
        Entry(sorted(settings.external_skills), "config file", f"{file_note} [skills.external]")
        if settings.external_skills
        else Entry([], "default")
    )
    return out


def _model_entries(
    env: Mapping[str, str], settings: Any, provider: str | None, model: str | None, pick: Any
) -> tuple[Entry, Entry]:
    """The provider and model a debate would use, resolved as `argue QUESTION` resolves them."""
    from argue.commands._debate import _price_table
    from argue.llm import ProviderNotConfigured, resolve_model

    wanted_provider = pick(provider, "ARGUE_PROVIDER", "provider", None)
    wanted_model = pick(model, "ARGUE_MODEL", "model", None)
    try:
        resolved = resolve_model(
            settings.provider(provider, env), settings.model(model, env), prices=_price_table()
        )
    except ProviderNotConfigured as exc:
        if wanted_provider.source == "default":
            wanted_provider = Entry(None, "none", str(exc))
        else:
            wanted_provider.detail += f" (not usable: {exc})"
        return wanted_provider, wanted_model
    if wanted_provider.source == "default":
        wanted_provider = Entry(resolved.provider, "auto-detected", _why_detected(env, resolved))
    else:
        wanted_provider.value = resolved.provider
    if wanted_model.source == "default":
        wanted_model = Entry(resolved.model, "default", f"the default for {resolved.provider}")
    else:
        wanted_model.value = resolved.model
    return wanted_provider, wanted_model


def _why_detected(env: Mapping[str, str], resolved: Any) -> str:
    """Why auto-detection chose the provider, in the provider table's words."""
    from argue.llm import provider_spec

    spec = provider_spec(resolved.provider)
    if spec is None:
        return "auto-detected"
    key = next((name for name in spec.key_vars if env.get(name)), None)
    if key is not None:
        return f"{key} is set"
    return spec.detected_because or f"{spec.name} was detected"


def _prices_entry(env: Mapping[str, str], settings: Any, file_note: str) -> Entry:
    configured = sum(len(models) for models in settings.prices.values())
    if env.get("ARGUE_PRICES"):
        extra = f"; plus {configured} model(s) from {file_note} [prices]" if configured else ""
        return Entry(env["ARGUE_PRICES"], "env", "ARGUE_PRICES" + extra)
    if configured:
        return Entry(f"{configured} model(s)", "config file", f"{file_note} [prices]")
    return Entry("built-in table", "default")


def _safe_url(text: str) -> str:
    """A URL without the user:password part or the query (either may carry a credential)."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return "(unparseable; not shown)"
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    netloc = ("***@" if parts.username or parts.password else "") + host
    query = "***" if parts.query else ""
    if not parts.scheme and not parts.netloc:
        return text.split("@")[-1].split("?")[0]
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
