"""The HTML report of a debate folder, as it stands: written by ``report``, by ``synthesize``
and as every run ends."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from argue.app._errors import OperationError

if TYPE_CHECKING:
    from argue.store import DebateStore

NO_PROSE_YET = (
    "no synthesis prose on disk yet (it is written when the debate ends, or by `synthesize`)"
)


def write_report(store: DebateStore, out: Path | None = None) -> Path:
    """Render the report from the folder as it is now and write it atomically; returns where.

    Reads only: a running debate is reported as it stands (labelled partial) and not disturbed.
    """
    from argue.records import SynthesisDraft
    from argue.redact import redact
    from argue.report import REPORT_FILE, render_report
    from argue.store import StoreError, write_text_atomic
    from argue.store.history import load_history

    try:
        history = load_history(store)
        state = store.state()
        if state.status == "running" and not store.is_locked():
            state = state.model_copy(update={"status": "interrupted"})
        prose_failure: str | None = None
        try:
            prose = store.load(store.paths.synthesis_prose, SynthesisDraft)
        except StoreError as exc:
            prose, prose_failure = None, str(exc)
        if prose is None and prose_failure is None:
            prose_failure = NO_PROSE_YET
        html = render_report(history, state, store.load_usage(), prose, prose_failure)
        target = out if out is not None else store.paths.root / REPORT_FILE
        # Secrets masked in every form (argue.redact: HTML-escaped too), whatever a model wrote.
        write_text_atomic(target, redact(html))
    except StoreError as exc:
        raise OperationError(str(exc)) from None
    except OSError as exc:
        raise OperationError(f"cannot write the report: {exc}") from None
    return target


def strongest_document(store: DebateStore) -> dict[str, Any]:
    """The strongest arguments of each side as the ``--json`` documents and the MCP answers
    give them (``argue.records.strongest``): per side, its best claims with the sentences their
    quotes stand in and each support verdict; the claims that cannot rank, with their reason
    (a key, and in words in the debate's language)."""
    from argue.records.strongest import strongest_arguments
    from argue.store import StoreError
    from argue.store.history import load_history

    try:
        history = load_history(store)
    except StoreError as exc:
        raise OperationError(str(exc)) from None
    config = history.config
    names = {letter: history.persona_name(letter) for letter in history.letters}
    found = strongest_arguments(
        config, history.claim_index(), history.claim_scores(), history.reference_index()
    )
    return found.as_json(names, config.language)
