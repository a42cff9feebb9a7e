"""Research: the plan (round 1, or when no reflection planned) and the calls, budgeted.

The plan's slots guarantee, by schema, a ``dogpile`` search and a ``memory`` recall every round
and an ``ask`` whenever the persona has a colleague to ask; the model writes the queries and
picks the colleague among those offered; free calls only fill what the budget leaves."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from argue.concurrency import cede
from argue.domain import (
    Evidence,
    Failure,
    Persona,
    ResearchCallRecord,
    ResearchRecord,
)
from argue.engine import prompts
from argue.engine.digest import clip, notes_block
from argue.engine.phases._common import (
    MAX_EVIDENCE_PER_CALL,
    RESEARCH_BUDGET,
    PersonaSeat,
    PhaseOutcome,
    complete_for,
    opening_for,
    records_phase_failure,
)
from argue.engine.schemas import (
    DOGPILE_SKILL,
    QUERY_CHARS,
    PlanRepair,
    ResearchCallDraft,
    ResearchPlanDraft,
    research_plan_model,
    slot_budget,
)
from argue.engine.toolkit import BUILTIN_SKILLS, ResearchRequest, ResearchToolkit
from argue.grounding.quotable import echoes_query
from argue.llm.base import ChatModel
from argue.records.history import DebateHistory
from argue.records.reasons import OFFLINE_HINT
from argue.skills.base import SkillItem, SkillResult

MAX_SNIPPET_CHARS = 4000
"""What a research record keeps of an item's text (quotes are located in it, so it is the text
the persona was shown or more; sources already cut their snippets well below this)."""


@records_phase_failure
async def plan_research(
    model: ChatModel,
    history: DebateHistory,
    seat: PersonaSeat,
    toolkit: ResearchToolkit,
    round_no: int,
    *,
    consult_answered: bool = False,
) -> PhaseOutcome[ResearchPlanDraft]:
    letter = seat.letter
    previous = history.rounds.get(round_no - 1)
    opponents_latest = prompts.claims_table(
        [c for c in (previous.claims() if previous else []) if c.persona != letter],
        {k: history.persona_name(k) for k in history.letters},
    )
    plan_model, slots = plan_schema(
        history, letter, toolkit, round_no, consult_answered=consult_answered
    )
    messages = prompts.research_plan_messages(
        opening_for(seat, history, round_no),
        opponents_latest,
        toolkit.menu(history.personas[letter]),
        round_no,
        history.config.max_rounds,
        slots,
        notes=notes_block(history.notes_for_round(round_no)),
    )
    result = await complete_for(
        model,
        messages,
        plan_model,
        round_no=round_no,
        letter=letter,
        phase="research plan",
        purpose=f"{letter}/R{round_no}/research-plan",
    )
    return PhaseOutcome(result.parsed())


def plan_schema(
    history: DebateHistory,
    letter: str,
    toolkit: ResearchToolkit,
    round_no: int,
    *,
    consult_answered: bool = False,
) -> tuple[type[ResearchPlanDraft], str]:
    """The plan schema this persona is asked for now (for ``round_no``), and the prompt lines
    that explain it.

    The colleague question is no slot of the plan when the persona's rebuttal decides it (every
    round before the last: :func:`consult_colleagues`) or already did (``consult_answered``:
    its answer is in, and takes one call of the budget). Only a one-round debate, or a round
    whose rebuttal did not decide one, plans its ask here."""
    persona = history.personas[letter]
    skills = available_skills(toolkit)
    colleagues = offered_colleagues(toolkit, persona, _published_arguments(history, letter))
    budget = RESEARCH_BUDGET - (1 if consult_answered else 0)
    if consult_answered or (round_no == 1 and history.config.max_rounds > 1):
        colleagues = ()
    free_skills = tuple(s for s in skills if s != "ask")
    dogpile = DOGPILE_SKILL in skills
    free = slot_budget(colleagues, budget, dogpile=dogpile) if free_skills else 0
    sources = tuple(getattr(toolkit, "source_names", ()) or ())
    return (
        research_plan_model(
            skills, colleagues, budget, sources, fallback_queries(history, persona)
        ),
        prompts.research_slots(colleagues, free_skills, free, budget, dogpile=dogpile),
    )


def fallback_queries(history: DebateHistory, persona: Persona) -> tuple[str, str]:
    """argue's own dogpile and memory queries, for a plan whose query is missing or invalid:
    the proposition (the question before framing) with the persona's lens, and the
    proposition alone."""
    framing = history.config.framing
    proposition = " ".join((framing.proposition if framing else history.config.question).split())
    lens = " ".join(persona.lens.replace("/", " ").split())
    return (_bounded(f"{proposition} {lens}".strip()), _bounded(proposition))


def _bounded(text: str, limit: int = QUERY_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] or text[:limit]


def consult_colleagues(
    history: DebateHistory, letter: str, toolkit: ResearchToolkit | None, round_no: int
) -> tuple[str, ...]:
    """Whom the persona's rebuttal of ``round_no`` may name for next round's consult (none in
    the last round, or when no colleague or no ``ask`` skill is there)."""
    if toolkit is None or round_no >= history.config.max_rounds:
        return ()
    if "ask" not in available_skills(toolkit):
        return ()
    persona = history.personas[letter]
    return offered_colleagues(toolkit, persona, _published_arguments(history, letter))


class AnsweredConsult(BaseModel):
    """A colleague question decided in a rebuttal and answered beside the reflections: the
    first research call of the persona's next round."""

    call: ResearchCallDraft
    result: SkillResult


async def answer_consult(
    history: DebateHistory, letter: str, toolkit: ResearchToolkit, colleague: str, question: str
) -> AnsweredConsult:
    """Ask the colleague now, from what is published so far (the ask skill's own rules)."""
    call = ResearchCallDraft(skill="ask", query=question, colleague=colleague)
    request = ResearchRequest(
        call=call,
        persona=history.personas[letter],
        letter=letter,
        debate_id=history.config.id,
        participants=_published_arguments(history, exclude=letter),
    )
    return AnsweredConsult(call=call, result=await _run_one(toolkit, request))


def available_skills(toolkit: ResearchToolkit) -> tuple[str, ...]:
    """Every skill the toolkit can run (built-in, external, plugins); a toolkit that does not
    say (a test double) is taken to run the built-ins."""
    names = getattr(toolkit, "skill_names", None)
    return tuple(names) if names else BUILTIN_SKILLS


def offered_colleagues(
    toolkit: ResearchToolkit, persona: Persona, participants: dict[str, list[str]]
) -> tuple[str, ...]:
    """The colleagues ``persona`` may ask: those its file lists that exist in the catalog, never
    itself. A fellow debater with nothing published yet could only refuse ("nothing to answer
    from"): it is left out while another colleague remains (the ask skill's own routing rule)."""
    listed = [name for name in dict.fromkeys(persona.colleagues) if name != persona.name]
    known = _catalog_names(toolkit)
    if known is not None:
        listed = [name for name in listed if name in known]
    silent = {name for name, texts in participants.items() if not texts}
    return tuple([name for name in listed if name not in silent] or listed)


def _catalog_names(toolkit: ResearchToolkit) -> set[str] | None:
    """The persona catalog's names, or None when the toolkit has none (a test double) or it
    cannot be read now (the ask skill then reports that itself)."""
    try:
        catalog = getattr(toolkit, "catalog", None)
        return set(catalog.names()) if catalog is not None else None
    except Exception:
        return None


async def run_research(
    plan: ResearchPlanDraft,
    history: DebateHistory,
    letter: str,
    toolkit: ResearchToolkit,
    round_no: int,
    *,
    first_evidence: int = 1,
    answered: list[AnsweredConsult] | None = None,
) -> PhaseOutcome[ResearchRecord]:
    """Enforce the budget, run the calls concurrently, number the evidence A-R2-E1…

    ``answered``: calls already made (the consult the previous rebuttal decided), recorded
    after the plan's and counted in the budget. A plan with slots fits the budget by
    construction; the cap is for calls given as they are (a plan file from an earlier
    version)."""
    done = list(answered or [])
    room = RESEARCH_BUDGET - len(done)
    calls = plan.calls[:room] + [a.call for a in done]
    dropped = [f"{c.skill} {c.query!r}" for c in plan.calls[room:]]
    persona = history.personas[letter]
    participants = _published_arguments(history, exclude=letter)
    requests = [
        ResearchRequest(
            call=call,
            persona=persona,
            letter=letter,
            debate_id=history.config.id,
            participants=participants,
        )
        for call in plan.calls[:room]
    ]
    cede()  # the skills wait on threads and the network: the next call may be built
    results = [*await asyncio.gather(*(_run_one(toolkit, r) for r in requests))]
    results += [a.result for a in done]
    record = ResearchRecord(persona=letter, round=round_no, why=plan.why, dropped_calls=dropped)
    failures: list[Failure] = []
    counter = first_evidence - 1
    for call, result in zip(calls, results, strict=True):
        ids: list[str] = []
        for item in result.items[:MAX_EVIDENCE_PER_CALL]:
            counter += 1
            evidence = Evidence(
                id=f"{letter}-R{round_no}-E{counter}",
                persona=letter,
                round=round_no,
                skill=result.skill,
                query=call.query,
                title=item.title,
                url=item.url,
                locator=item.locator,
                snippet=_own_words(item)[:MAX_SNIPPET_CHARS],
                source=item.source,
                origin_id=item.id,
                provenance=item.provenance,
                byline=item.byline,
                filler=item.filler,
                echoes_query=item.provenance == "document"
                and echoes_query(call.query, item.title, _own_words(item)[len(item.byline) :]),
            )
            record.evidence.append(evidence)
            ids.append(evidence.id)
        record.calls.append(
            ResearchCallRecord(
                skill=call.skill,
                query=call.query,
                colleague=call.colleague,
                sources=call.sources,
                status=result.status,
                note=result.note,
                elapsed_s=result.elapsed_s,
                evidence_ids=ids,
                source_statuses=[s.model_dump(mode="json") for s in result.sources],
                query_by_argue=call.query_by_argue,
            )
        )
        failures += _research_failures(call, result, round_no, letter)
    failures += [repair_failure(repair, round_no, letter) for repair in plan.repairs]
    if dropped:
        failures.append(
            Failure(
                round=round_no,
                persona=letter,
                phase="research",
                kind="refused",
                what=f"{len(dropped)} research call(s) over the budget of {RESEARCH_BUDGET}",
                reason="dropped by the engine: " + "; ".join(dropped),
            )
        )
    return PhaseOutcome(record, failures)


def _own_words(item: SkillItem) -> str:
    """The item's text as the source has it: a library search's highlight marks are argue's."""
    if item.source == "library":
        from argue.skills.library import without_highlights

        return without_highlights(item.snippet)
    return item.snippet


def repair_failure(repair: PlanRepair, round_no: int, letter: str) -> Failure:
    """A slot argue dropped or replaced in the persona's plan, as a failure of the round's
    research: the model's answer did not match there (invalid output), the rest ran."""
    return Failure(
        round=round_no,
        persona=letter,
        phase="research",
        kind="failed",
        what=repair.what,
        reason=repair.reason,
        cause="invalid_output",
    )


def _research_failures(
    call: ResearchCallDraft, result: SkillResult, round_no: int, letter: str
) -> list[Failure]:
    """What did not work in one research call: the whole call, or (when the call worked) any of
    its sources, in the fixed words."""
    query = clip(call.query, 60)
    if result.status in ("refused", "failed"):
        problems = [(result.status, f"{call.skill} {query!r}", result.note)]
    else:
        problems = [
            (s.status, f"{call.skill} source {s.source} for {query!r}", s.note)
            for s in result.sources
            if s.status in ("refused", "failed")
        ]
    return [
        Failure(
            round=round_no,
            persona=letter,
            phase="research",
            kind="refused" if kind == "refused" else "failed",
            what=what,
            reason=(note or "no reason given") + _offline_hint(note),
        )
        for kind, what, note in problems
    ]


def _offline_hint(note: str) -> str:
    from argue.skills.dogpile import NAME_LOOKUP_FAILED

    return OFFLINE_HINT if NAME_LOOKUP_FAILED in note else ""


async def _run_one(toolkit: ResearchToolkit, request: ResearchRequest) -> SkillResult:
    """A skill must not raise; if one does anyway, the debate records it as failed."""
    try:
        return await toolkit.run(request)
    except Exception as exc:
        return SkillResult.failed(
            request.call.skill, request.call.query, f"{type(exc).__name__}: {exc}"
        )


def _published_arguments(history: DebateHistory, exclude: str) -> dict[str, list[str]]:
    published: dict[str, list[str]] = {}
    for letter in history.letters:
        if letter == exclude:
            continue
        name = history.personas[letter].name
        texts = [
            f"[{c.id}] {c.text}"
            for r in history.ordered_rounds()
            if letter in r.arguments
            for c in r.arguments[letter].claims
        ]
        published[name] = texts[-8:]
    return published
