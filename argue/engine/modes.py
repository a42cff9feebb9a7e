"""Debate modes: who may take part, which side each persona argues, how it is told to play."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from argue.domain import Mode, Persona

if TYPE_CHECKING:
    from argue.personas import PersonaCatalog

MAX_PANEL = 10


class ModeError(ValueError):
    """Wrong persona count or roles for a mode (a usage error)."""


def validate_lineup(mode: Mode, names: list[str]) -> None:
    if len(set(names)) != len(names):
        raise ModeError(f"a persona cannot debate itself: {', '.join(names)}")
    if mode == "panel":
        if len(names) < 3:
            raise ModeError(f"panel mode needs 3 or more personas, got {len(names)}")
        if len(names) > MAX_PANEL:
            raise ModeError(f"a panel seats at most {MAX_PANEL} personas, got {len(names)}")
    elif len(names) != 2:
        raise ModeError(f"{mode} mode needs exactly 2 personas, got {len(names)}")


def stances_for(
    mode: Mode,
    letters: list[str],
    personas: dict[str, Persona],
    angles: dict[str, str],
    advocate_holds: bool | None = None,
) -> dict[str, str]:
    """Assign each letter its side. Code decides sides; the model only suggests panel angles."""
    if mode == "adversarial":
        return {letters[0]: "FOR the proposition", letters[1]: "AGAINST the proposition"}
    if mode == "socratic":
        return {
            letters[0]: "QUESTIONER: probes the proposition and the defender's claims",
            letters[1]: "DEFENDER: defends the proposition",
        }
    if mode == "devils-advocate":
        advocate, other = letters[0], letters[1]
        if advocate_holds is None:
            advocate_holds = True
        advocate_side = "AGAINST" if advocate_holds else "FOR"
        other_side = "FOR" if advocate_holds else "AGAINST"
        return {
            advocate: f"{advocate_side} the proposition (devil's advocate: the side opposite "
            "to its own view)",
            other: f"{other_side} the proposition",
        }
    stances = {}
    for letter in letters:
        angle = angles.get(letter) or angles.get(letter.lower())
        stances[letter] = (
            f"PANELIST: {angle}"
            if angle
            else f"PANELIST: argue from your own lens ({personas[letter].lens})"
        )
    return stances


def role_hint(mode: Mode, index: int) -> str:
    if mode == "socratic":
        if index == 0:
            return (
                "As the questioner, make each claim a pointed question or challenge that tests "
                "the proposition or the defender's earlier claims and exposes hidden assumptions "
                "or weak evidence; cite evidence where it helps."
            )
        return "As the defender, answer the questioner's challenges and defend the proposition."
    if mode == "devils-advocate" and index == 0:
        return (
            "You are the devil's advocate: your assigned side is the opposite of the view you "
            "privately hold. Argue it as strongly as honesty allows."
        )
    if mode == "panel":
        return "Argue your angle and engage with the other panelists' claims by id."
    return "Argue your side with evidence."


@dataclass(frozen=True)
class Lineup:
    personas: list[Persona]
    reason: str | None = None  # why routing chose the seats it filled; None if all were named


def seat_lineup(mode: Mode, named: list[str], question: str, catalog: PersonaCatalog) -> Lineup:
    """Seat the named personas (A, B, …) and fill empty seats by deterministic keyword routing.

    Unknown names raise the catalog's UnknownPersonaError; a wrong count raises ModeError.
    """
    from argue.personas import select_personas

    chosen = [catalog.get(name) for name in named]
    names = [p.name for p in chosen]
    if len(set(names)) != len(names):
        raise ModeError(f"a persona cannot debate itself: {', '.join(names)}")
    needed = 3 if mode == "panel" else 2
    if mode == "panel" and chosen and len(chosen) < needed:
        raise ModeError(f"panel mode needs 3 or more personas, got {len(chosen)}")
    if mode != "panel" and len(chosen) > 2:
        raise ModeError(f"{mode} mode needs exactly 2 personas, got {len(chosen)}")
    if len(chosen) > MAX_PANEL:
        raise ModeError(f"a panel seats at most {MAX_PANEL} personas, got {len(chosen)}")
    if len(chosen) >= needed:
        return Lineup(chosen)
    selection = select_personas(question, catalog, count=min(len(catalog.names()), needed + 2))
    filled = [p for p in selection.personas if p.name not in set(names)][: needed - len(chosen)]
    seats = ", ".join(f"{'ABCDEFGHIJ'[len(chosen) + i]}={p.name}" for i, p in enumerate(filled))
    return Lineup(chosen + filled, f"{seats} ({selection.reason})")
