"""Where argue keeps its data. ``ARGUE_HOME`` overrides everything (tests use a temp dir)."""

from __future__ import annotations

import os
from pathlib import Path


class ArgueHomeError(OSError):
    """ARGUE_HOME cannot be used (a file, or not creatable)."""


def argue_home() -> Path:
    override = os.environ.get("ARGUE_HOME")
    if override:
        home = Path(override).expanduser()
    else:
        from platformdirs import user_data_dir

        home = Path(user_data_dir("argue", appauthor=False))
    try:
        home.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ArgueHomeError(f"ARGUE_HOME {home} is not a directory") from None
    except OSError as exc:
        raise ArgueHomeError(f"cannot create ARGUE_HOME {home}: {exc.strerror}") from None
    return home


def library_db_path() -> Path:
    return argue_home() / "library.sqlite3"


def memory_db_path() -> Path:
    return argue_home() / "memory.sqlite3"


def user_personas_dir() -> Path:
    return argue_home() / "personas"


def config_file_path() -> Path:
    return argue_home() / "config.toml"


def default_debates_dir() -> Path:
    """Where debates go when nothing else says: ``$ARGUE_HOME/debates``."""
    return argue_home() / "debates"


def user_templates_dir() -> Path:
    """Templates here replace the built-in ones of the same name (e.g. synthesis.md.j2)."""
    return argue_home() / "templates"
