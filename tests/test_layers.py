"""Layers point one way: records below engine, store and render; render reads records only."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("module", "forbidden"),
    [
        ("argue.render", "argue.engine"),
        ("argue.records", "argue.engine"),
        ("argue.records", "argue.store"),
        ("argue.records", "argue.render"),
        ("argue.store", "argue.engine"),
        ("argue.grounding", "skills"),
    ],
)
def test_a_lower_layer_imports_nothing_from_a_higher_one(module: str, forbidden: str) -> None:
    code = (
        f"import sys, {module}; "
        f"bad = sorted(m for m in sys.modules if m == {forbidden!r} "
        f"or m.startswith({forbidden!r} + '.')); print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imports {out.stdout.strip()}"


# ---------------------------------------------------------------- nothing below the faces

import ast  # noqa: E402
import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402

ARGUE = Path(__file__).resolve().parent.parent / "argue"
FACES = ("argue.commands", "argue.mcp", "argue.web", "argue.cli")
BELOW_THE_FACES = (
    "argue.engine",
    "argue.llm",
    "argue.store",
    "argue.records",
    "argue.render",
    "argue.report",
    "argue.skills",
    "argue.grounding",
    "argue.eval",
    "argue.personas",
    "argue.config",
    "argue.app",
)


def _is_face(name: str) -> bool:
    return any(name == face or name.startswith(face + ".") for face in (*FACES, "argue.__main__"))


@pytest.mark.parametrize("module", BELOW_THE_FACES)
def test_importing_a_layer_below_the_faces_loads_no_face(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} does not exist yet")
    faces = ", ".join(repr(f) for f in FACES)
    code = (
        f"import sys, {module}; "
        f"bad = sorted(m for m in sys.modules if any(m == f or m.startswith(f + '.') "
        f"for f in ({faces},))); print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} loads {out.stdout.strip()}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ARGUE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import that runs, top-level or deferred into a function; not ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit_node(other)
                continue
            visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        visit(node)

    visit(tree)
    return found


def _lazy_or_runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """A module with a module-level ``__getattr__`` (``argue``, ``argue.app``) loads on first
    use what its ``if TYPE_CHECKING:`` block names: those imports are its edges too."""
    lazy = any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
    if not lazy:
        return _runtime_imports(tree)
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def _all_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import, run-time, deferred and type-only (``if TYPE_CHECKING:``) alike."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def _import_graph(*, every_import: bool = False, faces: bool = False) -> dict[str, set[str]]:
    """Module → the argue modules its imports run (a package's ``__init__`` counts when the
    import enters it from outside), faces left out. ``every_import``: type-only imports too
    (``if TYPE_CHECKING:`` anywhere); ``faces``: the faces' modules too."""
    paths = {_module_name(p): p for p in ARGUE.rglob("*.py")}

    def known(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        if _is_face(module) and not faces:
            continue
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _all_imports(tree) if every_import else _lazy_or_runtime_imports(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                names = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in paths else base for a in node.names
                ]
                # ``from argue import __version__`` inside argue.skills…: a name read from the
                # root package runs its lazy ``__getattr__`` (which loads the application
                # layer), so it is an edge even though every module sits inside the root.
                if (
                    base == "argue"
                    and module != base
                    and any(f"{base}.{a.name}" not in paths for a in node.names)
                ):
                    targets.add(base)
            for name in names:
                target = known(name)
                if target is None:
                    continue
                parts = target.split(".")
                for i in range(1, len(parts) + 1):
                    entered = ".".join(parts[:i])
                    inside = module == entered or module.startswith(entered + ".")
                    if entered in paths and not inside:
                        targets.add(entered)
        graph[module] = targets
    return graph


def test_no_module_below_the_faces_imports_one() -> None:
    """An ast scan of every module outside commands/, mcp/ and cli.py, deferred imports included.

    Teeth: a deferred ``from argue.commands._debate import die`` put into argue/eval/budget.py
    fails here (the import-time test above does not see it)."""
    graph = _import_graph()
    paths = {_module_name(p) for p in ARGUE.rglob("*.py")}
    bad = []
    for module in graph:
        path = next(p for p in ARGUE.rglob("*.py") if _module_name(p) == module)
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            bad += [f"{module}: {n}" for n in names if _is_face(n) and n in paths | set(FACES)]
    assert not bad, bad


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in graph:
                continue
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_import_graph_below_the_faces_has_no_cycle() -> None:
    """No import cycle among argue's modules (faces excluded), deferred imports included: the
    untangled ones (engine.prompts ↔ engine.phases, domain ↔ records) stay gone.

    Teeth: ``from argue.engine.phases import PersonaSeat`` deferred inside a function of
    argue/engine/prompts.py, or ``from argue.records.history import DebateHistory`` put back
    into argue/records/__init__.py, fails here."""
    assert _cycles(_import_graph()) == []


def test_no_module_cycle_counting_type_only_imports_faces_included() -> None:
    """Not even a type-only circle between two modules (``if TYPE_CHECKING:`` imports count):
    ``engine.skill_registry`` ↔ ``engine.toolkit`` (``ResearchRequest`` now lives with the
    skills' contract), ``llm._spec`` ↔ ``llm.probe`` (the report types in ``llm._probe_report``),
    ``llm._adapter`` ↔ ``llm._batch_route`` and ``records.history`` ↔ ``records.support`` (a
    Protocol names the round by shape) were the last four.

    Teeth: ``from argue.records.history import RoundRecord`` under ``if TYPE_CHECKING:`` in
    argue/records/support.py fails here (and nowhere else)."""
    assert _cycles(_import_graph(every_import=True, faces=True)) == []


def _package(module: str) -> str:
    """The part of argue a module belongs to: ``argue.store`` for ``argue.store.layout``,
    ``argue.domain`` for itself, ``argue`` for the root package."""
    return ".".join(module.split(".")[:2])


def test_no_cycle_between_argue_s_packages_deferred_and_type_only_imports_included() -> None:
    """Between argue's packages (``argue.X`` ↔ ``argue.Y``, faces included) no import cycle,
    counting every import wherever it sits: top-level, deferred into a function, type-only
    (``if TYPE_CHECKING:``), the lazy packages' tables, a package's ``__init__`` entered from
    outside, and a name read from the root package's lazy ``__getattr__``. Deferred imports
    for start-up speed are fine inside that rule; a cycle means code sits in the wrong place.
    Before issue 42 item 4 there were three: domain ↔ records (``Failure.sentence``),
    domain → records → grounding → domain, and personas ↔ store (``store._bounded``).

    Teeth: ``from argue.records.reasons import failure_sentence`` deferred into a method of
    argue/domain.py, or ``from argue.store import StoreError`` type-only in
    argue/personas/catalog.py, fails here."""
    graph = _import_graph(every_import=True, faces=True)
    packages: dict[str, set[str]] = {}
    why: dict[tuple[str, str], str] = {}
    for module, targets in graph.items():
        edges = packages.setdefault(_package(module), set())
        for target in targets:
            if _package(target) != _package(module):
                edges.add(_package(target))
                why.setdefault((_package(module), _package(target)), f"{module} → {target}")
    cycles = _cycles(packages)
    shown = [
        [why[(a, b)] for a in cycle for b in sorted(packages[a] & set(cycle))] for cycle in cycles
    ]
    assert cycles == [], shown


def _imported_modules(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The dotted names an import statement loads: ``a.b`` for ``import a.b``, ``a.b`` and
    ``a.b.c`` for ``from a.b import c`` (relative imports made absolute)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        base = ".".join([*up, *([node.module] if node.module else [])])
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def _private_owner(name: str) -> str | None:
    """The package a private module belongs to (``argue.store`` for ``argue.store._safe``), or
    None when no part of ``name`` is private (``_x``, not ``__x__``)."""
    parts = name.split(".")
    for index, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:index])
    return None


# Private modules imported from outside their package, each for a reason, in modules this
# sweep (issue 42 item 4) does not own: each should go once its package exports the names.
_PRIVATE_IMPORTS_ALLOWED = {
    # argue.llm does not export its batch client yet (owned by the eval/batch work)
    ("argue.app._eval", "argue.llm._batch"),
    ("argue.app._eval", "argue.llm._batch_engines"),
    ("argue.app._eval", "argue.llm._resolve"),
    ("argue.eval.batching", "argue.llm._batch"),
    # one face, two folders: `argue serve` (commands/serve.py) builds the web face's server
    ("argue.commands.serve", "argue.web._server"),
    # the dogpile skill re-exports its sources' failure word (a sub-package's private module)
    ("argue.skills.dogpile", "argue.skills.dogpile.sources._http"),
    # argue.testing ships the scripted provider whose replies argue.llm keeps private
    ("argue.testing", "argue.llm._scripted"),
    ("argue.testing._script", "argue.llm._scripted"),
}


def test_no_module_imports_another_package_s_private_module() -> None:
    """A private module (``_name``) is its package's business: only modules inside that
    package import it (its ``__init__`` re-exporting from it included); every other package
    uses the public name. Every import counts, deferred and type-only alike; the few left are
    listed above with their reason, and a new one fails.

    Teeth: a deferred ``from argue.llm._retry import RetryPolicy`` in
    argue/personas/routing.py, or a type-only ``from argue.app._live import LiveDebate`` in
    argue/eval/report.py, fails here (a private *name* such as ``_LABELS`` is not a module)."""
    paths = {_module_name(p): p for p in ARGUE.rglob("*.py")}
    found = set()
    for module, path in paths.items():
        for node in _all_imports(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _imported_modules(module, path, node):
                if name not in paths:
                    continue  # a name inside a module, not a module
                owner = _private_owner(name)
                if owner is None or module == owner or module.startswith(owner + "."):
                    continue
                found.add((module, name))
    assert sorted(found - _PRIVATE_IMPORTS_ALLOWED) == []


def test_the_file_io_module_is_ground_and_loads_no_model() -> None:
    """argue.files is what every layer reads and writes files through (the store, personas,
    settings, eval, the dialect memory): it imports nothing else of argue, and no pydantic, so
    the settings read config.toml at start-up without loading a model.

    Teeth: ``from pydantic import BaseModel`` back at the top of argue/files.py (for
    ``to_jsonable``), or ``from argue.store import StoreError`` in it, fails here."""
    code = (  # what the root package loads itself (argue._lazy, argue._version) left out
        "import sys, argue; before = set(sys.modules); import argue.files; "
        "print(','.join(sorted(m for m in set(sys.modules) - before "
        "if m.startswith(('argue.', 'pydantic')) and m != 'argue.files')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"argue.files loads {out.stdout.strip()}"


def test_config_loads_nothing_above_the_ground() -> None:
    code = (
        "import sys, argue.config; "
        "print(','.join(sorted(m for m in sys.modules if m.startswith(('argue.llm', "
        "'argue.skills', 'argue.engine')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"argue.config loads {out.stdout.strip()}"


# What only the faces may use: the CLI framework, and the consoles and die() that print.
_FACE_TOOLS = ("typer", "click")
_FACE_NAMES = {"die", "stdout_console", "stderr_console", "echo"}


def test_nothing_below_the_faces_knows_typer_or_prints_on_the_consoles() -> None:
    """The application layer and everything under it neither exits through typer nor prints
    on argue's consoles: they return records and raise ``ArgueError``; the faces print.

    Teeth: ``print_report`` left in argue/eval/report.py (it printed on ``stdout_console``)
    fails here, as does a ``from argue.console import die`` in argue/app/_debates.py."""
    bad = []
    for path in sorted(ARGUE.rglob("*.py")):
        module = _module_name(path)
        if _is_face(module) or module in ("argue.console", "argue.__main__"):
            continue
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                bad += [f"{module}: {a.name}" for a in node.names if a.name in _FACE_TOOLS]
            elif node.module in _FACE_TOOLS or (node.module or "").split(".")[0] in _FACE_TOOLS:
                bad.append(f"{module}: {node.module}")
            elif node.module == "argue.console":
                bad += [f"{module}: {a.name}" for a in node.names if a.name in _FACE_NAMES]
    assert not bad, bad


# ---------------------------------------------------------------- the faces' one door

# What a face (the CLI, the MCP server, the live server) may import from argue: the
# application layer's public names, what prints (the consoles, the labels and terminal words,
# the character policy), the package's version, and the other faces.
_FACE_DOOR = (
    "argue.app",
    "argue.console",
    "argue.records.labels",
    "argue.records.terminal",
    "argue.text",
)


def _face_import_is_allowed(name: str) -> bool:
    if _is_face(name) or name in ("argue", "argue._version"):
        return True
    if not name.startswith("argue."):
        return True  # not argue's
    if name.startswith("argue.app._"):
        return False  # the door is argue.app itself, not its private modules
    return any(name == door or name.startswith(door + ".") for door in _FACE_DOOR)


def test_the_faces_reach_argue_only_through_the_application_layer() -> None:
    """commands/, mcp/, web/ and cli.py import argue.app (and what prints), never the layers
    under it, type-only imports included: the work is the application layer's, a face parses,
    calls and prints.

    Teeth: ``from argue.store import StoreError`` in argue/commands/watch.py, a type-only
    ``from argue.llm import ChatModel`` in argue/commands/plan.py, or
    ``from argue.app._live import LiveDebate`` in argue/web/_pages.py fails here."""
    bad = []
    for path in sorted(ARGUE.rglob("*.py")):
        module = _module_name(path)
        if not _is_face(module):
            continue
        for node in _all_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif node.level:
                continue  # relative: inside the face's own package
            elif node.module == "argue":
                names = [f"argue.{alias.name}" for alias in node.names if alias.name != "app"]
                names = [n for n in names if n != "argue.__version__"]
            else:
                names = [node.module or ""]
            bad += [f"{module}: {name}" for name in names if not _face_import_is_allowed(name)]
    assert not bad, bad
