"""The consoles read ``$COLUMNS`` when they print, not when ``argue.console`` is imported.

rich freezes ``$COLUMNS`` at construction, so whatever was set when the module was first
imported (in the suite: by whichever test ran first in a worker) fixed every later table's
width. Teeth: without ``SafeConsole.__init__`` resetting ``_width`` this test fails, and so did
tests/skills/dogpile/test_research_command.py under ``COLUMNS=40``.
"""

from __future__ import annotations

import subprocess
import sys


def test_columns_is_read_at_print_time() -> None:
    code = (
        "import os; os.environ['COLUMNS'] = '40'\n"
        "from argue.console import stdout_console, stderr_console\n"
        "os.environ['COLUMNS'] = '200'\n"
        "print(stdout_console.width, stderr_console.width)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["200", "200"]


def test_an_explicit_width_stays() -> None:
    from argue.console import SafeConsole

    assert SafeConsole(width=33).width == 33
