"""The provider table owns its facts: one registered row is a provider everywhere.

What each test protects, and how it was broken on purpose to see it fail (Teeth: each
mutation below was applied alone and the named test failed):

- the built-in rows give the names, default models and detection order argue had before;
  a registered row resolves by name, by ARGUE_PROVIDER and by auto-detection, before the
  fallback row (Teeth: LOCAL's ``fallback=True`` removed -> local is chosen first: fails;
  ``resolve_model`` accepting only the four built-in names -> "unknown provider": fails);
- its name is in PROVIDER_NAMES as already imported elsewhere, and in ``provider_help()``
  (Teeth: ``provider_help`` listing fixed words -> fails);
- its key variable is masked by ``redact`` while it is registered, and no longer after
  (Teeth: ``register_provider`` not calling ``register_secret_variables`` -> fails);
- ``argue config show`` lists its key as masked and says why it was detected (Teeth:
  ``key_variables`` back to a fixed list -> fails); ``argue doctor`` probes it with the row's
  hook (Teeth: ``probe_model`` using the hooks of built-in rows only -> fails) and takes the
  row's fix hint (Teeth: the fix back to "check the server" -> fails);
- ``argue QUESTION --provider scripted`` runs a whole debate in-process on the test's model
  (Teeth: ``resolve_model`` accepting only the built-in names -> exit 2: fails);
- a broken ``argue.providers`` entry point is one line on stderr, never a traceback, and a
  good one becomes a provider (Teeth: the ``try`` around ``point.load()`` removed -> the
  ModuleNotFoundError escapes: fails);
- a variable named like a credential (``*_API_KEY``, ``*_TOKEN``) is masked even when no table
  names it, the safety net for a line printed before a table loaded (Teeth: the suffix rule
  removed from ``redact`` -> fails);
- importing the table pulls in no SDK and no skill (the model layer is below the skills).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from argue.llm import (
    DEFAULT_MODELS,
    PROVIDER_NAMES,
    ProbeOptions,
    ProviderNotConfigured,
    ProviderSpec,
    ScriptedModel,
    _registry,
    probe_model,
    provider_help,
    provider_registered,
    resolve_model,
)
from argue.llm.probe import Check, ProbeReport
from argue.redact import redact, secret_variables
from tests.providers import ScriptedProviders, scripted_spec

SECRET = "acme-provider-secret-0123456789"
KEY_VAR = "ACME_PROVIDER_SECRET"  # not named like a credential: only the table can mask it


def answering(messages: object, output: type | None) -> object:
    return {"answer": "yes"} if output is not None else "ok"


def test_the_built_in_rows_keep_the_names_models_and_order():
    assert PROVIDER_NAMES == ("anthropic", "openai", "ollama", "local")
    assert dict(DEFAULT_MODELS) == {"anthropic": "claude-sonnet-4-6", "openai": "gpt-5.4-mini"}
    assert "ANTHROPIC_API_KEY" in secret_variables() and "OPENAI_API_KEY" in secret_variables()
    assert provider_help().startswith("anthropic (ANTHROPIC_API_KEY) | openai (")


def test_a_registered_provider_resolves_by_name_env_and_detection(
    scripted_provider: ScriptedProviders, monkeypatch: pytest.MonkeyPatch
):
    model = ScriptedModel(answering)
    scripted_provider(
        model, key_vars=(KEY_VAR,), detect=lambda env: True if env.get(KEY_VAR) else None
    )
    monkeypatch.setattr("argue.llm._providers.llama_cpp_installed", lambda: True)
    assert resolve_model("scripted") is model
    assert resolve_model(env={"ARGUE_PROVIDER": "scripted", "OLLAMA_HOST": "127.0.0.1:9"}) is model
    # Auto-detection: the row is tried before the fallback (in-process llama.cpp).
    assert resolve_model(env={KEY_VAR: SECRET, "OLLAMA_HOST": "127.0.0.1:9"}) is model


def test_an_unregistered_provider_is_unknown_again():
    with provider_registered(scripted_spec(ScriptedModel(answering))):
        assert "scripted" in PROVIDER_NAMES
    assert "scripted" not in PROVIDER_NAMES
    with pytest.raises(ProviderNotConfigured, match="unknown provider 'scripted'"):
        resolve_model("scripted")


def test_names_and_help_follow_the_table(scripted_provider: ScriptedProviders):
    scripted_provider(ScriptedModel(answering), help="tests only")
    assert "scripted" in PROVIDER_NAMES  # the object every module imported at start-up
    assert PROVIDER_NAMES[-1] == "local"  # a registered row goes before the fallback
    assert "scripted (tests only)" in provider_help()
    assert "scripted" in _registry.default_models()


def test_its_key_variable_is_masked_while_registered(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_VAR, SECRET)
    spec = scripted_spec(ScriptedModel(answering), key_vars=(KEY_VAR,), url_vars=("ACME_URL",))
    monkeypatch.setenv("ACME_URL", "https://user:url-password-98765@acme.example/v1")
    with provider_registered(spec):
        assert KEY_VAR in secret_variables()
        assert redact(f"sent {SECRET}") == "sent ***"
        assert "url-password-98765" not in redact("password url-password-98765")
    assert redact(f"sent {SECRET}") == f"sent {SECRET}"


def test_a_variable_named_like_a_credential_is_masked_without_a_row():
    env = {"NEWCO_API_KEY": "newco-key-0123456789", "HF_TOKEN": "hf_abcdefghijkl"}
    assert "NEWCO_API_KEY" not in secret_variables()
    assert redact("newco-key-0123456789 hf_abcdefghijkl", env=env) == "*** ***"
    assert redact("plain-value-0123456789", env={"NEWCO_MODEL": "plain-value-0123456789"}) == (
        "plain-value-0123456789"
    )


def test_config_show_lists_its_key_masked_and_why_it_was_detected(
    scripted_provider: ScriptedProviders, monkeypatch: pytest.MonkeyPatch
):
    from argue.app import effective_settings, key_variables

    scripted_provider(
        ScriptedModel(answering, provider="scripted"),
        key_vars=(KEY_VAR,),
        detect=lambda env: True if env.get(KEY_VAR) else None,
    )
    monkeypatch.setenv(KEY_VAR, SECRET)
    assert KEY_VAR in key_variables()
    entries = effective_settings(dict(os.environ))
    assert entries[KEY_VAR.lower()].value == "set (masked)"
    assert (entries["provider"].value, entries["provider"].source) == ("scripted", "auto-detected")
    assert entries["provider"].detail == f"{KEY_VAR} is set"
    assert SECRET not in json.dumps({k: e.as_json() for k, e in entries.items()})


def test_doctor_probes_with_the_rows_hook(scripted_provider: ScriptedProviders):
    seen: list[ProbeOptions] = []

    async def probe(model: object, options: ProbeOptions) -> ProbeReport:
        seen.append(options)
        report = ProbeReport("scripted", "scripted-1", "in the test")
        report.checks.append(Check("hook", "ok", "the row's own probe"))
        report.structured = "scripted"
        return report

    scripted_provider(ScriptedModel(answering), probe=probe)
    report = asyncio.run(probe_model(resolve_model("scripted"), timeout_s=2, call_local=True))
    assert [c.name for c in report.checks] == ["hook"]
    assert seen[0].timeout_s == 2 and seen[0].call_local


def test_doctor_without_a_hook_asks_a_tiny_call_and_a_structured_one(
    scripted_provider: ScriptedProviders,
):
    scripted_provider(ScriptedModel(answering))
    report = asyncio.run(probe_model(resolve_model("scripted"), timeout_s=2))
    assert [(c.name, c.status) for c in report.checks] == [
        ("model accepted", "ok"),
        ("structured output", "ok"),
    ]


def test_doctors_fix_for_an_unreachable_server_is_the_rows(scripted_provider: ScriptedProviders):
    from argue.app import judge

    scripted_provider(ScriptedModel(answering), unreachable_fix="start acme at {endpoint}")
    report = ProbeReport("scripted", "scripted-1", "http://127.0.0.1:9")
    report.checks.append(Check("reachable", "unreachable", "connection refused"))
    assert judge(report)[1] == "start acme at http://127.0.0.1:9"


def test_the_cli_takes_provider_scripted(scripted_provider: ScriptedProviders):
    from typer.testing import CliRunner

    from argue.cli import app

    scripted_provider(lambda model, ctx: ScriptedModel(answering, provider="scripted"))
    result = CliRunner().invoke(app, ["doctor", "--provider", "scripted", "--json", "--no-sources"])
    payload = json.loads(result.stdout.strip().splitlines()[-1])
    assert (result.exit_code, payload["provider"], payload["ready"]) == (0, "scripted", True)
    shown = CliRunner().invoke(app, ["config", "show", "--provider", "scripted", "--json"])
    assert json.loads(shown.stdout)["provider"]["value"] == "scripted"


def test_a_whole_debate_runs_in_process_on_provider_scripted(
    scripted_provider: ScriptedProviders, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from typer.testing import CliRunner

    from argue.cli import app
    from tests.engine.script import DebateScript

    monkeypatch.setenv("ARGUE_RESEARCH_SOURCES", "library")  # nothing leaves the machine
    script = DebateScript(names={"Embry": "A", "Horus": "B"})
    scripted_provider(lambda model, ctx: ScriptedModel(script, provider="scripted"))
    debates = tmp_path / "debates"
    args = ["argue", "Is water wet?", "--provider", "scripted", "--personas", "embry,horus"]
    result = CliRunner().invoke(app, [*args, "--rounds", "1", "--debates-dir", str(debates)])
    assert result.exit_code == 0, result.stderr
    (folder,) = debates.iterdir()
    assert json.loads((folder / "config.json").read_text())["provider"] == "scripted"
    assert (folder / "synthesis.md").is_file()


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[importlib.metadata.EntryPoint]]:
    """Entry points of ``argue.providers`` as the test lists them, loaded afresh."""
    points: list[importlib.metadata.EntryPoint] = []

    def entry_points(*, group: str) -> list[importlib.metadata.EntryPoint]:
        return points if group == _registry.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(_registry.importlib.metadata, "entry_points", entry_points)
    monkeypatch.setitem(_registry._loaded, "plugins", False)
    monkeypatch.setattr(_registry, "_PROBLEMS", {})
    try:
        yield points
    finally:
        for name in ("plugged",):
            _registry.unregister_provider(name)


def entry_point(name: str, value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name=name, value=value, group=_registry.ENTRY_POINT_GROUP)


def test_a_broken_entry_point_is_one_line_and_a_good_one_a_provider(
    plugins: list[importlib.metadata.EntryPoint], capsys: pytest.CaptureFixture[str]
):
    plugins += [
        entry_point("missing", "argue_no_such_package_xyz:spec"),
        entry_point("shapeless", "json:dumps"),
        entry_point("good", "tests.providers:plugin_spec"),
    ]
    names = PROVIDER_NAMES[:]  # reading the table loads the plugins, once
    assert "plugged" in names and "missing" not in names
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "Traceback" not in err
    assert lines[0].startswith("warning: provider plugin missing (argue_no_such_package_xyz:spec)")
    assert "ModuleNotFoundError" in lines[0]
    assert lines[1].startswith("warning: provider plugin shapeless (json:dumps) left out:")
    assert "PLUGGED_PROVIDER_SECRET" in secret_variables()
    assert _registry.provider_spec("plugged").origin == "tests.providers:plugin_spec"
    PROVIDER_NAMES[:]
    assert capsys.readouterr().err == ""


def test_a_row_needs_a_plain_name():
    with pytest.raises(ValueError, match="lower-case"):
        ProviderSpec(name="Acme AI", build=lambda model, ctx: ScriptedModel())
    with pytest.raises(ValueError, match="already taken"):
        _registry.register_provider(scripted_spec(name="openai"))


def test_the_table_imports_no_sdk_and_no_skill():
    code = (
        "import sys, argue.llm\n"
        "argue.llm.provider_help()\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('anthropic', 'openai', 'llama_cpp')"
        " or m.startswith('argue.skills')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_start_command_s_help_says_the_table_s_words(scripted_provider: ScriptedProviders):
    """``argue QUESTION --help`` lists the providers from the table, a registered one too,
    with their key variables. (Teeth: the help left as the fixed built-in words -> fails.)"""
    from typer.testing import CliRunner

    from argue.cli import app

    scripted_provider(ScriptedModel(answering), help="tests only")
    result = CliRunner().invoke(app, ["argue", "--help"])
    assert result.exit_code == 0, result.output
    start = result.output.index("--provider")
    words = " ".join(result.output[start:].replace("│", " ").split())  # the wrapped lines
    assert words.startswith("--provider <str> anthropic (ANTHROPIC_API_KEY) | openai (")
    assert "| scripted (tests only) | local (in-process llama.cpp)" in words, words[:300]
