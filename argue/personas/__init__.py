"""Personas: built-in and user TOML files, deterministic routing, the prompt card."""

from argue.personas.card import persona_card
from argue.personas.catalog import (
    PersonaCatalog,
    PersonaFileError,
    UnknownPersonaError,
    load_builtin_personas,
    load_catalog,
    parse_persona,
)
from argue.personas.routing import (
    NoColleagueError,
    PersonaSelection,
    route_colleague,
    select_personas,
)

__all__ = [
    "NoColleagueError",
    "PersonaCatalog",
    "PersonaFileError",
    "PersonaSelection",
    "UnknownPersonaError",
    "load_builtin_personas",
    "load_catalog",
    "parse_persona",
    "persona_card",
    "route_colleague",
    "select_personas",
]
