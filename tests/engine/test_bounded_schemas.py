"""Every structured answer argue asks a model for is bounded: each string has a maxLength (or is
an enum), each list a maxItems. A grammar-constrained local model writes until ``max_tokens``
where the schema lets it: the colleague's unbounded ``answer`` once took 2,048 tokens (277 s on
the bundled model) of a one-round debate in tests/e2e/test_llama_server.py.

Teeth: drop ``max_length`` from ``ColleagueAnswer.answer`` (argue/skills/ask/consult.py) and
this test names ``ColleagueAnswer.answer``.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from pydantic import BaseModel

import argue.engine.schemas as engine_schemas
from argue.eval.arms import FreeTextAnswer, ShortAnswer
from argue.eval.judging import FactVerdict
from argue.records import prose
from argue.skills.ask import ColleagueAnswer
from argue.skills.taxonomy.classify import BridgeTags


def unbounded(model: type[BaseModel]) -> list[str]:
    """Paths of the strings without maxLength/enum/const and the arrays without maxItems."""
    schema = model.model_json_schema()
    definitions = schema.get("$defs", {})
    found: list[str] = []
    visited: set[str] = set()

    def walk(node: Any, path: str) -> None:
        if isinstance(node, list):
            for each in node:
                walk(each, path)
            return
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name not in visited:
                visited.add(name)
                walk(definitions[name], f"{path}->{name}")
            return
        kind = node.get("type")
        if kind == "string" and not {"maxLength", "enum", "const"} & node.keys():
            found.append(path)
        if kind == "array" and "maxItems" not in node:
            found.append(f"{path}[]")
        for name, value in node.get("properties", {}).items():
            walk(value, f"{path}.{name}")
        for key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties"):
            if key in node:
                walk(node[key], path)

    walk(schema, model.__name__)
    return found


def _declared_in(module: object) -> list[type[BaseModel]]:
    return [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, BaseModel) and cls.__module__ == getattr(module, "__name__", None)
    ]


STATIC = [
    ColleagueAnswer,
    BridgeTags,
    FactVerdict,
    ShortAnswer,
    FreeTextAnswer,
    *_declared_in(engine_schemas),
    *[m for m in _declared_in(prose) if m.__name__.endswith("Draft")],
]
COLLEAGUES = ("brandon", "mirela")
SKILLS = ("dogpile", "memory", "ask", "taxonomy")
PLAN = engine_schemas.research_plan_model(SKILLS, COLLEAGUES, 3, ("arxiv", "wikipedia"))
BUILT = [
    engine_schemas.rebuttal_model(COLLEAGUES),
    engine_schemas.rebuttal_model(),
    PLAN,
    engine_schemas.argument_model(("E1", "E2", "ask:brandon:0123456789")),
    engine_schemas.reflection_model(PLAN, answer=True),
    engine_schemas.reflection_model(None),
]


@pytest.mark.parametrize("model", STATIC + BUILT, ids=lambda m: m.__name__)
def test_every_string_and_list_a_model_is_asked_for_is_bounded(model: type[BaseModel]) -> None:
    assert unbounded(model) == []


def test_the_walker_finds_an_unbounded_field() -> None:
    class Loose(BaseModel):
        text: str
        items: list[int]

    assert unbounded(Loose) == ["Loose.text", "Loose.items[]"]
