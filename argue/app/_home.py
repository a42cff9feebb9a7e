"""What argue remembers in ``$ARGUE_HOME`` between runs for the faces' sake."""

from __future__ import annotations


def first_time(marker: str) -> bool:
    """True the first time in this ``ARGUE_HOME`` (a small file named ``marker`` remembers
    it): a warning about the usual set-up is said once, not on every run. A home that cannot
    be written says it every time."""
    from argue.paths import ArgueHomeError, argue_home
    from argue.store import write_text_atomic

    try:
        path = argue_home() / marker
        if path.exists():
            return False
        write_text_atomic(path, "shown once; delete this file to see it again\n")
    except (ArgueHomeError, OSError):
        pass
    return True
