"""A mode's roles as a request takes them: ``ROLE=PERSONA`` assignments read against the mode
table (``argue.engine.modes``), and the words that list them, for a face's help.

A mode a package registers brings its roles with it: nothing here names a mode or a role.
"""

from __future__ import annotations

from collections.abc import Sequence

from argue.app._errors import UsageError
from argue.app._limits import NAME_MAX_CHARS


def role_assignments(values: Sequence[str]) -> dict[str, str]:
    """``["questioner=embry", "defender=horus"]`` -> ``{"questioner": "embry", …}``. A value
    that is not ``ROLE=PERSONA``, a role given twice, or a role that no mode in the table
    seats is a ``UsageError`` naming the field (`roles`)."""
    roles: dict[str, str] = {}
    for value in values:
        role, sep, persona = value.partition("=")
        role, persona = role.strip().lower(), persona.strip()
        if not sep or not role or not persona:
            raise UsageError(f"`roles`: {value[:NAME_MAX_CHARS]!r} is not ROLE=PERSONA")
        if role in roles and roles[role].lower() != persona.lower():
            raise UsageError(f"`roles`: {role} is given twice ({roles[role]}, {persona})")
        check_role(role)
        roles[role] = persona
    return roles


def check_role(role: str) -> None:
    """A role no mode of the table seats is a ``UsageError`` listing the roles there are."""
    from argue.engine.modes import role_fields

    if role not in role_fields():
        raise UsageError(
            f"`roles`: unknown role {role[:NAME_MAX_CHARS]!r}; the modes' roles: {roles_listing()}"
        )


def roles_listing() -> str:
    """Each mode's roles in seat order, with the modes that take them, from the table:
    ``questioner, defender (socratic); advocate (devils-advocate)``."""
    from argue.engine.modes import MODES

    parts = [
        f"{', '.join(mode.role_flags)} ({mode.name})" for mode in MODES.values() if mode.role_flags
    ]
    return "; ".join(parts) or "none"


def roles_help() -> str:
    """The help of a face's role option, read from the mode table (registered modes too)."""
    return f"ROLE=PERSONA: who takes a mode's role (repeatable): {roles_listing()}."
