"""``argue eval --batch`` killed with SIGKILL between submission and results (a real process,
``./run.sh`` in a subprocess, against the loopback Message Batches fake): the same command run
again re-attaches to the batch it had submitted, submits nothing twice and finishes.

Teeth check (done once): in argue/eval/batching.py make ``_create`` skip its
``self._folder.append_batch(...)`` (the batch recorded only once it ended): the test fails,
nothing being on disk when the process is killed, and the re-run would submit the wave again.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.e2e.harness import Cli, anthropic_env, wait_for
from tests.llm.batch_fakes import AnthropicBatchFake

pytestmark = pytest.mark.e2e

ARGS = (
    "eval",
    "--dataset",
    "mixed-arithmetic",
    "--n",
    "4",
    "--arms",
    "single,society",
    "--society-agents",
    "2",
    "--provider",
    "anthropic",
    "--model",
    "claude-haiku-4-5",
    "--batch",
    "--json",
)


def test_kill_9_between_submission_and_results_then_resume(tmp_path: Path) -> None:
    fake = AnthropicBatchFake()
    fake.hold.clear()  # the first wave's batch stays in progress
    try:
        workdir = tmp_path / "work"
        workdir.mkdir()
        cli = Cli(workdir, env_overrides={**anthropic_env(fake.url), "ARGUE_BATCH_POLL_S": "0.05"})
        process = cli.popen(*ARGS)
        try:
            wait_for(lambda: fake.polls >= 2, deadline_s=60, what="the batch to be polled")
            records = list(cli.debates.glob("evals/*/batches.jsonl"))
            assert len(records) == 1, "the batch is recorded before it is polled"
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
            process.communicate()
        assert fake.creates == 1
        folder = records[0].parent
        assert not (folder / "items.jsonl").exists()
        (first,) = fake.batches

        fake.hold.set()
        again = cli.ok(*ARGS)
        report = json.loads(again.stdout)
        assert report["status"] == "completed"
        assert report["batch"]["this_run"]["reattached"] == [first]
        # Wave 1 (4 single + 4 × 2 society) re-attached, wave 2 (society round 2) new.
        assert fake.creates == 2 and fake.requests_in == 4 + 8 + 8
        assert f"batch {first}: re-attached to 12 request(s)" in again.stderr
        assert report["arms"]["single"]["accuracy"] == 1.0
        assert report["arms"]["society"]["accuracy"] == 1.0
    finally:
        fake.stop()
