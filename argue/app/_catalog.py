"""The personas (built-in and ``$ARGUE_HOME/personas/*.toml``) and the bridge taxonomy, as
the faces list and show them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from argue.app._errors import UsageError

if TYPE_CHECKING:
    from argue.domain import Persona
    from argue.personas import PersonaCatalog
    from argue.skills.taxonomy.classify import TaxonomyResult


def persona_catalog() -> PersonaCatalog:
    """Every persona; a broken persona file is a ``UsageError`` naming it."""
    from argue.personas import PersonaFileError, load_catalog

    try:
        return load_catalog()
    except PersonaFileError as error:
        raise UsageError(str(error)) from None


@dataclass(frozen=True)
class PersonaView:
    persona: Persona
    source: str  # "built-in" or the file it came from
    card: str  # the prompt card the debate uses


def persona_view(name: str) -> PersonaView:
    """One persona with where it came from and its prompt card; an unknown name is a
    ``UsageError`` that lists the known ones."""
    from argue.personas import UnknownPersonaError, persona_card

    catalog = persona_catalog()
    try:
        persona = catalog.get(name)
    except UnknownPersonaError as error:
        raise UsageError(str(error)) from None
    return PersonaView(persona, catalog.source(persona.name), persona_card(persona))


def classify(text: str) -> TaxonomyResult:
    """``text`` tagged with the six bridges (a keyword classifier, no model)."""
    from argue.skills.taxonomy import classify as keyword_classify

    if not text.strip():
        raise UsageError("nothing to classify: the text is empty")
    return keyword_classify(text)
