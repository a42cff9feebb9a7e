"""The row type of the provider table (``argue.llm._registry``) and what a row's functions get.

Apart from the table so the built-in rows (``argue.llm._builtin``) and the table import it
without importing each other.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from argue.llm.base import ChatModel

if TYPE_CHECKING:
    from pydantic import BaseModel

    from argue.llm._dialects import DialectMemory
    from argue.llm._probe_report import ProbeReport
    from argue.llm._providers import OpenAICompatProvider
    from argue.llm._retry import RetryPolicy, Sleep
    from argue.llm._server_limits import ServerLimits
    from argue.llm.pricing import PriceTable

DEFAULT_MAX_CONCURRENCY = 16
"""Requests in flight to a hosted API (api.openai.com, api.anthropic.com): a round's widest wave
is its third, three requests a seat and the judge (reflections, support checks, colleague
consults): 7 for a pair, 16 for a panel of five, which 8 in flight split in two sub-waves
(``bench/overhead.py``: a panel 3.50 waves a round with 8). Sixteen stays within what hosted
rate limits take in a burst (a 429 is waited out and retried like any other), and a wider
panel still only queues its last requests in argue."""

SELF_HOSTED_MAX_CONCURRENCY = 8
"""Requests in flight to a self-hosted server (any other base URL): it computes every request
on one machine, so what it cannot start waits in its own queue, on the clock of a request
timeout that is not retried there; eight keep a pair's widest wave (seven) one wave, and a
one-slot server sets ``slots = 1``."""


@dataclass(frozen=True)
class ProbeOptions:
    """What ``argue doctor`` asks of a probe hook."""

    timeout_s: float
    call_local: bool
    memory: DialectMemory | None


@dataclass
class BuildContext:
    """What a row's ``build`` gets besides the model name: the environment, the price table,
    the limits (flags > ``ARGUE_*`` > config.toml's ``[providers.X]`` > defaults) and, when
    ``detect`` found the provider, what it found (``detected``)."""

    env: Mapping[str, str]
    limits: ServerLimits
    # config.toml's [providers.<name>]: argue.config.ProviderLimits, the same fields as
    # ServerLimits (which ServerLimits.over takes); llm does not import config.
    configured_limits: Mapping[str, BaseModel]
    max_concurrency: int | None
    retry: RetryPolicy | None
    sleep: Sleep
    prices: PriceTable
    dialects: DialectMemory | None
    detected: Any = None

    def limits_for(self, provider: str) -> ServerLimits:
        return self.limits.over(self.configured_limits.get(provider))

    def policy(self, provider: str, self_hosted: bool) -> tuple[RetryPolicy, int]:
        """The retry policy and the slots (requests in flight) for ``provider``."""
        limits = self.limits_for(provider)
        retry = self.retry or limits.retry_policy(self_hosted)
        default = SELF_HOSTED_MAX_CONCURRENCY if self_hosted else DEFAULT_MAX_CONCURRENCY
        return retry, self.max_concurrency or limits.slots or default

    def openai_compat(self, provider: OpenAICompatProvider, model: str) -> ChatModel:
        """An ``OpenAICompatModel`` for any OpenAI-style server (a row for vLLM, LM Studio…
        needs only a base URL and this)."""
        from argue.llm._dialects import default_dialect_memory
        from argue.llm._openai_compat import OpenAICompatModel

        retry, slots = self.policy(provider.name, not provider.official_openai)
        return OpenAICompatModel(
            model,
            provider=provider,
            retry=retry,
            max_concurrency=slots,
            sleep=self.sleep,
            prices=self.prices,
            dialects=self.dialects or default_dialect_memory(),
            dialect=self.limits_for(provider.name).dialect,
            dialect_setting=(
                f"ARGUE_STRUCTURED_OUTPUT (or [providers.{provider.name}] structured_output)"
            ),
        )


Build = Callable[[str | None, BuildContext], ChatModel]
Detect = Callable[[Mapping[str, str]], Any]
# The server a user pointed the provider at: (url, the variable that says so), or None.
Endpoint = Callable[[Mapping[str, str]], tuple[str, str] | None]
Probe = Callable[[ChatModel, ProbeOptions], Awaitable["ProbeReport"]]


@dataclass(frozen=True)
class ProviderSpec:
    """One provider. ``build(model, ctx)`` raises ``ProviderNotConfigured`` saying what is
    missing. ``detect(env)`` returns None when the provider is not there, anything else when it
    is (handed to ``build`` as ``ctx.detected``: Ollama's list of models, so the server is asked
    once); rows are tried in table order, a ``fallback`` row only after every other row and
    after a model named for a hosted provider (``model_prefixes``) was refused for its missing
    key. ``probe``: ``argue doctor``'s checks (None: one tiny call and one structured call)."""

    name: str
    build: Build
    key_vars: tuple[str, ...] = ()
    url_vars: tuple[str, ...] = ()
    default_model: str | None = None
    detect: Detect | None = None
    probe: Probe | None = None
    endpoint: Endpoint | None = None  # checked for a TCP answer before a debate starts
    setup: str = ""  # how to set it up, in a clause: "set ANTHROPIC_API_KEY"
    # doctor's fix when the server does not answer; "{endpoint}" becomes the URL it tried
    unreachable_fix: str = "check the server"
    detected_because: str = ""  # config show's "auto-detected: …" when no key variable is set
    help: str = ""  # a few words for --provider's help, e.g. "ANTHROPIC_API_KEY"
    model_prefixes: tuple[str, ...] = ()  # model names only this provider serves ("claude")
    fallback: bool = False
    origin: str = field(default="built-in", compare=False)

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.strip().lower():
            raise ValueError(f"a provider name is lower-case, without spaces: {self.name!r}")
