"""Rebuild a debate's record (:class:`~argue.records.history.DebateHistory`) from its folder."""

from __future__ import annotations

from argue.domain import (
    ArgumentRecord,
    Failure,
    Persona,
    RebuttalRecord,
    ReflectionRecord,
    ResearchRecord,
    RoundScore,
)
from argue.records.history import DebateHistory
from argue.records.support import SupportRecord, apply_support
from argue.store.debate_store import DebateStore, StoreError


def load_history(store: DebateStore) -> DebateHistory:
    """Rebuild everything recorded so far from debates/<id>/."""
    config = store.config()
    paths = store.paths
    personas: dict[str, Persona] = {}
    for letter in config.personas:
        snapshot = store.load(paths.persona_snapshot(letter), Persona)
        if snapshot is None:
            from argue.personas import PersonaFileError, UnknownPersonaError, load_catalog

            try:
                snapshot = load_catalog().get(config.personas[letter])
            except (UnknownPersonaError, PersonaFileError) as exc:
                raise StoreError(f"{paths.persona_snapshot(letter)} is missing and {exc}") from None
        personas[letter] = snapshot
    history = DebateHistory(config=config, personas=personas)
    history.failures = store.load_list(paths.failures, Failure)
    history.moderator_notes = store.moderator_notes()
    for round_no in range(1, config.max_rounds + 1):
        found = False
        committed = store.has(paths.round_score(round_no))
        # A committed round must read back whole; in an uncommitted one an unreadable record
        # is treated as not written yet: its phase runs again and overwrites it.
        load = store.load if committed else store.load_if_readable
        for letter in config.personas:
            for bucket, path, model in (
                ("research", paths.research(letter, round_no), ResearchRecord),
                ("arguments", paths.argument(letter, round_no), ArgumentRecord),
                ("rebuttals", paths.rebuttal(letter, round_no), RebuttalRecord),
                ("reflections", paths.reflection(letter, round_no), ReflectionRecord),
                ("support", paths.support(letter, round_no), SupportRecord),
            ):
                record = load(path, model)
                if record is not None:
                    getattr(history.round(round_no), bucket)[letter] = record
                    found = True
        if round_no in history.rounds:
            apply_support(history.round(round_no))  # every reader sees the verdicts
        score = store.load(paths.round_score(round_no), RoundScore)
        if score is not None:
            history.round(round_no).score = score
            found = True
        if not found:
            break
    return history
