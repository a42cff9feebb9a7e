"""Run argue with no model: a scripted provider and a debate script, for trying argue offline
and for testing code built on it (a provider plugin, a skill, a face).

``DebateScript`` answers every call a debate makes with a schema-valid reply derived from the
prompt (no ML: claims cite the evidence ids the prompt shows, rebuttals target the opponents'
claim ids, the judge rates the letters it is given), with knobs for what a test wants to see
(concede or not, repeat claims, cite a bogus id, fail a phase…). ``ScriptedModel`` is the
``ChatModel`` that plays it, through the same parsing and re-ask as the real adapters.

    import argue
    from argue.testing import scripted_provider

    with scripted_provider():  # the provider "scripted", until the block ends
        debate = argue.start("Is the Collatz conjecture decidable?", provider="scripted",
                             sources=["none"], rounds=2)
        print(debate.run().status)  # completed

``scripted_spec`` is the provider row (a plugin's entry point may name ``provider_spec``);
``ScriptedToolkit`` is a research double for the engine's ``DebateRunner``.
"""

from __future__ import annotations

from argue.llm._scripted import (
    CutOff,
    ScriptedModel,
    ScriptedReply,
    ScriptedRequest,
    ScriptExhausted,
)
from argue.testing._provider import (
    ModelFactory,
    ScriptedProviders,
    debate_model,
    provider_spec,
    scripted_provider,
    scripted_spec,
)
from argue.testing._script import DebateScript, ScriptedToolkit, names_of

__all__ = [
    "CutOff",
    "DebateScript",
    "ModelFactory",
    "ScriptExhausted",
    "ScriptedModel",
    "ScriptedProviders",
    "ScriptedReply",
    "ScriptedRequest",
    "ScriptedToolkit",
    "debate_model",
    "names_of",
    "provider_spec",
    "scripted_provider",
    "scripted_spec",
]
