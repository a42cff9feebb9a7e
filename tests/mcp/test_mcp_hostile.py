"""``argue mcp`` under hostile arguments, driven by the official client (issue 24, item 2).

Every bad argument is one short tool error, answered quickly, with no traceback on the
server's stderr; ``stop_debate("")`` stops nothing while a debate runs; an id that is not
``argue_YYYYMMDD_HHMMSS[_N]`` is refused before any file is touched; the running cap
(``ARGUE_MCP_MAX_RUNNING`` / ``--max-running``) holds even for starts sent together; a slow
read (a synthesis waiting for a stopped run to let go) does not hold up another call.

Teeth (checked once each, on the code before this change and by breaking it): with the
previous argue/mcp the id test fails (``"x"`` reached the store: ``no debate 'x' in …``) and the
cap test fails (a second debate started past a cap of 1: ``ARGUE_MCP_MAX_RUNNING`` was not
read); without the ``_Server.call_tool`` override the SDK's multi-line pydantic report for
``rounds: "many"`` fails the one-line check; without the ``_starting`` lock three starts sent
together pass a cap of 1; ``stop_debate("")`` meaning "all" (``app.stop(None)``) fails the
stop check; ``_off_loop`` calling ``work()`` on the event loop makes the slow-read test time
out. The NaN test and the slow-read test already pass on the previous code (argue.app's
StartRequest refuses non-finite budgets; the SDK 2.3 runs sync tools on worker threads):
they keep those guarantees.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="needs the mcp extra (2.x)")

from mcp import Client

from argue.mcp.capture import ERROR_MAX_CHARS
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import QUESTION, Cli
from tests.mcp import test_mcp_server as server_tests
from tests.mcp.test_mcp_server import _data, _kill_background_runs, _text, mcp_client

fake = server_tests.fake  # the fixtures: the loopback model, and a workspace using it
cli = server_tests.cli

QUICK_S = 15.0  # generous: the server answers these in well under a second
MB10 = "x" * 10_000_000


def _running_cli(tmp_path: Path, fake: FakeLLM, **env: str) -> Iterator[Cli]:
    workdir = tmp_path / "work"
    workdir.mkdir()
    from tests.e2e.harness import openai_env

    overrides = {**openai_env(fake.url), "ARGUE_MODEL": "fake-main-1", **env}
    cli = Cli(workdir, env_overrides=overrides)
    yield cli
    _kill_background_runs(cli)


@pytest.fixture
def capped(tmp_path: Path, fake: FakeLLM) -> Iterator[Cli]:
    yield from _running_cli(tmp_path, fake, ARGUE_MCP_MAX_RUNNING="1")


async def _short_error(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    """The tool's answer: an error, one line, short, and quick."""
    start = time.monotonic()
    result = await client.call_tool(tool, arguments)
    took = time.monotonic() - start
    text = _text(result)
    shown = {k: (v[:50] if isinstance(v, str) else v) for k, v in arguments.items()}
    assert result.is_error, (tool, shown, text[:300])
    assert "\n" not in text and len(text) <= ERROR_MAX_CHARS, (tool, shown, text[:300])
    assert text.startswith("error: "), (tool, shown, text[:300])
    assert took < QUICK_S, (tool, shown, took)
    return text


async def _start(client: Client, rounds: int = 3) -> str:
    started = _data(
        await client.call_tool(
            "start_debate", {"question": QUESTION, "personas": ["embry", "horus"], "rounds": rounds}
        )
    )
    assert started["status"] == "running"
    return str(started["id"])


def _stderr(cli: Cli) -> str:
    return (cli.workdir / "server.stderr").read_text(encoding="utf-8", errors="replace")


async def test_hostile_arguments_are_one_short_error_each(cli: Cli, fake: FakeLLM):
    fake.delay_s = 0.5  # the debate keeps running while the hostile calls arrive
    async with mcp_client(cli) as client:
        running = await _start(client)
        folder = cli.debate_dir(running)

        # An empty id is an error, never "all": the running debate is not asked to stop.
        for tool in ("stop_debate", "debate_status", "get_transcript", "get_synthesis"):
            text = await _short_error(client, tool, {"debate_id": ""})
            assert text == "error: no debate id given", (tool, text)
        assert not (folder / "stop").exists() and not list(folder.glob("*stop*"))
        status = _data(await client.call_tool("debate_status", {"debate_id": running}))
        assert status["status"] == "running"

        # Ids that are not argue's: refused by shape, before the folder is looked at.
        (cli.debates / "x").mkdir(parents=True, exist_ok=True)
        for bad in (MB10, "argue_2026\x00", "../x", "x", ".", "argue_20260101_000000/..", " "):
            for tool in ("stop_debate", "debate_status", "get_transcript", "get_synthesis"):
                text = await _short_error(client, tool, {"debate_id": bad})
                assert "not a debate id" in text or "no debate id given" in text, (tool, text)
            text = await _short_error(client, "interject", {"debate_id": bad, "note": "n"})
        with pytest.raises(Exception, match="not a debate id"):
            await client.read_resource("argue://debates/argue_x/synthesis")

        # start_debate: the CLI's limits, one line each.
        hostile: list[dict[str, Any]] = [
            {"question": MB10},
            {"question": "q" * 20_000},
            {"question": "Is P\x00NP?"},
            {"question": "   "},
            {"question": QUESTION, "budget_usd": "NaN"},
            {"question": QUESTION, "budget_usd": "inf"},
            {"question": QUESTION, "budget_usd": -1},
            {"question": QUESTION, "rounds": 1e9},
            {"question": QUESTION, "rounds": 1_000_000_000},
            {"question": QUESTION, "rounds": -3},
            {"question": QUESTION, "rounds": "many"},
            {"question": QUESTION, "max_tokens": 0},
            {"question": QUESTION, "persona_a": MB10, "persona_b": "horus"},
            {"question": QUESTION, "personas": [MB10, "horus"]},
            {"question": QUESTION, "sources": [MB10]},
            {"question": QUESTION, "mode": MB10},
            {"question": QUESTION, "lang": MB10},
            {"question": 7},
            {},
        ]
        for arguments in hostile:
            await _short_error(client, "start_debate", arguments)
        await _short_error(client, "interject", {"debate_id": running, "note": MB10})

        # Nothing else was created and the debate still runs.
        listed = _data(await client.call_tool("list_debates", {}))
        assert [row["id"] for row in listed["debates"]] == [running]
    stderr = _stderr(cli)
    assert "Traceback" not in stderr and len(stderr) < 20_000, stderr[-2000:]


async def test_nan_and_infinite_budgets_are_refused(cli: Cli):
    """A budget of NaN or infinity never becomes "no budget". JSON has neither: the client
    sends a float NaN or inf as null (no budget, which is what it then asks for), so they are
    sent as the strings the server's validation reads as floats."""
    async with mcp_client(cli) as client:
        for budget in ("nan", "NaN", "inf", "-inf", "Infinity", "1e999"):
            text = await _short_error(
                client, "start_debate", {"question": QUESTION, "budget_usd": budget}
            )
            assert "budget_usd" in text, (budget, text)
        assert _data(await client.call_tool("list_debates", {}))["debates"] == []


async def test_the_running_cap_holds_and_says_how_to_change_it(capped: Cli, fake: FakeLLM):
    fake.delay_s = 0.5
    async with mcp_client(capped) as client:
        first = await _start(client)
        text = await _short_error(
            client, "start_debate", {"question": QUESTION, "personas": ["embry", "horus"]}
        )
        assert "1 debates are already running" in text and "--max-running" in text, text
        assert "ARGUE_MCP_MAX_RUNNING" in text, text
        stop = _data(await client.call_tool("stop_debate", {"debate_id": first}))
        assert stop["stop_requested"] is True
        await _wait_for_stopped(client, first)

        # Three starts sent together: one passes the cap of 1, the others are told so.
        results: list[Any] = []

        async def one() -> None:
            results.append(
                await client.call_tool(
                    "start_debate",
                    {"question": QUESTION, "personas": ["embry", "horus"], "rounds": 3},
                )
            )

        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(one)
        ok = [r for r in results if not r.is_error]
        refused = [_text(r) for r in results if r.is_error]
        assert len(ok) == 1 and len(refused) == 2, [_text(r)[:200] for r in results]
        assert all("already running" in line for line in refused), refused
    running = [d for d in capped.debates.iterdir() if d.is_dir() and d.name.startswith("argue_")]
    assert len(running) == 2  # the stopped one and the one that passed


async def _wait_for_stopped(client: Client, debate_id: str) -> None:
    end = time.monotonic() + 120
    while _data(await client.call_tool("debate_status", {"debate_id": debate_id}))["status"] == (
        "running"
    ):
        assert time.monotonic() < end
        await anyio.sleep(0.3)


def _debate_in(folder: Path, status: str) -> Any:
    """A debate folder written in this process (nothing runs it); ``status`` in state.json."""
    from argue.engine import create_debate
    from argue.personas import load_catalog

    catalog = load_catalog()
    store = create_debate(
        folder,
        question="Q?",
        mode="adversarial",
        personas=[catalog.get("embry"), catalog.get("horus")],
        max_rounds=2,
        provider="openai",
        model="fake-main-1",
    )
    store.save_state(store.state().model_copy(update={"status": status, "pid": None}))
    return store


async def test_a_slow_read_does_not_hold_up_another_call(cli: Cli):
    slow = _debate_in(cli.debates, "stopped")
    time.sleep(1.1)  # the next id is a second later
    other = _debate_in(cli.debates, "stopped")
    slow.acquire_lock()  # a stopped debate whose run still writes: get_synthesis waits
    try:
        async with mcp_client(cli) as client:
            waiting: list[Any] = []

            async def read_synthesis() -> None:
                waiting.append(
                    await client.call_tool("get_synthesis", {"debate_id": slow.debate_id})
                )

            async with anyio.create_task_group() as group:
                group.start_soon(read_synthesis)
                await anyio.sleep(1.0)  # the synthesis read is in, and waiting
                start = time.monotonic()
                with anyio.fail_after(10):
                    row = _data(
                        await client.call_tool("debate_status", {"debate_id": other.debate_id})
                    )
                assert row["id"] == other.debate_id and time.monotonic() - start < 10
                assert not waiting  # still waiting for the run to let go
                slow.release_lock()
    finally:
        slow.release_lock()
    assert waiting and len(waiting) == 1


async def test_unknown_fields_are_refused_before_anything_starts(cli: Cli):
    """A field no tool takes (a misspelt ``budget_usd``) is one error naming it and the fields
    the tool takes; no debate starts.
    Teeth: without ``_Server._unknown_fields`` in argue/mcp/server.py the start is accepted
    (the SDK drops the field) and this test fails on ``is_error``."""
    async with mcp_client(cli) as client:
        text = await _short_error(
            client, "start_debate", {"question": QUESTION, "budget_usdd": 0.01, "x" * 100: 1}
        )
        assert "unknown fields" in text and "'budget_usdd'" in text, text
        assert "budget_usd" in text.split("it takes:")[1], text
        text = await _short_error(client, "list_debates", {"folder": "/"})
        assert "'folder'" in text, text
        assert _data(await client.call_tool("list_debates", {}))["debates"] == []
