"""How long and how hard argue talks to one provider: flags > environment > config > defaults.

Hosted APIs (api.openai.com, api.anthropic.com) and self-hosted servers (llama.cpp, vLLM,
Ollama, LM Studio behind a base URL) get different defaults: a self-hosted server is often one
slow slot that keeps computing a request argue stopped waiting for, so it gets longer timeouts
and timed-out requests are not sent again.

config.toml::

    [providers.openai]              # the provider name: anthropic, openai, ollama
    request_timeout_s = 900         # one HTTP request
    call_deadline_s = 1200          # one call, its retries and waits included
    max_attempts = 2
    slots = 1                       # requests in flight at once (a one-slot server: 1)
    retry_timeouts = false
    structured_output = "json_object_schema"   # or auto, json_schema, json_object, text
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from argue.llm._dialects import DIALECT_ENV, Dialect
from argue.llm._retry import RetryPolicy
from argue.llm.base import ProviderNotConfigured

HOSTED_DEFAULTS = RetryPolicy()
SELF_HOSTED_DEFAULTS = RetryPolicy(
    max_attempts=3, max_total_s=900.0, request_timeout_s=600.0, retry_timeouts=False
)
ENV_NAMES: dict[str, str] = {
    "request_timeout_s": "ARGUE_REQUEST_TIMEOUT_S",
    "call_deadline_s": "ARGUE_CALL_DEADLINE_S",
    "max_attempts": "ARGUE_MAX_ATTEMPTS",
    "slots": "ARGUE_MAX_CONCURRENCY",
    "retry_timeouts": "ARGUE_RETRY_TIMEOUTS",
    "structured_output": DIALECT_ENV,
}


class ServerLimits(BaseModel):
    """Each field None means "not said here": the next source down decides. config.toml's
    ``[providers.<name>]`` arrives as ``argue.config.ProviderLimits`` (the same fields)."""

    model_config = ConfigDict(extra="forbid")

    request_timeout_s: float | None = Field(default=None, gt=0)
    call_deadline_s: float | None = Field(default=None, gt=0)
    max_attempts: int | None = Field(default=None, ge=1, le=20)
    slots: int | None = Field(default=None, ge=1, le=256)
    retry_timeouts: bool | None = None
    structured_output: Dialect | Literal["auto"] | None = None

    def over(self, *lower: BaseModel | None) -> ServerLimits:
        """These limits, with each field left None taken from ``lower`` (first says first):
        ServerLimits or config's ProviderLimits, records with the same fields."""
        merged = self.model_dump()
        for other in lower:
            if other is None:
                continue
            for key, value in other.model_dump().items():
                if merged[key] is None:
                    merged[key] = value
        return ServerLimits.model_validate(merged)

    def retry_policy(self, self_hosted: bool) -> RetryPolicy:
        base = SELF_HOSTED_DEFAULTS if self_hosted else HOSTED_DEFAULTS
        deadline = self.call_deadline_s or base.max_total_s
        timeout = self.request_timeout_s or base.request_timeout_s
        return RetryPolicy(
            max_attempts=self.max_attempts or base.max_attempts,
            max_total_s=max(deadline, timeout),
            request_timeout_s=timeout,
            retry_timeouts=(
                base.retry_timeouts if self.retry_timeouts is None else self.retry_timeouts
            ),
        )

    @property
    def dialect(self) -> Dialect | None:
        value = self.structured_output
        return None if value is None or value == "auto" else value


def limits_from_env(env: Mapping[str, str]) -> ServerLimits:
    """The ``ARGUE_*`` limit variables; a bad value is a ProviderNotConfigured naming it."""
    raw: dict[str, object] = {}
    for field, name in ENV_NAMES.items():
        value = (env.get(name) or "").strip()
        if value:
            raw[field] = value.lower().replace("+", "_") if field == "structured_output" else value
    try:
        return ServerLimits.model_validate(raw)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        name = ENV_NAMES.get(field, field)
        raise ProviderNotConfigured(
            f"{name}={env.get(name)!r}: {first['msg']}{_choices(field)}"
        ) from None


def _choices(field: str) -> str:
    if field == "structured_output":
        return " (auto, json_schema, json_object_schema, json_object or text)"
    return ""
