"""Is anything listening at the model server's URL? One TCP connect before a debate is framed.

A dead server otherwise costs a dozen seconds of retries, several lines and a failed debate
folder. Only servers the user points argue at are checked (``OPENAI_BASE_URL`` other than
OpenAI's, ``ANTHROPIC_BASE_URL``, ``OLLAMA_HOST``): the hosted defaults need DNS and the
internet, which this quick look does not judge, and the scripted and in-process providers
have no server. No HTTP request is sent and no token spent; when a proxy would carry the
requests, the proxy, not the server, is what argue connects to, so nothing is checked.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.request import (  # type: ignore[attr-defined]  # not in typeshed (undocumented)
    proxy_bypass_environment,
)

CONNECT_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class Endpoint:
    url: str
    setting: str  # the variable the URL comes from


@dataclass(frozen=True)
class Unreachable:
    endpoint: Endpoint
    why: str  # "connection refused", "no answer within 2 s"…

    def sentence(self, command: str) -> str:
        """The one line a run fails with."""
        return (
            f"nothing answers at {self.endpoint.url} ({self.endpoint.setting}: {self.why}): "
            f"start the server or fix the URL; `{command} doctor` checks it"
        )

    def warning(self, command: str) -> str:
        """The dry run's line: the plan is shown, the run would stop here."""
        return (
            f"warning: nothing answers at {self.endpoint.url} ({self.endpoint.setting}: "
            f"{self.why}); a real run would stop before it starts: start the server or fix "
            f"the URL (`{command} doctor` checks it)"
        )


def endpoints(providers: Iterable[str], env: Mapping[str, str]) -> list[Endpoint]:
    """The user-pointed server URLs the providers in use talk to, each once (each provider's
    row in the provider table says its ``endpoint``; the hosted defaults have none)."""
    from argue.llm import provider_spec

    found: dict[str, Endpoint] = {}
    for provider in providers:
        spec = provider_spec(provider)
        pointed = spec.endpoint(env) if spec is not None and spec.endpoint is not None else None
        if pointed is not None:
            url, setting = pointed
            found.setdefault(url, Endpoint(url, setting))
    return list(found.values())


def first_unreachable(
    providers: Iterable[str],
    env: Mapping[str, str],
    timeout_s: float = CONNECT_TIMEOUT_S,
) -> Unreachable | None:
    """The first server nothing answers at, or None when every one accepted a connection."""
    for endpoint in endpoints(providers, env):
        why = why_unreachable(endpoint.url, env, timeout_s)
        if why is not None:
            return Unreachable(endpoint, why)
    return None


def why_unreachable(
    url: str, env: Mapping[str, str], timeout_s: float = CONNECT_TIMEOUT_S
) -> str | None:
    """Why a TCP connection to ``url``'s host and port did not open within ``timeout_s``, or
    None when it opened, a proxy applies, or the URL is not one to judge (the SDK says)."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host or parts.scheme not in ("http", "https"):
        return None
    if _proxied(parts.scheme, host, env):
        return None
    port = port or (443 if parts.scheme == "https" else 80)
    outcome: list[str | None] = []

    def connect() -> None:
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                outcome.append(None)
        except socket.gaierror:
            outcome.append(f"no address for {host}")
        except TimeoutError:
            outcome.append(f"no answer within {timeout_s:g} s")
        except ConnectionRefusedError:
            outcome.append("connection refused")
        except OSError as error:
            outcome.append(error.strerror or type(error).__name__)

    # A thread bounds the name lookup too, which the socket timeout does not cover.
    worker = threading.Thread(target=connect, daemon=True)
    worker.start()
    worker.join(timeout_s + 0.5)
    return outcome[0] if outcome else f"no answer within {timeout_s:g} s"


def _proxied(scheme: str, host: str, env: Mapping[str, str]) -> bool:
    """Whether an ``*_proxy`` variable would carry requests to ``host`` (``no_proxy`` aside)."""
    lowered = {key.lower(): value for key, value in env.items() if value}
    if not (lowered.get(f"{scheme}_proxy") or lowered.get("all_proxy")):
        return False
    no_proxy = lowered.get("no_proxy", "")
    return not (no_proxy and proxy_bypass_environment(host, {"no": no_proxy}))
