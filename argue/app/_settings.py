"""The effective settings and where each one came from, for ``argue config show`` and callers.

Every setting has a value and a source: ``flag`` (an option the caller gave, the same options
a debate takes), ``env`` (an environment variable), ``config file`` ($ARGUE_HOME/config.toml),
``default`` or ``auto-detected`` (provider resolution). Credentials are never returned: a key
is "set (masked)" or "not set". How a caller names an option (``--rounds`` for the CLI) comes
from the caller (``flag_name``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from argue.app._workspace import Workspace


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
class SettingEntry:
    value: Any
    source: str  # flag | env | config file | default | auto-detected | none
    detail: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "detail": self.detail}


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
    flag_name: Callable[[str], str] = lambda key: key,
) -> dict[str, SettingEntry]:
    """Every setting argue reads, in the order a user reads them (a bad config.toml: a
    ``UsageError`` naming the file and field)."""
    from argue.llm import DEFAULT_MAX_CONCURRENCY, SELF_HOSTED_MAX_CONCURRENCY
    from argue.paths import argue_home, config_file_path

    workspace = Workspace()
    settings = workspace.settings
    path = config_file_path()
    defaults = settings.defaults
    in_file = defaults.model_fields_set  # the [defaults] keys config.toml actually sets
    file_note = str(path)

    def pick(flag: Any, env_name: str | None, key: str, fallback: Any, fallback_note: str = ""):
        if flag is not None:
            return SettingEntry(flag, "flag", flag_name(key))
        if env_name and env.get(env_name):
            return SettingEntry(env[env_name], "env", env_name)
        if key in in_file:
            return SettingEntry(
                getattr(defaults, key), "config file", f"{file_note} [defaults].{key}"
            )
        return SettingEntry(fallback, "default", fallback_note)

    out: dict[str, SettingEntry] = {}
    out["argue_home"] = (
        SettingEntry(str(argue_home()), "env", "ARGUE_HOME")
        if env.get("ARGUE_HOME")
        else SettingEntry(str(argue_home()), "default", "the platform's user data folder")
    )
    out["config_file"] = SettingEntry(
        str(path),
        "default",
        "$ARGUE_HOME/config.toml; "
        + ("read" if path.is_file() else "absent: built-in defaults apply"),
    )
    out["provider"], out["model"] = _model_entries(env, workspace, provider, model, pick)
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
        SettingEntry(env["ARGUE_MAX_CONCURRENCY"], "env", "ARGUE_MAX_CONCURRENCY")
        if env.get("ARGUE_MAX_CONCURRENCY")
        else SettingEntry(
            DEFAULT_MAX_CONCURRENCY,
            "default",
            f"concurrent calls to a hosted API; {SELF_HOSTED_MAX_CONCURRENCY} to a self-hosted "
            "server (a base URL, Ollama)",
        )
    )
    out["prices"] = _prices_entry(env, settings, file_note)
    out["local_model"] = (
        SettingEntry(env["ARGUE_LOCAL_MODEL"], "env", "ARGUE_LOCAL_MODEL")
        if env.get("ARGUE_LOCAL_MODEL")
        else SettingEntry("bundled Gemma 3 270M", "default", "a smoke-test model, not a debater")
    )
    out["ollama_host"] = (
        SettingEntry(_safe_url(env["OLLAMA_HOST"]), "env", "OLLAMA_HOST")
        if env.get("OLLAMA_HOST")
        else SettingEntry("127.0.0.1:11434", "default")
    )
    for name in url_variables():
        out[name.lower()] = (
            SettingEntry(_safe_url(env[name]), "env", name)
            if env.get(name)
            else SettingEntry(None, "default")
        )
    for name in key_variables():
        out[name.lower()] = (
            SettingEntry(MASKED, "env", name)
            if env.get(name)
            else SettingEntry("not set", "default")
        )
    out["external_skills"] = (
        SettingEntry(
            sorted(settings.external_skills), "config file", f"{file_note} [skills.external]"
        )
        if settings.external_skills
        else SettingEntry([], "default")
    )
    return out


def _model_entries(
    env: Mapping[str, str],
    workspace: Workspace,
    provider: str | None,
    model: str | None,
    pick: Any,
) -> tuple[SettingEntry, SettingEntry]:
    """The provider and model a debate would use, resolved as a debate resolves them."""
    from argue.llm import ProviderNotConfigured, resolve_model

    settings = workspace.settings
    wanted_provider = pick(provider, "ARGUE_PROVIDER", "provider", None)
    wanted_model = pick(model, "ARGUE_MODEL", "model", None)
    try:
        resolved = resolve_model(
            settings.provider(provider, env), settings.model(model, env), prices=workspace.prices
        )
    except ProviderNotConfigured as exc:
        if wanted_provider.source == "default":
            wanted_provider = SettingEntry(None, "none", str(exc))
        else:
            wanted_provider.detail += f" (not usable: {exc})"
        return wanted_provider, wanted_model
    if wanted_provider.source == "default":
        wanted_provider = SettingEntry(
            resolved.provider, "auto-detected", _why_detected(env, resolved)
        )
    else:
        wanted_provider.value = resolved.provider
    if wanted_model.source == "default":
        wanted_model = SettingEntry(
            resolved.model, "default", f"the default for {resolved.provider}"
        )
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


def _prices_entry(env: Mapping[str, str], settings: Any, file_note: str) -> SettingEntry:
    configured = sum(len(models) for models in settings.prices.values())
    if env.get("ARGUE_PRICES"):
        extra = f"; plus {configured} model(s) from {file_note} [prices]" if configured else ""
        return SettingEntry(env["ARGUE_PRICES"], "env", "ARGUE_PRICES" + extra)
    if configured:
        return SettingEntry(f"{configured} model(s)", "config file", f"{file_note} [prices]")
    return SettingEntry("built-in table", "default")


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
