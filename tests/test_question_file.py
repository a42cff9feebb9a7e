"""Issue 13 item 7: a long question from a file or stdin (`argue --question-file PATH|-`).

Guarantees: the file's text is the debate's question (UTF-8, a byte-order mark dropped, the
usual treatment after that: stripped, escapes never printed); it is capped at
``QUESTION_MAX_CHARS`` characters (stated in --help) and read with a bounded read, so a huge
file or an endless stdin costs at most 4 bytes a character of the cap; invalid UTF-8, NUL bytes,
an empty text, both a question and the flag, or neither, are usage errors (exit 2, one line),
and nothing is created nor any model called.

Teeth: in argue/app/_question.py read the whole input (``sys.stdin.buffer.read()``) and the
bounded-read test fails; drop the length check and the cap test fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.commands.start import QUESTION_MAX_CHARS
from tests.e2e.fake_llm import FakeLLM
from tests.e2e.harness import DISCARD_URL

LINEUP = ("--persona-a", "embry", "--persona-b", "horus")
LONG_QUESTION = (
    "Should a team of five split its monolith into microservices?\n\n"
    "Context: " + "the deploys take forty minutes and every change touches three modules. " * 40
)


@pytest.fixture
def fake(monkeypatch) -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-question-file-0123")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    monkeypatch.setenv("ARGUE_MODEL", "gpt-4o-mini")
    monkeypatch.setenv("ARGUE_RESEARCH_SOURCES", "library")  # nothing leaves the machine
    for source in ("ARXIV", "GITHUB", "BRAVE", "PERPLEXITY", "YOUTUBE"):
        monkeypatch.setenv(f"ARGUE_{source}_URL", DISCARD_URL)
    try:
        yield server
    finally:
        server.stop()


def _invoke(*args: str, stdin: bytes | None = None):
    return CliRunner().invoke(app, list(args), input=stdin)


def _planned_question(debates: Path, *args: str, stdin: bytes | None = None) -> str:
    result = _invoke("argue", *args, *LINEUP, "--debates-dir", str(debates), "--dry-run",
                     "--json", stdin=stdin)  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])["question"]


def _one_line_usage_error(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_the_file_is_the_question_of_the_debate(tmp_path, fake):
    """A real one-round debate: config.json holds the file's text; its escapes never print."""
    path = tmp_path / "question.txt"
    text = LONG_QUESTION + "Évaluer: oui ou non? \x1b]0;pwned\x07\x1b[2J"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8") + b"\n\n")
    debates = tmp_path / "debates"
    result = _invoke("argue", "--question-file", str(path), *LINEUP, "--rounds", "1",
                     "--debates-dir", str(debates), "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    config = json.loads((debates / summary["id"] / "config.json").read_text(encoding="utf-8"))
    assert config["question"] == text.strip()
    assert "Should a team of five" in result.stderr  # the "Question:" line
    assert "\x1b" not in result.stderr and "\x1b" not in result.stdout
    assert fake.count() > 0


def test_dash_reads_the_question_from_stdin(tmp_path, fake):
    question = _planned_question(
        tmp_path / "d", "--question-file", "-", stdin=LONG_QUESTION.encode("utf-8")
    )
    assert question == LONG_QUESTION.strip()
    assert fake.count() == 0


def test_the_cap_counts_characters_and_is_stated(tmp_path, fake):
    at_cap = "é" * (QUESTION_MAX_CHARS - 1) + "?"  # two bytes a character: 2x the cap in bytes
    path = tmp_path / "at_cap.txt"
    path.write_text(at_cap, encoding="utf-8")
    assert _planned_question(tmp_path / "d", "--question-file", str(path)) == at_cap
    assert _planned_question(tmp_path / "d", "--question-file", "-", stdin=at_cap.encode()) == (
        at_cap
    )

    over = "x" * QUESTION_MAX_CHARS + "?"
    path.write_text(over, encoding="utf-8")
    for args, stdin in (((str(path),), None), (("-",), over.encode())):
        debates = str(tmp_path / "d")
        result = _invoke("argue", "--question-file", *args, *LINEUP, "--debates-dir", debates,
                         "--dry-run", stdin=stdin)  # fmt: skip
        line = _one_line_usage_error(result)
        assert f"{QUESTION_MAX_CHARS:,} characters" in line, line
    assert not (tmp_path / "d").exists()

    help_text = " ".join(_invoke("argue", "--help").stdout.split())
    assert "--question-file" in help_text and f"{QUESTION_MAX_CHARS:,} characters" in help_text


FEED_BYTES = 16 * 1024 * 1024
BOUND = 4 * QUESTION_MAX_CHARS + 1 + 2 * 65536  # the read, the pipe's buffer, a chunk in flight


def _feed(pipe, written: list[int]) -> None:
    """Write up to 16 MB of "y" until the reader goes away; count what it took."""
    chunk = b"y" * 65536
    try:
        while written[0] < FEED_BYTES:
            written[0] += pipe.write(chunk) or 0
    except BrokenPipeError:
        pass
    finally:
        with contextlib.suppress(BrokenPipeError):
            pipe.close()


def test_a_fifo_is_read_only_up_to_the_cap(tmp_path):
    """An endless file (a FIFO) is refused after a bounded read, not read to its end."""
    fifo = tmp_path / "question.fifo"
    os.mkfifo(fifo)
    written = [0]

    def writer() -> None:
        _feed(open(fifo, "wb", buffering=0), written)  # noqa: SIM115 (closed by _feed)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    result = _invoke("argue", "--question-file", str(fifo), *LINEUP)
    if thread.is_alive():  # never opened for reading: let the writer's open() return
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    thread.join(timeout=10)
    assert "limit" in _one_line_usage_error(result)
    assert 4 * QUESTION_MAX_CHARS < written[0] <= BOUND, written[0]


def test_stdin_is_read_only_up_to_the_cap(tmp_path):
    """The real command on a real pipe: 16 MB offered, about the cap taken, one line, exit 2."""
    process = subprocess.Popen(
        [sys.executable, "-m", "argue", "argue", "--question-file", "-", *LINEUP],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        bufsize=0,
    )
    written = [0]
    _feed(process.stdin, written)
    process.stdin = None  # closed by _feed
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2, stderr
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "limit" in lines[0], lines
    assert 4 * QUESTION_MAX_CHARS < written[0] <= BOUND, written[0]


def test_bad_question_files_are_one_line_usage_errors(tmp_path, fake):
    files = {
        "latin1.txt": "Qu'est-ce qu'un modèle?".encode("latin-1"),
        "blank.txt": b" \n\t\n ",
        "empty.txt": b"",
        "binary.txt": b"Is it\x00 text?",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "folder").mkdir()
    debates = str(tmp_path / "debates")
    cases = {
        ("--question-file", str(tmp_path / "latin1.txt")): "not UTF-8",
        ("--question-file", str(tmp_path / "blank.txt")): "empty",
        ("--question-file", str(tmp_path / "empty.txt")): "empty",
        ("--question-file", str(tmp_path / "binary.txt")): "NUL",
        ("--question-file", str(tmp_path / "missing.txt")): "cannot read",
        ("--question-file", str(tmp_path / "folder")): "cannot read",
        ("Q?", "--question-file", str(tmp_path / "blank.txt")): "not both",
        ("--question-file", "-", "--interactive"): "--interactive",
        (): "--question-file",
    }
    for args, expected in cases.items():
        result = _invoke("argue", *args, *LINEUP, "--debates-dir", debates, stdin=b"Q?")
        line = _one_line_usage_error(result)
        assert expected in line, (args, line)
    assert not os.path.exists(debates)
    assert fake.count() == 0
