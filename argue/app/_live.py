"""Read-only views of a debate as it stands, for a live page (``argue serve``).

The same records ``status`` and ``watch`` read (config.json, state.json, each persona's records,
failures.json, usage.jsonl), gathered into typed snapshots. Nothing here writes into the debate
folder or takes its lock: the runner may be writing while a snapshot is read, and a record
being replaced counts as not written yet.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from argue.app._debates import DebateStatus, debate_status
from argue.app._errors import OperationError
from argue.app._workspace import Workspace

if TYPE_CHECKING:
    from argue.domain import DebateConfig, DebateState
    from argue.records.history import DebateHistory
    from argue.store import DebateStore

Tone = Literal["running", "ok", "paused", "bad"]
"""How a status reads at a glance: under way, finished well, resumable, failed or cut short."""
_TONE: dict[str, Tone] = {
    "running": "running",
    "completed": "ok",
    "stopped": "paused",
    "budget_exhausted": "paused",
    "interrupted": "paused",
    "failed": "bad",
}


class LiveRow(BaseModel):
    """One debate as the index lists it: its ``status`` row (usage included) and the phase."""

    status: DebateStatus
    phase: str = Field(description="state.json's phase: framing, research, …, synthesis")
    phase_words: str = Field(description="the phase in the debate's language")
    tone: Tone


class LiveClaim(BaseModel):
    id: str
    text: str
    evidence_state: str = Field(description="quoted, quote_not_found, unverified or uncited")
    refusal: bool = False
    contradicted_by: list[str] = Field(
        default_factory=list,
        description="evidence ids whose quoted sentence the support check found to contradict "
        "the claim",
    )


class LiveTurn(BaseModel):
    """What one persona published in one round, as far as it got."""

    round: int
    position: str | None = Field(default=None, description="None: no argument on disk yet")
    claims: list[LiveClaim] = Field(default_factory=list)
    rebuttal: str | None = Field(default=None, description="the rebuttal in one line, if any")
    confidence: float | None = Field(default=None, description="after the round's reflection")


class LivePersona(BaseModel):
    letter: str
    name: str
    turns: list[LiveTurn] = Field(default_factory=list)


class LiveArgument(BaseModel):
    """One of a side's strongest arguments: an evidence-backed claim (model text: data)."""

    claim_id: str
    name: str = Field(description="the persona who made it")
    text: str
    evidence_ids: list[str] = Field(description="the documents whose sentence supports it")


class LiveSide(BaseModel):
    """One side (or one panelist) and its strongest arguments, as the report ranks them."""

    side_words: str = Field(description="'For the proposition'; '' for a panelist")
    names: list[str]
    arguments: list[LiveArgument] = Field(
        default_factory=list, description="none: no claim of this side can rank"
    )


class LiveEnding(BaseModel):
    """What the page ends with once the debate is not running: the answer, not only the state.

    The same records the report and ``argue run`` end with: the synthesis prose's conclusion
    and the strongest arguments of each side (``argue.records.strongest``)."""

    conclusion: str | None = Field(
        default=None, description="the synthesis's conclusion (model text), when there is one"
    )
    no_conclusion: Literal["missing", "declined", "unreadable"] | None = Field(
        default=None,
        description="why there is no conclusion: no synthesis prose on disk, the model "
        "declining to write it, or a record that cannot be read",
    )
    panel: bool = Field(description="each participant is its own side")
    sides: list[LiveSide] = Field(default_factory=list)
    per_side: int = Field(description="the most arguments shown per side")
    synthesize_command: str = Field(description="how to write the synthesis, when it is missing")


class LiveDebate(BaseModel):
    """One debate's live view: where it stands, what each persona published, what failed."""

    row: LiveRow
    running: bool
    personas: list[LivePersona]
    scores: list[str] = Field(description="one 'Round n scored: …' line per committed round")
    failures: list[str] = Field(description="each failure in the fixed vocabulary, one line")
    notes: list[str] = Field(description="moderator notes the rounds have taken in")
    termination: str | None = Field(
        default=None,
        description="the termination line once the debate is not running, in the debate's "
        "language (status, reason and detail in words; how to resume when it can be)",
    )
    ending: LiveEnding | None = Field(
        default=None, description="the conclusion and strongest arguments, once not running"
    )
    report_ready: bool = Field(description="enough on disk for the report to show something")


def phase_words(phase: str, lang: str) -> str:
    from argue.records.labels import label_of

    return label_of("w_phase", phase, lang, default=phase)


def _row(store: DebateStore) -> LiveRow:
    row = debate_status(store, full=True)
    phase = store.state().phase
    return LiveRow(
        status=row,
        phase=phase,
        phase_words=phase_words(phase, row.language),
        tone=_TONE.get(row.status, "bad"),
    )


def live_row(debate_id: str, *, workspace: Workspace | None = None) -> LiveRow:
    """The index's row for ``debate_id`` (NotFoundError when there is no such debate)."""
    from argue.store import StoreError

    store = (workspace or Workspace()).open(debate_id)
    try:
        return _row(store)
    except StoreError as exc:
        raise OperationError(str(exc)) from None


def debate_ids(*, workspace: Workspace | None = None) -> list[str]:
    """The debates in the folder, by id (the folders ``status`` would list)."""
    from argue.store import iter_debates

    return [store.debate_id for store in iter_debates((workspace or Workspace()).root)]


def live_debate(
    debate_id: str, *, workspace: Workspace | None = None, command: str = "argue"
) -> LiveDebate:
    """Everything the live page shows about ``debate_id``, read from its folder now.

    ``command``: how the user runs argue, for the resume hint of the termination line."""
    from argue.engine import load_history
    from argue.records.reasons import failure_sentence
    from argue.store import StoreError

    store = (workspace or Workspace()).open(debate_id)
    try:
        row = _row(store)
        history = load_history(store)
        state = store.state()
    except StoreError as exc:
        raise OperationError(str(exc)) from None
    if row.status.status != state.status:
        state = state.model_copy(update={"status": row.status.status})
    lang = history.config.language
    running = state.status == "running"
    return LiveDebate(
        row=row,
        running=running,
        personas=_personas(history),
        scores=_scores(history),
        failures=[failure_sentence(failure, lang) for failure in history.failures],
        notes=[str(note.get("text", "")) for note in history.moderator_notes],
        termination=None if running else _termination(history.config, state, store, command),
        ending=None if running else _ending(history, store, command),
        report_ready=bool(history.rounds),
    )


def _personas(history: DebateHistory) -> list[LivePersona]:
    from argue.records.strongest import contradicted_by
    from argue.records.terminal import rebuttal_line

    lang = history.config.language
    personas = []
    for letter in history.letters:
        turns = []
        for record in history.ordered_rounds():
            argument = record.arguments.get(letter)
            rebuttal = record.rebuttals.get(letter)
            reflection = record.reflections.get(letter)
            if argument is None and rebuttal is None and reflection is None:
                continue
            rebuttal_words = rebuttal_line(rebuttal, lang) if rebuttal is not None else None
            turns.append(
                LiveTurn(
                    round=record.round,
                    position=argument.position if argument else None,
                    claims=[
                        LiveClaim(
                            id=c.id,
                            text=c.text,
                            evidence_state=c.evidence_state,
                            refusal=c.refusal,
                            contradicted_by=contradicted_by(c),
                        )
                        for c in (argument.claims if argument else [])
                    ],
                    rebuttal=rebuttal_words,
                    confidence=reflection.confidence if reflection else None,
                )
            )
        personas.append(LivePersona(letter=letter, name=history.persona_name(letter), turns=turns))
    return personas


def _scores(history: DebateHistory) -> list[str]:
    from argue.records.labels import label
    from argue.records.terminal import score_words

    lines = []
    for record in history.committed_rounds():
        assert record.score is not None
        parts = [
            f"{history.persona_name(letter)} "
            f"{score_words(score.total, score.max_total, history.config.language)}"
            for letter, score in record.score.personas.items()
        ]
        lines.append(
            label("w_scored", history.config.language, n=record.round, scores=", ".join(parts))
        )
    return lines


def termination_words(config: DebateConfig, state: DebateState) -> str:
    """The status and why in words of the debate's language ("Termination: completed (maximum
    rounds) — reached the limit of 2 rounds"), never the recorded ids: the live page's last
    line and the watcher's start with it."""
    from argue.records.labels import label
    from argue.records.terminal import detail_words, word

    lang = config.language
    why = ""
    if state.termination_detail:
        why = detail_words(state.termination_detail, lang)
    elif state.error:
        why = state.error
    elif state.status == "interrupted":
        why = label("w_orphan", lang)
    status = word("status", state.status, lang)
    if state.termination and state.termination != state.status:
        ending = word("termination", state.termination, lang)
        status += f" ({ending[:1].lower()}{ending[1:]})"
    return label("w_termination", lang, status=status) + (f" — {why}" if why else "")


def _termination(config: DebateConfig, state: DebateState, store: DebateStore, command: str) -> str:
    """The line the page ends with: :func:`termination_words`, then how to resume when the
    debate can be resumed. No file path: the page links the report instead."""
    from argue.records.labels import label

    line = termination_words(config, state)
    if state.status in ("stopped", "budget_exhausted", "interrupted"):
        line += " · " + label("w_resume", config.language, command=f"{command} resume {config.id}")
    return line


def _conclusion(
    store: DebateStore,
) -> tuple[str | None, Literal["missing", "declined", "unreadable"] | None]:
    """The synthesis prose's conclusion, or why there is none."""
    from argue.records import SynthesisDraft
    from argue.store import StoreError

    try:
        prose = store.load(store.paths.synthesis_prose, SynthesisDraft)
    except StoreError:
        return None, "unreadable"
    if prose is None or not prose.conclusion.strip():
        return None, "missing"
    if "conclusion" in prose.refusing_sections():
        return None, "declined"
    return prose.conclusion.strip(), None


def _ending(history: DebateHistory, store: DebateStore, command: str) -> LiveEnding:
    """The conclusion and each side's strongest arguments, ranked as the report ranks them."""
    from argue.records.strongest import PER_SIDE, strongest_arguments

    conclusion, why_not = _conclusion(store)
    found = strongest_arguments(
        history.config, history.claim_index(), history.claim_scores(), history.reference_index()
    )
    sides = [
        LiveSide(
            side_words=side.words,
            names=[history.persona_name(letter) for letter in side.letters],
            arguments=[
                LiveArgument(
                    claim_id=item.claim.id,
                    name=history.persona_name(item.claim.persona),
                    text=item.claim.text,
                    evidence_ids=item.claim.supported_evidence_ids,
                )
                for item in side.ranked
            ],
        )
        for side in found.sides
    ]
    return LiveEnding(
        conclusion=conclusion,
        no_conclusion=why_not,
        panel=found.panel,
        sides=sides,
        per_side=PER_SIDE,
        synthesize_command=f"{command} synthesize {history.config.id}",
    )


def report_html(debate_id: str, *, workspace: Workspace | None = None) -> str:
    """The debate's HTML report as ``argue report`` renders it now (labelled partial while it
    runs), without writing into the debate folder: it is rendered into a throwaway file."""
    from argue.app import write_report

    store = (workspace or Workspace()).open(debate_id)
    with tempfile.TemporaryDirectory(prefix="argue-report-") as folder:
        target = write_report(store, Path(folder) / "report.html")
        return target.read_text(encoding="utf-8")


__all__ = [
    "LiveArgument",
    "LiveClaim",
    "LiveDebate",
    "LiveEnding",
    "LivePersona",
    "LiveRow",
    "LiveSide",
    "LiveTurn",
    "debate_ids",
    "live_debate",
    "live_row",
    "report_html",
]
