"""Names a package loads on first use, written once: as the imports a type checker reads.

A package lists its names in an ``if TYPE_CHECKING:`` block, one ``from module import name as
name`` statement a line (what mypy and an editor see, with their types). ``type_only_names``
reads the same lines so that at run time the package's ``__getattr__`` imports a name's module
the first time the name is asked for, and ``__all__`` is that block's names (the way
scientific-python's ``lazy_loader.attach_stub`` reads a ``.pyi`` stub). So ``import argue`` and
``import argue.app`` cost nothing: the CLI's ``--help`` loads neither pydantic nor the engine.
The lines are read as text (no ``ast``: it would double the cost of ``import argue``); a line
of another shape in the block is an error, which the test of the public API runs into first.
"""

from __future__ import annotations

from pathlib import Path

BLOCK = "if TYPE_CHECKING:"


def type_only_names(path: str) -> dict[str, str]:
    """Each name the ``if TYPE_CHECKING:`` block of the module at ``path`` imports -> the
    module it comes from, in the order written."""
    found: dict[str, str] = {}
    inside = False
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line == BLOCK:
            inside = True
            continue
        if not inside or not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith("    "):
            break  # the block ended
        words = line.split()
        if len(words) != 6 or words[0] != "from" or words[2] != "import" or words[4] != "as":
            raise ImportError(f"{path}: not 'from module import name as name': {line.strip()}")
        if words[3] != words[5]:
            raise ImportError(f"{path}: a renamed import: {line.strip()}")
        found[words[3]] = words[1]
    return found
