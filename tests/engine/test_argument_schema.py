"""The per-call argument schema (an enum of the persona's evidence ids) is built cheaply, and
reads as the one built field by field (issue 43 item 4: three classes and their JSON schema
built per argument request were ~15 ms of CPU on the critical path of a round's first wave).

Teeth (broken on purpose once, the test named failed): the ids left out of the JSON schema
(the placeholder not replaced) → ``test_the_schema_is_the_one_built_field_by_field``."""

from __future__ import annotations

from typing import Annotated

import pytest
from pydantic import Field, ValidationError, WithJsonSchema

from argue.engine import schemas
from argue.engine.schemas import ArgumentDraft, ArgumentForm, argument_model


def _field_by_field(ids: tuple[str, ...]) -> type[ArgumentDraft]:
    """The argument schema as it was built before: every class anew, with the enum."""
    names = list(dict.fromkeys(ids))
    evidence_id = Annotated[
        str,
        Field(max_length=300),
        WithJsonSchema(
            {"type": "string", "enum": names, "description": "An id from the evidence table"}
        ),
    ]
    return schemas._argument_schema(evidence_id, "ArgumentDraft")


@pytest.mark.parametrize(
    "ids", [("E1", "E2"), tuple(f"E{i}" for i in range(12)), ('a"b', "é", "E1", 'a"b')]
)
def test_the_schema_is_the_one_built_field_by_field(ids: tuple[str, ...]):
    model = argument_model(ids)
    reference = _field_by_field(ids)
    assert model.model_json_schema() == reference.model_json_schema()
    assert model.model_json_schema(mode="serialization") == reference.model_json_schema(
        mode="serialization"
    )
    shown = model.model_json_schema()["$defs"]["CitationDraft"]["properties"]["evidence_id"]
    assert shown["enum"] == list(dict.fromkeys(ids))
    # Each caller gets its own copy to change (adapters tighten schemas in place).
    model.model_json_schema()["$defs"].clear()
    assert model.model_json_schema() == reference.model_json_schema()
    assert model.__name__ == "ArgumentDraft" and issubclass(model, ArgumentDraft)
    assert model.prompt_form is ArgumentForm  # type: ignore[attr-defined]


def test_it_validates_as_the_one_built_field_by_field():
    model, reference = argument_model(("E1", "E2")), _field_by_field(("E1", "E2"))

    def answer(*citations: dict[str, str]) -> dict[str, object]:
        claim = {"text": "The sieve bound holds.", "citations": list(citations)}
        return {"position": "p", "claims": [claim]}

    answers = [
        answer({"evidence_id": "E9", "quote": "q"}),
        answer({"evidence_id": "E" * 301, "quote": "q"}),
        answer({"evidence_id": "E1"}),
        {"position": "p", "claims": []},
    ]
    for answer in answers:
        try:
            expected = reference.model_validate(answer).model_dump()
        except ValidationError:
            with pytest.raises(ValidationError):
                model.model_validate(answer)
        else:
            assert model.model_validate(answer).model_dump() == expected
    # An id outside the table is checked later (marked unverified), never refused here.
    assert model.model_validate(answers[0]).claims[0].citations[0].evidence_id == "E9"
