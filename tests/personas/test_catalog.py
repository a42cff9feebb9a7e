from __future__ import annotations

import os
from pathlib import Path

import pytest

from argue.domain import BRIDGES, Persona
from argue.personas import (
    PersonaFileError,
    UnknownPersonaError,
    load_builtin_personas,
    load_catalog,
    persona_card,
)
from tests.personas.personas_toml import VALID_ZED, write_user_persona

# Twelve built-ins, one per field of issue 9 (see tests/personas/test_topics.py).
BUILTIN_NAMES = {
    "embry", "horus", "brandon", "mirela", "vesper", "aldous",
    "odile", "lucien", "noor", "hana", "tomas", "priya",
}  # fmt: skip


@pytest.fixture
def home() -> Path:
    return Path(os.environ["ARGUE_HOME"])


def test_every_builtin_persona_loads_and_validates() -> None:
    personas = load_builtin_personas()
    assert {persona.name for persona in personas} == BUILTIN_NAMES
    for persona in personas:
        assert isinstance(persona, Persona)
        Persona.model_validate(persona.model_dump())
        # English and French, with the everyday words of each field (routing, issue 21)
        assert 30 <= len(persona.expertise) <= 160, persona.name
        assert all(keyword == keyword.lower() for keyword in persona.expertise)
        assert set(persona.bridges) == set(BRIDGES)
        assert all(0.0 <= weight <= 1.0 for weight in persona.bridges.values())
        assert persona.bdi.beliefs and persona.bdi.desires and persona.bdi.intentions
        assert persona.colleagues
        assert set(persona.colleagues) <= BUILTIN_NAMES - {persona.name}


def test_builtins_match_the_spec_and_lead_with_distinct_bridges() -> None:
    catalog = load_catalog()
    assert catalog.get("embry").dominant_bridge() == ("precision", 0.85)
    assert catalog.get("horus").dominant_bridge() == ("resilience", 0.80)
    assert "complexity theory" in catalog.get("brandon").expertise
    assert catalog.get("vesper").dominant_bridge()[0] == "corruption"
    assert len({persona.dominant_bridge()[0] for persona in catalog}) == 6


def test_catalog_lookup_is_case_insensitive_and_unknown_lists_known_names() -> None:
    catalog = load_catalog()
    assert catalog.get("EMBRY").name == "embry"
    assert "Horus" in catalog
    assert "nobody" not in catalog
    assert catalog.names() == sorted(BUILTIN_NAMES)
    assert len(catalog.all()) == len(BUILTIN_NAMES) == 12
    with pytest.raises(UnknownPersonaError) as raised:
        catalog.get("nobody")
    message = str(raised.value)
    assert "nobody" in message
    assert "embry" in message and "vesper" in message


def test_user_persona_is_added_and_one_named_like_a_builtin_overrides_it(home: Path) -> None:
    zed_path = write_user_persona(home, "zed.toml", VALID_ZED)
    override = VALID_ZED.replace('name = "zed"', 'name = "embry"').replace(
        'role = "marine biologist"', 'role = "retired test pilot"'
    )
    override = override.replace('colleagues = ["embry"]', 'colleagues = ["zed"]')
    embry_path = write_user_persona(home, "embry.toml", override)

    catalog = load_catalog()
    assert catalog.get("zed").role == "marine biologist"
    assert catalog.source("zed") == str(zed_path)
    assert catalog.get("embry").role == "retired test pilot"
    assert catalog.source("embry") == str(embry_path)
    assert catalog.source("horus") == "builtin"
    assert len(catalog) == len(BUILTIN_NAMES) + 1


def test_explicit_user_dir_is_read_instead_of_argue_home(tmp_path: Path, home: Path) -> None:
    write_user_persona(home, "zed.toml", VALID_ZED.replace("0.9", "7"))  # broken, must be ignored
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "zed.toml").write_text(VALID_ZED, encoding="utf-8")
    assert "zed" in load_catalog(user_dir=other)


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        (
            VALID_ZED.replace("precision = 0.3", "precision = 1.7"),
            "bridges.precision",
            "Input should be less than or equal to 1",
        ),
        (VALID_ZED.replace('role = "marine biologist"\n', ""), "role", "Field required"),
        (VALID_ZED.replace("stealth = 0.5\n", ""), "bridges", "missing weight(s) for: stealth"),
        (VALID_ZED.replace("precision = 0.3", "precison = 0.3"), "bridges.precison", "Input"),
        (VALID_ZED.replace("style =", "colour = 1\nstyle ="), "colour", "Extra inputs are not"),
        (VALID_ZED.replace("style =", "styl ="), "style", "Field required (and 1 more problem(s))"),
        (VALID_ZED.replace("strength = 0.8", "strength = -1"), "bdi.beliefs.0.strength", ">="),
        (VALID_ZED.replace('name = "zed"', 'name = "bob"'), "name", "must match the file name"),
        (VALID_ZED.replace('["embry"]', '["ghost"]'), "colleagues", "unknown persona(s) ghost"),
        (VALID_ZED.replace('["embry"]', '["zed"]'), "colleagues", "lists itself"),
    ],
)
def test_malformed_user_persona_names_file_and_field(
    home: Path, text: str, field: str, problem: str
) -> None:
    write_user_persona(home, "zed.toml", text)
    with pytest.raises(PersonaFileError) as raised:
        load_catalog()
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(str(home / "personas" / "zed.toml") + f": {field}: ")
    assert raised.value.field == field
    if problem != ">=":
        assert problem in message
    else:
        assert "greater than or equal to 0" in message


def test_toml_syntax_error_names_file_and_line(home: Path) -> None:
    broken = VALID_ZED.replace('lens = "ecological"', 'lens = "ecological')
    write_user_persona(home, "zed.toml", broken)
    with pytest.raises(PersonaFileError) as raised:
        load_catalog()
    message = str(raised.value)
    assert "zed.toml" in message
    assert "invalid TOML" in message
    assert "line 4" in message


def test_persona_card_is_compact_and_turns_bridges_into_guidance() -> None:
    catalog = load_catalog()
    for persona in catalog:
        card = persona_card(persona)
        assert len(card) < 1500
        assert persona.display_name in card and persona.lens in card
        assert persona.bdi.beliefs[0].statement in card
    embry = persona_card(catalog.get("embry"))
    assert "high Precision (0.85) → formal proofs and exact definitions" in embry
    assert "Fragility → edge cases" not in embry  # 0.60 is not high
    horus = persona_card(catalog.get("horus"))
    assert "high Resilience (0.80) → practical implications" in horus
    vesper = persona_card(catalog.get("vesper"))
    assert "Fragility (0.75) → edge cases and failure modes" in vesper
    assert "low Loyalty" in vesper


def test_persona_card_stays_under_the_limit_for_a_verbose_user_persona(home: Path) -> None:
    long_statement = "x" * 400
    verbose = VALID_ZED + "".join(
        f'\n[[bdi.beliefs]]\nstatement = "{long_statement} {n}"\nstrength = 0.9\n'
        for n in range(10)
    )
    verbose = verbose.replace('style = "patient"', f'style = "{"very " * 200}patient"')
    write_user_persona(home, "zed.toml", verbose)
    card = persona_card(load_catalog().get("zed"))
    assert len(card) <= 1500
    assert "Bridge weights:" in card
