"""Provider resolution: explicit choice, then keys (or a bare OPENAI_BASE_URL), then Ollama, then
in-process llama.cpp."""

from __future__ import annotations

import pytest

from argue.llm import (
    AnthropicModel,
    ChatModel,
    LocalLlamaModel,
    Message,
    OpenAICompatModel,
    ProviderNotConfigured,
    _resolve,
    resolve_model,
)
from argue.llm._providers import ollama_host_url
from tests.llm.wire import openai_reply
from tests.loopback import LoopbackServer, Reply

NOBODY = "127.0.0.1:9"  # nothing listens on the discard port
OLLAMA_TAGS = {
    "models": [
        {
            "name": "qwen3:8b",
            "model": "qwen3:8b",
            "modified_at": "2026-10-02T09:12:44.514Z",
            "size": 5225388164,
            "digest": "500a1f067a9f782620b40bee6f7b0c89e17ae61f686b92c24933e4ca4b2b8b41",
            "details": {
                "format": "gguf",
                "family": "qwen3",
                "parameter_size": "8.2B",
                "quantization_level": "Q4_K_M",
            },
        },
        {"name": "llama3.2:latest", "model": "llama3.2:latest", "size": 2019393189},
    ]
}


@pytest.fixture
def no_llama_cpp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_resolve._providers, "llama_cpp_installed", lambda: False)


def ollama_server(loopback: LoopbackServer, tags: dict[str, object] = OLLAMA_TAGS) -> str:
    def handler(request):
        if request.path == "/api/tags":
            return Reply(json=tags)
        return openai_reply("hello from ollama")

    loopback.handler = handler
    return loopback.url.removeprefix("http://")


def test_explicit_anthropic_with_key_and_base_url():
    env = {"ANTHROPIC_API_KEY": "sk-ant-123456789", "ANTHROPIC_BASE_URL": "http://gw.local:8080"}
    model = resolve_model("anthropic", env=env)
    assert isinstance(model, AnthropicModel) and isinstance(model, ChatModel)
    assert (model.provider, model.model) == ("anthropic", "claude-sonnet-4-6")
    assert "http://gw.local:8080" in repr(model) and "sk-ant-123456789" not in repr(model)


@pytest.mark.parametrize(
    ("provider", "env_var"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")]
)
def test_explicit_provider_without_its_key_names_the_variable(provider: str, env_var: str):
    with pytest.raises(ProviderNotConfigured, match=env_var):
        resolve_model(provider, env={"OLLAMA_HOST": NOBODY})


def test_argue_provider_and_argue_model_are_read_from_env():
    env = {
        "ARGUE_PROVIDER": "OpenAI",
        "ARGUE_MODEL": "gpt-4.1-mini",
        "OPENAI_API_KEY": "sk-1234567890",
    }
    model = resolve_model(env=env)
    assert isinstance(model, OpenAICompatModel)
    assert (model.provider, model.model) == ("openai", "gpt-4.1-mini")


def test_arguments_beat_the_environment():
    env = {"ARGUE_PROVIDER": "openai", "ARGUE_MODEL": "gpt-4.1", "ANTHROPIC_API_KEY": "k" * 12}
    model = resolve_model("anthropic", "claude-haiku-4-5", env=env)
    assert (model.provider, model.model) == ("anthropic", "claude-haiku-4-5")


def test_openai_compatible_server_needs_no_key():
    env = {
        "ARGUE_PROVIDER": "openai",
        "OPENAI_BASE_URL": "http://127.0.0.1:8000/v1",
        "ARGUE_MODEL": "qwen",
    }
    model = resolve_model(env=env)
    assert (model.provider, model.model) == ("openai", "qwen")
    assert "http://127.0.0.1:8000/v1" in repr(model)


def test_unknown_provider_lists_the_valid_names():
    with pytest.raises(ProviderNotConfigured, match="anthropic, openai, ollama, local"):
        resolve_model("gemini", env={})


def test_anthropic_key_wins_over_openai_key():
    env = {"ANTHROPIC_API_KEY": "a" * 12, "OPENAI_API_KEY": "o" * 12, "OLLAMA_HOST": NOBODY}
    assert resolve_model(env=env).provider == "anthropic"


def test_openai_key_is_next():
    env = {"OPENAI_API_KEY": "o" * 12, "OLLAMA_HOST": NOBODY}
    model = resolve_model(env=env)
    assert (model.provider, model.model) == ("openai", "gpt-5.4-mini")


async def test_openai_base_url_alone_is_next_with_a_placeholder_key(loopback: LoopbackServer):
    loopback.enqueue(openai_reply("hello from vLLM"))
    env = {"OPENAI_BASE_URL": f"{loopback.url}/v1", "ARGUE_MODEL": "qwen", "OLLAMA_HOST": NOBODY}

    model = resolve_model(env=env)
    assert isinstance(model, OpenAICompatModel)
    assert (model.provider, model.model) == ("openai", "qwen")

    result = await model.complete([Message(role="user", content="hi")])
    await model.aclose()
    assert result.value == "hello from vLLM"
    assert loopback.requests[0].headers["authorization"] == "Bearer not-needed"


def test_keys_come_before_a_bare_openai_base_url():
    base = {"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1", "OLLAMA_HOST": NOBODY}
    assert resolve_model(env={**base, "ANTHROPIC_API_KEY": "a" * 12}).provider == "anthropic"
    keyed = resolve_model(env={**base, "OPENAI_API_KEY": "sk-" + "o" * 12})
    assert keyed._connection.api_key == "sk-" + "o" * 12


def test_a_bare_base_url_at_api_openai_com_is_not_a_configuration(no_llama_cpp: None):
    env = {"OPENAI_BASE_URL": "https://api.openai.com/v1", "OLLAMA_HOST": NOBODY}
    with pytest.raises(ProviderNotConfigured, match="no model provider configured"):
        resolve_model(env=env)


async def test_a_reachable_ollama_is_detected_and_used_through_v1(loopback: LoopbackServer):
    host = ollama_server(loopback)

    model = resolve_model(env={"OLLAMA_HOST": host})
    assert isinstance(model, OpenAICompatModel)
    assert (model.provider, model.model) == ("ollama", "qwen3:8b")  # first model listed

    result = await model.complete([Message(role="user", content="hi")])
    await model.aclose()
    assert result.value == "hello from ollama"
    assert [r.path for r in loopback.requests] == ["/api/tags", "/v1/chat/completions"]
    assert result.usage.cost_usd == 0.0


def test_ollama_with_argue_model(loopback: LoopbackServer):
    host = ollama_server(loopback)
    model = resolve_model(env={"OLLAMA_HOST": f"http://{host}", "ARGUE_MODEL": "llama3.2:latest"})
    assert (model.provider, model.model) == ("ollama", "llama3.2:latest")


def test_ollama_without_models_says_how_to_get_one(loopback: LoopbackServer):
    host = ollama_server(loopback, {"models": []})
    with pytest.raises(ProviderNotConfigured, match="has no models: `ollama pull"):
        resolve_model(env={"OLLAMA_HOST": host})


def test_a_slow_ollama_probe_counts_as_absent(loopback: LoopbackServer, no_llama_cpp: None):
    loopback.enqueue(Reply(json=OLLAMA_TAGS, delay_s=1.0))
    with pytest.raises(ProviderNotConfigured, match="no model provider configured"):
        resolve_model(env={"OLLAMA_HOST": loopback.url})


def test_explicit_ollama_that_does_not_answer():
    with pytest.raises(
        ProviderNotConfigured, match=r"nothing answered \(.*\) at http://127\.0\.0\.1:9"
    ):
        resolve_model("ollama", env={"OLLAMA_HOST": NOBODY})


def test_explicit_ollama_pointed_at_another_server_says_it_answered(loopback: LoopbackServer):
    loopback.enqueue(Reply(status=404, json={"detail": "Not Found"}))
    with pytest.raises(ProviderNotConfigured) as caught:
        resolve_model("ollama", env={"OLLAMA_HOST": loopback.url})
    message = str(caught.value)
    assert "answered HTTP 404" in message and "not Ollama" in message
    assert "nothing answered" not in message


def test_local_is_the_last_resort_when_llama_cpp_is_installed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(_resolve._providers, "llama_cpp_installed", lambda: True)
    model = resolve_model(env={"OLLAMA_HOST": NOBODY})
    assert isinstance(model, LocalLlamaModel)
    assert model.uses_default_model
    assert (model.provider, model.model) == ("local", "gemma-3-270m-q4_k_m")


def test_local_model_file_from_argue_local_model(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(_resolve._providers, "llama_cpp_installed", lambda: True)
    gguf = tmp_path / "mistral-7b-instruct.Q4_K_M.gguf"
    gguf.write_bytes(b"GGUF")
    model = resolve_model("local", env={"ARGUE_LOCAL_MODEL": str(gguf)})
    assert not model.uses_default_model
    assert model.model == str(gguf)  # recorded whole, so `resume` can load it again
    # the name a debate records for the bundled model resolves back to the bundled model
    assert resolve_model("local", "gemma-3-270m-q4_k_m", env={}).uses_default_model
    with pytest.raises(ProviderNotConfigured, match="local model file not found"):
        resolve_model("local", env={"ARGUE_LOCAL_MODEL": str(tmp_path / "missing.gguf")})


def test_explicit_local_without_llama_cpp(no_llama_cpp: None):
    with pytest.raises(ProviderNotConfigured, match=r"llama-cpp-python.*argue-debate\[local\]"):
        resolve_model("local", env={})


def test_nothing_configured_gives_one_line_listing_every_way(no_llama_cpp: None):
    with pytest.raises(ProviderNotConfigured) as caught:
        resolve_model(env={"OLLAMA_HOST": NOBODY})
    message = str(caught.value)
    assert "\n" not in message
    for way in (
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OLLAMA_HOST",
        "ARGUE_LOCAL_MODEL",
    ):
        assert way in message


def test_os_environ_is_the_default(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-shell-123")
    monkeypatch.setenv("ARGUE_MODEL", "gpt-5.4")
    assert (resolve_model().provider, resolve_model().model) == ("openai", "gpt-5.4")


def test_max_concurrency_from_argument_and_env():
    env = {"ANTHROPIC_API_KEY": "a" * 12, "ARGUE_MAX_CONCURRENCY": "7"}
    assert resolve_model(env=env).max_concurrency == 7
    assert resolve_model(env=env, max_concurrency=2).max_concurrency == 2
    with pytest.raises(ProviderNotConfigured, match="ARGUE_MAX_CONCURRENCY must be a positive"):
        resolve_model(env={**env, "ARGUE_MAX_CONCURRENCY": "zero"})


def test_in_flight_default_hosted_against_self_hosted():
    """A hosted API keeps a five-seat panel's widest wave (16 requests) in flight at once; a
    self-hosted server, which queues what it cannot start on a timeout not retried there,
    gets 8 (a pair's widest wave, 7, stays one)."""
    key = "a" * 12
    assert resolve_model(env={"ANTHROPIC_API_KEY": key}).max_concurrency == 16
    assert resolve_model(env={"OPENAI_API_KEY": key}).max_concurrency == 16
    local = {"OPENAI_API_KEY": key, "OPENAI_BASE_URL": f"http://{NOBODY}/v1"}
    assert resolve_model(env=local).max_concurrency == 8
    anthropic_proxy = {"ANTHROPIC_API_KEY": key, "ANTHROPIC_BASE_URL": f"http://{NOBODY}"}
    assert resolve_model(env=anthropic_proxy).max_concurrency == 8
    assert resolve_model(env={**local, "ARGUE_MAX_CONCURRENCY": "16"}).max_concurrency == 16


@pytest.mark.parametrize(
    ("value", "url"),
    [
        (None, "http://127.0.0.1:11434"),
        ("127.0.0.1:11434", "http://127.0.0.1:11434"),
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("gpu-box:9999", "http://gpu-box:9999"),
        ("https://ollama.example.org/", "https://ollama.example.org:443"),
        ("http://box", "http://box:80"),
        ("[::1]:11435", "http://[::1]:11435"),
    ],
)
def test_ollama_host_forms(value: str | None, url: str):
    assert ollama_host_url({"OLLAMA_HOST": value} if value else {}) == url
