"""The label catalogs and the code that names their keys (issue 42 item 6).

Code names a label by a literal key (``label("agreements", lang)``, ``{{ L.agreements }}``);
where a recorded value picks the words it names a family (``label_of("mode", mode, lang)``),
and the catalog's ``[family.mode]`` table says which values exist. These tests read argue's
source and templates and hold them to the catalogs: every key literal and present, every
family present, nothing in a catalog that nothing uses, every key and family value in every
language with the same ``{fields}``. Each check is also run once on a broken input (an f-string
key, an unused key, a missing French key) to show it fails.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import string
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest

import argue
from argue.records.labels import LANGUAGES, Labels, catalog, label, label_of, plural_form

PACKAGE = Path(argue.__file__).parent
REPO = PACKAGE.parent
TEMPLATE_DIRS = ("render/templates", "report/templates", "web/templates")
KEY_CALLS = frozenset({"label"})
FAMILY_CALLS = frozenset({"label_of", "has_label"})
# Functions that write a label key into a record, to be said later by a family: their literal
# first argument is a value of that family (engine/scoring.py's ``_part`` -> ReasonPart.key).
RECORDED_VALUES = {"_part": "reason_part"}


@dataclass
class Uses:
    """What code and templates name: keys, families, literal family values, and the places
    where a key or family is not static."""

    keys: dict[str, set[str]] = field(default_factory=dict)
    families: dict[str, set[str]] = field(default_factory=dict)
    values: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def key(self, key: str, where: str) -> None:
        self.keys.setdefault(key, set()).add(where)

    def family(self, family: str, where: str, value: str | None = None) -> None:
        self.families.setdefault(family, set()).add(where)
        if value is not None:
            self.values.setdefault((family, value), set()).add(where)


# ---------------------------------------------------------------- Python


def _assignments(scope: ast.AST, name: str) -> list[ast.expr]:
    return [
        node.value
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id == name
    ]


def _static(node: ast.expr, scope: ast.AST) -> list[str] | None:
    """The literal strings ``node`` can be (a constant, a conditional of constants, a name bound
    once in its function to one of those); None when it is computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        body, orelse = _static(node.body, scope), _static(node.orelse, scope)
        return None if body is None or orelse is None else body + orelse
    if isinstance(node, ast.Name):
        bound = _assignments(scope, node.id)
        if len(bound) == 1:
            return _static(bound[0], scope)
    return None


def _called(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _params(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[str]:
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    return names[1:] if names[:1] in (["self"], ["cls"]) else names


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    if index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args):
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)


def _scopes(tree: ast.Module) -> Iterable[tuple[ast.AST, ast.Call]]:
    """Every call with its innermost enclosing function (or the module)."""

    def visit(node: ast.AST, scope: ast.AST) -> Iterable[tuple[ast.AST, ast.Call]]:
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else scope
            if isinstance(child, ast.Call):
                yield scope, child
            yield from visit(child, inner)

    yield from visit(tree, tree)


def _module_of(name: str) -> str:
    return name.replace(".", "/") + ".py"


def _imports(tree: ast.Module) -> dict[str, str]:
    return {
        alias.asname or alias.name: _module_of(node.module)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def _forwarders(trees: Mapping[str, ast.Module]) -> dict[tuple[str, str], tuple[str, int, str]]:
    """Functions that pass one of their parameters on as a label key or a family (``say(key)``
    calling ``label(key, …)``; ``word(kind, value)`` calling ``label_of(kind, …)``; and so on,
    through any number of such functions): (module, name) for a function, ("", name) for a
    method -> (``key`` or ``family``, the parameter's index, its name). Their calls are checked
    as the label calls they make."""
    kinds = {**dict.fromkeys(KEY_CALLS, "key"), **dict.fromkeys(FAMILY_CALLS, "family")}
    found: dict[tuple[str, str], tuple[str, int, str]] = {}
    while True:
        before = len(found)
        for where, tree in trees.items():
            imported = _imports(tree)
            methods = {
                id(f)
                for c in ast.walk(tree)
                if isinstance(c, ast.ClassDef)
                for f in c.body
                if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            }
            for function in ast.walk(tree):
                if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                params = _params(function)
                for node in ast.walk(function):
                    if not isinstance(node, ast.Call):
                        continue
                    callee = _callee(node, where, imported, found)
                    if _called(node) in kinds:
                        kind, index, name = kinds[_called(node) or ""], 0, ""
                    elif callee is not None:
                        kind, index, name = found[callee]
                    else:
                        continue
                    passed = _argument(node, index, name)
                    if isinstance(passed, ast.Name) and passed.id in params:
                        owner = "" if id(function) in methods else where
                        found[(owner, function.name)] = (kind, params.index(passed.id), passed.id)
        if len(found) == before:
            return found


def _callee(
    call: ast.Call, where: str, imported: Mapping[str, str], forwarders: Mapping[Any, Any]
) -> tuple[str, str] | None:
    """The forwarder ``call`` calls: a method by its name, a function of this module or one
    imported by name."""
    if isinstance(call.func, ast.Attribute):
        return ("", call.func.attr) if ("", call.func.attr) in forwarders else None
    if isinstance(call.func, ast.Name):
        for owner in (where, imported.get(call.func.id)):
            if owner and (owner, call.func.id) in forwarders:
                return owner, call.func.id
    return None


def scan_python(root: Path, labels_module: str = "argue/records/labels.py") -> Uses:
    """The keys and families the Python modules under ``root`` name."""
    uses = Uses()
    trees = {
        str(path.relative_to(root.parent)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(root.rglob("*.py"))
    }
    forwarders = _forwarders(trees)
    for where, tree in trees.items():
        imported = _imports(tree)
        for scope, call in _scopes(tree):
            name = _called(call)
            callee = _callee(call, where, imported, forwarders)
            at = f"{where}:{call.lineno}"
            if name in RECORDED_VALUES and call.args:
                for value in _static(call.args[0], scope) or []:
                    uses.family(RECORDED_VALUES[name], at, value)
            if name in KEY_CALLS or name in FAMILY_CALLS:
                kind, index, param = ("key" if name in KEY_CALLS else "family"), 0, "key"
            elif callee is not None:
                kind, index, param = forwarders[callee]
            else:
                continue
            argument = _argument(call, index, param if callee is not None else "")
            if argument is None:
                continue
            if (
                isinstance(argument, ast.Name)
                and isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef)
                and any(f[1] == scope.name and forwarders[f][2] == argument.id for f in forwarders)
            ):
                continue  # a forwarder passing its own parameter on: its callers are checked
            names = _static(argument, scope)
            if names is None:
                if where != labels_module:
                    uses.problems.append(f"{at}: {ast.unparse(call)[:80]} names no literal {kind}")
                continue
            for literal in names:
                if kind == "key":
                    uses.key(literal, at)
                    continue
                value = None
                if name in FAMILY_CALLS and len(call.args) > 1:
                    values = _static(call.args[1], scope)
                    value = values[0] if values and len(values) == 1 else None
                uses.family(literal, at, value)
    return uses


# ---------------------------------------------------------------- templates

_LITERAL_KEY = re.compile(r'\blabel\(\s*"(\w+)"(?:\s+if\s+[^"]+?\s+else\s+"(\w+)")?\s*,')
_LITERAL_FAMILY = re.compile(r'\blabel_of\(\s*"(\w+)"\s*,\s*(?:"([^"]+)"\s*,)?')


def scan_templates(root: Path) -> Uses:
    """The keys (``L.key``, ``label("key", …)``) and families (``label_of("family", …)``) the
    Jinja templates under ``root`` name."""
    uses = Uses()
    for folder in TEMPLATE_DIRS:
        for path in sorted((root / folder).glob("*")):
            text = path.read_text(encoding="utf-8")
            where = str(path.relative_to(root.parent))
            if path.suffix == ".j2":
                for match in re.finditer(r"\bL\.(\w+)", text):
                    uses.key(match[1], where)
            for match in re.finditer(r"\blabel\(", text):
                literal = _LITERAL_KEY.match(text, match.start())
                if literal is None:
                    uses.problems.append(f"{where}: {text[match.start() :][:60]!r} no literal key")
                    continue
                for key in filter(None, literal.groups()):
                    uses.key(key, where)
            for match in re.finditer(r"\blabel_of\(", text):
                literal = _LITERAL_FAMILY.match(text, match.start())
                if literal is None:
                    uses.problems.append(f"{where}: {text[match.start() :][:60]!r} no family")
                    continue
                uses.family(literal[1], where, literal[2])
    return uses


def scan(root: Path = PACKAGE) -> Uses:
    uses = scan_python(root)
    templates = scan_templates(root)
    for key, places in templates.keys.items():
        uses.keys.setdefault(key, set()).update(places)
    for family, places in templates.families.items():
        uses.families.setdefault(family, set()).update(places)
    for value, places in templates.values.items():
        uses.values.setdefault(value, set()).update(places)
    uses.problems += templates.problems
    return uses


# ---------------------------------------------------------------- the checks


def missing(uses: Uses, words: Mapping[str, Any]) -> list[str]:
    """Keys, families and literal family values code names that the catalog lacks."""
    families = words.get("family", {})
    out = [f"label {k!r} ({min(w)})" for k, w in uses.keys.items() if k not in words]
    out += [f"family {f!r} ({min(w)})" for f, w in uses.families.items() if f not in families]
    out += [
        f"{f}.{v} ({min(w)})"
        for (f, v), w in uses.values.items()
        if f in families and v not in families[f]
    ]
    return sorted(out)


def unused(uses: Uses, words: Mapping[str, Any]) -> list[str]:
    """Catalog keys and families nothing in code or templates names."""
    out = [k for k in words if k != "family" and k not in uses.keys]
    out += [f"[family.{f}]" for f in words.get("family", {}) if f not in uses.families]
    return sorted(out)


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def _entries(words: Mapping[str, Any]) -> dict[str, Any]:
    flat = {k: v for k, v in words.items() if k != "family"}
    for family, table in words.get("family", {}).items():
        flat.update({f"{family}.{value}": entry for value, entry in table.items()})
    return flat


def mismatches(english: Mapping[str, Any], other: Mapping[str, Any], lang: str) -> list[str]:
    """Where ``other`` differs from the English catalog: a key or family value missing or extra,
    plural forms that differ, an entry whose ``{fields}`` differ, a blank entry."""
    ours, theirs = _entries(english), _entries(other)
    out = [f"{k}: missing in {lang}" for k in ours if k not in theirs]
    out += [f"{k}: only in {lang}" for k in theirs if k not in ours]
    for key in sorted(ours.keys() & theirs.keys()):
        en, xx = ours[key], theirs[key]
        en_forms = en if isinstance(en, dict) else {"": en}
        xx_forms = xx if isinstance(xx, dict) else {"": xx}
        if en_forms.keys() != xx_forms.keys() or (
            isinstance(en, dict) and en.keys() != {"one", "other"}
        ):
            out.append(f"{key}: forms {sorted(en_forms)} in en, {sorted(xx_forms)} in {lang}")
            continue
        for form, text in en_forms.items():
            if not (isinstance(text, str) and isinstance(xx_forms[form], str)):
                out.append(f"{key}: not a string")
            elif not text.strip() or not xx_forms[form].strip():
                out.append(f"{key}: blank")
            elif _fields(text) != _fields(xx_forms[form]):
                out.append(
                    f"{key}: fields {_fields(text)} in en, {_fields(xx_forms[form])} in {lang}"
                )
    return out


@pytest.fixture(scope="module")
def uses() -> Uses:
    return scan()


def test_every_label_call_names_a_literal_key_or_family(uses: Uses) -> None:
    assert uses.problems == []
    assert len(uses.keys) > 300 and len(uses.families) > 20  # the scan sees the code


def test_every_key_code_names_is_in_the_catalog(uses: Uses) -> None:
    for lang in LANGUAGES:
        assert missing(uses, catalog(lang)) == [], lang


def test_no_key_in_the_catalog_is_unused(uses: Uses) -> None:
    assert unused(uses, catalog("en")) == []


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_every_language_has_every_key_with_the_same_fields(lang: str) -> None:
    assert mismatches(catalog("en"), catalog(lang), lang) == []


# ---------------------------------------------------------------- teeth


def _module(tmp_path: Path, source: str) -> Path:
    root = tmp_path / "argue"
    (root / "records").mkdir(parents=True)
    for folder in TEMPLATE_DIRS:
        (root / folder).mkdir(parents=True)
    (root / "records" / "sample.py").write_text(source, encoding="utf-8")
    return root


def test_a_key_built_at_runtime_is_caught(tmp_path: Path) -> None:
    root = _module(
        tmp_path,
        "from argue.records.labels import label, label_of\n"
        "def f(phase, lang, families):\n"
        "    ok = label('agreements', lang) + label('a' if phase else 'b', lang)\n"
        "    key = 'synthesis_title'\n"
        "    ok += label(key, lang) + label_of('mode', phase, lang)\n"
        "    return label(f'phase_{phase}', lang) + label_of(families[0], phase, lang)\n"
        "def say(key, lang):\n"
        "    return label(key, lang)\n"
        "def g(x, lang):\n"
        "    return say('conclusion', lang) + say(x.strip(), lang)\n",
    )
    found = scan(root)
    assert set(found.keys) == {"agreements", "a", "b", "synthesis_title", "conclusion"}
    assert set(found.families) == {"mode"}
    assert len(found.problems) == 3, found.problems  # the f-string, the family, say(x)
    (root / "web/templates/page.j2").write_text(
        '{{ L.agreements }} {{ label("live_no_conclusion_" ~ why, lang) }}', encoding="utf-8"
    )
    found = scan(root)
    assert "agreements" in found.keys and len(found.problems) == 4


def test_an_unused_key_and_a_missing_one_are_caught(uses: Uses) -> None:
    words = dict(catalog("en"))
    words["never_said"] = "never said"
    assert unused(uses, words) == ["never_said"]
    del words["agreements"]
    assert missing(uses, words) == ["label 'agreements' (argue/render/templates/synthesis.md.j2)"]


def test_a_missing_french_key_or_field_is_caught() -> None:
    french = {k: v for k, v in catalog("fr").items() if k != "agreements"}
    french["family"] = {**catalog("fr")["family"], "mode": {}}
    french["score_out_of"] = "score (sur {maximum})"
    problems = mismatches(catalog("en"), french, "fr")
    assert "agreements: missing in fr" in problems
    assert "mode.panel: missing in fr" in problems
    assert any(p.startswith("score_out_of: fields") for p in problems)


# ---------------------------------------------------------------- plural, lookups


def test_plural_forms_follow_each_language() -> None:
    assert [plural_form(n, "en") for n in (0, 1, 2, "1", "3")] == [
        "other",
        "one",
        "other",
        "one",
        "other",
    ]
    assert [plural_form(n, "fr") for n in (0, 1, 1.5, 2, "0")] == [
        "one",
        "one",
        "one",
        "other",
        "one",
    ]
    assert label_of("plural", "claim", "en", n=0) == "0 claims"
    assert label_of("plural", "claim", "fr", n=0) == "0 affirmation"
    assert label_of("plural", "claim", "fr", n=2) == "2 affirmations"
    assert label("live_calls", "fr", n=1) == "1 appel au modèle"


def test_families_say_recorded_values_and_fall_back_only_when_asked() -> None:
    assert label_of("status", "completed", "fr") != label_of("status", "completed", "en")
    assert label_of("mode", "no-such-mode", "fr", default="no-such-mode") == "no-such-mode"
    with pytest.raises(KeyError):
        label_of("mode", "no-such-mode", "fr")
    with pytest.raises(KeyError):
        label("family", "en")  # the families' table is not a label
    with pytest.raises(AttributeError):
        _ = Labels("en").family


# ---------------------------------------------------------------- packaging


def _package_data() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns: list[str] = project["tool"]["setuptools"]["package-data"]["argue"]
    return patterns


def test_the_catalogs_ship_as_package_data() -> None:
    shipped = _package_data()
    for lang in LANGUAGES:
        name = f"records/catalog/{lang}.toml"
        assert any(fnmatch(name, pattern) for pattern in shipped), name


def test_the_catalogs_are_found_from_an_installed_like_import(tmp_path: Path) -> None:
    """argue's modules and only the data files pyproject ships, in a site directory of their
    own (no source tree beside them): the labels still speak both languages."""
    site = tmp_path / "site"
    shipped = _package_data()
    for path in sorted(PACKAGE.rglob("*")):
        relative = path.relative_to(PACKAGE).as_posix()
        wanted = path.suffix == ".py" or any(fnmatch(relative, p) for p in shipped)
        if path.is_file() and "__pycache__" not in relative and wanted:
            (site / "argue" / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, site / "argue" / relative)
    script = (
        "import argue.records.labels as l; "
        "print(l.__file__); print(l.label('agreements', 'fr')); print(l.label_of('mode', 'panel'))"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    where, french, english = done.stdout.splitlines()
    assert where.startswith(str(site))
    assert french == "Points d'accord" and english == label_of("mode", "panel", "en")
