"""The synthesis: one model call for the prose; code assembles everything else from the record."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from argue.domain import DebateState, Usage
from argue.engine import prompts
from argue.engine.digest import clip
from argue.engine.schemas import AnswerSynthesisDraft, SynthesisDraft
from argue.llm.base import ChatModel, ModelAuthError, ModelError
from argue.records.history import DebateHistory
from argue.records.reasons import failure_sentence
from argue.store import DebateStore

MAX_MATERIAL_CLAIMS = 30


def synthesis_material(history: DebateHistory) -> str:
    scores = history.claim_scores()
    claims = sorted(history.all_claims(), key=lambda c: (-scores.get(c.id, 0.0), c.id))
    lines = ["Claims (best-scored first):"]
    lines += [
        f"[{c.id}] ({history.persona_name(c.persona)}, R{c.round}) {clip(c.text, 300)}"
        for c in claims[:MAX_MATERIAL_CLAIMS]
    ]
    lines.append("Concessions:")
    for record in history.ordered_rounds():
        for rebuttal in record.rebuttals.values():
            lines += [
                f"R{record.round}: {history.persona_name(c.from_persona)} conceded [{c.claim_id}]: "
                f"{clip(c.text, 200)} (because {clip(c.reason, 160)})"
                for c in rebuttal.concessions
                if c.valid_target
            ]
    lines.append("Final positions:")
    for letter in history.letters:
        last = [r.reflections[letter] for r in history.ordered_rounds() if letter in r.reflections]
        if last:
            lines.append(
                f"{letter} ({history.persona_name(letter)}): {clip(last[-1].position_now, 300)} "
                f"(confidence {last[-1].confidence:.2f}; would change mind if: "
                f"{clip(last[-1].would_change_my_mind, 200)})"
                + (f" — answer: {clip(last[-1].answer, 100)}" if last[-1].answer else "")
            )
    return "\n".join(lines)


async def write_synthesis(
    store: DebateStore,
    history: DebateHistory,
    model: ChatModel | None,
    usage: list[Usage],
    report: Callable[[str], None] = lambda _: None,
    *,
    state: DebateState | None = None,
    before_render: Callable[[], Awaitable[None]] | None = None,
) -> str:
    """Render synthesis.md; ask the model for the prose only if it is not already on disk.

    ``before_render`` runs between the prose and the rendering (the episodic archive), so that
    anything it fails at is in the record the synthesis lists.
    """
    from argue.render import render_synthesis

    prose, prose_failure = await synthesis_prose(store, history, model, report)
    if before_render is not None:
        await before_render()
    text = render_synthesis(history, state or store.state(), usage, prose, prose_failure)
    store.save_text(store.paths.synthesis, text)
    return text


async def synthesis_prose(
    store: DebateStore,
    history: DebateHistory,
    model: ChatModel | None,
    report: Callable[[str], None] = lambda _: None,
) -> tuple[SynthesisDraft | None, str | None]:
    """The prose parts (from disk, or one model call) and, when missing, why."""
    from argue.domain import Failure

    answer_format = history.config.answer_format
    # An answer-seeking debate (argue eval) also asks for the final answer; a debate does not.
    draft_type = AnswerSynthesisDraft if answer_format else SynthesisDraft
    prose = store.load(store.paths.synthesis_prose, draft_type)
    prose_failure: str | None = None
    if prose is None and model is not None and history.all_claims():
        assert history.config.framing is not None
        messages = prompts.synthesis_messages(
            history.config.question,
            history.config.framing.proposition,
            synthesis_material(history),
        )
        if answer_format:
            messages[-1].content += "\n\n" + prompts.answer_instruction(
                answer_format, "final_answer", "the debate's final answer", history.config.question
            )
        try:
            result = await model.complete(
                messages,
                output=draft_type,
                max_tokens=3000,
                purpose="synthesis",
            )
            prose = result.parsed()
            store.save(store.paths.synthesis_prose, prose)
        except ModelAuthError:
            raise  # rejected credentials end the debate, see DebateRunner.run
        except ModelError as exc:
            prose_failure = str(exc)
            failure = Failure(
                round=max(history.rounds, default=0),
                phase="synthesis",
                kind="failed",
                what="synthesis model call",
                reason=str(exc),
                cause=exc.cause,
            )
            history.failures.append(failure)
            store.save(store.paths.failures, history.failures)
            report("  " + failure_sentence(failure, history.config.language))
    if prose is not None:
        _record_refusing_sections(store, history, prose, report)
    if prose is None and model is None and prose_failure is None:
        prose_failure = "no model configured for this command; the prose parts were not written"
    elif prose is None and prose_failure is None:
        prose_failure = "no claim was made in the debate: there is nothing to synthesise"
    return prose, prose_failure


def _record_refusing_sections(
    store: DebateStore,
    history: DebateHistory,
    prose: SynthesisDraft,
    report: Callable[[str], None],
) -> None:
    """Sections that are the model declining make the synthesis partial: recorded once as a
    failure (refused by the model), so every document and ``status`` say so."""
    from argue.domain import Failure
    from argue.records.prose import REFUSED_PROSE

    sections = prose.refusing_sections()
    if not sections or any(
        f.phase == "synthesis" and f.what == REFUSED_PROSE for f in history.failures
    ):
        return
    failure = Failure(
        round=max(history.rounds, default=0),
        phase="synthesis",
        kind="failed",
        what=REFUSED_PROSE,
        reason=", ".join(sections),
        cause="refused_by_model",
    )
    history.failures.append(failure)
    store.save(store.paths.failures, history.failures)
    report("  " + failure_sentence(failure, history.config.language))


def score_summary(history: DebateHistory, usage: list[Usage]) -> dict[str, Any]:
    totals: dict[str, float] = {letter: 0.0 for letter in history.letters}
    per_round = []
    for record in history.committed_rounds():
        assert record.score is not None
        per_round.append(
            {
                "round": record.round,
                "totals": {k: v.total for k, v in record.score.personas.items()},
                "novel_claims": record.score.novel_claims,
                "new_verified_evidence": record.score.new_verified_evidence,
                "synthesis_ready": record.score.judge.synthesis_ready,
            }
        )
        for letter, persona_score in record.score.personas.items():
            totals[letter] = round(totals.get(letter, 0.0) + persona_score.total, 4)
    from argue.llm import UsageLedger

    ledger = UsageLedger(usage)
    total_usage = ledger.total()
    return {
        "rounds": per_round,
        "totals": totals,
        "strongest_claims": [
            {"id": cid, "score": s}
            for cid, s in sorted(history.claim_scores().items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        ],
        "usage": total_usage.model_dump(mode="json"),
        "usage_by_model": {k: v.model_dump(mode="json") for k, v in ledger.by_model().items()},
    }


async def archive_debate(
    store: DebateStore,
    history: DebateHistory,
    memory_writer: Callable[..., Awaitable[str]],
    report: Callable[[str], None] = lambda _: None,
) -> None:
    """Episodic archive: one shared memory per finished debate (its question and conclusion).

    The conclusion is model prose, unchecked: it is stored and recalled as model-written, so a
    later debate can read it but never count it as evidence.
    """
    marker = store.paths.archive_marker()
    if store.has(marker):
        return
    if history.config.smoke_test:
        store.save(marker, {"archived": False, "reason": "smoke-test model: not archived"})
        return
    prose = store.load(store.paths.synthesis_prose, SynthesisDraft)
    conclusion = prose.conclusion if prose else "(no synthesis prose)"
    text = (
        f"Debate {history.config.id} on '{history.config.question}' — its model-written "
        f"conclusion, never checked against sources: {conclusion}"
    )
    try:
        memory_id = await memory_writer(
            None,
            text,
            kind="debate",
            debate_id=history.config.id,
            scope="shared",
            origin="model",
        )
    except Exception as exc:  # written into the record, not hidden
        from argue.domain import Failure

        reason = f"{type(exc).__name__}: {exc}"
        store.save(marker, {"archived": False, "reason": reason})
        failure = Failure(
            round=max(history.rounds, default=0),
            phase="synthesis",
            kind="failed",
            what="episodic archive (shared memory) write",
            reason=reason,
        )
        history.failures.append(failure)
        store.save(store.paths.failures, history.failures)
        # on the terminal too, not only in failures.json
        report("  " + failure_sentence(failure, history.config.language))
        return
    store.save(marker, {"archived": True, "memory_id": memory_id})
