"""Pydantic records shared by every layer: personas, evidence, claims, concessions, scores, state.

The model refers to ids; code resolves them. Every id in these records is assigned by code
(evidence ``A-R2-E3``, claims ``A2.c1``), never invented by a model.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field, model_validator

Bridge = Literal["precision", "resilience", "fragility", "corruption", "loyalty", "stealth"]
BRIDGES: tuple[Bridge, ...] = (
    "precision",
    "resilience",
    "fragility",
    "corruption",
    "loyalty",
    "stealth",
)
BRIDGE_MEANINGS: dict[str, str] = {
    "precision": "accuracy and technical detail",
    "resilience": "robustness",
    "fragility": "risks and edge cases",
    "corruption": "adversarial and contrarian angles",
    "loyalty": "consistency, precedent and consensus",
    "stealth": "hidden variables and unstated assumptions",
}

Mode = str
"""A debate mode's name: a key of ``argue.engine.modes.MODES`` (the built-in four and any
``register_mode`` adds), checked where a request is read (``argue.app``), not here, so that a
mode added by a package needs no change to the records."""
DebateStatus = Literal[
    "running", "stopped", "completed", "failed", "interrupted", "budget_exhausted"
]
AnswerFormat = Literal["number", "choice", "text"]
Termination = Literal["convergence", "null_production", "max_rounds", "synthesis_ready", "stopped"]


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# ---------------------------------------------------------------- personas


class Belief(BaseModel):
    statement: str
    strength: float = Field(ge=0.0, le=1.0, description="How strongly the persona holds it, 0-1")


class BDIState(BaseModel):
    """Beliefs, desires, intentions: style guidance for the persona's prompts."""

    beliefs: list[Belief] = Field(default_factory=list)
    desires: list[str] = Field(default_factory=list)
    intentions: list[str] = Field(default_factory=list)


class PersonaWords(BaseModel):
    """A persona's role and lens in another language, for documents (the prompts keep the
    English ones)."""

    role: str
    lens: str


class Persona(BaseModel):
    name: str = Field(description="Lower-case identifier used on the command line")
    display_name: str
    role: str
    lens: str = Field(description="Discipline lens, e.g. 'formal/mathematical'")
    expertise: list[str] = Field(description="Keywords used for deterministic routing")
    style: str = Field(description="Communication style")
    bridges: dict[Bridge, Annotated[float, Field(ge=0.0, le=1.0)]] = Field(
        description="Bridge weights 0-1 for the six bridges"
    )
    bdi: BDIState = Field(default_factory=BDIState)
    colleagues: list[str] = Field(default_factory=list)
    model: str | None = Field(
        default=None,
        description="This persona's own model: MODEL (the debate's provider) or provider:model",
    )
    fr: PersonaWords | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="French role and lens for French documents (the file's [fr] table); "
        "without it a French document shows the English ones",
    )

    def dominant_bridge(self) -> tuple[str, float]:
        if not self.bridges:
            return ("precision", 0.0)
        name = max(self.bridges, key=lambda b: (self.bridges[b], -BRIDGES.index(b)))
        return (name, self.bridges[name])

    def label(self) -> str:
        bridge, weight = self.dominant_bridge()
        return f"{self.display_name} ({bridge.capitalize()}={weight:.2f})"


# ---------------------------------------------------------------- usage


class Usage(BaseModel):
    """One model call's accounting (or a sum of them)."""

    provider: str = ""
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = Field(default=0.0, description="USD of the priced calls only")
    calls: int = 1
    unpriced_calls: int = Field(
        default=0,
        description="calls whose cost is unknown (no price for the model, or an answer without "
        "token counts); cost_usd then is a lower bound",
    )
    possibly_billed_calls: int = Field(
        default=0,
        exclude_if=lambda v: not v,
        description="requests sent whose answer never arrived (timed out, or the connection "
        "dropped): the provider may "
        "still have computed and billed them, at a cost nobody can read; cost_usd then is a "
        "lower bound. Such a row has no tokens.",
    )
    batch_calls: int = Field(
        default=0,
        exclude_if=lambda v: not v,
        description="calls answered through a provider's batch engine (argue eval --batch), "
        "billed at its batch price",
    )
    purpose: str | None = Field(default=None, description="e.g. 'A/R2/argument'")
    repairs: list[str] = Field(
        default_factory=list,
        exclude_if=lambda v: not v,
        description="what code changed in this answer to make it valid (e.g. a confidence of "
        "1.3 clamped to 1.0); not carried into sums",
    )

    def __add__(self, other: Usage) -> Usage:
        if self.calls == 0:
            return other.model_copy(update={"purpose": None})
        return Usage(
            provider=self.provider if self.provider == other.provider else "mixed",
            model=self.model if self.model == other.model else "mixed",
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            latency_s=self.latency_s + other.latency_s,
            cost_usd=self.cost_usd + other.cost_usd,
            calls=self.calls + other.calls,
            unpriced_calls=self.unpriced_calls + other.unpriced_calls,
            possibly_billed_calls=self.possibly_billed_calls + other.possibly_billed_calls,
            batch_calls=self.batch_calls + other.batch_calls,
        )


# ---------------------------------------------------------------- debate records
# Everything below is written by code; model text only ever fills free-text fields.


class Framing(BaseModel):
    """The question turned into a proposition, and each persona's assigned side."""

    proposition: str
    stances: dict[str, str] = Field(description="persona letter -> the side or angle it argues")
    private_views: dict[str, str] = Field(
        default_factory=dict,
        description="devil's advocate: the view the advocate would hold (never shown to others)",
    )


class SeatModel(BaseModel):
    """The model one persona speaks with, when it is not the debate's own."""

    provider: str
    model: str

    def label(self) -> str:
        return f"{self.provider}/{self.model}"


SMOKE_TEST_MODEL = "gemma-3-270m-q4_k_m.gguf"
"""The bundled local model: it proves argue runs, not that an argument is any good."""


MAX_ROUNDS = 50
"""The most rounds a debate has (the CLI's ``--rounds`` cap): a record that says more was
not written by argue."""
RoundNo = Annotated[int, Field(ge=0, le=MAX_ROUNDS)]


class DebateConfig(BaseModel):
    id: str
    question: str
    mode: Mode
    personas: dict[str, str] = Field(description="letter -> persona name")
    max_rounds: int = Field(ge=1, le=MAX_ROUNDS)
    provider: str
    model: str
    research_sources: list[str] = Field(
        default_factory=list,
        description="the research sources the debate searches; with ``unused_sources`` unset "
        "(a config from before argue checked them) an empty list means every source",
    )
    unused_sources: dict[str, str] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="source name -> why it was not used (decided before round 1: 'YOUTUBE_API_KEY "
        "not set', 'the library is empty …'); set, ``research_sources`` is exact (empty: none)",
    )
    budget_usd: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    budget_tokens: int | None = Field(default=None, ge=0)
    created_at: str = Field(default_factory=utc_now)
    framing: Framing | None = None
    selection_reason: str | None = None
    persona_models: dict[str, SeatModel] = Field(
        default_factory=dict,
        description="persona letter -> its own model (argument, rebuttal, reflection, research "
        "plan, ask); a letter not listed speaks with the debate's model",
    )
    verifier_model: SeatModel | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="the support check's model (--verifier-model, config verifier_model); "
        "None: the judge's, which is the debate's model",
    )
    language: Literal["en", "fr"] = Field(
        default="en", description="the language of code's own words (headings, markers)"
    )
    answer_format: AnswerFormat | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="answer-seeking debate (argue eval): each reflection carries the persona's "
        "short answer and the synthesis a final answer, of this kind; None for a debate",
    )

    def sources_in_use(self) -> list[str] | None:
        """The sources research may ask: a list (empty: none), or None for every source (a
        config written before argue decided which could run)."""
        if self.unused_sources is None and not self.research_sources:
            return None
        return list(self.research_sources)

    @property
    def smoke_test(self) -> bool:
        """Run by the bundled smoke-test model: labelled so, and never archived to memory."""
        return self.provider == "local" and self.model.removesuffix(".gguf") == (
            SMOKE_TEST_MODEL.removesuffix(".gguf")
        )


FailureCause = Literal[
    "rejected", "unavailable", "crashed", "cut_off", "invalid_output", "refused_by_model"
]
"""Why a model call failed: the server refused the request (never retried), the server did not
answer, the server process died (a connection dropped mid-answer, then nothing listened: its log
or ``dmesg`` says why), the answer was cut off by a limit, the answer did not match what was
asked, or the model declined to answer (the provider's refusal field or stop reason, or a
refusal in prose in place of the JSON asked for; the reason quotes its first words)."""


class Failure(BaseModel):
    """A skill or model call that did not deliver, in the fixed vocabulary. The record stays
    English; ``argue.records.reasons.failure_sentence`` says it in a debate's language (this
    floor imports no words)."""

    round: RoundNo
    persona: str | None = Field(default=None, description="persona letter, None for the debate")
    phase: str
    kind: Literal["refused", "failed"]
    what: str = Field(description="e.g. 'dogpile \"collatz\"' or 'argument model call'")
    reason: str
    cause: FailureCause | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="for a failed model call, what went wrong in plain words; None where the "
        "effect is really unknown (a call that may have run)",
    )


Provenance = Literal["document", "testimony", "recall", "label"]
"""What an evidence item is. Only ``document`` (returned by a research source or the library)
is verified evidence; the other kinds are model-written text: ``testimony`` (a colleague's or an
answer engine's answer), ``recall`` (a memory) and ``label`` (taxonomy tags)."""
PROVENANCE_WORDS: dict[str, str] = {
    "document": "retrieved document",
    "testimony": "model-written answer",
    "recall": "recalled memory, model-written",
    "label": "taxonomy label, model-written",
}
_SKILL_PROVENANCE: dict[str, Provenance] = {
    "ask": "testimony",
    "memory": "recall",
    "taxonomy": "label",
}


def provenance_of_skill(skill: str) -> Provenance:
    """The provenance a skill's items have unless the item says otherwise (old records)."""
    return _SKILL_PROVENANCE.get(skill, "document")


class Evidence(BaseModel):
    id: str = Field(description="e.g. A-R2-E3")
    persona: str
    round: RoundNo
    skill: str
    query: str
    title: str
    url: str | None = None
    locator: str | None = None
    snippet: str = ""
    source: str
    origin_id: str = Field(default="", description="the skill's own item id")
    provenance: Provenance = "document"
    byline: str = Field(
        default="",
        description="the start of the snippet that argue wrote from the source's metadata "
        "(authors and year, channel and date): shown, never quotable",
    )
    filler: bool = Field(
        default=False,
        description="the snippet is argue's own placeholder (the source returned no text): only "
        "the title is the source's words",
    )
    echoes_query: bool = Field(
        default=False,
        description="most of the item's words are the query it answered: kept as a result, "
        "never quotable (a page that repeats a query verifies nothing)",
    )

    @model_validator(mode="before")
    @classmethod
    def _provenance_from_skill(cls, data: object) -> object:
        # Records written before provenance existed: the skill says what the item was.
        if isinstance(data, dict) and "provenance" not in data and "skill" in data:
            return {**data, "provenance": provenance_of_skill(str(data["skill"]))}
        return data

    @property
    def is_document(self) -> bool:
        return self.provenance == "document"

    def provenance_words(self) -> str:
        return PROVENANCE_WORDS[self.provenance]


class ResearchCallRecord(BaseModel):
    skill: str
    query: str
    colleague: str | None = None
    sources: list[str] = Field(default_factory=list)
    status: Literal["ok", "empty", "refused", "failed"]
    note: str = ""
    elapsed_s: float = 0.0
    evidence_ids: list[str] = Field(default_factory=list)
    source_statuses: list[dict[str, object]] = Field(default_factory=list)
    query_by_argue: bool = Field(
        default=False,
        exclude_if=lambda v: not v,
        description="the query is argue's (the plan's was missing or invalid), not the model's",
    )


class ResearchRecord(BaseModel):
    persona: str
    round: RoundNo
    why: str = ""
    calls: list[ResearchCallRecord] = Field(default_factory=list)
    dropped_calls: list[str] = Field(default_factory=list, description="over the budget of 3")
    evidence: list[Evidence] = Field(default_factory=list)


NO_PLAN = "(no plan: model call failed)"
"""The ``why`` of a research record whose plan call failed (no call ran)."""


def plan_failed(record: ResearchRecord) -> bool:
    """Whether this research record stands for a plan call that failed."""
    return record.why == NO_PLAN and not record.calls


CitationVerdict = Literal[
    "quoted", "out_of_context", "near_match", "quote_not_found", "model_written", "unverified"
]
"""What code found for one ``{evidence_id, quote}``: ``quoted`` (the quote is, word for word and
on whole-word boundaries, in that retrieved document, and its sentence does not negate or
distance it), ``out_of_context`` (located, but the sentence around it negates or distances it:
"It is not true that …"), ``near_match`` (a passage close to the quote: the document's words are
shown, the citation earns nothing), ``quote_not_found`` (a real document, but the quote is not
in it, cuts a word, is too short or generic, or there is no quote), ``model_written`` (the id is
a colleague's answer, a memory or a label: never evidence), ``unverified`` (no such evidence in
this persona's registry)."""

SupportVerdict = Literal["supports", "contradicts", "unrelated", "unchecked"]
"""What the independent support check found for one located quote: whether its sentence
``supports`` the claim, ``contradicts`` it, or does not address it (``unrelated``);
``unchecked`` when no check ran (or it failed: the note says which). Only ``supports`` ranks."""


class Citation(BaseModel):
    """One citation of a claim (or a counter), as the model wrote it and as code checked it."""

    evidence_id: str
    quote: str = Field(default="", description="the span the model says it copied")
    verdict: CitationVerdict
    located: str = Field(
        default="",
        description="the document's own words at the located span (quoted, out of context, "
        "near match)",
    )
    field: Literal["snippet", "title", ""] = ""
    start: int = Field(default=0, description="offsets of the span in that field of the record")
    end: int = 0
    exact: bool = False
    similarity: float = 0.0
    note: str = Field(default="", description="why a quote was not found, in plain words")
    context_before: str = Field(
        default="", description="the document's words of the span's sentence before the span"
    )
    context_after: str = Field(
        default="", description="the document's words of the span's sentence after the span"
    )
    distancing: str = Field(
        default="",
        description="out of context: the words of the sentence that negate or distance the span",
    )
    support: SupportVerdict = "unchecked"
    support_by: str = Field(
        default="", description="who gave the support verdict: a model, or 'rules' (offline)"
    )
    support_note: str = Field(
        default="", description="the checker's reason, or why no check ran, in plain words"
    )

    @model_validator(mode="before")
    @classmethod
    def _near_match_was_quoted(cls, data: object) -> object:
        # Records written before near matches had their own verdict: quoted, not exact.
        if isinstance(data, dict) and data.get("verdict") == "quoted" and not data.get("exact"):
            return {**data, "verdict": "near_match"}
        return data

    @property
    def is_located(self) -> bool:
        """Code found the document's own words for it (shown, whatever they earn)."""
        return self.verdict in ("quoted", "out_of_context", "near_match")

    @property
    def is_quoted(self) -> bool:
        """Word for word, whole words, in a sentence that does not negate it."""
        return self.verdict == "quoted"

    @property
    def sentence(self) -> str:
        """The located span in its sentence, as the document has it."""
        return f"{self.context_before}{self.located}{self.context_after}"

    @property
    def supports_claim(self) -> bool:
        """Quoted, and the independent check found that its sentence supports the claim."""
        return self.is_quoted and self.support == "supports"


ClaimEvidenceState = Literal["quoted", "quote_not_found", "unverified", "uncited"]

ClaimBlocker = Literal[
    "refusal",
    "marker_copy",
    "unverified_reference",
    "contradicts",
    "unrelated",
    "unchecked",
    "out_of_context",
    "near_match",
    "quote_not_found",
    "unknown_evidence",
    "model_written_only",
    "uncited",
]
"""Why a claim cannot rank, in machine form (documents say it in the debate's language)."""


class Claim(BaseModel):
    id: str = Field(description="e.g. A2.c1")
    persona: str
    round: RoundNo
    text: str
    warrant: str = ""
    evidence_ids: list[str] = Field(default_factory=list)
    verified_evidence_ids: list[str] = Field(
        default_factory=list, description="cited ids of retrieved documents: verified evidence"
    )
    model_written_evidence_ids: list[str] = Field(
        default_factory=list,
        description="cited ids of the persona's own model-written items (testimony, recall, "
        "label): citable and shown, never counted as verified",
    )
    unverified_evidence_ids: list[str] = Field(
        default_factory=list, description="cited ids that are not in the persona's registry"
    )
    unverified_references: list[str] = Field(
        default_factory=list,
        description="references written in the text or warrant (URL, DOI, arXiv id, "
        "author-year, ids) that match no retrieved document of the debate",
    )
    citations: list[Citation] = Field(
        default_factory=list, description="each {evidence_id, quote} with code's verdict"
    )
    refusal: bool = Field(
        default=False,
        description="the claim's text is the model declining to answer, not an argument: "
        "never evidence-backed, never ranked",
    )
    marker_copies: list[str] = Field(
        default_factory=list,
        description="code's own markers the claim's text or warrant writes ('the source says:', "
        "'(= A-R1-E1)', '**unverified**'…): an imitation of code's account, never ranked",
    )

    @property
    def quoted_evidence_ids(self) -> list[str]:
        """Cited documents in which code located the claim's quote: the only support that counts."""
        return list(dict.fromkeys(c.evidence_id for c in self.citations if c.is_quoted))

    @property
    def quoted_citations(self) -> list[Citation]:
        return [c for c in self.citations if c.is_quoted]

    @property
    def supported_evidence_ids(self) -> list[str]:
        """Cited documents whose quoted sentence the support check found to support the claim."""
        return list(dict.fromkeys(c.evidence_id for c in self.citations if c.supports_claim))

    @property
    def evidence_backed(self) -> bool:
        """A quote located word for word in a retrieved document, in a sentence that does not
        negate it and that the support check found to support the claim; and no unverified
        reference.

        A record written before quotes (or support checks) existed is not evidence-backed: its
        support was never checked against the documents' words."""
        return (
            bool(self.supported_evidence_ids)
            and not self.unverified_references
            and not self.refusal
            and not self.marker_copies
        )

    @property
    def not_ranked_because(self) -> ClaimBlocker | None:
        """Why this claim cannot be among the strongest arguments (None: it can), the first
        reason in :data:`ClaimBlocker` order. References found in the text at render time
        (``ReferenceIndex.unverified``) are the caller's to add."""
        if self.refusal:
            return "refusal"
        if self.marker_copies:
            return "marker_copy"
        if self.unverified_references:
            return "unverified_reference"
        if self.supported_evidence_ids:
            return None
        quoted = self.quoted_citations
        supports = {c.support for c in quoted}
        for support in ("contradicts", "unrelated", "unchecked"):
            if support in supports:
                return support
        verdicts = {c.verdict for c in self.citations}
        for verdict in ("out_of_context", "near_match", "quote_not_found"):
            if verdict in verdicts:
                return verdict
        if self.verified_evidence_ids:
            return "quote_not_found"
        if self.unverified_evidence_ids:
            return "unknown_evidence"
        if self.model_written_evidence_ids:
            return "model_written_only"
        return "uncited"

    @property
    def evidence_state(self) -> ClaimEvidenceState:
        """quoted · cited, quote not found · unverified (references that match nothing) ·
        uncited. An unverified reference in the text outranks a quote: the claim also says
        something no document supports. Citing only model-written items is ``uncited``."""
        if self.unverified_references:
            return "unverified"
        if self.quoted_evidence_ids:
            return "quoted"
        if self.verified_evidence_ids:
            return "quote_not_found"
        if self.unverified_evidence_ids:
            return "unverified"
        return "uncited"


class ArgumentRecord(BaseModel):
    persona: str
    round: RoundNo
    position: str
    claims: list[Claim] = Field(default_factory=list)
    taxonomy_tags: list[str] = Field(default_factory=list)
    dropped_tags: list[str] = Field(default_factory=list)


class Counter(BaseModel):
    target_claim_id: str
    kind: Literal["refute", "undercut", "question"]
    text: str
    evidence_ids: list[str] = Field(default_factory=list)
    valid_target: bool = False
    target_note: str = Field(default="", description="why the target does not count, if not")
    verified_evidence_ids: list[str] = Field(default_factory=list)
    citations: list[Citation] = Field(
        default_factory=list,
        description="each {evidence_id, quote} the counter cites, checked like a claim's",
    )

    @property
    def quoted_citations(self) -> list[Citation]:
        return [c for c in self.citations if c.is_quoted]


class Concession(BaseModel):
    round: RoundNo
    from_persona: str
    to_persona: str | None
    claim_id: str
    kind: Literal["full", "partial"]
    text: str
    reason: str
    evidence_ids: list[str] = Field(default_factory=list)
    valid_target: bool = False
    target_note: str = Field(default="", description="why the target does not count, if not")
    citations: list[Citation] = Field(
        default_factory=list,
        description="each {evidence_id, quote} the concession cites, checked like a claim's",
    )


class NextAsk(BaseModel):
    colleague: str
    question: str


class RebuttalRecord(BaseModel):
    persona: str
    round: RoundNo
    counters: list[Counter] = Field(default_factory=list)
    concessions: list[Concession] = Field(default_factory=list)
    common_ground: list[str] = Field(default_factory=list)
    declined_to_concede: bool = False
    reasked_for_concession: bool = False
    next_ask: NextAsk | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="The colleague question for the next round, decided in this rebuttal and "
        "answered beside the reflections (so a round is three model waves)",
    )


class BeliefUpdate(BaseModel):
    belief: str
    new_strength: float = Field(ge=0.0, le=1.0)
    because_claim_id: str | None = None


class ReflectionRecord(BaseModel):
    persona: str
    round: RoundNo
    confidence: float = Field(ge=0.0, le=1.0)
    belief_updates: list[BeliefUpdate] = Field(default_factory=list)
    would_change_my_mind: str = ""
    position_now: str = ""
    answer: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="answer-seeking debates only: the persona's current short answer",
    )


class ReasonPart(BaseModel):
    """One part of a score component's reason in machine form: a label key and its fields."""

    key: str = Field(description="a label in argue.records.labels, e.g. 'score_counters'")
    fields: dict[str, str | int | list[str]] = Field(default_factory=dict)


class ScoreComponent(BaseModel):
    name: str
    weight: float
    value: float | None = Field(description="0-1; None when it could not be measured")
    reason: str = Field(description="the reason in English, as recorded (the audit sentence)")
    parts: list[ReasonPart] | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="the same reason as label keys and fields, so documents can say it in the "
        "debate's language; None in records written before it existed",
    )


class PersonaRoundScore(BaseModel):
    persona: str
    components: list[ScoreComponent]
    total: float
    max_total: float
    claim_scores: dict[str, float] = Field(default_factory=dict)


class JudgeVerdictRecord(BaseModel):
    coherence: dict[str, float] = Field(default_factory=dict)
    reasons: dict[str, str] = Field(default_factory=dict)
    synthesis_ready: bool = False
    ready_reason: str = ""
    available: bool = True
    unmatched: list[str] = Field(
        default_factory=list, description="ratings the judge gave to names that are no persona"
    )


class RoundScore(BaseModel):
    round: RoundNo
    personas: dict[str, PersonaRoundScore]
    judge: JudgeVerdictRecord
    novel_claims: int
    new_verified_evidence: int
    committed_at: str = Field(default_factory=utc_now)


class DebateState(BaseModel):
    status: DebateStatus = "running"
    round: int = Field(default=0, ge=0, le=MAX_ROUNDS)
    phase: str = "framing"
    termination: Termination | None = None
    termination_detail: str = ""
    pid: int | None = None
    updated_at: str = Field(default_factory=utc_now)
    error: str | None = None
