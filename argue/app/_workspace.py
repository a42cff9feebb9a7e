"""Where a request runs: the settings (config.toml), the environment, the debates folder, the
price table, and the models they resolve to. Every application function takes one."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from argue.app._errors import NotFoundError, UsageError
from argue.app._limits import NAME_MAX_CHARS

if TYPE_CHECKING:
    from argue.config import Settings
    from argue.llm import ChatModel, PriceTable, ServerLimits
    from argue.store import DebateStore

Reporter = Callable[[str], None]
"""Where an application function says what it is doing (one line at a time): the CLI prints
to stderr, the MCP server and a Python caller discard or log it."""

STRUCTURED_OUTPUT_DIALECTS = ("auto", "json_schema", "json_object_schema", "json_object", "text")


def quiet(line: str) -> None:
    """A reporter that says nothing."""


def notices_to_stderr() -> None:
    """The CLI's choice: the store's one-line notices (a state.json rebuilt from the rounds…)
    printed on stderr. A Python caller gets them as ``ArgueWarning`` through ``warnings``."""
    from argue.store import set_notice_handler, stderr_notice

    set_notice_handler(stderr_notice)


@dataclass
class Workspace:
    """The settings and folders one request sees.

    ``debates_dir``: the folder given explicitly (``--debates-dir``); otherwise
    ``$ARGUE_DEBATES_DIR``, then config.toml's ``[defaults] debates_dir``, then
    ``$ARGUE_HOME/debates``. ``env`` defaults to the process environment."""

    debates_dir: Path | str | None = None
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def __post_init__(self) -> None:
        # A Python caller's arguments: a str or any os.PathLike is a path; anything else is
        # a UsageError (an ArgueError), never an AttributeError later.
        folder = self.debates_dir
        if folder is not None:
            if not isinstance(folder, str | os.PathLike) or isinstance(folder, bytes):
                raise UsageError(f"debates_dir: a path (str or Path), not {type(folder).__name__}")
            text = os.fspath(folder)
            if not isinstance(text, str) or not text.strip() or "\x00" in text:
                raise UsageError(f"debates_dir: not a folder path: {str(text)[:40]!r}")
            self.debates_dir = Path(text)
        if not isinstance(self.env, Mapping):
            raise UsageError(f"env: a mapping of names to values, not {type(self.env).__name__}")

    @cached_property
    def settings(self) -> Settings:
        from argue.config import ConfigError, load_settings
        from argue.llm import PROVIDER_NAMES
        from argue.paths import config_file_path

        try:
            settings = load_settings()
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        for name in settings.providers:
            if name not in PROVIDER_NAMES:
                raise UsageError(
                    f"{config_file_path()}: providers.{name}: unknown provider "
                    f"(one of {', '.join(PROVIDER_NAMES)})"
                )
        return settings

    @cached_property
    def root(self) -> Path:
        """The debates folder this request reads and writes."""
        folder = None if self.debates_dir is None else Path(self.debates_dir)
        return self.settings.debates_dir(folder, self.env)

    @cached_property
    def prices(self) -> PriceTable:
        """Built-in prices, then config.toml's [prices], then ARGUE_PRICES."""
        from argue.llm import PriceTableError, load_price_table

        try:
            return load_price_table(self.env, self.settings.prices)
        except PriceTableError as exc:
            raise UsageError(str(exc)) from None

    def open(self, debate_id: str) -> DebateStore:
        """The debate ``debate_id`` in this folder (NotFoundError when it is not one)."""
        from argue.store import DebateStore, StoreError

        if not debate_id or not debate_id.strip():
            raise UsageError("no debate id given")
        if len(debate_id) > NAME_MAX_CHARS or "\x00" in debate_id:
            shown = repr(debate_id[:40].replace("\x00", ""))
            raise NotFoundError(f"not a debate id: {shown}…")
        try:
            return DebateStore.open(self.root, debate_id)
        except StoreError as exc:
            raise NotFoundError(str(exc)) from None

    def resolve(
        self, provider: str | None, model: str | None, limits: ServerLimits | None = None
    ) -> ChatModel:
        """The model ``provider``/``model`` names, with the flags' ``limits`` over the
        environment's over config.toml's ``[providers.X]`` limits."""
        from argue.llm import ProviderNotConfigured, resolve_model

        try:
            return resolve_model(
                provider,
                model,
                env=self.env,
                prices=self.prices,
                limits=limits,
                configured_limits=self.settings.providers,
            )
        except ProviderNotConfigured as exc:
            raise UsageError(str(exc)) from None

    def require_price(self, chat_model: ChatModel, budget_usd: float | None) -> None:
        """A cost budget cannot be enforced for a model without a price: a usage error."""
        from argue.llm.pricing import missing_price_message

        if budget_usd is not None and not self.prices.knows(chat_model.provider, chat_model.model):
            message = missing_price_message(chat_model.provider, chat_model.model)
            # The pricing module's line names the CLI's flags; the library names the fields.
            for flag, name in (("--budget-usd", "budget_usd"), ("--max-tokens", "max_tokens")):
                message = message.replace(flag, f"`{name}`")
            raise UsageError(message)

    def research_sources(self, names: list[str] | None) -> SourceChoice:
        """The sources asked for (or the configured default, or every row), each checked, and
        split into those that can answer now and those that cannot (with why)."""
        flag = None if names is None else ",".join(names)
        return choose_sources(
            self.settings.sources(flag, self.env), self.env, named=names is not None
        )


NO_SOURCES = "none"
"""``sources`` ``none``: research runs on memory and colleagues only."""


@dataclass(frozen=True)
class SourceChoice:
    """The research sources a debate searches, decided before round 1: ``usable`` (in
    order; empty: none) and ``unused`` (name -> why it cannot answer now: "BRAVE_API_KEY not
    set", "the library is empty …"). ``named``: ``--sources`` named them (a standing default,
    $ARGUE_RESEARCH_SOURCES or config.toml's, that cannot run now is said, not an error)."""

    usable: list[str]
    unused: dict[str, str]
    named: bool


def choose_sources(names: list[str], env: Mapping[str, str], *, named: bool) -> SourceChoice:
    """``names`` (empty: every row of the source table) checked (unknown: a UsageError) and
    split by what can run now. ``--sources`` (``named``) naming only sources that cannot run is
    a UsageError; ``none`` chooses no source."""
    from argue.skills.dogpile import SOURCE_NAMES, usable_sources

    if NO_SOURCES in names:
        if names != [NO_SOURCES]:
            raise UsageError(f"`sources` {NO_SOURCES} cannot be combined with source names")
        return SourceChoice([], {}, named=named)
    check_sources(names)
    usable, unused = usable_sources(names or list(SOURCE_NAMES), env)
    if named and names and not usable:
        why = "; ".join(f"{name}: {reason}" for name, reason in unused.items())
        raise UsageError(
            f"no source named by `sources` can run now ({why}); name another source, "
            f"or `sources` {NO_SOURCES} to debate on memory and colleagues only"
        )
    return SourceChoice(usable, unused, named=named)


def check_sources(names: list[str]) -> list[str]:
    from argue.skills.dogpile import SOURCE_NAMES

    unknown = [s for s in names if s not in SOURCE_NAMES]
    if unknown:
        raise UsageError(
            f"unknown source(s) {', '.join(unknown)}; choose from: {', '.join(SOURCE_NAMES)}"
            f" (or {NO_SOURCES})"
        )
    return names


def server_limits(
    request_timeout_s: float | None = None,
    max_attempts: int | None = None,
    slots: int | None = None,
    structured_output: str | None = None,
) -> ServerLimits | None:
    """The per-run limits as ServerLimits (None when none is given); bad values are usage
    errors."""
    from pydantic import ValidationError

    from argue.llm import ServerLimits

    if (request_timeout_s, max_attempts, slots, structured_output) == (None, None, None, None):
        return None
    dialect = structured_output.strip().lower().replace("+", "_") if structured_output else None
    if dialect is not None and dialect not in STRUCTURED_OUTPUT_DIALECTS:
        raise UsageError(
            f"`structured_output`: unknown dialect {structured_output!r} (auto, json_schema, "
            "json_object_schema, json_object or text)"
        )
    try:
        return ServerLimits.model_validate(
            {
                "request_timeout_s": request_timeout_s,
                "max_attempts": max_attempts,
                "slots": slots,
                "structured_output": dialect,
            }
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise UsageError(f"{where}: {first['msg']}") from None
