"""Canary credentials never reach stdout, stderr, the debate folder or ARGUE_HOME.

Teeth: make ``argue.redact.redact`` return its input unchanged and this test fails (the
password is caught twice: as a URL password of a known variable and as userinfo).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.harness import QUESTION, Cli

pytestmark = pytest.mark.e2e

KEY = "sk-canary-key-0123456789"
PASSWORD = "canary-password-4242"


def test_no_canary_leaks_when_every_call_fails(tmp_path: Path):
    cli = Cli(tmp_path)
    result = cli.run(
        "argue", QUESTION, "--rounds", "1", "--sources", "brave,arxiv", "--json",
        OPENAI_API_KEY=KEY,
        OPENAI_BASE_URL=f"http://argue:{PASSWORD}@127.0.0.1:9/v1",
        BRAVE_API_KEY="brave-canary-key-77777",
        ARGUE_BRAVE_URL=f"http://user:{PASSWORD}@127.0.0.1:9/search",
    )  # fmt: skip
    assert result.returncode != 0  # nothing answers on the discard port
    assert "Traceback" not in result.stderr
    assert "***@127.0.0.1" in result.stderr or "could not" in result.stderr
    canaries = (KEY, PASSWORD, "brave-canary-key-77777")
    for text in (result.stdout, result.stderr):
        for canary in canaries:
            assert canary not in text
    for folder in (cli.debates, cli.home):
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                for canary in canaries:
                    assert canary.encode() not in data, path
