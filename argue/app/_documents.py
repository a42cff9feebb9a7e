"""The documents an agent-facing face returns (the MCP tools; ``argue status --json`` is the
same row): a debate's status with where its synthesis stands, the listing of a debates folder
(whole rows, or the compact columns a list needs), and the running cap as configured.

A face turns a document into its own wire format; what is in it is decided here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from argue.app._debates import status, statuses
from argue.app._detached import check_debate_id, running_cap, synthesis_written
from argue.app._workspace import Workspace

MAX_RUNNING_ENV = "ARGUE_MCP_MAX_RUNNING"
"""The environment variable that sets how many debates a server may run at once."""

COMPACT_FIELDS = (
    "id",
    "status",
    "round",
    "max_rounds",
    "termination",
    "mode",
    "personas",
    "question",
    "updated_at",
    "partial",
)
"""The columns of a compact listing: what a list of debates shows, without usage and failures."""


def status_document(debate_id: str, workspace: Workspace) -> dict[str, Any]:
    """One debate's status row (``DebateStatus.as_json``), with ``synthesis_available`` (its
    synthesis.md is written) and ``folder``; a malformed id is a ``UsageError`` first."""
    check_debate_id(debate_id)
    row = status(debate_id, workspace=workspace).as_json()
    row["synthesis_available"], row["folder"] = synthesis_written(debate_id, workspace)
    return row


def listing_document(workspace: Workspace, *, compact: bool = False) -> dict[str, Any]:
    """Every debate of the folder: ``debates_dir``, ``debates`` (whole rows, or
    :data:`COMPACT_FIELDS` only) and ``skipped`` (the folders that could not be read, why)."""
    listing = statuses(workspace=workspace)
    rows = [row.as_json() for row in listing.debates]
    if compact:
        rows = [{key: row[key] for key in COMPACT_FIELDS} for row in rows]
    return {"debates_dir": listing.debates_dir, "debates": rows, "skipped": listing.skipped}


def configured_running_cap(
    value: str | int | None, env: Mapping[str, str], *, named: str = "max_running"
) -> int:
    """The running cap: ``value`` (a face's option) when given, else :data:`MAX_RUNNING_ENV`
    in ``env``, else the default; out of range is a ``UsageError`` spelt ``named``."""
    if value is None:
        value = env.get(MAX_RUNNING_ENV)
    return running_cap(value, named=named)
