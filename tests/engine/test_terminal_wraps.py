"""Teeth: the terminal wraps, never crops. Each command runs in a real pseudo-terminal of 80
and of 120 columns; every word of what it prints (the Markdown source, the question, a table's
cells) must be in what the terminal received (ANSI escapes stripped; rich's rendering may drop
the markup characters themselves). Broken on purpose: printing Markdown with ``soft_wrap=True``
again (argue/console.py) crops list items at the edge (`… aerospace engineer who trusts proofs
over anecdo`) and fails the transcript and synthesize cases; cutting the status question with
"…" in a terminal again fails the status case. Piped, transcript and synthesize stay the
Markdown source byte for byte.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time
from collections import Counter
from pathlib import Path

import pytest

from argue.personas import load_catalog
from tests.e2e.harness import in_process

ROOT = Path(__file__).resolve().parents[2]
# CSI (colours), OSC (hyperlinks: ESC ] 8 ; … ESC \) and charset selections.
_ESCAPE = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]")
_WORD = re.compile(r"[^\W_]+")  # letters and digits: markup (* _ # [ ] ` >) is not a word
WIDTHS = (80, 120)
LONG_QUESTION = (
    "Is the Collatz conjecture decidable, or could a proof of it be independent of Peano "
    "arithmetic and every reasonable extension that working mathematicians would accept?"
)


def words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(text))


def letters(text: str) -> Counter[str]:
    """Every letter and digit: a table may fold a long word across lines, never drop one."""
    return Counter("".join(_WORD.findall(text)))


def _env(debates: Path, home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ARGUE_") and k not in ("COLUMNS", "LINES")
    }
    env.update(
        ARGUE_HOME=str(home),
        ARGUE_DEBATES_DIR=str(debates),
        PYTHONPATH=str(ROOT),
        TERM="xterm-256color",
    )
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    return env


def in_terminal(args: list[str], columns: int, env: dict[str, str]) -> str:
    """What ``python -m argue ARGS`` writes to a pseudo-terminal ``columns`` wide."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and stderr are the terminal
        try:
            fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "argue", *args], env)
        finally:
            os._exit(127)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(fd)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, b"".join(chunks).decode(errors="replace")
    return _ESCAPE.sub("", b"".join(chunks).decode("utf-8", errors="replace"))


def piped(args: list[str], env: dict[str, str]) -> str:
    """What ``python -m argue ARGS`` writes to a pipe (run in-process: no terminal involved)."""
    done = in_process(tuple(args), cwd=ROOT, env=env)
    assert done.returncode == 0, done.describe()
    return done.stdout


def assert_no_word_lost(source: str, shown: str, what: str) -> None:
    """Every word of ``source`` is in ``shown``; a path or URL wider than the terminal may be
    folded across lines (it has no word boundary to wrap at), so its words are not counted."""
    source = re.sub(r"\S*/\S*", " ", source)
    lost = words(source) - words(shown)
    assert not lost, f"{what}: words cropped away: {sorted(lost.elements())[:20]}\n{shown}"


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, dict[str, str]]:
    """A finished scripted debate with a long question (synthesis.md written)."""
    import asyncio

    from argue.engine import DebateRunner, create_debate
    from argue.llm import ScriptedModel
    from tests.engine.script import DebateScript, ScriptedToolkit, names_of

    root = tmp_path_factory.mktemp("wraps")
    catalog = load_catalog()
    lineup = [catalog.get("embry"), catalog.get("horus")]
    store = create_debate(
        root / "debates",
        question=LONG_QUESTION,
        mode="adversarial",
        personas=lineup,
        max_rounds=2,
        provider="scripted",
        model="scripted-1",
    )
    script = DebateScript(names=names_of(lineup))
    asyncio.run(DebateRunner(store, ScriptedModel(script), ScriptedToolkit()).run())
    assert store.paths.synthesis.is_file()
    return store.paths.root, store.debate_id, _env(root / "debates", root / "home")


@pytest.mark.parametrize("columns", WIDTHS)
def test_transcript_loses_no_word_in_a_terminal(finished, columns: int) -> None:
    folder, debate_id, env = finished
    source = (folder / "transcript.md").read_text(encoding="utf-8")
    shown = in_terminal(["transcript", debate_id], columns, env)
    assert max(len(line) for line in shown.splitlines()) <= columns
    assert_no_word_lost(source, shown, f"transcript at {columns} columns")


@pytest.mark.parametrize("columns", WIDTHS)
def test_synthesize_loses_no_word_in_a_terminal(finished, columns: int) -> None:
    folder, debate_id, env = finished
    shown = in_terminal(["synthesize", debate_id], columns, env)
    source = (folder / "synthesis.md").read_text(encoding="utf-8")
    # the participants line, whose end used to be cut at the right edge
    assert "side: against the proposition" in source
    assert_no_word_lost(source, shown, f"synthesis at {columns} columns")


def test_piped_transcript_and_synthesis_are_the_markdown_source(finished) -> None:
    folder, debate_id, env = finished
    transcript = (folder / "transcript.md").read_text(encoding="utf-8")
    assert piped(["transcript", debate_id], env) == transcript
    assert piped(["synthesize", debate_id], env) == (folder / "synthesis.md").read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize("columns", WIDTHS)
def test_status_wraps_the_question_in_a_terminal(finished, columns: int) -> None:
    _, debate_id, env = finished
    for args in (["status"], ["status", debate_id]):
        shown = in_terminal(args, columns, env)
        assert debate_id in shown
        assert "…" not in shown
        assert_no_word_lost(LONG_QUESTION, shown, f"status at {columns} columns")
        assert max(len(line) for line in shown.splitlines()) <= columns


def test_piped_status_keeps_one_line_a_debate(finished) -> None:
    _, debate_id, env = finished
    lines = piped(["status"], {**env, "COLUMNS": "80"}).splitlines()
    assert len(lines) == 3 and debate_id in lines[2] and lines[2].endswith("…")


@pytest.mark.parametrize("columns", WIDTHS)
def test_persona_table_and_card_lose_nothing_in_a_terminal(finished, columns: int) -> None:
    _, _, env = finished
    catalog = load_catalog()
    table = in_terminal(["personas", "list"], columns, env)
    assert max(len(line) for line in table.splitlines()) <= columns
    for persona in catalog.all():
        cells = " ".join([persona.name, persona.lens, persona.role, catalog.source(persona.name)])
        lost = letters(cells) - letters(table)
        assert not lost, f"personas list at {columns}: {persona.name} lost {lost}\n{table}"
    card = in_terminal(["personas", "show", "embry"], columns, env)
    assert_no_word_lost(piped(["personas", "show", "embry"], env), card, "personas show")


@pytest.mark.parametrize("columns", WIDTHS)
def test_watch_and_dry_run_lose_no_word_in_a_terminal(finished, columns: int) -> None:
    _, debate_id, env = finished
    stamp = re.compile(r"^\d\d:\d\d:\d\d  ", re.M)
    shown = in_terminal(["watch", debate_id], columns, env)
    # No line wider than the terminal: the terminal's own wrap would cut a word anywhere.
    assert max(len(line) for line in shown.splitlines()) <= columns
    watched = stamp.sub("", shown)
    assert_no_word_lost(stamp.sub("", piped(["watch", debate_id], env)), watched, "watch")
    offline = {
        **env,
        "OPENAI_API_KEY": "test-key-0123456789",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    }
    args = [LONG_QUESTION, "--dry-run", "--provider", "openai", "--model", "gpt-4o-mini"]
    planned = in_terminal(args, columns, offline)
    assert_no_word_lost(LONG_QUESTION, planned, "--dry-run")
    assert_no_word_lost(piped(args, offline), planned, "--dry-run")
