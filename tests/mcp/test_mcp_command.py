"""``argue mcp`` as a command: listed, lazy (no SDK import for --help), and one line without
the extra."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from argue.cli import app


def test_mcp_is_a_command_and_the_cli_does_not_import_the_sdk():
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0 and " mcp " in result.stdout
    code = "import sys, argue.cli; print(sorted(m for m in sys.modules if m.startswith('mcp')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_without_the_extra_it_says_how_to_install_it():
    # `sys.modules["mcp"] = None` makes `import mcp` fail as if the SDK were not installed.
    code = (
        "import sys; sys.modules['mcp'] = None; sys.argv = ['argue', 'mcp']; "
        "from argue.cli import main; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and done.stdout == "", done
    assert "pip install 'argue-debate[mcp]'" in lines[0]
