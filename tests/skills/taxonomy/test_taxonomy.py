from __future__ import annotations

from pydantic import BaseModel

from argue.domain import BRIDGES
from argue.llm import ScriptedModel
from argue.llm.base import Message, ModelUnavailableError
from argue.skills.taxonomy import BRIDGE_KEYWORDS, classify, classify_with_model, taxonomy_skill

ARGUMENT = (
    "The proof rests on a hidden assumption about the measure, and it ignores an edge case "
    "where the orbit diverges; its precise definition of density also leaves an unstated bias."
)


def test_every_bridge_has_a_curated_keyword_list() -> None:
    assert set(BRIDGE_KEYWORDS) == set(BRIDGES)
    for keywords in BRIDGE_KEYWORDS.values():
        assert 18 <= len(keywords) <= 30
        assert len(set(keywords)) == len(keywords)


def test_keyword_classifier_orders_tags_by_confidence_and_explains() -> None:
    result = classify(ARGUMENT)
    assert result.method == "keywords"
    assert result.tags == ["stealth", "precision", "fragility"]
    assert result.confidence["stealth"] > result.confidence["precision"] > 0
    assert result.matched["precision"] == ["proof", "precise", "definition"]
    assert result.confidence["precision"] > result.confidence["fragility"]
    assert all(0.0 <= value <= 1.0 for value in result.confidence.values())
    assert result.matched["stealth"] == ["hidden", "assumption", "unstated", "bias"]
    assert "fragility matched edge case" in result.note
    assert classify(ARGUMENT) == result


def test_keyword_classifier_reads_french_and_reports_no_match() -> None:
    assert classify("Une hypothèse implicite fausse la preuve").tags[0] == "stealth"
    empty = classify("The weather was pleasant.")
    assert empty.tags == [] and empty.confidence == {}
    assert "no bridge keyword matched" in empty.note


async def test_model_tags_outside_the_vocabulary_are_dropped_and_named() -> None:
    def responder(messages: list[Message], output: type[BaseModel] | None) -> dict:
        assert output is not None
        return {
            "tags": [
                {"tag": "Fragility", "confidence": 0.7},
                {"tag": "ethics", "confidence": 0.95},
                {"tag": "precision", "confidence": 0.9},
                {"tag": "fragility", "confidence": 0.4},
            ]
        }

    model = ScriptedModel(responder)
    result = await classify_with_model(ARGUMENT, model)
    assert result.method == "model"
    assert result.tags == ["precision", "fragility"]
    assert result.confidence == {"precision": 0.9, "fragility": 0.7}
    assert "dropped tag(s) outside the vocabulary: ethics" in result.note
    [request] = model.requests
    assert request.purpose == "taxonomy"
    prompt = "\n".join(message.content for message in request.messages)
    assert ARGUMENT in prompt
    assert all(bridge in prompt for bridge in BRIDGES)


async def test_model_failure_falls_back_to_keywords_and_says_so() -> None:
    model = ScriptedModel(lambda messages, output: ModelUnavailableError("fake", "503 x3"))
    result = await classify_with_model(ARGUMENT, model)
    assert result.method == "keywords"
    assert result.tags == classify(ARGUMENT).tags
    assert "model call failed (fake: 503 x3)" in result.note
    assert "keyword classifier instead" in result.note


async def test_taxonomy_skill_returns_one_item_per_tag() -> None:
    result = await taxonomy_skill(ARGUMENT)
    assert result.skill == "taxonomy" and result.status == "ok"
    assert [item.id for item in result.items] == [
        "taxonomy:stealth",
        "taxonomy:precision",
        "taxonomy:fragility",
    ]
    assert result.items[0].snippet.startswith("hidden variables and unstated assumptions")
    assert "confidence 0.87" in result.items[0].snippet


async def test_taxonomy_skill_is_empty_without_tags_and_refuses_empty_text() -> None:
    empty = await taxonomy_skill("The weather was pleasant.")
    assert empty.status == "empty" and empty.items == []
    assert "no bridge keyword matched" in empty.note
    refused = await taxonomy_skill("   ")
    assert refused.status == "refused" and "empty" in refused.note


async def test_taxonomy_skill_uses_the_model_when_given() -> None:
    model = ScriptedModel(lambda m, o: {"tags": [{"tag": "loyalty", "confidence": 0.6}]})
    result = await taxonomy_skill(ARGUMENT, model=model)
    assert [item.id for item in result.items] == ["taxonomy:loyalty"]
    assert result.items[0].score == 0.6
