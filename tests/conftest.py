from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.loopback import LoopbackServer

# Provider and source credentials that must never leak in from the developer's shell.
_ISOLATED_ENV = (
    "ARGUE_PROVIDER",
    "ARGUE_MODEL",
    "ARGUE_LOCAL_MODEL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OLLAMA_HOST",
    "BRAVE_API_KEY",
    "PERPLEXITY_API_KEY",
    "YOUTUBE_API_KEY",
    "GITHUB_TOKEN",
    "ARGUE_DEBATES_DIR",
)


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch) -> None:
    """Every test gets its own ARGUE_HOME and no credentials from the outside world."""
    for name in _ISOLATED_ENV:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "argue_home"
    home.mkdir()
    monkeypatch.setenv("ARGUE_HOME", str(home))
    # Nothing listens on port 9 (discard): Ollama auto-detection finds nothing, fast.
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()
