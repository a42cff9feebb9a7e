"""``argue doctor`` against loopback servers (no network): what each test protects.

- a server that takes json_schema: every dialect works, streaming and the context length are
  reported, exit 0, and json_schema is remembered in $ARGUE_HOME/dialects.json;
- llama-cpp-python's way (HTTP 500 naming response_format to json_schema, json_object with the
  schema accepted): json_schema shows rejected (asked once, never retried), json_object_schema
  works, exit 0, and json_object_schema is remembered so debates start there;
- a setting that forces a dialect the server rejects: not ready, and the fix names the one
  that works;
- nothing listening: unreachable with the URL, nothing else sent, exit 1, the fix names
  OPENAI_BASE_URL;
- a server that does not serve the model (404): model rejected, exit 1, the fix names
  ARGUE_MODEL and the models the server lists;
- a server process that dies answering a probe (the connection dropped, then refused): that
  row is crashed, not rejected, the probes after it are not sent, the verdict says the server
  process died while answering (its log, dmesg), exit 1, and nothing goes into dialects.json
  (Teeth: ``refuses_connections`` in argue/llm/_adapter.py returning False makes the row
  "rejected" and the verdict "no structured-output method worked": the test fails);
- ``--json``: one object with every row, the sources and the verdict;
- research sources: a missing key is named by its variable ("no key (BRAVE_API_KEY)"), a key's
  value is never printed (a canary), and a source that answers says so in its own words;
- server text is untrusted: escape sequences never reach the terminal, markup is shown as text;
- Anthropic: reachable, model accepted and its native structured output; the key never shows;
- the local provider is not loaded without --call-local; usage errors exit 2.
"""

from __future__ import annotations

import json
import socket
from importlib.util import find_spec
from typing import Any

import pytest
from typer.testing import CliRunner

from argue.cli import app
from tests.llm.wire import anthropic_json_reply, anthropic_text_reply, openai_error, openai_reply
from tests.loopback import DyingServer, LoopbackServer, RecordedRequest, Reply

MODEL = "gemma-3-270m"
DIALECT_NAMES = ("json_schema", "json_object_schema", "json_object", "text")
CANARY = "sk-canary-doctor-0123456789abcdef"
LLAMA_CPP_PYTHON_500 = Reply(
    status=500,
    json={
        "detail": "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n"
        "  Input should be 'text' or 'json_object' [type=literal_error, "
        "input_value='json_schema']"
    },
)


def kind_of(request: RecordedRequest) -> str:
    response_format = request.json().get("response_format")
    if response_format is None:
        return "text"
    if response_format["type"] == "json_object":
        return "json_object_schema" if "schema" in response_format else "json_object"
    return response_format["type"]


def sse(*pieces: str) -> Reply:
    events = [
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1741569952,
            "model": MODEL,
            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
        }
        for piece in pieces
    ]
    body = "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"
    return Reply(body=body, content_type="text/event-stream")


def openai_server(
    loopback: LoopbackServer, *accepted: str, rejection: Reply | None = None, **listed: Any
) -> LoopbackServer:
    """An OpenAI-style server serving MODEL: the dialects in ``accepted`` get a valid answer,
    the others ``rejection``; a request without response_format gets prose around the JSON."""

    def handle(request: RecordedRequest) -> Reply:
        if request.method == "GET" and request.path == "/v1/models":
            return Reply(json={"object": "list", "data": [{"id": MODEL, **listed}]})
        if request.path != "/v1/chat/completions":
            return Reply(status=404, json={"error": "not found"})
        body = request.json()
        if body["model"] != MODEL:
            return openai_error(404, f"The model `{body['model']}` does not exist")
        if body.get("stream"):
            return sse("o", "k")
        kind = kind_of(request)
        if kind not in accepted:
            return rejection or openai_error(400, f"{kind} is not supported")
        answer = json.dumps({"answer": "yes"})
        return openai_reply(answer if kind != "text" else f"Sure: {answer}")

    loopback.handler = handle
    return loopback


def use_openai(monkeypatch: pytest.MonkeyPatch, url: str, model: str = MODEL) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{url}/v1")
    monkeypatch.setenv("ARGUE_MODEL", model)


def doctor(*args: str) -> Any:
    return CliRunner().invoke(app, ["doctor", "--timeout", "5", *args])


def doctor_json(*args: str) -> tuple[int, dict[str, Any]]:
    result = doctor("--json", "--no-sources", *args)
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.output
    return result.exit_code, json.loads(lines[0])


def statuses(payload: dict[str, Any]) -> dict[str, str]:
    return {check["name"]: check["status"] for check in payload["checks"]}


def remembered(home: str) -> dict[str, Any]:
    from pathlib import Path

    return json.loads((Path(home) / "dialects.json").read_text(encoding="utf-8"))["servers"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_json_schema_server_is_ready_and_remembered(loopback, monkeypatch):
    openai_server(loopback, *DIALECT_NAMES, max_model_len=8192)
    use_openai(monkeypatch, loopback.url)

    result = doctor("--no-sources")

    assert result.exit_code == 0, result.output
    assert f"ready: a debate can run with openai {MODEL} using json_schema" in result.stdout
    code, payload = doctor_json()
    assert code == 0
    rows = statuses(payload)
    assert all(rows[name] == "ok" for name in DIALECT_NAMES), rows
    assert rows["reachable"] == rows["model accepted"] == rows["streaming"] == "ok"
    context = next(c for c in payload["checks"] if c["name"] == "context length")
    assert context["status"] == "ok" and "8192" in context["detail"]
    import os

    servers = remembered(os.environ["ARGUE_HOME"])
    assert servers[f"{loopback.url}/v1 {MODEL}"]["dialect"] == "json_schema"


def test_a_500_on_json_schema_steps_to_json_object_schema(loopback, monkeypatch):
    import os

    server = openai_server(
        loopback, "json_object_schema", "json_object", "text", rejection=LLAMA_CPP_PYTHON_500
    )
    use_openai(monkeypatch, loopback.url)

    result = doctor("--no-sources")

    assert result.exit_code == 0, result.output
    assert "using json_object_schema" in result.stdout
    json_schema_requests = [
        r
        for r in server.requests
        if r.path == "/v1/chat/completions" and kind_of(r) == "json_schema"
    ]
    assert len(json_schema_requests) == 1  # a deterministic rejection is never retried
    code, payload = doctor_json()
    rows = statuses(payload)
    assert (code, rows["json_schema"], rows["json_object_schema"]) == (0, "rejected", "ok")
    rejected = next(c for c in payload["checks"] if c["name"] == "json_schema")
    assert "HTTP 500" in rejected["detail"] and "response_format" in rejected["detail"]
    assert "ARGUE_STRUCTURED_OUTPUT forces" not in rejected["detail"]  # the probe forced it
    assert payload["remembered_dialect"] == "json_object_schema"
    servers = remembered(os.environ["ARGUE_HOME"])
    assert servers[f"{loopback.url}/v1 {MODEL}"]["dialect"] == "json_object_schema"


def test_a_forced_dialect_the_server_rejects_is_not_ready(loopback, monkeypatch):
    openai_server(loopback, "json_object_schema", "text", rejection=LLAMA_CPP_PYTHON_500)
    use_openai(monkeypatch, loopback.url)
    monkeypatch.setenv("ARGUE_STRUCTURED_OUTPUT", "json_schema")

    code, payload = doctor_json()

    assert code == 1
    assert payload["ready"] is False and payload["forced_dialect"] == "json_schema"
    assert "ARGUE_STRUCTURED_OUTPUT=json_object_schema" in payload["fix"]


def test_nothing_listening_is_unreachable_with_a_fix(monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}"
    use_openai(monkeypatch, url)

    result = doctor("--no-sources")

    assert result.exit_code == 1, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[-1].startswith("not ready:")
    assert "OPENAI_BASE_URL" in lines[-1] and f"{url}/v1" in lines[-1]
    code, payload = doctor_json()
    rows = statuses(payload)
    assert (code, rows["reachable"], rows["model accepted"]) == (1, "unreachable", "skipped")
    assert f"{url}/v1/models" in payload["checks"][0]["detail"]


def test_a_model_the_server_does_not_serve_is_rejected(loopback, monkeypatch):
    openai_server(loopback, *DIALECT_NAMES)
    use_openai(monkeypatch, loopback.url, model="llama-9000")

    result = doctor("--no-sources")

    assert result.exit_code == 1, result.output
    code, payload = doctor_json()
    rows = statuses(payload)
    assert (code, rows["reachable"], rows["model accepted"]) == (1, "ok", "rejected")
    assert rows["json_schema"] == "skipped"
    assert "ARGUE_MODEL" in payload["fix"] and MODEL in payload["fix"]
    assert "does not exist" in payload["problem"]


def dies_on_a_schema() -> DyingServer:
    """Lists MODEL and answers plain calls; dies on the first request carrying a schema."""

    def answer(request: RecordedRequest) -> Reply:
        if request.method == "GET" and request.path == "/v1/models":
            return Reply(json={"object": "list", "data": [{"id": MODEL}]})
        return openai_reply("ok")

    def dies_on(request: RecordedRequest) -> bool:
        return request.method == "POST" and "response_format" in request.json()

    return DyingServer(answer, dies_on)


def test_a_server_that_dies_answering_a_probe_is_called_a_crash(monkeypatch):
    import os

    server = dies_on_a_schema()
    use_openai(monkeypatch, server.url)
    try:
        code, payload = doctor_json()
    finally:
        server.stop()

    rows = statuses(payload)
    assert code == 1 and payload["ready"] is False
    assert (rows["reachable"], rows["model accepted"], rows["json_schema"]) == (
        "ok",
        "ok",
        "crashed",
    )
    crashed = next(c for c in payload["checks"] if c["name"] == "json_schema")
    assert "the server process died while answering (check its log or dmesg)" in crashed["detail"]
    assert "rejected" not in crashed["detail"]
    later = ("json_object_schema", "json_object", "text", "streaming", "context length")
    assert all(rows[name] == "skipped" for name in later), rows
    assert len([r for r in server.requests if r.method == "POST"]) == 2  # text, then json_schema
    assert payload["problem"].startswith(
        "the server process died while answering the json_schema probe"
    )
    assert "dmesg" in payload["fix"] and "libggml-cpu.so" in payload["fix"]
    assert payload["remembered_dialect"] is None
    assert not os.path.exists(os.path.join(os.environ["ARGUE_HOME"], "dialects.json"))

    server = dies_on_a_schema()
    use_openai(monkeypatch, server.url)
    try:
        table = doctor("--no-sources")
    finally:
        server.stop()
    assert table.exit_code == 1, table.output
    words = " ".join(table.stdout.split())
    assert "crashed" in words and "not ready: the server process died while answering" in words


def test_json_has_every_row_and_the_verdict(loopback, monkeypatch):
    openai_server(loopback, *DIALECT_NAMES)
    use_openai(monkeypatch, loopback.url)

    code, payload = doctor_json()

    assert code == 0
    assert {
        "provider",
        "model",
        "endpoint",
        "ready",
        "verdict",
        "problem",
        "fix",
        "structured_output",
        "forced_dialect",
        "remembered_dialect",
        "checks",
        "sources",
        "notes",
    } <= set(payload)
    assert (payload["provider"], payload["model"], payload["ready"]) == ("openai", MODEL, True)
    assert payload["verdict"].startswith("ready: ") and payload["problem"] is None
    names = [check["name"] for check in payload["checks"]]
    assert names == [
        "reachable",
        "model accepted",
        *DIALECT_NAMES,
        "streaming",
        "context length",
    ]
    for check in payload["checks"]:
        assert {"name", "status", "detail", "latency_s", "kind"} <= set(check)
    assert [s["source"] for s in payload["sources"]] == [
        "arxiv",
        "github",
        "brave",
        "perplexity",
        "youtube",
        "library",
    ]


def test_sources_name_missing_keys_and_never_print_a_key(loopback, monkeypatch):
    openai_server(loopback, *DIALECT_NAMES)
    use_openai(monkeypatch, loopback.url)
    research = LoopbackServer().start()
    try:

        def perplexity(request: RecordedRequest) -> Reply:
            # A server that quotes the key back: argue must still not print it.
            said = f"invalid key {request.headers.get('authorization')}"
            return Reply(status=401, json={"error": {"message": said}})

        research.handler = perplexity
        monkeypatch.setenv("PERPLEXITY_API_KEY", CANARY)
        monkeypatch.setenv("ARGUE_PERPLEXITY_URL", research.url)
        for name in ("ARXIV", "GITHUB", "BRAVE", "YOUTUBE"):
            monkeypatch.setenv(f"ARGUE_{name}_URL", f"http://127.0.0.1:{closed_port()}")

        asked = doctor("--json")
        listed = doctor("--no-sources")
    finally:
        research.stop()

    assert asked.exit_code == listed.exit_code == 0, asked.output + listed.output
    for result in (asked, listed):
        assert CANARY not in result.output
        assert "no key (BRAVE_API_KEY)" in result.stdout
        assert "key set (PERPLEXITY_API_KEY)" in result.stdout
    assert "not asked" in listed.stdout
    rows = {row["source"]: row for row in json.loads(asked.stdout)["sources"]}
    assert rows["brave"]["key_set"] is False and rows["perplexity"]["key_set"] is True
    assert (rows["brave"]["status"], rows["brave"]["detail"]) == (
        "refused",
        "BRAVE_API_KEY not set",
    )
    assert rows["perplexity"]["status"] == "failed" and "HTTP 401" in rows["perplexity"]["detail"]
    assert rows["arxiv"]["status"] == "failed" and "could not connect" in rows["arxiv"]["detail"]
    assert rows["library"]["status"] == "empty"  # answers only once it holds documents
    assert [r.path for r in research.requests] == ["/chat/completions"]


def test_server_words_cannot_drive_the_terminal(loopback, monkeypatch):
    def hostile(request: RecordedRequest) -> Reply:
        if request.path == "/v1/models":
            return Reply(json={"object": "list", "data": [{"id": MODEL}]})
        return openai_error(404, "no \x1b]0;owned\x07\x1b[31mmodel[/] [bold]here[/bold]")

    loopback.handler = hostile
    use_openai(monkeypatch, loopback.url)

    result = doctor("--no-sources")

    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "[bold]here[/bold]" in result.stdout


def test_anthropic_reports_its_native_structured_output(loopback, monkeypatch):
    def anthropic(request: RecordedRequest) -> Reply:
        if request.method == "GET":
            return Reply(json={"data": [{"id": "claude-sonnet-4-6", "type": "model"}]})
        if "output_config" in request.json() or "tools" in request.json():
            return anthropic_json_reply({"answer": "no"})
        return anthropic_text_reply("ok")

    loopback.handler = anthropic
    monkeypatch.setenv("ANTHROPIC_API_KEY", CANARY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)

    code, payload = doctor_json()

    assert code == 0, payload
    rows = statuses(payload)
    assert rows == {"reachable": "ok", "model accepted": "ok", "structured output": "ok"}
    assert payload["structured_output"].endswith("(native)")
    assert CANARY not in json.dumps(payload)
    assert loopback.requests[0].path == "/v1/models"


@pytest.mark.skipif(find_spec("llama_cpp") is None, reason="needs llama-cpp-python")
def test_the_local_model_is_not_loaded_without_call_local(monkeypatch, tmp_path):
    model_file = tmp_path / "tiny.gguf"
    model_file.write_bytes(b"GGUF not really")
    monkeypatch.setenv("ARGUE_LOCAL_MODEL", str(model_file))

    code, payload = doctor_json("--provider", "local")

    assert code == 0
    assert payload["structured_output"] == "grammar (in-process)"
    assert statuses(payload)["model accepted"] == "skipped"
    assert any("--call-local" in note for note in payload["notes"])


def test_usage_errors_exit_2():
    for args in (["--timeout", "0"], ["--provider", "nowhere"], ["--provider", "anthropic"]):
        result = doctor("--no-sources", *args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
    assert "ANTHROPIC_API_KEY" in doctor("--provider", "anthropic").stderr
