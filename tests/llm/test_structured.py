from __future__ import annotations

import pytest
from pydantic import ValidationError

from argue.llm._structured import extract_json_text, parse_output, schema_instruction
from tests.llm.wire import VALID_VERDICT, Verdict


@pytest.mark.parametrize(
    "text",
    [
        '{"stance": "against", "confidence": 0.7, "reasons": ["x"]}',
        '```json\n{"stance": "against", "confidence": 0.7, "reasons": ["x"]}\n```',
        'Here you go:\n{"stance": "against", "confidence": 0.7, "reasons": ["x"]}\nHope it helps.',
    ],
)
def test_json_is_found_in_common_wrappings(text: str):
    assert parse_output(text, Verdict).stance == "against"


def test_invalid_json_raises_a_validation_error():
    with pytest.raises(ValidationError, match="Invalid JSON"):
        parse_output('{"stance": ', Verdict)
    assert extract_json_text("no json here") == "no json here"


def test_schema_instruction_embeds_the_schema():
    instruction = schema_instruction(Verdict)
    assert "JSON" in instruction
    for field in VALID_VERDICT:
        assert f'"{field}"' in instruction


def test_raw_control_characters_inside_strings_are_tolerated():
    from pydantic import BaseModel

    from argue.llm._structured import parse_output

    class Note(BaseModel):
        text: str

    assert parse_output('{"text": "line one\nline two"}', Note).text == "line one\nline two"
