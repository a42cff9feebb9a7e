"""Settings: flags > environment > $ARGUE_HOME/config.toml > defaults.

config.toml (all keys optional)::

    [defaults]
    provider = "anthropic"          # or ARGUE_PROVIDER
    model = "claude-sonnet-4-6"     # or ARGUE_MODEL
    verifier_model = "claude-haiku-4-5"  # the support check's (default: the judge's, the model)
    rounds = 3
    mode = "adversarial"
    sources = ["arxiv", "library"]  # or ARGUE_RESEARCH_SOURCES
    debates_dir = "~/debates"       # or ARGUE_DEBATES_DIR
    budget_usd = 2.0

    [skills.external]
    wiki = ["python3", "/path/to/wiki_search.py"]

    [prices.ollama]                 # USD per million tokens; ARGUE_PRICES (a JSON file) wins
    "llama3.2" = { input = 0.0, output = 0.0 }

    [providers.openai]              # limits per provider (argue.llm interprets them)
    request_timeout_s = 900
    slots = 1

Keys never belong here: they are read from the environment only. This module parses and
validates the file into plain records and imports nothing above the ground: the skills and the
model layer interpret what it read.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from argue.domain import Mode
from argue.paths import config_file_path, default_debates_dir

_SKILL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
StructuredOutput = Literal["auto", "json_schema", "json_object_schema", "json_object", "text"]
"""``structured_output`` as config.toml may say it: ``auto`` or one of ``argue.llm``'s
dialects (a test holds the two lists equal)."""


class ConfigError(ValueError):
    """config.toml is unreadable or has a bad field; the message names the file and field."""


class Defaults(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    provider: str | None = None
    model: str | None = None
    verifier_model: str | None = Field(
        default=None, description="MODEL or provider:MODEL for the support check"
    )
    rounds: int = Field(default=3, ge=1, le=50)
    mode: Mode = "adversarial"
    sources: list[str] = Field(default_factory=list)
    debates_dir: Path | None = None
    budget_usd: float | None = Field(default=None, ge=0)

    @field_validator("mode")
    @classmethod
    def _known_mode(cls, value: str) -> str:
        from argue.mode_names import mode_names

        if value not in mode_names():
            raise ValueError(f"unknown mode {value!r}; choose one of: {', '.join(mode_names())}")
        return value


class ProviderLimits(BaseModel):
    """``[providers.<name>]``: each field None means "not said here". ``argue.llm.ServerLimits``
    has the same fields and takes these as its config layer."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    request_timeout_s: float | None = Field(default=None, gt=0)
    call_deadline_s: float | None = Field(default=None, gt=0)
    max_attempts: int | None = Field(default=None, ge=1, le=20)
    slots: int | None = Field(default=None, ge=1, le=256)
    retry_timeouts: bool | None = None
    structured_output: StructuredOutput | None = None


class PriceEntry(BaseModel):
    """``[prices.<provider>]`` model = {...}: USD per million tokens, ``request`` USD per
    request; the fields of ``argue.llm.pricing.ModelPrice``."""

    model_config = ConfigDict(allow_inf_nan=False)

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float = Field(default=0.0, ge=0)
    cache_write: float = Field(default=0.0, ge=0)
    request: float = Field(default=0.0, ge=0)


class Settings(BaseModel):
    defaults: Defaults = Field(default_factory=Defaults)
    external_skills: dict[str, list[str]] = Field(default_factory=dict)
    prices: dict[str, dict[str, PriceEntry]] = Field(
        default_factory=dict, description="[prices.<provider>] model = {input, output, …}"
    )
    providers: dict[str, ProviderLimits] = Field(
        default_factory=dict, description="[providers.<provider>] timeouts, attempts, slots"
    )

    def provider(self, flag: str | None, env: Mapping[str, str]) -> str | None:
        """The provider to ask for; None lets resolution read ARGUE_PROVIDER and the keys."""
        if flag:
            return flag
        return None if env.get("ARGUE_PROVIDER") else self.defaults.provider

    def model(self, flag: str | None, env: Mapping[str, str]) -> str | None:
        if flag:
            return flag
        return None if env.get("ARGUE_MODEL") else self.defaults.model

    def sources(self, flag: str | None, env: Mapping[str, str]) -> list[str]:
        raw = flag if flag is not None else env.get("ARGUE_RESEARCH_SOURCES")
        if raw is not None:
            return [s.strip().lower() for s in raw.split(",") if s.strip()]
        return [s.strip().lower() for s in self.defaults.sources]

    def debates_dir(self, flag: Path | None, env: Mapping[str, str]) -> Path:
        if flag is not None:
            return flag
        if env.get("ARGUE_DEBATES_DIR"):
            return Path(env["ARGUE_DEBATES_DIR"])
        if self.defaults.debates_dir is not None:
            return self.defaults.debates_dir.expanduser()
        # Not the current folder: `status` must find a debate wherever it was started from.
        # (`./run.sh` sets ARGUE_DEBATES_DIR to the clone's own debates/ folder.)
        return default_debates_dir()


def load_settings(path: Path | None = None) -> Settings:
    from argue.files import BoundedReadError, loads_toml, read_text

    path = path or config_file_path()
    try:
        # A FIFO or device is refused unopened; size and depth are bounded before parsing.
        text = read_text(path)
    except BoundedReadError as exc:
        raise ConfigError(str(exc)) from None
    if text is None:
        return Settings()
    try:
        data: dict[str, Any] = loads_toml(text, path)
    except BoundedReadError as exc:
        raise ConfigError(str(exc)) from None
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except ValueError as exc:  # the parser's own (loads_toml names most): still one line
        raise ConfigError(f"{path}: {' '.join(str(exc).split())[:200]}") from None
    unknown = sorted(set(data) - {"defaults", "skills", "prices", "providers"})
    if unknown:
        raise ConfigError(f"{path}: unknown section(s) {', '.join(unknown)}")
    try:
        defaults = Defaults.model_validate(data.get("defaults", {}))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigError(f"{path}: defaults.{where}: {first['msg']}") from None
    try:
        external = parse_external_skills(data)
    except ValueError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return Settings(
        defaults=defaults,
        external_skills=external,
        prices=_prices(path, data),
        providers=_providers(path, data),
    )


def parse_external_skills(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """``[skills.external]`` of a parsed config.toml: name → command (a list, or one string
    split like a shell would, without running one)."""
    skills_table = config.get("skills", {})
    if not isinstance(skills_table, Mapping):
        raise ValueError("config.toml: [skills] must be a table")
    external = skills_table.get("external", {})
    if not isinstance(external, Mapping):
        raise ValueError("config.toml: [skills.external] must be a table of name = [command, ...]")
    commands: dict[str, list[str]] = {}
    for name, command in external.items():
        where = f"config.toml: skills.external.{name}"
        if not _SKILL_NAME.match(name):
            raise ValueError(f"{where}: the name may contain only letters, digits, '-' and '_'")
        if isinstance(command, str):
            try:
                command = shlex.split(command)
            except ValueError as error:
                raise ValueError(f"{where}: cannot split the command: {error}") from None
        if (
            not isinstance(command, list)
            or not command
            or not all(isinstance(part, str) and part for part in command)
        ):
            raise ValueError(
                f"{where}: must be a non-empty list of strings, e.g. ['python3', 'x.py']"
            )
        commands[name] = list(command)
    return commands


def _providers(path: Path, data: dict[str, Any]) -> dict[str, ProviderLimits]:
    raw = data.get("providers", {})
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: providers: expected a table of [providers.<name>] tables")
    limits: dict[str, ProviderLimits] = {}
    for name, entry in raw.items():
        # Whether ``name`` is a provider is the provider table's to say (argue.app checks).
        try:
            limits[name] = ProviderLimits.model_validate(entry)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join([name, *(str(p) for p in first["loc"])])
            raise ConfigError(f"{path}: providers.{where}: {first['msg']}") from None
    return limits


def _prices(path: Path, data: dict[str, Any]) -> dict[str, dict[str, PriceEntry]]:
    """``[prices.<provider>]`` tables: model name -> {input, output, cache_read, cache_write}."""
    raw = data.get("prices", {})
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: prices: expected a table of [prices.<provider>] tables")
    table: dict[str, dict[str, PriceEntry]] = {}
    for provider, models in raw.items():
        if not isinstance(models, dict):
            raise ConfigError(f"{path}: prices.{provider}: expected a table of models")
        for name, entry in models.items():
            try:
                table.setdefault(provider, {})[name] = PriceEntry.model_validate(entry)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join([provider, name, *(str(p) for p in first["loc"])])
                raise ConfigError(f"{path}: prices.{where}: {first['msg']}") from None
    return table
