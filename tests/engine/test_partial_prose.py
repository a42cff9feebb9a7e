"""A synthesis without its prose parts is labelled partial (issue 20).

Teeth: passing ``prose_missing=False`` in ``synthesis_context`` (argue/render/markdown.py) lets
the synthesis read as whole when its prose call failed, and the test fails.
"""

from __future__ import annotations

from argue.llm import ModelUnavailableError
from tests.engine.script import DebateScript


def _fail_synthesis(letter: str, rnd: int, phase: str):
    if phase == "SynthesisDraft":
        return ModelUnavailableError("openai", "HTTP 503 after 4 attempts")
    return None


def test_missing_synthesis_prose_makes_the_synthesis_partial(run_debate):
    run = run_debate(
        script=DebateScript(names={"Embry": "A", "Horus": "B"}, fail=_fail_synthesis), rounds=1
    )
    assert run.state.status == "completed"
    synthesis = run.store.paths.synthesis.read_text()
    head = synthesis.split("## Participants", 1)[0]
    assert "**Partial synthesis.**" in head
    assert (
        "the synthesis prose (agreements, disagreements, open questions, conclusion) is "
        "missing" in head
    )
    history = run.history
    assert history.partial_reasons(run.state) == []  # the debate itself is whole…
    from argue.app._run import completeness as _completeness

    completeness = _completeness(run.store, run.state)  # …its record, as --json says, is not
    assert completeness["partial"] is True
    assert any("synthesis prose" in reason for reason in completeness["partial_reasons"])


def test_a_whole_synthesis_is_not_partial(run_debate):
    run = run_debate(script=DebateScript(names={"Embry": "A", "Horus": "B"}), rounds=1)
    assert "Partial synthesis" not in run.store.paths.synthesis.read_text()
