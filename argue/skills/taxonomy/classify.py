"""Tag a text with the six bridges: by keywords (deterministic) or by asking a model.

A model may only use the fixed vocabulary: anything else it returns is dropped and the note says
which. If the model call fails, the keyword classifier answers and the note says so.
"""

from __future__ import annotations

import time
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from argue.domain import BRIDGE_MEANINGS, BRIDGES, Bridge
from argue.llm.base import ChatModel, Message, ModelError
from argue.personas.keywords import match_keywords, tokenise
from argue.skills.base import SkillItem, SkillResult
from argue.skills.taxonomy.vocabulary import BRIDGE_KEYWORDS

SKILL_NAME = "taxonomy"
# Confidence from the number n of distinct keywords matched: 1 - 0.6**n (0.40, 0.64, 0.78, ...).
_KEYWORD_DECAY = 0.6


class TaxonomyResult(BaseModel):
    tags: list[Bridge] = Field(description="Bridges that apply, most confident first")
    confidence: dict[Bridge, float] = Field(description="Confidence 0-1 for each tag")
    method: Literal["keywords", "model"]
    note: str = Field(description="How the tags were obtained, in plain words")
    matched: dict[Bridge, list[str]] = Field(
        default_factory=dict, description="Keywords that triggered each tag (keyword method)"
    )


class BridgeTag(BaseModel):
    tag: str = Field(max_length=40, description="One of: " + ", ".join(BRIDGES))
    confidence: float = Field(ge=0.0, le=1.0, description="How clearly the tag applies, 0-1")


class BridgeTags(BaseModel):
    tags: list[BridgeTag] = Field(
        default_factory=list,
        max_length=len(BRIDGES),
        description="Bridges that apply; empty if none does",
    )


def _ordered(confidence: dict[Bridge, float]) -> list[Bridge]:
    return sorted(confidence, key=lambda bridge: (-confidence[bridge], BRIDGES.index(bridge)))


def classify(text: str) -> TaxonomyResult:
    tokens = tokenise(text)
    matched: dict[Bridge, list[str]] = {}
    for bridge in BRIDGES:
        found = match_keywords(tokens, BRIDGE_KEYWORDS[bridge])
        if found:
            matched[bridge] = found
    confidence = {
        bridge: round(1.0 - _KEYWORD_DECAY ** len(found), 3) for bridge, found in matched.items()
    }
    tags = _ordered(confidence)
    confidence = {bridge: confidence[bridge] for bridge in tags}
    if tags:
        note = "keywords: " + "; ".join(
            f"{bridge} matched {', '.join(matched[bridge])}" for bridge in tags
        )
    else:
        note = "keywords: no bridge keyword matched"
    return TaxonomyResult(
        tags=tags,
        confidence=confidence,
        method="keywords",
        note=note,
        matched={bridge: matched[bridge] for bridge in tags},
    )


def _fallback(text: str, why: str) -> TaxonomyResult:
    result = classify(text)
    result.note = f"{why}; used the keyword classifier instead ({result.note})"
    return result


def taxonomy_messages(text: str) -> list[Message]:
    vocabulary = "\n".join(f"- {bridge}: {BRIDGE_MEANINGS[bridge]}" for bridge in BRIDGES)
    system = (
        "You tag an argument with the bridges of a fixed taxonomy. The vocabulary is exactly:\n"
        f"{vocabulary}\n"
        "Use only these tag names, spelled as shown. Give each tag that clearly applies with a "
        "confidence between 0 and 1; give no tags if none applies."
    )
    return [Message(role="system", content=system), Message(role="user", content=text)]


async def classify_with_model(text: str, model: ChatModel) -> TaxonomyResult:
    try:
        reply = await model.complete(taxonomy_messages(text), output=BridgeTags, purpose="taxonomy")
    except ModelError as error:
        return _fallback(text, f"model call failed ({error})")
    value = reply.value
    try:
        if isinstance(value, str):
            parsed = BridgeTags.model_validate_json(value)
        elif isinstance(value, BridgeTags):
            parsed = value
        else:
            parsed = BridgeTags.model_validate(value, from_attributes=True)
    except ValidationError as error:
        first = error.errors()[0]["msg"]
        return _fallback(text, f"model output was not a tag list ({first})")

    confidence: dict[Bridge, float] = {}
    dropped: list[str] = []
    for entry in parsed.tags:
        tag = entry.tag.strip().lower()
        if tag in BRIDGES:
            bridge = tag
            confidence[bridge] = max(confidence.get(bridge, 0.0), entry.confidence)
        elif entry.tag not in dropped:
            dropped.append(entry.tag)
    tags = _ordered(confidence)
    confidence = {bridge: confidence[bridge] for bridge in tags}
    note = f"model {model.provider}/{model.model}: {len(tags)} tag(s)"
    if dropped:
        note += f"; dropped tag(s) outside the vocabulary: {', '.join(dropped)}"
    return TaxonomyResult(tags=tags, confidence=confidence, method="model", note=note)


def _as_skill_result(query: str, result: TaxonomyResult, elapsed_s: float) -> SkillResult:
    items = [
        SkillItem(
            id=f"taxonomy:{bridge}",
            title=bridge.capitalize(),
            snippet=f"{BRIDGE_MEANINGS[bridge]} (confidence {result.confidence[bridge]:.2f})",
            source=SKILL_NAME,
            score=result.confidence[bridge],
            provenance="label",
        )
        for bridge in result.tags
    ]
    return SkillResult.from_items(SKILL_NAME, query, items, note=result.note, elapsed_s=elapsed_s)


async def taxonomy_skill(query: str, *, model: ChatModel | None = None) -> SkillResult:
    """Tag ``query`` (keywords, or ``model`` when given); one item per tag, empty if none."""
    if not query.strip():
        return SkillResult.refused(SKILL_NAME, query, "nothing to classify: the text is empty")
    started = time.perf_counter()
    result = await classify_with_model(query, model) if model is not None else classify(query)
    return _as_skill_result(query, result, time.perf_counter() - started)
