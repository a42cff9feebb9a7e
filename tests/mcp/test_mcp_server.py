"""``argue mcp`` driven end to end by the official SDK's client over stdio.

The server is ``python -m argue mcp`` in a subprocess with a clean environment (as the e2e
harness builds it); the model is the loopback ``FakeLLM`` behind ``OPENAI_BASE_URL`` and research
is restricted to the offline library. The client is ``mcp.Client`` over ``mcp.client.stdio``'s
``stdio_client`` (a ``ClientSession`` underneath).

Teeth (checked once): in ``argue/mcp/capture.py`` make ``error_line`` return the bare message
(without the CLI's ``error:`` prefix): the tool errors no longer read as the CLI's line and
``test_errors_are_tool_errors_with_the_cli_line`` (and the finished-debate test) fail. And in
``Debates.start`` drop the ``app.detach(store)`` call: the debate is created but no background
run takes it, ``debate_status`` says "interrupted", and both debate tests fail.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp.server.mcpserver", reason="needs the mcp extra (2.x)")

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent

from argue.mcp import TOOL_NAMES
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION, Cli, in_process, openai_env

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 120.0
UNKNOWN_ID = "argue_19990101_000000"


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cli(tmp_path: Path, fake: FakeLLM) -> Iterator[Cli]:
    workdir = tmp_path / "work"
    workdir.mkdir()
    cli = Cli(workdir, env_overrides={**openai_env(fake.url), "ARGUE_MODEL": "fake-main-1"})
    yield cli
    _kill_background_runs(cli)


def _kill_background_runs(cli: Cli) -> None:
    """A debate a failed test left running: kill the background run the server started."""
    for state_file in cli.debates.glob("*/state.json"):
        try:
            state = json.loads(state_file.read_text(encoding="utf-8"))
        except ValueError:
            continue
        pid = state.get("pid")
        if state.get("status") == "running" and isinstance(pid, int) and pid != os.getpid():
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)


@asynccontextmanager
async def mcp_client(cli: Cli) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "argue", "mcp"], env=cli.env(), cwd=cli.workdir
    )
    with (cli.workdir / "server.stderr").open("w", encoding="utf-8") as errlog:
        async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=90) as client:
            yield client


def _text(result: CallToolResult) -> str:
    assert all(isinstance(block, TextContent) for block in result.content), result
    return "".join(block.text for block in result.content if isinstance(block, TextContent))


def _ok(result: CallToolResult) -> CallToolResult:
    assert not result.is_error, _text(result)
    return result


def _data(result: CallToolResult) -> dict[str, Any]:
    _ok(result)
    assert isinstance(result.structured_content, dict), result
    assert json.loads(_text(result)) == result.structured_content  # the same, as text
    return result.structured_content


def _cli_error_line(cli: Cli, *args: str) -> str:
    """The one line ``python -m argue ARGS`` prints on stderr, and its exit is 2 or 1."""
    done = in_process(args, cwd=cli.workdir, env=cli.env(), timeout=60)
    assert done.returncode in (1, 2), done
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    return lines[0]


async def _wait_for_status(client: Client, debate_id: str, *wanted: str) -> dict[str, Any]:
    import anyio

    end = time.monotonic() + DEADLINE_S
    while True:
        row = _data(await client.call_tool("debate_status", {"debate_id": debate_id}))
        if row["status"] in wanted:
            return row
        assert row["status"] == "running", row  # failed or interrupted: no point waiting
        if time.monotonic() > end:
            raise AssertionError(f"debate_status never said {wanted} in {DEADLINE_S:g} s: {row}")
        await anyio.sleep(0.3)


async def _wait_for_file(path: Path) -> None:
    import anyio

    end = time.monotonic() + DEADLINE_S
    while not path.is_file():
        if time.monotonic() > end:
            raise AssertionError(f"{path} not written within {DEADLINE_S:g} s")
        await anyio.sleep(0.1)


async def test_a_debate_started_by_an_agent_runs_to_its_synthesis(cli: Cli, fake: FakeLLM):
    async with mcp_client(cli) as client:
        tools = (await client.list_tools()).tools
        assert {tool.name for tool in tools} == set(TOOL_NAMES)
        start = next(tool for tool in tools if tool.name == "start_debate")
        for argument in ("question", "personas", "persona_a", "persona_b", "mode", "rounds"):
            assert argument in start.input_schema["properties"], argument
        assert start.input_schema["required"] == ["question"]
        templates = {
            t.uri_template for t in (await client.list_resource_templates()).resource_templates
        }
        assert {
            "argue://debates/{debate_id}/synthesis",
            "argue://debates/{debate_id}/transcript",
            "argue://debates/{debate_id}/status",
        } <= templates

        started = _data(
            await client.call_tool(
                "start_debate",
                {"question": QUESTION, "persona_a": "embry", "persona_b": "horus", "rounds": 1},
            )
        )
        debate_id = started["id"]
        assert started["status"] == "running"  # returned at once: the debate runs elsewhere
        assert started["personas"] == {"A": "embry", "B": "horus"}
        assert started["max_rounds"] == 1
        # the library is empty: not used (issue 35), and the agent is told why
        assert started["sources"] == [] and list(started["unused_sources"]) == ["library"]
        folder = cli.debate_dir(debate_id)
        assert Path(started["folder"]) == folder and Path(started["log"]) == folder / "run.log"

        done = await _wait_for_status(client, debate_id, "completed")
        assert done["round"] == 1 and done["termination"] and done["partial"] is False
        assert done["synthesis_available"] is True and done["usage"]["calls"] > 0
        assert fake.count() == done["usage"]["calls"]  # every call went to the loopback model

        answer = _ok(await client.call_tool("get_synthesis", {"debate_id": debate_id}))
        synthesis = _text(answer)
        assert synthesis == (folder / "synthesis.md").read_text(encoding="utf-8")
        assert QUESTION in synthesis and "## " in synthesis
        # The strongest arguments of each side as data too (issue 36): both sides, in seat order.
        strongest = (answer.structured_content or {})["strongest"]
        assert [side["personas"] for side in strongest["sides"]] == [["A"], ["B"]]
        assert [side["side"] for side in strongest["sides"]] == ["for", "against"]
        assert "## Strongest arguments of each side" in synthesis
        transcript = _text(_ok(await client.call_tool("get_transcript", {"debate_id": debate_id})))
        assert QUESTION in transcript and "Embry" in transcript and "Horus" in transcript

        resource = await client.read_resource(f"argue://debates/{debate_id}/synthesis")
        assert [c.text for c in resource.contents] == [synthesis]  # type: ignore[union-attr]
        resource = await client.read_resource(f"argue://debates/{debate_id}/transcript")
        assert resource.contents[0].text == transcript  # type: ignore[union-attr]

        listed = _data(await client.call_tool("list_debates", {}))
        assert [row["id"] for row in listed["debates"]] == [debate_id]
        assert listed["debates"][0]["status"] == "completed"
        every = _data(await client.call_tool("debate_status", {}))
        assert [row["id"] for row in every["debates"]] == [debate_id]

        # A finished debate: a note binds no round (the CLI's error); stop changes nothing.
        note = await client.call_tool("interject", {"debate_id": debate_id, "note": "Be brief."})
        assert note.is_error
        assert _text(note) == _cli_error_line(cli, "interject", debate_id, "Be brief.")
        stop = _data(await client.call_tool("stop_debate", {"debate_id": debate_id}))
        assert stop["stop_requested"] is False and "is not running" in stop["message"]


async def test_errors_are_tool_errors_with_the_cli_line(cli: Cli, fake: FakeLLM):
    async with mcp_client(cli) as client:
        unknown = await client.call_tool("debate_status", {"debate_id": UNKNOWN_ID})
        assert unknown.is_error
        assert _text(unknown) == f"error: no debate {UNKNOWN_ID!r} in {cli.debates}"
        assert _text(unknown) == _cli_error_line(cli, "status", UNKNOWN_ID)
        for tool in ("get_synthesis", "get_transcript", "stop_debate"):
            result = await client.call_tool(tool, {"debate_id": UNKNOWN_ID})
            assert result.is_error and _text(result) == _text(unknown), (tool, result)

        bad_mode = await client.call_tool("start_debate", {"question": QUESTION, "mode": "chaos"})
        assert bad_mode.is_error
        assert _text(bad_mode) == _cli_error_line(cli, "argue", QUESTION, "--mode", "chaos")
        assert _text(bad_mode).startswith("error: unknown mode 'chaos'")
        both = await client.call_tool(
            "start_debate",
            {"question": QUESTION, "personas": ["embry", "horus"], "persona_a": "embry"},
        )
        # The MCP tool's words name its own arguments; the CLI's, its flags.
        assert both.is_error
        assert _text(both) == "error: use either `personas` or `persona_a`/`persona_b`, not both"
        assert (
            _cli_error_line(
                cli, "argue", QUESTION, "--personas", "embry,horus", "--persona-a", "embry"
            )
            == "error: use either --personas or --persona-a/--persona-b, not both"
        )

        with pytest.raises(MCPError, match=f"no debate {UNKNOWN_ID!r}"):
            await client.read_resource(f"argue://debates/{UNKNOWN_ID}/synthesis")

        # Nothing was created, no model was called, and the server still answers.
        assert _data(await client.call_tool("list_debates", {}))["debates"] == []
        assert fake.count() == 0
        assert not cli.debates.exists() or not any(cli.debates.iterdir())


async def test_a_debate_is_steered_and_stopped_through_the_tools(cli: Cli, fake: FakeLLM):
    fake.delay_s = 0.3  # slow enough that the note and the stop land mid-debate
    async with mcp_client(cli) as client:
        started = _data(
            await client.call_tool(
                "start_debate",
                {"question": QUESTION, "personas": ["embry", "horus"], "rounds": 3},
            )
        )
        debate_id = started["id"]
        assert started["status"] == "running"
        status = _data(await client.call_tool("debate_status", {"debate_id": debate_id}))
        assert status["status"] == "running" and status["synthesis_available"] is False
        early = await client.call_tool("get_synthesis", {"debate_id": debate_id})
        assert early.is_error and "still running" in _text(early)

        note = "Only count arguments that survive in ZFC."
        queued = _data(await client.call_tool("interject", {"debate_id": debate_id, "note": note}))
        assert queued["message"].startswith(f"Note queued for {debate_id}"), queued
        assert re.search(
            r"round [12] is the first round whose prompts will see it", queued["message"]
        )
        folder = cli.debate_dir(debate_id)
        await _wait_for_file(folder / "persona_a" / "arguments" / "round_001.json")
        stop = _data(await client.call_tool("stop_debate", {"debate_id": debate_id}))
        assert stop["stop_requested"] is True
        assert stop["message"] == f"Stop requested for {debate_id}"

        stopped = await _wait_for_status(client, debate_id, "stopped")
        assert stopped["round"] < 3 and stopped["partial"] is True
        synthesis = _text(_ok(await client.call_tool("get_synthesis", {"debate_id": debate_id})))
        assert synthesis == (folder / "synthesis.md").read_text(encoding="utf-8")
        assert "partial" in synthesis.lower()
    notes = json.loads((folder / "moderator_notes.json").read_text(encoding="utf-8"))
    assert [n["text"] for n in notes] == [note]
