"""User-configured skills: any program that reads a JSON query on stdin and prints JSON items.

Configured in config.toml::

    [skills.external]
    papers = ["python3", "/home/me/bin/search_papers.py"]

The program receives ``{"query": ..., **extra}`` on stdin and must print one JSON object:
``{"items": [{"title": ..., "url"?, "snippet"?, "locator"?, "id"?, "score"?, "provenance"?}],
"note"?}``. An item is a document (verified evidence) only if it can be found again: it has a
``url`` or ``locator`` and does not declare itself model-written (``"provenance": "testimony"``,
``"recall"`` or ``"label"``); an item with neither is an answer, counted as testimony.
It runs without a shell. Every way it can go wrong becomes a ``failed`` result with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError

from argue.domain import Provenance
from argue.skills.base import SkillItem, SkillResult

MAX_STDOUT_BYTES = 1_000_000
MAX_STDERR_BYTES = 64_000
_READ_CHUNK = 65_536
_MODEL_WRITTEN = ("testimony", "recall", "label")


def _non_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("blank")
    return value.strip()


class _Item(BaseModel):
    """One item the program printed; strict: ``5`` is not a string, ``true`` not a number."""

    model_config = ConfigDict(strict=True, extra="ignore")

    title: Annotated[str, AfterValidator(_non_blank)]
    url: str | None = None
    snippet: str | None = None
    locator: str | None = None
    id: str | None = None
    score: float | None = None
    provenance: Literal["document", "testimony", "recall", "label"] | None = None


class _Output(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    items: list[_Item]
    note: str = ""


# What each field must be, in the words of the error shown to the user.
_REQUIREMENTS = {
    "title": "must be a non-empty string",
    "url": "must be a string",
    "snippet": "must be a string",
    "locator": "must be a string",
    "id": "must be a string",
    "score": "must be a number",
    "provenance": f"must be one of document, {', '.join(_MODEL_WRITTEN)}",
}


def _shape_problem(error: ValidationError) -> str:
    """The first problem pydantic found, as one line naming the item and the field."""
    loc = error.errors(include_url=False)[0]["loc"]
    if loc[0] == "items" and len(loc) == 1:
        return "'items' must be a list"
    if loc[0] == "note":
        return "'note' must be a string"
    number = int(loc[1]) + 1
    if len(loc) == 2:
        return f"item {number} must be an object"
    field = str(loc[2])
    return f"item {number}: '{field}' {_REQUIREMENTS.get(field, 'is not valid')}"


class _OutputTooLarge(Exception):
    pass


async def _read_capped(
    stream: asyncio.StreamReader, limit: int, on_overflow: Callable[[], None]
) -> bytes:
    """Read up to ``limit`` bytes; past it, call ``on_overflow`` (kill) and drain to EOF.

    Draining matters: a full, unread pipe never reaches EOF and the wait for the killed
    process would hang.
    """
    buffer = bytearray()
    overflow = False
    while chunk := await stream.read(_READ_CHUNK):
        if overflow:
            continue
        buffer.extend(chunk)
        if len(buffer) > limit:
            overflow = True
            on_overflow()
    if overflow:
        raise _OutputTooLarge
    return bytes(buffer)


async def _read_tail(stream: asyncio.StreamReader, limit: int) -> bytes:
    """Keep only the last ``limit`` bytes: the end of stderr is where the error usually is."""
    buffer = bytearray()
    while chunk := await stream.read(_READ_CHUNK):
        buffer.extend(chunk)
        del buffer[:-limit]
    return bytes(buffer)


async def _feed_stdin(stdin: asyncio.StreamWriter, payload: bytes) -> None:
    # A program that exits without reading its input is not an error.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.write(payload)
        await stdin.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stdin.close()
        await stdin.wait_closed()


def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the program and anything it started (it runs in its own process group)."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.name == "posix":
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()


def _last_line(data: bytes) -> str:
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    return lines[-1][:300] if lines else ""


def _parse_items(name: str, payload: object) -> tuple[list[SkillItem], str]:
    """Items and the program's own note; ValueError names what is wrong with the shape."""
    if not isinstance(payload, dict):
        raise ValueError(f"expected a JSON object, got {type(payload).__name__}")
    try:
        output = _Output.model_validate(payload)
    except ValidationError as error:
        raise ValueError(_shape_problem(error)) from None
    items = [
        SkillItem(
            id=raw.id or f"ext:{name}:{number}",
            title=raw.title,
            url=raw.url,
            locator=raw.locator,
            snippet=raw.snippet or "",
            source=f"ext:{name}",
            score=raw.score,
            provenance=_provenance(raw),
        )
        for number, raw in enumerate(output.items, start=1)
    ]
    return items, output.note


def _provenance(raw: _Item) -> Provenance:
    if raw.provenance in _MODEL_WRITTEN:
        return raw.provenance
    return "document" if raw.url or raw.locator else "testimony"


async def run_external(
    name: str,
    command: Sequence[str],
    query: str,
    *,
    timeout_s: float = 30.0,
    extra: Mapping[str, Any] | None = None,
) -> SkillResult:
    """Run the user's program for ``query``; never raises for a misbehaving program."""
    skill = f"ext:{name}"
    started = time.perf_counter()

    def failed(reason: str) -> SkillResult:
        return SkillResult.failed(
            skill, query, f"{name}: {reason}", elapsed_s=time.perf_counter() - started
        )

    if not command:
        return SkillResult.refused(skill, query, f"{name}: no command configured")
    try:
        payload = json.dumps({**(extra or {}), "query": query}).encode("utf-8")
    except (TypeError, ValueError) as error:
        return SkillResult.refused(skill, query, f"{name}: extra input is not JSON: {error}")
    try:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=os.name == "posix",
        )
    except FileNotFoundError:
        return failed(f"command not found: {command[0]}")
    except PermissionError:
        return failed(f"command not executable: {command[0]}")
    except OSError as error:
        return failed(f"could not start {command[0]}: {error}")

    stdin, stdout_stream, stderr_stream = process.stdin, process.stdout, process.stderr
    assert stdin and stdout_stream and stderr_stream  # all three were requested as pipes
    stdout_task = asyncio.ensure_future(
        _read_capped(stdout_stream, MAX_STDOUT_BYTES, lambda: _kill(process))
    )
    stderr_task = asyncio.ensure_future(_read_tail(stderr_stream, MAX_STDERR_BYTES))

    async def run_to_end() -> tuple[bytes, bytes, int]:
        await _feed_stdin(stdin, payload)
        stdout = await stdout_task
        stderr = await stderr_task
        return stdout, stderr, await process.wait()

    try:
        stdout, stderr, returncode = await asyncio.wait_for(run_to_end(), timeout=timeout_s)
    except TimeoutError:
        reason = f"timed out after {timeout_s:g}s (process killed)"
    except _OutputTooLarge:
        reason = f"output exceeded {MAX_STDOUT_BYTES} bytes (process killed)"
    except BaseException:
        # Cancelled (e.g. a second Ctrl-C): the program runs in its own session and would not
        # get the terminal's signal, so take it down with us.
        _kill(process)
        for task in (stdout_task, stderr_task):
            task.cancel()
        raise
    else:
        reason = ""
    if reason:
        _kill(process)
        for task in (stdout_task, stderr_task):
            task.cancel()
        await asyncio.gather(stdout_task, stderr_task, return_exceptions=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), timeout=5)
        return failed(reason)

    if returncode != 0:
        detail = _last_line(stderr)
        return failed(f"exited with status {returncode}" + (f": {detail}" if detail else ""))
    text = stdout.decode("utf-8", "replace").strip()
    if not text:
        return failed("printed nothing on stdout (expected a JSON object)")
    try:
        decoded = json.loads(text)
    except json.JSONDecodeError as error:
        return failed(f"invalid JSON on stdout: {error}")
    try:
        items, note = _parse_items(name, decoded)
    except ValueError as error:
        return failed(f"wrong output shape: {error}")
    return SkillResult.from_items(
        skill, query, items, note=note, elapsed_s=time.perf_counter() - started
    )
