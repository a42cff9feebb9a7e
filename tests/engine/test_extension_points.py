"""One shape per extension point: modes, skills (built-in, external, entry-point plugins),
research sources and templates each come from one table or folder.
"""
# Teeth: make skill_table() skip load_plugin_skills, or drop FileSystemLoader from _environment_for.

from __future__ import annotations

import asyncio
import json
import os
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argue.engine import DebateRunner, SkillToolkit, create_debate
from argue.engine.modes import MODES, resolve_mode_name
from argue.engine.schemas import ResearchCallDraft
from argue.engine.toolkit import BUILTIN_SKILLS, ResearchRequest
from argue.llm import ScriptedModel
from argue.skills.dogpile import PACED_SOURCES, RANK_ORDER, SOURCE_NAMES, SOURCES
from tests.engine.script import DebateScript

NAMES = {"Embry": "A", "Horus": "B"}

PLUGIN_SOURCE = """
from argue.skills.base import SkillItem, SkillResult


class EchoSkill:
    name = "echo"

    def describe(self, persona, context):
        return f"echo the query back for {persona.display_name}; `query`"

    async def run(self, request, context):
        query = request.call.query
        item = SkillItem(
            id="echo:1", title=f"Echo of {query}", url="https://example.org/echo", source="echo"
        )
        return SkillResult.from_items("echo", query, [item])


def broken_factory():
    raise RuntimeError("no config for the broken plugin")


class Shapeless:
    name = "shapeless"


class Raiser:
    name = "raiser"

    def describe(self, persona, context):
        return "always raises; `query`"

    async def run(self, request, context):
        raise ValueError("plugin bug")


class ClashesWithDogpile(EchoSkill):
    name = "dogpile"
"""


@pytest.fixture
def install_plugin(tmp_path, monkeypatch):
    """Install a distribution on the fly: a module plus a ``*.dist-info`` with entry points."""

    def _install(entry_points: dict[str, str]) -> str:
        module = f"argue_test_plugin_{uuid.uuid4().hex[:8]}"
        root = tmp_path / "site"
        root.mkdir(exist_ok=True)
        (root / f"{module}.py").write_text(PLUGIN_SOURCE)
        dist = root / f"{module}-0.1.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
        lines = [
            f"{name} = {target.replace('PLUGIN', module)}" for name, target in entry_points.items()
        ]
        (dist / "entry_points.txt").write_text("[argue.skills]\n" + "\n".join(lines) + "\n")
        monkeypatch.syspath_prepend(str(root))
        monkeypatch.delitem(sys.modules, module, raising=False)
        return module

    return _install


def _request(skill: str, query: str = "collatz") -> ResearchRequest:
    from argue.personas import load_catalog

    return ResearchRequest(
        call=ResearchCallDraft(skill=skill, query=query),
        persona=load_catalog().get("embry"),
        letter="A",
        debate_id="x",
    )


def _debate(tmp_path: Path, personas, toolkit: SkillToolkit, script: DebateScript, rounds=1):
    store = create_debate(
        tmp_path / "debates",
        question="Is the Collatz conjecture decidable?",
        mode="adversarial",
        personas=[personas["embry"], personas["horus"]],
        max_rounds=rounds,
        provider="scripted",
        model="scripted-1",
        research_sources=["library"],
    )
    model = ScriptedModel(script)
    events: list[str] = []
    state = asyncio.run(DebateRunner(store, model, toolkit, reporter=events.append).run())
    return store, model, state, events


# ---------------------------------------------------------------- modes


def test_the_mode_names_of_the_records_are_the_registry():
    assert tuple(MODES)[:4] == ("adversarial", "panel", "socratic", "devils-advocate")
    for name, mode in MODES.items():
        assert resolve_mode_name(name.upper().replace("-", "_")) == name
        assert all(resolve_mode_name(alias) == name for alias in mode.aliases)
        assert 2 <= mode.min_personas <= mode.max_personas <= 10
        assert mode.role_hints
    assert resolve_mode_name("shouting") is None


# ---------------------------------------------------------------- skills


def test_the_builtin_skills_and_the_menu_come_from_one_table():
    toolkit = SkillToolkit(None, sources=["arxiv"], external={"papers": ["true"]})  # type: ignore[arg-type]
    assert BUILTIN_SKILLS == ("dogpile", "ask", "memory", "library", "taxonomy")
    assert toolkit.skill_names == (*BUILTIN_SKILLS, "papers")
    from argue.personas import load_catalog

    menu = toolkit.menu(load_catalog().get("embry")).splitlines()
    assert [line.split(":")[0] for line in menu] == [f"- {n}" for n in toolkit.skill_names]
    assert menu[0] == "- dogpile: multi-source search (arxiv); `query`, optional `sources`"
    assert menu[-1] == "- papers: external skill; `query`"
    unknown = asyncio.run(toolkit.run(_request("nope")))
    assert unknown.status == "refused"
    assert unknown.note == (
        "unknown skill 'nope'; available: dogpile, ask, memory, library, taxonomy, papers"
    )


def test_an_entry_point_skill_is_offered_and_runs_in_a_debate(tmp_path, personas, install_plugin):
    install_plugin({"echo": "PLUGIN:EchoSkill"})
    script = DebateScript(names=NAMES, free_skill="echo")
    toolkit = SkillToolkit(None, sources=["library"])  # type: ignore[arg-type]
    assert toolkit.problems == {}
    assert toolkit.skill_names == (*BUILTIN_SKILLS, "echo")
    # Without colleagues, the budget leaves one free call after dogpile and memory.
    loners = {
        name: personas[name].model_copy(update={"colleagues": []}) for name in ("embry", "horus")
    }

    store, model, state, _ = _debate(tmp_path, loners, toolkit, script)

    assert state.status == "completed"
    plan_request = next(r for r in model.requests if "echo" in r.last_user_message)
    assert "- echo: echo the query back for Embry; `query`" in plan_request.last_user_message
    free = plan_request.output.model_json_schema()["$defs"]["FreeCallDraft"]
    assert free["properties"]["skill"]["enum"] == [
        "dogpile",
        "memory",
        "library",
        "taxonomy",
        "echo",
    ]
    research = json.loads(store.paths.research("A", 1).read_text())
    assert [call["skill"] for call in research["calls"]] == ["dogpile", "memory", "echo"]
    assert research["calls"][2]["status"] == "ok"
    assert any(e["title"] == "Echo of A query 2 round 1" for e in research["evidence"])


def test_a_broken_plugin_is_reported_once_and_hides_nothing(tmp_path, personas, install_plugin):
    module = install_plugin(
        {
            "echo": "PLUGIN:EchoSkill",
            "broken": "PLUGIN:broken_factory",
            "missing": "argue_no_such_module_xyz:Skill",
            "shapeless": "PLUGIN:Shapeless",
            "dogpile": "PLUGIN:ClashesWithDogpile",
            "raiser": "PLUGIN:Raiser",
        }
    )
    toolkit = SkillToolkit(None, sources=["library"])  # type: ignore[arg-type]

    assert toolkit.skill_names == (*BUILTIN_SKILLS, "echo", "raiser")
    assert toolkit.problems == {
        "broken": f"plugin {module}:broken_factory could not be loaded: "
        "RuntimeError: no config for the broken plugin",
        "missing": "plugin argue_no_such_module_xyz:Skill could not be loaded: "
        "ModuleNotFoundError: No module named 'argue_no_such_module_xyz'",
        "shapeless": f"plugin {module}:Shapeless refused: 'shapeless' has no describe() method",
        "dogpile": f"plugin {module}:ClashesWithDogpile refused: the name 'dogpile' is already "
        "taken by a built-in or external skill",
    }
    # calling a plugin that is not there, or one that raises, returns a result: never a traceback
    broken = asyncio.run(toolkit.run(_request("broken")))
    assert (broken.status, broken.note) == (
        "refused",
        "broken is not available: " + toolkit.problems["broken"],
    )
    raised = asyncio.run(toolkit.run(_request("raiser")))
    assert raised.status == "failed"
    assert raised.note == f"raiser ({module}:Raiser) raised ValueError: plugin bug"

    script = DebateScript(names=NAMES)
    store, _, state, events = _debate(tmp_path, personas, toolkit, script, rounds=2)

    assert state.status == "completed"
    failures = json.loads(store.paths.failures.read_text())
    reported = [f for f in failures if f["what"].startswith("skill ")]
    assert [(f["round"], f["kind"], f["what"]) for f in reported] == [
        (0, "refused", f"skill {name}") for name in ("broken", "missing", "shapeless", "dogpile")
    ]
    assert sum("no config for the broken plugin" in e for e in events) == 1
    transcript = store.paths.transcript.read_text()
    assert transcript.count("no config for the broken plugin") == 1
    assert "## Before the first round" in transcript
    assert json.loads(store.paths.research("A", 1).read_text())["calls"][0]["skill"] == "dogpile"


# ---------------------------------------------------------------- research sources


def test_every_research_source_comes_from_one_table(monkeypatch):
    assert tuple(s.name for s in SOURCES) == SOURCE_NAMES
    assert RANK_ORDER == ("library", "arxiv", "github", "perplexity", "brave", "youtube")
    assert {"arxiv", "github", "brave"} == PACED_SOURCES
    keyed = [s for s in SOURCES if s.key_env]
    assert {s.name for s in keyed} == {"brave", "perplexity", "youtube"}
    for source in keyed:  # the key the table names is the one the adapter needs
        monkeypatch.delenv(source.key_env, raising=False)
        result = asyncio.run(source.module.search("collatz", client=None, limit=1))
        assert (result.status, result.note) == ("refused", f"{source.key_env} not set")


# ---------------------------------------------------------------- templates


def test_a_user_template_replaces_the_shipped_synthesis(tmp_path, run_scripted_debate):
    store = run_scripted_debate(tmp_path / "debates")
    shipped = store.paths.synthesis.read_text()
    templates = Path(os.environ["ARGUE_HOME"]) / "templates"
    templates.mkdir()
    (templates / "synthesis.md.j2").write_text(
        textwrap.dedent(
            """\
            # House synthesis: {{ config.question | inert }}
            Status {{ state.status }}; {{ participants | length }} voices.
            """
        )
    )

    result = CliRunner().invoke(
        __import__("argue.cli", fromlist=["app"]).app,
        ["synthesize", store.debate_id, "--raw", "--debates-dir", str(tmp_path / "debates")],
    )

    assert result.exit_code == 0, result.output
    expected = "# House synthesis: Q?\nStatus completed; 2 voices.\n"
    assert store.paths.synthesis.read_text() == expected
    assert expected in result.stdout
    assert "## Concession log" in shipped  # the shipped one was used before the override
    # the transcript has no override: still the built-in template
    assert "House synthesis" not in store.paths.transcript.read_text()


def test_a_user_template_is_strict_about_undefined_names(tmp_path, run_scripted_debate):
    from jinja2 import UndefinedError

    from argue.engine import resynthesize

    store = run_scripted_debate(tmp_path / "debates")
    templates = Path(os.environ["ARGUE_HOME"]) / "templates"
    templates.mkdir()
    (templates / "synthesis.md.j2").write_text("{{ no_such_variable }}\n")
    with pytest.raises(UndefinedError):
        asyncio.run(resynthesize(store, None))
