"""Shards (``--shard i/n``) split one eval across machines; ``argue eval merge`` joins their
per-item JSONL into one report, and refuses folders that are not shards of one eval.

Teeth check (done once): in argue/eval/datasets.py make ``shard`` return every item;
``test_shards_merge_into_one_report`` fails (the shards overlap).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.cli import app
from argue.llm import ScriptedModel
from tests.eval.script import EvalScript


@pytest.fixture
def scripted(monkeypatch, scripted_provider):
    models = []

    def build(wanted, ctx):
        models.append(ScriptedModel(EvalScript(names={})))
        return models[-1]

    scripted_provider(build)
    monkeypatch.setenv("ARGUE_PROVIDER", "scripted")
    return models


def invoke(*args):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_shards_merge_into_one_report(tmp_path, scripted):
    common = ("eval", "--dataset", "mixed-arithmetic", "--n", "5", "--arms", "single,vote")
    common += ("--samples", "3", "--debates-dir", str(tmp_path), "--json")
    one = invoke(*common, "--shard", "1/2")
    two = invoke(*common, "--shard", "2/2")
    assert (one["arms"]["single"]["n"], two["arms"]["single"]["n"]) == (3, 2)
    folders = [one["folder"], two["folder"]]
    assert folders[0].endswith("_shard1of2") and folders[1].endswith("_shard2of2")
    ids = [
        {json.loads(x)["item"] for x in Path(f, "items.jsonl").read_text().splitlines()}
        for f in folders
    ]
    assert not ids[0] & ids[1]
    merged = invoke("eval", "merge", *folders, "--out", str(tmp_path / "all"), "--json")
    assert merged["arms"]["single"]["n"] == 5 and merged["arms"]["vote"]["n"] == 5
    assert merged["arms"]["single"]["accuracy"] == 1.0
    assert len((tmp_path / "all" / "items.jsonl").read_text().splitlines()) == 10


def test_merge_refuses_folders_of_different_evals(tmp_path, scripted):
    base = ("eval", "--arms", "single", "--debates-dir", str(tmp_path), "--json")
    a = invoke(*base, "--dataset", "mixed-arithmetic", "--n", "2", "--seed", "1")["folder"]
    b = invoke(*base, "--dataset", "mixed-arithmetic", "--n", "2", "--seed", "2")["folder"]
    result = CliRunner().invoke(app, ["eval", "merge", a, b])
    assert result.exit_code == 2
    assert "not shards of one eval" in result.stderr


def test_a_merge_into_a_folder_in_use_is_refused_at_once(tmp_path, scripted):
    """Teeth: without ``target.running()`` in argue.app's merge the second merge writes."""
    from argue.eval.folder import EvalFolder

    common = ("eval", "--dataset", "mixed-arithmetic", "--n", "2", "--arms", "single")
    common += ("--debates-dir", str(tmp_path), "--json")
    one = invoke(*common, "--shard", "1/2")
    two = invoke(*common, "--shard", "2/2")
    target = tmp_path / "all"
    with EvalFolder(target).running():
        result = CliRunner().invoke(
            app, ["eval", "merge", one["folder"], two["folder"], "--out", str(target)]
        )
    assert result.exit_code == 2, result.output
    assert not (target / "items.jsonl").exists()


def test_the_json_report_carries_the_seed_and_the_dataset_fingerprint(tmp_path, scripted):
    """Issue 25 item 5. Teeth: drop "seed" from the manifest in argue/app/_eval.py: the
    mixed-arithmetic seed reads None (its legacy name fallback is for folders without it)."""
    from argue.eval.datasets import du_arithmetic, mixed_arithmetic

    base = ("eval", "--arms", "single", "--debates-dir", str(tmp_path), "--json")
    mixed = invoke(*base, "--dataset", "mixed-arithmetic", "--n", "3", "--seed", "7")
    assert (mixed["seed"], mixed["fingerprint"]) == (7, mixed_arithmetic(3, 7).fingerprint)
    du = invoke(*base, "--dataset", "du-arithmetic", "--shard", "1/25")
    assert (du["seed"], du["fingerprint"]) == (0, du_arithmetic().fingerprint)
    path = tmp_path / "mine.jsonl"
    path.write_text('{"question": "What is 2+2?", "answer": "4"}\n', encoding="utf-8")
    own = invoke("eval", str(path), "--arms", "single", "--debates-dir", str(tmp_path), "--json")
    assert own["seed"] is None and len(own["fingerprint"]) == 64
    # the manifest keeps it: the merged report of shards says it too
    one = invoke(
        *base, "--dataset", "mixed-arithmetic", "--n", "4", "--seed", "3", "--shard", "1/2"
    )
    two = invoke(
        *base, "--dataset", "mixed-arithmetic", "--n", "4", "--seed", "3", "--shard", "2/2"
    )
    merged = invoke("eval", "merge", one["folder"], two["folder"], "--json")
    assert (merged["seed"], merged["fingerprint"]) == (3, mixed_arithmetic(4, 3).fingerprint)


def test_a_merged_report_says_each_shards_vote_matching(tmp_path, scripted):
    """Each shard matches its vote arm to its own debates; the merged report gives one line per
    shard (it used to keep the distinct sentences only, unnamed). Teeth: return ``lines``
    unprefixed in ``vote_matching_lines``: this fails."""
    common = ("eval", "--dataset", "mixed-arithmetic", "--n", "3", "--arms", "single,vote,debate")
    common += ("--rounds", "1", "--debates-dir", str(tmp_path), "--json")
    one = invoke(*common, "--shard", "1/2")
    two = invoke(*common, "--shard", "2/2")
    (first,) = one["vote_matching"]
    (second,) = two["vote_matching"]
    assert "(over 2 debates)" in first and "(over 1 debate)" in second
    merged = invoke("eval", "merge", one["folder"], two["folder"], "--json")
    assert merged["vote_matching"] == [f"shard 1/2: {first}", f"shard 2/2: {second}"]


def test_an_older_folder_without_a_seed_field_reads_it_from_its_dataset_name():
    from argue.eval.report import manifest_seed

    assert manifest_seed({"dataset": "arithmetic_s12"}) == 12
    assert manifest_seed({"dataset": "du-arithmetic"}) == 0
    assert manifest_seed({"dataset": "gsm8k_test"}) is None
    assert manifest_seed({"dataset": "arithmetic_s12", "seed": None}) is None
    assert manifest_seed({"seed": True}) is None
