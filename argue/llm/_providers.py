"""Provider construction: credentials, base URLs and environment, apart from the wire adapters.

An adapter (``AnthropicModel``, ``OpenAICompatModel``) speaks one API; a provider here says where
that API lives and how to authenticate. Ollama, vLLM, LM Studio and the llama.cpp server are all
an ``OpenAICompatProvider`` with another base URL.
"""

from __future__ import annotations

import importlib.util
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import urlsplit

from argue.concurrency import cede_on_the_wire
from argue.llm.base import ProviderNotConfigured

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from openai import AsyncOpenAI

ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
OLLAMA_DEFAULT_HOST = "127.0.0.1:11434"
# OpenAI-compatible servers that need no key still require the SDK to send one.
UNUSED_API_KEY = "not-needed"


@dataclass(frozen=True)
class AnthropicProvider:
    api_key: str = field(repr=False)
    base_url: str = ANTHROPIC_DEFAULT_BASE_URL

    name: ClassVar[str] = "anthropic"
    key_env: ClassVar[str] = "ANTHROPIC_API_KEY"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> AnthropicProvider:
        api_key = env.get("ANTHROPIC_API_KEY")
        if not api_key:
            raise ProviderNotConfigured(
                "provider 'anthropic' needs ANTHROPIC_API_KEY (optionally ANTHROPIC_BASE_URL)"
            )
        return cls(api_key=api_key, base_url=env.get("ANTHROPIC_BASE_URL") or cls.base_url)

    def client(self, timeout_s: float) -> AsyncAnthropic:
        from anthropic import AsyncAnthropic, DefaultAsyncHttpxClient

        # tenacity owns retries (argue.llm._retry): the SDK must not multiply them. The SDK's
        # own HTTP client (its defaults), with the hook that tells a call's send turn is over.
        return AsyncAnthropic(
            api_key=self.api_key,
            base_url=self.base_url,
            max_retries=0,
            timeout=timeout_s,
            http_client=DefaultAsyncHttpxClient(event_hooks={"request": [cede_on_the_wire]}),
        )


@dataclass(frozen=True)
class OpenAICompatProvider:
    name: str
    base_url: str
    api_key: str = field(default=UNUSED_API_KEY, repr=False)
    key_env: str = ""

    @classmethod
    def openai_from_env(cls, env: Mapping[str, str]) -> OpenAICompatProvider:
        base_url = env.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL
        api_key = env.get("OPENAI_API_KEY")
        if not api_key and is_official_openai(base_url):
            raise ProviderNotConfigured(
                "provider 'openai' needs OPENAI_API_KEY "
                "(or OPENAI_BASE_URL for an OpenAI-compatible server that needs no key)"
            )
        return cls(
            name="openai",
            base_url=base_url,
            api_key=api_key or UNUSED_API_KEY,
            key_env="OPENAI_API_KEY",
        )

    @classmethod
    def ollama(cls, host_url: str) -> OpenAICompatProvider:
        return cls(name="ollama", base_url=f"{host_url.rstrip('/')}/v1")

    @property
    def official_openai(self) -> bool:
        return is_official_openai(self.base_url)

    def client(self, timeout_s: float) -> AsyncOpenAI:
        from openai import AsyncOpenAI, DefaultAsyncHttpxClient

        # tenacity owns retries (argue.llm._retry): the SDK must not multiply them. The SDK's
        # own HTTP client (its defaults), with the hook that tells a call's send turn is over.
        return AsyncOpenAI(
            api_key=self.api_key,
            base_url=self.base_url,
            max_retries=0,
            timeout=timeout_s,
            http_client=DefaultAsyncHttpxClient(event_hooks={"request": [cede_on_the_wire]}),
        )


def is_official_openai(base_url: str) -> bool:
    return urlsplit(base_url).hostname == "api.openai.com"


def ollama_host_url(env: Mapping[str, str]) -> str:
    """``OLLAMA_HOST`` as a URL, read the way Ollama reads it: no scheme means port 11434, an
    explicit http:// or https:// means that scheme's port; a 0.0.0.0 bind address is local."""
    raw = (env.get("OLLAMA_HOST") or OLLAMA_DEFAULT_HOST).strip().rstrip("/")
    default_port = 11434
    if "://" in raw:
        default_port = 443 if raw.startswith("https://") else 80
    else:
        raw = f"http://{raw}"
    parts = urlsplit(raw)
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}:{parts.port or default_port}{parts.path}"


def probe_ollama(
    host_url: str, timeout_s: float = 0.3, problems: list[str] | None = None
) -> list[str] | None:
    """Model names an Ollama server lists at ``/api/tags``, or None when none does; what went
    wrong is appended to ``problems`` in plain words (nothing listening, or a server that
    answered but is not Ollama)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    url = f"{host_url}/api/tags"
    try:
        with opener.open(url, timeout=timeout_s) as response:
            payload = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        if problems is not None:
            problems.append(
                f"a server answered HTTP {error.code} at {url}, so it is not Ollama (for another "
                "OpenAI-style server use ARGUE_PROVIDER=openai with OPENAI_BASE_URL)"
            )
        return None
    except (OSError, ValueError) as error:
        if problems is not None:
            reason = getattr(error, "reason", None) or error
            what = "not JSON" if isinstance(error, ValueError) else f"nothing answered ({reason})"
            problems.append(f"{what} at {url} (start `ollama serve` or set OLLAMA_HOST)")
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("models"), list):
        if problems is not None:
            problems.append(f"{url} answered without a model list, so it is not Ollama")
        return None
    names = []
    for entry in payload["models"]:
        if isinstance(entry, dict):
            name = entry.get("model") or entry.get("name")
            if isinstance(name, str) and name:
                names.append(name)
    return names


def llama_cpp_installed() -> bool:
    return importlib.util.find_spec("llama_cpp") is not None
