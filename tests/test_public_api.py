"""The public API: the names ``argue`` exports (the list below changes only on purpose, as
httpx's test of its ``__all__``), the ``Debate`` handle, sync and async, on the scripted
provider (offline), the error tree, the aliases of 0.1, and library messages free of flags.

Teeth (checked once each): a name added to argue/__init__.py's type-only block fails the list
test; ``Debate.stop`` calling nothing fails the stop test (the debate completes instead);
``arun_debate`` catching ``CancelledError`` into ``Interrupted`` fails the cancel test; a
``--budget-usd`` put back into ``ready_to_run``'s message fails the no-flags test.
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import argue
import argue.app
from argue.testing import scripted_provider

ROOT = Path(__file__).resolve().parents[1]

PUBLIC = [
    "__version__",
    "ArgueError",
    "ArgueWarning",
    "Debate",
    "DebatePlan",
    "DebateStatus",
    "DetachedRun",
    "EvalOutcome",
    "EvalRequest",
    "InterjectResult",
    "Interrupted",
    "NotFoundError",
    "OperationError",
    "Reporter",
    "RunOutcome",
    "StartRequest",
    "StatusList",
    "SynthesisResult",
    "UsageError",
    "Workspace",
    "debates",
    "evaluate",
    "merge_evals",
    "plan",
    "start",
]


def test_argue_exports_one_short_list() -> None:
    assert argue.__all__ == PUBLIC
    assert len(argue.__all__) <= 30
    for name in argue.__all__:
        assert getattr(argue, name) is not None, name
        if name != "__version__":
            assert getattr(argue, name) is getattr(argue.app, name), name
    # No CLI helper is public: exit tables, the log's name, the dry run's JSON, printers.
    for helper in ("EXIT_BY_STATUS", "RUN_LOG", "dry_run_document", "budget_note", "quiet"):
        assert helper not in argue.__all__ and helper in argue.app.__all__


def test_argue_app_writes_its_names_once_and_each_resolves() -> None:
    from argue._lazy import type_only_names

    where = type_only_names(str(ROOT / "argue" / "app" / "__init__.py"))
    assert sorted(where) == argue.app.__all__ and len(where) == len(set(where))
    for name, module in where.items():
        assert getattr(argue.app, name) is getattr(__import__(module, fromlist=[name]), name)
    text = (ROOT / "argue" / "app" / "__init__.py").read_text(encoding="utf-8")
    assert text.count('"Debate"') == 0  # no second list of names as strings


def test_a_line_of_another_shape_in_the_type_only_block_is_refused(tmp_path: Path) -> None:
    from argue._lazy import type_only_names

    module = tmp_path / "m.py"
    module.write_text(
        "if TYPE_CHECKING:\n    from a import b as b\n    from a import c, d\n", encoding="utf-8"
    )
    with pytest.raises(ImportError, match="not 'from module import name as name'"):
        type_only_names(str(module))
    module.write_text("if TYPE_CHECKING:\n    from a import b as c\n", encoding="utf-8")
    with pytest.raises(ImportError, match="a renamed import"):
        type_only_names(str(module))


def test_the_public_callables_are_typed() -> None:
    for name in argue.__all__:
        value = getattr(argue, name)
        callables = [value] if inspect.isfunction(value) else []
        if inspect.isclass(value) and name == "Debate":
            callables += [m for n, m in vars(value).items() if inspect.isfunction(m)]
        for function in callables:
            hints = inspect.get_annotations(function)
            assert "return" in hints, f"{name}.{function.__name__} has no return type"
            parameters = inspect.signature(function).parameters
            untyped = [p for p in parameters if p != "self" and p not in hints]
            assert not untyped, (function.__qualname__, untyped)
    assert inspect.iscoroutinefunction(argue.Debate.arun)
    assert inspect.iscoroutinefunction(argue.Debate.asynthesis)


def test_the_errors_form_one_tree() -> None:
    assert issubclass(argue.UsageError, argue.ArgueError)
    assert issubclass(argue.NotFoundError, argue.UsageError)
    assert issubclass(argue.OperationError, argue.ArgueError)
    assert issubclass(argue.Interrupted, argue.ArgueError)
    assert issubclass(argue.ArgueWarning, Warning)
    codes = [argue.UsageError("x"), argue.NotFoundError("x"), argue.OperationError("x")]
    assert [e.exit_code for e in codes] == [2, 2, 1]
    assert argue.Interrupted("x").exit_code == 130


@pytest.mark.parametrize("name", sorted(argue.DEPRECATED))
def test_a_documented_name_of_0_1_still_works_and_warns(name: str) -> None:
    with pytest.warns(DeprecationWarning, match=rf"argue\.{name} is deprecated; use argue\."):
        value = getattr(argue, name)
    assert value is getattr(argue.app, name)


@pytest.mark.parametrize("name", sorted(argue.REMOVED))
def test_an_undocumented_name_says_what_replaces_it(name: str) -> None:
    with pytest.raises(AttributeError, match=rf"argue\.{name} was removed from argue: use "):
        getattr(argue, name)


# ---------------------------------------------------------------- the handle, offline


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[argue.Workspace]:
    with scripted_provider():
        yield argue.Workspace(tmp_path / "debates")


def _start(workspace: argue.Workspace, rounds: int = 1, **fields: object) -> argue.Debate:
    return argue.start(
        "Is the Collatz conjecture decidable?",
        workspace,
        provider="scripted",
        sources=["none"],
        rounds=rounds,
        **fields,
    )


def test_the_handle_runs_reads_and_reopens_a_debate(workspace: argue.Workspace) -> None:
    heard: list[str] = []
    debate = _start(workspace, rounds=2, reporter=heard.append)
    assert debate.plan is not None and debate.plan.rounds == 2
    assert debate.folder.is_dir() and (debate.folder / "config.json").is_file()
    assert debate.status(full=False).round == 0  # written, not run: nothing asked yet
    outcome = debate.run()
    assert (outcome.status, outcome.rounds, outcome.exit_code) == ("completed", 2, 0)
    assert heard and not any(line.startswith("Resuming") for line in heard), heard[:3]
    assert debate.status().status == "completed"
    assert debate.transcript().startswith("# ")
    synthesis = debate.synthesis()
    assert not synthesis.written and Path(synthesis.path).is_file()  # as the run wrote it
    assert debate.report() == debate.folder / "report.html"
    again = argue.Debate(debate.id, workspace=workspace)
    assert repr(again) == f"Debate({debate.id!r})" and again.plan is None
    assert again.run().status == "completed"  # returned as it is
    assert again.stop() is False  # nothing runs it
    with pytest.raises(argue.UsageError, match="completed: no later round"):
        again.interject("Consider the 3x+1 map on 2-adic integers.")
    assert [row.id for row in argue.debates(workspace=workspace).debates] == [debate.id]


def test_a_request_and_keywords_together_are_a_usage_error(workspace: argue.Workspace) -> None:
    request = argue.StartRequest(question="Is it?")
    with pytest.raises(argue.UsageError, match=r"not both \(rounds\)"):
        argue.start(request, workspace, rounds=2)
    with pytest.raises(argue.UsageError, match="not int"):
        argue.start(42, workspace)  # type: ignore[arg-type]
    with pytest.raises(argue.UsageError, match=r"^rounds: "):
        argue.plan("Is it?", workspace, rounds=0)
    assert not workspace.root.exists() or not any(workspace.root.iterdir())


def test_stop_from_another_task_pauses_an_async_run(workspace: argue.Workspace) -> None:
    debate = _start(workspace, rounds=6)

    async def stop_once_running() -> None:
        while debate.status(full=False).status != "running":
            await asyncio.sleep(0.01)
        assert debate.stop() is True

    async def main() -> argue.RunOutcome:
        outcome, _ = await asyncio.gather(debate.arun(), stop_once_running())
        return outcome

    outcome = asyncio.run(main())
    assert outcome.status == "stopped" and outcome.exit_code == 3
    assert outcome.rounds < 6
    assert debate.run().status == "completed"  # resumed where it stopped


def test_cancelling_an_async_run_leaves_it_interrupted_and_resumable(
    workspace: argue.Workspace,
) -> None:
    debate = _start(workspace, rounds=3)

    async def main() -> None:
        task = asyncio.create_task(debate.arun())
        while debate.status(full=False).status != "running":
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert debate.status().status == "interrupted"
    resumed = debate.run()
    assert resumed.status == "completed" and resumed.rounds == 3


def test_asynthesis_rewrites_in_the_callers_loop(workspace: argue.Workspace) -> None:
    debate = _start(workspace)
    debate.run()

    async def main() -> argue.SynthesisResult:
        return await debate.asynthesis(rewrite=True)

    result = asyncio.run(main())
    assert result.written and result.report_path and Path(result.report_path).is_file()


# ---------------------------------------------------------------- no flags below the faces


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    """Every string literal of a module and the literal parts of its f-strings, docstrings
    left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            yield node.lineno, node.value


NOT_MESSAGES = {
    ("_run.py", "--debates-dir"),  # the background run's own command line: argue resume ID …
    ("_seats.py", "--persona-model"),  # a value of the dry run's JSON (model_source) since 0.1
    ("_workspace.py", "--budget-usd"),  # llm.pricing's words, replaced by the field's name
    ("_workspace.py", "--max-tokens"),
}


def test_no_library_message_names_a_flag() -> None:
    """A message of the application layer names the request's field (``budget_usd``), not
    the CLI's flag (``--budget-usd``): a Python caller and the MCP server have no flags. The
    faces add the flag where they catch the error."""
    import re

    flag = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in sorted((ROOT / "argue" / "app").glob("*.py"))
        for line, text in _strings(path)
        if flag.search(text) and (path.name, text) not in NOT_MESSAGES
    ]
    assert not found, "\n".join(found)


def test_no_warning_is_left_over_by_the_public_names() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in argue.__all__:
            getattr(argue, name)


def test_a_type_checker_sees_the_public_types(tmp_path: Path) -> None:
    """``argue.X`` is typed for mypy (the type-only imports), not ``Any`` through the lazy
    ``__getattr__``: a wrong use of a result is an error. (Teeth: the type-only block of
    argue/__init__.py made unreachable for mypy: it reveals ``Any`` and finds no error.)"""
    import importlib.util
    import subprocess
    import sys

    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it comes with the dev extra)")
    snippet = tmp_path / "use_argue.py"
    snippet.write_text(
        "import argue\n"
        "debate = argue.start('Is it?', rounds=2)\n"
        "reveal_type(debate.run())\n"
        "reveal_type(argue.Debate('x').arun())\n"
        "wrong: int = debate.status()\n",
        encoding="utf-8",
    )
    config = ["--config-file", str(ROOT / "pyproject.toml"), "--no-pretty", "--no-error-summary"]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", *config, str(snippet)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    lines = result.stdout.splitlines()
    assert any('Revealed type is "argue.app._run.RunOutcome"' in line for line in lines), lines
    assert any("Coroutine[Any, Any, argue.app._run.RunOutcome]" in line for line in lines), lines
    assert any(
        ':5: error: Incompatible types in assignment (expression has type "DebateStatus"' in line
        for line in lines
    ), lines
