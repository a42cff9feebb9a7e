"""Research sources own their key variable: the table's rows are what redact, config and doctor
know of keys, and a package's source is one module plus one entry point.

What each test protects, and how it was broken on purpose to see it fail (Teeth: each
mutation below was applied alone and the named test failed):

- each built-in row's key and URL variables are the ones its module declares and uses, and
  every one is registered with redact (Teeth: github's ``OPTIONAL_KEY_ENV`` deleted -> its
  token is no longer a secret variable: fails; the dogpile table's registration loop
  removed -> fails);
- a registered source is asked by dogpile, its key value and the password in its URL variable
  are masked, config show lists its key; once unregistered its key is not masked (Teeth:
  ``register_source`` not registering the variables -> fails; config's ``key_variables``
  without the source table -> fails);
- ``argue research`` without --sources asks it too (Teeth: the old fixed default list ->
  acme is missing: fails);
- doctor lists it with its key's variable, and github's optional token (Teeth: doctor
  iterating the built-in ``SOURCES`` only -> fails);
- a broken ``argue.sources`` entry point is one line on stderr, never a traceback, and a
  good one (a module) becomes a source (Teeth: the ``try`` around ``point.load()`` removed ->
  the ModuleNotFoundError escapes: fails).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import os
import sys
import types
from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from argue.redact import redact, secret_variables, url_variables
from argue.skills.base import SkillItem, SkillResult
from argue.skills.dogpile import SOURCE_NAMES, SOURCES, all_sources, dogpile
from argue.skills.dogpile import registry as source_registry
from argue.skills.dogpile.sources import brave, github

SECRET = "acme-search-secret-0123456789"
KEY_VAR = "ACME_SEARCH_SECRET"  # not named like a credential: only the table can mask it


def acme_module(name: str = "tests_acme_source") -> types.ModuleType:
    """A research source the way a package writes one: its facts in the module."""
    module = types.ModuleType(name)
    module.SOURCE = "acme"  # type: ignore[attr-defined]
    module.KEY_ENV = KEY_VAR  # type: ignore[attr-defined]
    module.URL_ENV = "ACME_SEARCH_URL"  # type: ignore[attr-defined]

    async def search(query: str, *, client: httpx.AsyncClient, limit: int) -> SkillResult:
        if not os.environ.get(KEY_VAR):
            return SkillResult.refused("acme", query, f"{KEY_VAR} not set")
        item = SkillItem(id="acme:1", title=f"About {query}", url="https://acme.example/1",
                         source="acme")  # fmt: skip
        return SkillResult(skill="acme", query=query, status="ok", items=[item])

    module.search = search  # type: ignore[attr-defined]
    return module


def test_each_built_in_row_names_the_variables_its_module_uses():
    rows = {s.name: s for s in SOURCES}
    assert (rows["brave"].key_env, rows["brave"].url_env) == (brave.KEY_ENV, brave.URL_ENV)
    assert (rows["github"].key_env, rows["github"].optional_key_env) == (None, "GITHUB_TOKEN")
    assert github.URL_ENV == "ARGUE_GITHUB_URL"
    for row in SOURCES:
        for name in row.secret_variables:
            assert name in secret_variables(), name
        if row.url_env:
            assert row.url_env in url_variables()
    assert {"BRAVE_API_KEY", "PERPLEXITY_API_KEY", "YOUTUBE_API_KEY", "GITHUB_TOKEN"} <= set(
        secret_variables()
    )


def test_a_registered_source_is_asked_masked_and_listed(monkeypatch: pytest.MonkeyPatch):
    from argue.app import effective_settings, key_variables, url_variables

    monkeypatch.setenv(KEY_VAR, SECRET)
    monkeypatch.setenv("ACME_SEARCH_URL", "https://me:acme-url-password-42@acme.example/")
    with source_registry.source_registered(acme_module()) as row:
        assert row.rank == source_registry.DEFAULT_RANK
        assert "acme" in SOURCE_NAMES and row in all_sources()
        result = asyncio.run(dogpile("collatz", sources=["acme"]))
        assert (result.status, [i.id for i in result.items]) == ("ok", ["acme:1"])
        assert redact(f"key {SECRET}") == "key ***"
        assert "acme-url-password-42" not in redact("said acme-url-password-42")
        assert KEY_VAR in key_variables() and "ACME_SEARCH_URL" in url_variables()
        entries = effective_settings(dict(os.environ))
        assert entries[KEY_VAR.lower()].value == "set (masked)"
        assert SECRET not in json.dumps({k: e.as_json() for k, e in entries.items()})
    assert "acme" not in SOURCE_NAMES
    assert redact(f"key {SECRET}") == f"key {SECRET}"


def test_argue_research_asks_a_registered_source_by_default(monkeypatch: pytest.MonkeyPatch):
    import typer
    from typer.testing import CliRunner

    from argue.commands.research import research_command

    app = typer.Typer()
    app.command("research")(research_command)
    app.command("noop")(lambda: None)  # a second command keeps "research" a subcommand
    monkeypatch.setenv(KEY_VAR, SECRET)
    everything_else = [name for name in SOURCE_NAMES if name != "library"]
    for name in everything_else:  # nothing leaves the machine: only acme and library answer
        row = next(s for s in SOURCES if s.name == name)
        monkeypatch.setattr(row.module, "search", _refusing(name))
    with source_registry.source_registered(acme_module()):
        result = CliRunner().invoke(app, ["research", "collatz", "--json"])
    document = json.loads(result.stdout)
    assert document["sources"][-1]["source"] == "acme"
    assert [i["id"] for i in document["items"]] == ["acme:1"]


def _refusing(name: str) -> Callable[..., Awaitable[SkillResult]]:
    async def search(query: str, *, client: object, limit: int) -> SkillResult:
        return SkillResult.refused(name, query, "not asked in this test")

    return search


def test_doctor_lists_a_registered_source_by_its_key_variable(monkeypatch: pytest.MonkeyPatch):
    from argue.app import probe_sources

    monkeypatch.delenv(KEY_VAR, raising=False)
    with source_registry.source_registered(acme_module()):
        rows = {row.source: row for row in asyncio.run(probe_sources(1.0, ask=False))}
    assert (rows["acme"].key_env, rows["acme"].key) == (KEY_VAR, f"no key ({KEY_VAR})")
    assert rows["github"].key == "optional (GITHUB_TOKEN not set)"


def test_a_taken_name_or_a_module_without_search_is_refused():
    with pytest.raises(ValueError, match="already taken"):
        source_registry.register_source(brave)
    shapeless = types.ModuleType("shapeless")
    shapeless.SOURCE = "shapeless"  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="no search"):
        source_registry.register_source(shapeless)


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[importlib.metadata.EntryPoint]]:
    points: list[importlib.metadata.EntryPoint] = []

    def entry_points(*, group: str) -> list[importlib.metadata.EntryPoint]:
        return points if group == source_registry.ENTRY_POINT_GROUP else []

    monkeypatch.setattr(source_registry.importlib.metadata, "entry_points", entry_points)
    monkeypatch.setattr(source_registry, "_loaded", [])
    monkeypatch.setattr(source_registry, "_PROBLEMS", {})
    monkeypatch.setitem(sys.modules, "tests_acme_plugin", acme_module("tests_acme_plugin"))
    try:
        yield points
    finally:
        source_registry.unregister_source("acme")


def test_a_broken_entry_point_is_one_line_and_a_good_one_a_source(
    plugins: list[importlib.metadata.EntryPoint], capsys: pytest.CaptureFixture[str]
):
    group = source_registry.ENTRY_POINT_GROUP
    plugins += [
        importlib.metadata.EntryPoint("missing", "argue_no_such_package_xyz", group),
        importlib.metadata.EntryPoint("acme", "tests_acme_plugin", group),
    ]
    assert "acme" in SOURCE_NAMES and "missing" not in SOURCE_NAMES
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines() == [
        "warning: source plugin missing (argue_no_such_package_xyz) left out: "
        "ModuleNotFoundError: No module named 'argue_no_such_package_xyz'"
    ]
    assert KEY_VAR in secret_variables()
    assert "acme" in SOURCE_NAMES  # read again: loaded once, nothing said twice
    assert capsys.readouterr().err == ""
