"""Live progress lines wrap at word boundaries in a terminal (issue 40, item 2): a 5-round
debate run in a real pseudo-terminal of 80 and of 120 columns prints no line wider than the
terminal (the terminal's own wrap would cut a word anywhere), loses no word, and ends with its
conclusion and the strongest argument of each side (item 1). Piped, lines stay whole.

Teeth: plain strings soft-wrapped again in a terminal (argue/console.py ``SafeConsole.print``
setting ``soft_wrap=False`` only for blocks) gives lines of 130+ characters at 80 columns and
fails here; ``finish`` without ``print_answer`` fails the conclusion check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.fake_llm import FakeLLM, ResearchingScript
from tests.e2e.harness import QUESTION, openai_env
from tests.engine.test_terminal_wraps import _env, in_terminal, words

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("columns", (80, 120))
def test_a_whole_debate_in_a_terminal_never_cuts_a_word(tmp_path: Path, columns: int) -> None:
    fake = FakeLLM(ResearchingScript(names={})).start()
    try:
        env = {**_env(tmp_path / "debates", tmp_path / "home"), **openai_env(fake.url)}
        shown = in_terminal(
            [QUESTION, "--persona-a", "embry", "--persona-b", "horus", "--rounds", "5",
             "--sources", "none"],
            columns,
            env,
        )  # fmt: skip
    finally:
        fake.stop()
    lines = shown.splitlines()
    widest = max(lines, key=len)
    assert len(widest) <= columns, f"{len(widest)} > {columns}: {widest!r}"
    assert "Conclusion:" in shown and "Strongest argument, For the proposition" in shown
    assert "A nuanced conclusion" in shown
    # a long live line kept every word: the proposition, said once at the start
    assert words("Is the Collatz conjecture decidable") <= words(shown)
