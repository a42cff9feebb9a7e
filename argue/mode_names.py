"""The names of the debate modes, at the ground: config.toml's ``[defaults] mode`` is checked
against them without loading the engine. The modes themselves (seating, stances, role hints)
are ``argue.engine.modes.MODES``; ``register_mode`` adds a mode's name here too, and the
engine checks at import that its built-in modes are these."""

from __future__ import annotations

BUILTIN_MODE_NAMES: tuple[str, ...] = ("adversarial", "panel", "socratic", "devils-advocate")
_registered: list[str] = []


def mode_names() -> tuple[str, ...]:
    """Every mode's name: the built-in ones, then those a package registered."""
    return (*BUILTIN_MODE_NAMES, *_registered)


def add_mode_name(name: str) -> None:
    if name not in mode_names():
        _registered.append(name)


def remove_mode_name(name: str) -> None:
    if name in _registered:
        _registered.remove(name)
