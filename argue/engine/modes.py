"""Debate modes: who may take part, which side each persona argues, how it is told to play.

A mode is one entry of ``MODES``: its seating rules, its stance assignment, its role hints and
its optional pre-debate step. Everything that depends on the mode reads that entry.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from argue.domain import Mode, Persona
from argue.mode_names import BUILTIN_MODE_NAMES, add_mode_name, remove_mode_name

if TYPE_CHECKING:
    from argue.llm.base import ChatModel
    from argue.personas import PersonaCatalog

MAX_PANEL = 10


class ModeError(ValueError):
    """Wrong persona count or roles for a mode (a usage error)."""


@dataclass(frozen=True)
class PreDebateContext:
    """What a pre-debate step may use: the (metered) model, the proposition, the seated
    personas (letter → persona, in seat order) and how to write a persona's card."""

    model: ChatModel
    proposition: str
    personas: Mapping[str, Persona]
    card: Callable[[Persona], str]


@dataclass(frozen=True)
class PreDebateOutcome:
    """What a pre-debate step learned: private views (letter → text, shown to that persona
    only) and, for the devil's advocate, whether it privately holds the proposition."""

    private_views: dict[str, str] = field(default_factory=dict)
    advocate_holds: bool | None = None


@dataclass(frozen=True)
class PreDebateStep:
    """A model call made once, after framing and before round 1. A model error in ``run``
    ends the debate as failed, with ``what`` naming what could not be obtained."""

    what: str
    run: Callable[[PreDebateContext], Awaitable[PreDebateOutcome]]


StanceRule = Callable[
    [list[str], Mapping[str, Persona], Mapping[str, str], bool | None], dict[str, str]
]
"""(letters, personas, panel angles from framing, advocate_holds) → letter → stance. Code
decides sides; the model only suggests panel angles."""


@dataclass(frozen=True)
class DebateMode:
    name: Mode
    min_personas: int
    max_personas: int
    stances: StanceRule
    role_hints: tuple[str, ...]  # by seat; seats past the end take the last hint
    # Routing fills the empty seats of a partly named lineup; if False it fills only an empty
    # lineup, and a partly named one below ``min_personas`` is a usage error.
    fills_partial_lineup: bool = True
    pre_debate: PreDebateStep | None = None
    aliases: tuple[str, ...] = ()
    # The two sides hold opposite positions: settled confidences at 0.5+ are a stable
    # disagreement, not an agreement (termination words it so).
    opposed: bool = False
    # Seat flags only this mode takes (``questioner`` → ``--questioner``), in seat order.
    role_flags: tuple[str, ...] = ()

    def seats_wording(self) -> str:
        if self.min_personas == self.max_personas:
            return f"exactly {self.min_personas} personas"
        return f"{self.min_personas} or more personas"

    def role_hint(self, index: int) -> str:
        return self.role_hints[min(index, len(self.role_hints) - 1)]


def _fixed(*sides: str) -> StanceRule:
    def assign(letters, personas, angles, advocate_holds):  # one shape for every mode
        return dict(zip(letters, sides, strict=False))

    return assign


def _devils_advocate_stances(
    letters: list[str],
    personas: Mapping[str, Persona],
    angles: Mapping[str, str],
    advocate_holds: bool | None,
) -> dict[str, str]:
    advocate, other = letters[0], letters[1]
    holds = True if advocate_holds is None else advocate_holds
    advocate_side = "AGAINST" if holds else "FOR"
    other_side = "FOR" if holds else "AGAINST"
    return {
        advocate: f"{advocate_side} the proposition (devil's advocate: the side opposite "
        "to its own view)",
        other: f"{other_side} the proposition",
    }


def _panel_stances(
    letters: list[str],
    personas: Mapping[str, Persona],
    angles: Mapping[str, str],
    advocate_holds: bool | None,
) -> dict[str, str]:
    stances = {}
    for letter in letters:
        angle = angles.get(letter) or angles.get(letter.lower())
        stances[letter] = (
            f"PANELIST: {angle}"
            if angle
            else f"PANELIST: argue from your own lens ({personas[letter].lens})"
        )
    return stances


async def _advocate_private_view(context: PreDebateContext) -> PreDebateOutcome:
    """Ask the advocate (seat A) what it privately holds, so it can be given the other side."""
    from argue.engine import prompts
    from argue.engine.schemas import PrivateViewDraft

    advocate = next(iter(context.personas))
    result = await context.model.complete(
        prompts.private_view_messages(
            context.card(context.personas[advocate]), context.proposition
        ),
        output=PrivateViewDraft,
        purpose=f"{advocate}/private-view",
    )
    value: PrivateViewDraft = result.parsed()
    return PreDebateOutcome({advocate: value.view}, value.holds_proposition)


_ARGUE_YOUR_SIDE = "Argue your side with evidence."

MODES: dict[str, DebateMode] = {
    mode.name: mode
    for mode in (
        DebateMode(
            name="adversarial",
            min_personas=2,
            max_personas=2,
            stances=_fixed("FOR the proposition", "AGAINST the proposition"),
            role_hints=(_ARGUE_YOUR_SIDE,),
            opposed=True,
        ),
        DebateMode(
            name="panel",
            min_personas=3,
            max_personas=MAX_PANEL,
            stances=_panel_stances,
            role_hints=("Argue your angle and engage with the other panelists' claims by id.",),
            fills_partial_lineup=False,
        ),
        DebateMode(
            name="socratic",
            min_personas=2,
            max_personas=2,
            stances=_fixed(
                "QUESTIONER: probes the proposition and the defender's claims",
                "DEFENDER: defends the proposition",
            ),
            role_hints=(
                "As the questioner, make each claim a pointed question or challenge that tests "
                "the proposition or the defender's earlier claims and exposes hidden assumptions "
                "or weak evidence; cite evidence where it helps.",
                "As the defender, answer the questioner's challenges and defend the proposition.",
            ),
            role_flags=("questioner", "defender"),
        ),
        DebateMode(
            name="devils-advocate",
            min_personas=2,
            max_personas=2,
            stances=_devils_advocate_stances,
            role_hints=(
                "You are the devil's advocate: your assigned side is the opposite of the view "
                "you privately hold. Argue it as strongly as honesty allows.",
                _ARGUE_YOUR_SIDE,
            ),
            pre_debate=PreDebateStep("the advocate's private view", _advocate_private_view),
            aliases=("devil", "devils", "devil-advocate", "devil's-advocate"),
            opposed=True,
            role_flags=("advocate",),
        ),
    )
}
"""Every debate mode, by name: the four built in, then any :func:`register_mode` adds."""


_BUILTIN_MODES = frozenset(MODES)
if tuple(MODES) != BUILTIN_MODE_NAMES:  # the ground's list of names is this table's
    raise ImportError(f"argue.mode_names lists {BUILTIN_MODE_NAMES}, the table {tuple(MODES)}")


def register_mode(mode: DebateMode) -> DebateMode:
    """Add ``mode`` to :data:`MODES`: its name and aliases must be new. Everything that
    depends on a mode (seating, stances, role hints and role fields, the pre-debate step,
    help texts) reads its entry, so a mode is one object and this one call."""
    taken = {name for m in MODES.values() for name in (m.name, *m.aliases)}
    clash = sorted(taken & {mode.name, *mode.aliases})
    if clash:
        raise ValueError(f"mode name already taken: {', '.join(clash)}")
    if not 1 <= mode.min_personas <= mode.max_personas <= MAX_PANEL:
        raise ValueError(f"mode {mode.name!r}: persona counts must be 1 ≤ min ≤ max ≤ {MAX_PANEL}")
    if not mode.role_hints:
        raise ValueError(f"mode {mode.name!r} needs at least one role hint")
    MODES[mode.name] = mode
    add_mode_name(mode.name)
    return mode


def unregister_mode(name: str) -> None:
    """Remove a mode :func:`register_mode` added (tests; a built-in mode stays)."""
    if name in _BUILTIN_MODES:
        raise ValueError(f"{name!r} is a built-in mode")
    MODES.pop(name, None)
    remove_mode_name(name)


def role_fields() -> tuple[str, ...]:
    """Every role field a mode's seating takes (``questioner``, ``defender``, ``advocate``…),
    in the order the modes list them."""
    return tuple(dict.fromkeys(flag for mode in MODES.values() for flag in mode.role_flags))


def modes_help() -> str:
    """The modes in one line, the default first: ``adversarial (default) | panel | …``."""
    return " | ".join(f"{name} (default)" if name == "adversarial" else name for name in MODES)


def modes_taking(flag: str) -> list[str]:
    """The modes whose seating takes the role flag ``flag`` (``questioner``, ``advocate``…)."""
    return [mode.name for mode in MODES.values() if flag in mode.role_flags]


def mode_named(name: str) -> DebateMode:
    try:
        return MODES[name]
    except KeyError:
        raise ModeError(f"unknown mode {name!r}; choose one of: {', '.join(MODES)}") from None


def resolve_mode_name(text: str) -> Mode | None:
    """A user's spelling of a mode (any case, ``_`` for ``-``, an alias) → its name, or None."""
    normalised = text.strip().lower().replace("_", "-")
    for mode in MODES.values():
        if normalised == mode.name or normalised in mode.aliases:
            return mode.name
    return None


def validate_lineup(mode: Mode, names: list[str]) -> None:
    if len(set(names)) != len(names):
        raise ModeError(f"a persona cannot debate itself: {', '.join(names)}")
    _check_count(mode_named(mode), len(names))


def _check_count(spec: DebateMode, count: int) -> None:
    if count < spec.min_personas or (
        count > spec.max_personas and spec.min_personas == spec.max_personas
    ):
        raise ModeError(f"{spec.name} mode needs {spec.seats_wording()}, got {count}")
    if count > spec.max_personas:
        raise ModeError(f"a {spec.name} seats at most {spec.max_personas} personas, got {count}")


def stances_for(
    mode: Mode,
    letters: list[str],
    personas: Mapping[str, Persona],
    angles: Mapping[str, str],
    advocate_holds: bool | None = None,
) -> dict[str, str]:
    """Assign each letter its side. Code decides sides; the model only suggests panel angles."""
    return mode_named(mode).stances(letters, personas, angles, advocate_holds)


def role_hint(mode: Mode, index: int) -> str:
    return mode_named(mode).role_hint(index)


@dataclass(frozen=True)
class Lineup:
    personas: list[Persona]
    reason: str | None = None  # why routing chose the seats it filled; None if all were named


def seat_lineup(
    mode: Mode, named: list[str], question: str, catalog: PersonaCatalog, lang: str = "en"
) -> Lineup:
    """Seat the named personas (A, B, …) and fill empty seats by deterministic keyword routing.

    Unknown names raise the catalog's UnknownPersonaError; a wrong count raises ModeError.
    The reason is said in ``lang`` (the debate's language).
    """
    from argue.personas import select_personas

    chosen = [catalog.get(name) for name in named]
    names = [p.name for p in chosen]
    if len(set(names)) != len(names):
        raise ModeError(f"a persona cannot debate itself: {', '.join(names)}")
    spec = mode_named(mode)
    if len(chosen) > spec.max_personas or (chosen and not spec.fills_partial_lineup):
        _check_count(spec, len(chosen))
    needed = spec.min_personas
    if len(chosen) >= needed:
        return Lineup(chosen)
    # The fewest routed personas that fill the empty seats once the named ones are left out:
    # the reason then speaks of the seated personas only (never of a colleague left standing).
    missing = needed - len(chosen)
    count = missing
    while True:
        selection = select_personas(question, catalog, count=count, lang=lang)
        filled = [p for p in selection.personas if p.name not in set(names)][:missing]
        if len(filled) == missing or count >= len(catalog.names()):
            break
        count += 1
    seats = ", ".join(f"{'ABCDEFGHIJ'[len(chosen) + i]}={p.name}" for i, p in enumerate(filled))
    return Lineup(chosen + filled, f"{seats} ({selection.reason})")
