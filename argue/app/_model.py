"""The model a command runs on when it is not a debate's (``argue doctor``, a face's probe):
resolved as ``prepare`` resolves a debate's, flag > environment > config.toml > auto-detection,
so a face never re-derives the order itself."""

from __future__ import annotations

from typing import TYPE_CHECKING

from argue.app._errors import at_the_boundary
from argue.app._workspace import Workspace

if TYPE_CHECKING:
    from argue.llm import ChatModel, ServerLimits


@at_the_boundary
def configured_model(
    provider: str | None = None,
    model: str | None = None,
    workspace: Workspace | None = None,
    limits: ServerLimits | None = None,
) -> ChatModel:
    """The chat model for ``provider``/``model`` (None: the environment's, then config.toml's,
    then auto-detection); an unknown provider or a bad config is a ``UsageError``."""
    workspace = workspace or Workspace()
    settings = workspace.settings
    return workspace.resolve(
        settings.provider(provider, workspace.env),
        settings.model(model, workspace.env),
        limits,
    )
